"""Running a tournament: which games are left to play, where they run (this process, worker
processes or a Dask cluster), writing each finished game to the records, and the result, which
is computed from the records."""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Protocol

from bots import bot_output
from bots.lineup import cmd_specs, fatal_fault, program_failure
from bots.registry import make_bot
from bots.tournament.play import GameJob, close_cached_bots, play_one
from bots.tournament.records import GameRecord, RecordsError, RecordsWriter, read_records
from bots.tournament.report import TournamentResult
from bots.tournament.schedule import Settings, Shard, lineup
from bots.tournament.version import installed_version


class Progress(Protocol):
    def start(self, total: int, done: Sequence[GameRecord]) -> None:
        """Before the first game: the games of this run (shard) and those already recorded."""

    def game(self, record: GameRecord) -> None:
        """After each finished game."""


def run_tournament(bots: Sequence[str], *, games: int, players: int, seed: str = "0",
                   workers: int = 1, shard: Shard | None = None, records: Path | None = None,
                   resume: bool = False, cluster: str | None = None,
                   cluster_cmd_bots: bool = False,
                   progress: Progress | None = None) -> TournamentResult:
    """Play the games of ``shard`` (default: all) not yet in ``records`` and return the result
    of all its recorded games. ``cluster`` is a Dask scheduler address or ``local:K``."""
    shard = shard or Shard()
    settings = Settings(tuple(bots), players, seed, games, installed_version())
    settings.check()
    if cluster is not None:
        from bots.tournament.cluster import check_specs
        check_specs(settings.bots, allow_cmd=cluster_cmd_bots)
    for spec in set(settings.bots):
        make_bot(spec).close()  # fail fast on a bad spec, before any worker starts
    writer = RecordsWriter(records, settings, shard, resume=resume) if records else None
    try:
        done = list(writer.done) if writer else []
        finished = {r.game for r in done}
        wanted = settings.games_of(shard)
        extra = finished - set(wanted)
        if extra:
            raise RecordsError(f"{records} holds game(s) outside this run: {sorted(extra)[:5]}")
        jobs = [GameJob(settings.bots, players, seed, g) for g in wanted if g not in finished]
        if progress is not None:
            progress.start(len(wanted), done)
        # A program that cannot play its first game would only give a run of random moves.
        first = cmd_specs(lineup(settings.bots, players))
        played = _execute(jobs, workers, cluster)
        try:
            for record in played:
                if first:
                    fault = fatal_fault(record.faults, record.seats, first)
                    if fault is not None:
                        raise program_failure(fault, record.seats[fault.seat or 0])
                    first -= set(record.seats)
                if writer is not None:
                    writer.append(record)
                done.append(record)
                if progress is not None:
                    progress.game(record)
        finally:
            close = getattr(played, "close", None)
            if close is not None:
                close()  # stop the workers of an abandoned run
    finally:
        if writer is not None:
            writer.close()
    if records is not None:  # the result is what the records hold
        saved = read_records(records)
        done = list(saved.games) if saved else []
    return TournamentResult(settings, sorted(done, key=lambda r: r.game))


def _execute(jobs: list[GameJob], workers: int, cluster: str | None) -> Iterable[GameRecord]:
    if not jobs:
        return ()
    if cluster is not None:
        from bots.tournament.cluster import play_on_cluster
        return play_on_cluster(cluster, jobs)
    if workers <= 1:
        return _in_process(jobs)
    return _in_pool(jobs, workers)


def _in_process(jobs: list[GameJob]) -> Iterator[GameRecord]:
    try:
        for job in jobs:
            yield play_one(job)
    finally:
        close_cached_bots()


def _in_pool(jobs: list[GameJob], workers: int) -> Iterator[GameRecord]:
    # "spawn": workers start clean (no copied threads or pipes of process bots).
    context = multiprocessing.get_context("spawn")
    # Spawned workers start clean: hand them where bot lines and traces go.
    with context.Pool(min(workers, len(jobs)), initializer=bot_output.configure,
                      initargs=tuple(bot_output.settings().values())) as pool:
        yield from pool.imap_unordered(play_one, jobs)
