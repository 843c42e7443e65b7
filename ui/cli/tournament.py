"""``solstice tournament``: engine-only games between bots with seats rotated and every deal
played from every seat; win rates with 95 % confidence intervals (Wilson) per bot, seat and
faction, a comparison paired by deal, and mean scores. Games can be recorded durably and
resumed, split into shards (``tournament merge`` combines them) and run on a Dask cluster."""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:  # the bots and rich are imported when a command runs, not at start-up
    from bots.tournament import GameRecord, TournamentResult

app = typer.Typer()


class _LiveProgress:
    """A rich progress bar on stderr: games done, rate, time left and running win rates."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        self._bar = Progress(TextColumn("{task.description}"), BarColumn(),
                             MofNCompleteColumn(), TextColumn("{task.fields[status]}"),
                             console=Console(stderr=True))
        self._wins: Counter[str] = Counter()
        self._games = 0
        self._played = 0
        self._total = 0
        self._started = time.perf_counter()

    def start(self, total: int, done: Sequence[GameRecord]) -> None:
        self._total = total
        for record in done:
            self._count(record)
        self._task = self._bar.add_task("games", total=total, completed=len(done),
                                        status=self._status())
        self._started = time.perf_counter()
        self._bar.start()

    def game(self, record: GameRecord) -> None:
        self._count(record)
        self._played += 1
        self._bar.update(self._task, advance=1, status=self._status())

    def stop(self) -> None:
        self._bar.stop()

    def _count(self, record: GameRecord) -> None:
        self._games += 1
        for bot in record.seats:
            self._wins[bot] += 0  # every bot is listed, winless ones too
        self._wins[record.seats[record.winner]] += 1

    def _status(self) -> str:
        elapsed = time.perf_counter() - self._started
        rate = self._played / elapsed if self._played and elapsed > 0 else 0.0
        left = f"~{_duration((self._total - self._games) / rate)} left" if rate else ""
        wins = "  ".join(f"{bot} {100 * n / self._games:.0f}%"
                         for bot, n in self._wins.most_common())
        return f"{rate:.2f} games/s {left}  {wins}"


def _duration(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes}:{secs:02}"


def _fail(message: str, code: int = 2) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code)


@app.callback(invoke_without_command=True)
def tournament(
    ctx: typer.Context,
    bots: str | None = typer.Option(
        None, "--bots", help="Comma-separated bot specs, one per seat (at least two "
        "different bots; SPEC*K: K seats of SPEC; the last one, or --fill, fills the free "
        "seats). A spec with options uses ':' (ismcts:time=1.0); a cmd: spec takes the rest "
        "of the list, so it comes last; quote it. Required unless --resume takes it from the "
        "records."),
    fill: str | None = typer.Option(
        None, "--fill", help="The bot of the seats --bots leaves free (e.g. --bots "
        "'cmd:./mybot' --fill greedy --players 4: the program against three greedy bots)."),
    games: int | None = typer.Option(
        None, "--games", "-g", min=1, help="Games in the whole run (default 100; use a "
        "multiple of --players so every deal is played from every seat)."),
    seed: str | None = typer.Option(
        None, "--seed", "-s", help="Seed (default '0'): the same seed deals the same games."),
    players: int | None = typer.Option(None, "--players", "-n", min=2, max=4,
                                       help="Players (2-4, default 2)."),
    workers: int = typer.Option(1, "--workers", "-w", min=1, help="Worker processes."),
    records: Path | None = typer.Option(
        None, "--records", help="Append one JSON line per finished game to this file "
        "(flushed to disk at once); the results are computed from it."),
    resume: bool = typer.Option(
        False, "--resume", help="Continue the run in --records: skip its finished games, "
        "play the rest. Settings not given are taken from the file."),
    shard: str | None = typer.Option(
        None, "--shard", help="Play only part K of N of the run (every N-th deal; default: "
        "all); combine the parts' records with 'solstice tournament merge'."),
    cluster: str | None = typer.Option(
        None, "--cluster", help="Run the games on a Dask cluster: tcp://HOST:8786 (a running "
        "scheduler) or local:K (K local workers on 127.0.0.1). Needs solstice\\[cluster]."),
    cluster_cmd_bots: bool = typer.Option(
        False, "--cluster-cmd-bots", help="Allow cmd: bots with --cluster (their program "
        "must be installed on every worker)."),
    as_json: bool = typer.Option(False, "--json", help="Print only the results and every "
                                 "game's outcome as JSON."),
) -> None:
    """Play a tournament between bots and report win rates (95 % CI) per bot, seat and
    faction, a comparison paired by deal, and mean scores; 'tournament merge' combines the
    records of a run's shards."""
    if ctx.invoked_subcommand is not None:
        return
    from bots.lineup import BotProgramError, seating, seats_of
    from bots.registry import BotSpecError, split_bot_list
    from bots.tournament import RecordsError, ScheduleError, Shard, read_records, run_tournament
    from bots.tournament.cluster import ClusterError

    if resume and records is None:
        raise _fail("--resume needs --records FILE")
    if cluster is not None and workers > 1:
        raise _fail("--workers is for this machine; with --cluster the cluster's workers "
                    "play the games")
    try:
        part = Shard.parse(shard) if shard is not None else Shard()
        saved = read_records(records) if resume and records else None
        lineup: list[str] = split_bot_list(bots) if bots else []
        if saved is not None:  # what the command line leaves out comes from the records
            lineup = lineup or list(saved.settings.bots)  # as saved: a cmd: may be anywhere
            games = games or saved.settings.games
            seed = seed if seed is not None else saved.settings.seed
            players = players or saved.settings.players
            part = part if shard is not None else saved.shard
        if not lineup:
            raise BotSpecError("--bots is required (e.g. --bots greedy,random)")
        if not as_json:  # who sits where, before the first game (--json has it in "bots")
            typer.echo(seating(lineup, players or 2, fill))
        if fill is not None:  # written out seat by seat: the records hold the whole lineup
            lineup = seats_of(lineup, players or 2, fill)
        progress = _LiveProgress() if not as_json and sys.stderr.isatty() else None
        started = time.perf_counter()
        try:
            result = run_tournament(
                lineup, games=games or 100, players=players or 2,
                seed="0" if seed is None else seed, workers=workers, shard=part,
                records=records, resume=resume, cluster=cluster,
                cluster_cmd_bots=cluster_cmd_bots, progress=progress)
        finally:
            if progress is not None:
                progress.stop()
    except (BotSpecError, RecordsError, ScheduleError, ClusterError) as exc:
        raise _fail(str(exc)) from None
    except BotProgramError as exc:
        raise _fail(str(exc), 1) from None
    except KeyboardInterrupt:
        where = (f"; the finished games are in {records}: continue with --resume"
                 if records else "")
        raise _fail(f"interrupted{where}", 130) from None
    if as_json:
        typer.echo(json.dumps(result.to_json()))
        return
    where = f"cluster {cluster}" if cluster else f"{workers} worker(s)"
    part_text = f", shard {part}" if part.count > 1 else ""
    typer.echo(f"{result.games} games{part_text}, {result.players} players, seed "
               f"{result.settings.seed!r}, {where}, {time.perf_counter() - started:.1f} s")
    _echo(result)


