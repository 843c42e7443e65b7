"""Tournaments: many engine-only games between bots, seats rotated, statistics per bot.

Seating: with as many bots as players, the lineup is the bots in the order given; with fewer,
the last bot fills the remaining seats (``ismcts,greedy`` for 4 players is ismcts + greedy x3).
Game ``g`` deals the cards of deal ``g // players`` and seats the lineup rotated by
``g % players``, so every bot plays every seat equally often (when the game count is a
multiple of the player count) and every deal is played from every seat, which cancels the luck
of the deal out of the comparison.

Games are independent and seeded from (seed, game index) only, so the results do not depend on
the number of worker processes (for bots that are deterministic for a seed; a bot limited by
wall-clock time is not).
"""

from __future__ import annotations

import math
import multiprocessing
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bots import bot_output
from bots.base import Bot
from bots.faults import Fault
from bots.match import play_match
from bots.registry import BotSpecError, make_bot

Z95 = 1.959963984540054  # standard normal quantile for a two-sided 95 % interval


def wilson_interval(wins: int, games: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (better than p +- z*se near 0 and 1)."""
    if games <= 0:
        return (0.0, 1.0)
    p = wins / games
    denom = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def lineup(bots: Sequence[str], players: int) -> list[str]:
    """The bot of each seat before rotation."""
    if not bots:
        raise BotSpecError("a tournament needs at least one bot")
    if len(bots) > players:
        raise BotSpecError(f"{len(bots)} bots cannot share {players} seats")
    if len(set(bots)) != len(bots):
        raise BotSpecError("each bot may be named only once (the last one fills free seats)")
    return [*bots, *[bots[-1]] * (players - len(bots))]


def seating(bots: Sequence[str], players: int, game: int) -> list[str]:
    """The bot spec of every seat in game ``game``: the lineup rotated by ``game % players``."""
    base = lineup(bots, players)
    shift = game % players
    return [base[(seat + shift) % players] for seat in range(players)]


def deal_seed(seed: str, players: int, game: int) -> str:
    return f"{seed}/{game // players}"


@dataclass(frozen=True)
class GameRecord:
    game: int
    seats: tuple[str, ...]
    scores: tuple[int, ...]
    winner: int
    faults: tuple[Fault, ...]


@dataclass
class BotStats:
    wins: int = 0
    seat_games: int = 0      # seats played (a bot filling 3 seats plays 3 per game)
    score_total: int = 0
    seats: list[int] = field(default_factory=list)  # games played in each seat


@dataclass
class TournamentResult:
    games: int
    players: int
    bots: list[str]
    records: list[GameRecord]

    def stats(self) -> dict[str, BotStats]:
        out = {bot: BotStats(seats=[0] * self.players) for bot in self.bots}
        for record in self.records:
            for seat, bot in enumerate(record.seats):
                s = out[bot]
                s.seat_games += 1
                s.score_total += record.scores[seat]
                s.seats[seat] += 1
            out[record.seats[record.winner]].wins += 1
        return out

    def to_json(self) -> dict[str, Any]:
        """``{"games", "bots", "results": {bot: {"wins", "win_rate", "ci95", "mean_score"}}}``."""
        results = {}
        for bot, s in self.stats().items():
            lo, hi = wilson_interval(s.wins, self.games)
            results[bot] = {
                "wins": s.wins,
                "win_rate": round(s.wins / self.games, 4) if self.games else 0.0,
                "ci95": [round(lo, 4), round(hi, 4)],
                "mean_score": round(s.score_total / s.seat_games, 3) if s.seat_games else 0.0,
            }
        for bot, count in self.fault_counts().items():
            results[bot]["faults"] = count
        return {"games": self.games, "bots": list(self.bots), "results": results}

    def fault_counts(self) -> dict[str, int]:
        """Faults per bot spec (each fault is one seat's; most cost a random move)."""
        counts = dict.fromkeys(self.bots, 0)
        for record in self.records:
            for fault in record.faults:
                if fault.seat is not None:
                    counts[record.seats[fault.seat]] += 1
        return counts

    @property
    def faults(self) -> list[Fault]:
        return [f for record in self.records for f in record.faults]


# Bots are made once per worker process and reused for its games (``start`` resets them), so
# a process bot's program is started once per seat rather than once per game.
_bot_cache: dict[tuple[str, int], Bot] = {}


def _bots_for(specs: Sequence[str]) -> list[Bot]:
    used: dict[str, int] = {}
    out = []
    for spec in specs:
        copy = used.get(spec, 0)
        used[spec] = copy + 1
        key = (spec, copy)
        if key not in _bot_cache:
            _bot_cache[key] = make_bot(spec)
        out.append(_bot_cache[key])
    return out


def play_one(job: tuple[Sequence[str], int, str, int]) -> GameRecord:
    """Play game ``game`` of a tournament (the unit of work handed to worker processes)."""
    bots, players, seed, game = job
    specs = seating(bots, players, game)
    result = play_match(_bots_for(specs), deal_seed(seed, players, game), game=str(game))
    return GameRecord(game, tuple(specs), result.scores, result.winner, result.faults)


def close_cached_bots() -> None:
    for bot in _bot_cache.values():
        bot.close()
    _bot_cache.clear()


def run_tournament(bots: Sequence[str], *, games: int, players: int, seed: str = "0",
                   workers: int = 1,
                   progress: Callable[[int, int], None] | None = None) -> TournamentResult:
    """Play ``games`` games; ``progress(done, total)`` is called after each one."""
    bots = list(bots)
    lineup(bots, players)  # check the bots and seats before starting anything
    for spec in set(bots):
        make_bot(spec).close()  # fail fast on a bad spec, before any worker starts
    jobs = [(bots, players, seed, game) for game in range(games)]
    records: list[GameRecord] = []
    if workers <= 1:
        try:
            for job in jobs:
                records.append(play_one(job))
                if progress is not None:
                    progress(len(records), games)
        finally:
            close_cached_bots()
    else:
        # "spawn": workers start clean (no copied threads or pipes of process bots).
        context = multiprocessing.get_context("spawn")
        with context.Pool(workers, initializer=bot_output.configure,
                          initargs=tuple(bot_output.settings().values())) as pool:
            for record in pool.imap_unordered(play_one, jobs):
                records.append(record)
                if progress is not None:
                    progress(len(records), games)
    records.sort(key=lambda r: r.game)
    return TournamentResult(games, players, bots, records)
