"""Playing one tournament game: the unit of work handed to worker processes and cluster workers.

Bots are made once per worker thread and reused for its games (``start`` resets them), so a
process bot's program is started once per seat rather than once per game.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from bots.base import Bot
from bots.match import play_match
from bots.registry import make_bot
from bots.tournament.records import GameRecord
from bots.tournament.schedule import deal_seed, seating
from bots.tournament.version import identity


@dataclass(frozen=True)
class GameJob:
    bots: tuple[str, ...]
    players: int
    seed: str
    game: int
    # How a worker makes a seat's bot when that differs from its spec (a bot file shipped to
    # a cluster worker is imported under another name there); the record keeps the spec.
    build: Mapping[str, str] = field(default_factory=dict)
    # (version, code digest) the worker must run, on a cluster whose workers may join late.
    expect: tuple[str, str] | None = None


class WrongSolstice(RuntimeError):
    """A worker runs other solstice code than the process that planned the games."""


_cache: dict[tuple[int, str, int], Bot] = {}
_cache_lock = threading.Lock()


def _bots_for(specs: Sequence[str], build: Mapping[str, str]) -> list[Bot]:
    thread = threading.get_ident()  # a bot must never play two games at once
    used: dict[str, int] = {}
    out = []
    for spec in specs:
        copy = used.get(spec, 0)
        used[spec] = copy + 1
        key = (thread, spec, copy)
        with _cache_lock:
            bot = _cache.get(key)
        if bot is None:
            bot = make_bot(build.get(spec, spec))
            with _cache_lock:
                _cache[key] = bot
        out.append(bot)
    return out


def play_one(job: GameJob) -> GameRecord:
    if job.expect is not None and identity() != job.expect:
        raise WrongSolstice(f"this worker runs solstice {identity()}, the tournament needs "
                            f"{job.expect}")
    specs = seating(job.bots, job.players, job.game)
    deal = deal_seed(job.seed, job.players, job.game)
    result = play_match(_bots_for(specs, job.build), deal, game=str(job.game))
    def per_decision(seconds: tuple[float, ...]) -> tuple[float, ...]:
        return tuple(round(t / n, 6) if n else 0.0
                     for t, n in zip(seconds, result.decisions, strict=True))
    return GameRecord(job.game, deal, tuple(specs), result.config.factions, result.scores,
                      result.winner, result.rounds, result.decisions,
                      per_decision(result.think_seconds), result.faults,
                      per_decision(result.cpu_seconds))


def close_cached_bots() -> None:
    with _cache_lock:
        bots = list(_cache.values())
        _cache.clear()
    for bot in bots:
        bot.close()