@app.command()
def merge(
    files: list[Path] = typer.Argument(..., help="Records files of one run (e.g. its "
                                       "shards)."),
    as_json: bool = typer.Option(False, "--json", help="Print only the results and every "
                                 "game's outcome as JSON."),
) -> None:
    """Combine the records of one run's shards (or pieces) into one result; records of
    different runs or settings are refused."""
    from bots.tournament import RecordsError, TournamentResult, merge_records, read_records

    try:
        runs = []
        for path in files:
            run = read_records(path)
            if run is None:
                raise RecordsError(f"{path} holds no records")
            runs.append(run)
        settings, games = merge_records(runs)
    except RecordsError as exc:
        raise _fail(str(exc)) from None
    result = TournamentResult(settings, games)
    missing = settings.games - result.games
    if missing:
        typer.echo(f"warning: {missing} of the run's {settings.games} games are not in these "
                   "records", err=True)
    if as_json:
        typer.echo(json.dumps(result.to_json()))
        return
    typer.echo(f"{result.games} games merged from {len(files)} file(s), {result.players} "
               f"players, seed {settings.seed!r}")
    _echo(result)


def _echo(result: TournamentResult) -> None:
    from bots.tournament.report import text_report

    for line in text_report(result):
        typer.echo(line)


def register(parent: typer.Typer) -> None:
    parent.add_typer(app, name="tournament")
