"""Which bot sits where in which game, and which games a shard plays.

Seating: with as many bots as players, the lineup is the bots in the order given (``SPEC*K``
for K seats of one bot); with fewer, the last bot fills the remaining seats (``ismcts,greedy``
for 4 players is ismcts + greedy x3; the command line's ``--fill`` writes the lineup out).
Game ``g`` deals the cards of deal ``g // players`` and seats the lineup rotated by
``g % players``, so every bot plays every seat equally often (when the game count is a
multiple of the player count) and every deal is played from every seat, which cancels the luck
of the deal out of the comparison.

Games are independent and seeded from (seed, game index) only, so the results depend neither
on the number of worker processes nor on where the games run (for bots that are deterministic
for a seed; a bot limited by wall-clock time is not).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bots.lineup import seats_of


class ScheduleError(ValueError):
    """Bad tournament settings given by the user (seats, shard)."""


def lineup(bots: Sequence[str], players: int) -> list[str]:
    """The bot of each seat before rotation (``bots.lineup.seats_of``: ``SPEC*K``, the last
    bot fills the free seats, at least two different bots)."""
    return seats_of(bots, players)


def seating(bots: Sequence[str], players: int, game: int) -> list[str]:
    """The bot spec of every seat in game ``game``: the lineup rotated by ``game % players``."""
    base = lineup(bots, players)
    shift = game % players
    return [base[(seat + shift) % players] for seat in range(players)]


def deal_of(game: int, players: int) -> int:
    return game // players


def deal_seed(seed: str, players: int, game: int) -> str:
    return f"{seed}/{deal_of(game, players)}"


@dataclass(frozen=True)
class Shard:
    """Part ``index`` (1-based) of ``count``: the games of every ``count``-th deal, so a
    shard holds whole deals and its paired comparison stays valid."""

    index: int = 1
    count: int = 1

    @classmethod
    def parse(cls, text: str) -> Shard:
        match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
        if not match:
            raise ScheduleError(f"bad shard {text!r}: use K/N, e.g. 1/4")
        index, count = int(match.group(1)), int(match.group(2))
        if not 1 <= index <= count:
            raise ScheduleError(f"bad shard {text!r}: K must be 1..N")
        return cls(index, count)

    def holds(self, game: int, players: int) -> bool:
        return deal_of(game, players) % self.count == self.index - 1

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


@dataclass(frozen=True)
class Settings:
    """What makes two sets of records parts of one run: the same games with the same bots."""

    bots: tuple[str, ...]
    players: int
    seed: str
    games: int
    version: str

    def check(self) -> None:
        lineup(self.bots, self.players)
        if self.games < 1:
            raise ScheduleError("a tournament needs at least one game")

    def games_of(self, shard: Shard) -> list[int]:
        return [g for g in range(self.games) if shard.holds(g, self.players)]

    def to_json(self) -> dict[str, Any]:
        return {"bots": list(self.bots), "players": self.players, "seed": self.seed,
                "games": self.games, "solstice": self.version}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Settings:
        return cls(tuple(data["bots"]), int(data["players"]), str(data["seed"]),
                   int(data["games"]), str(data["solstice"]))

    def differences(self, other: Settings) -> list[str]:
        """What differs, as ``name: ours vs theirs`` texts (empty: the same run)."""
        ours, theirs = self.to_json(), other.to_json()
        return [f"{key} {ours[key]!r} vs {theirs[key]!r}" for key in ours
                if ours[key] != theirs[key]]
