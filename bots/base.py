"""The bot interface: a bot sees one seat's knowledge and picks one of the legal actions.

A bot never receives hidden state: ``Turn.view`` is the seat's view (plain data) and
``Turn.state()`` a copy of the game redacted to what the seat knows, for bots that search.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from engine import Action, GameConfig, GameState
from engine.randomness import RandomStream
from engine.view import redact, view


class Turn:
    """One decision for one seat. ``view`` and ``state()`` are computed on first use."""

    __slots__ = ("_full", "_state", "_view", "legal", "seat")

    def __init__(self, full: GameState, seat: int, legal: list[Action]) -> None:
        self._full = full
        self.seat = seat
        self.legal: tuple[Action, ...] = tuple(legal)
        self._view: dict[str, Any] | None = None
        self._state: GameState | None = None

    @property
    def view(self) -> dict[str, Any]:
        if self._view is None:
            self._view = view(self._full, self.seat)
        return self._view

    def state(self) -> GameState:
        """The game as this seat knows it (unknown cards are -1): safe to search on."""
        if self._state is None:
            self._state = redact(self._full, self.seat)
        return self._state.clone()


@dataclass
class GameInfo:
    """What a bot is told at the start: its seat, the public configuration, a seed of its own."""

    seat: int
    config: GameConfig
    seed: bytes
    extra: dict[str, Any] = field(default_factory=dict)


class Bot(ABC):
    """Subclass this; implement ``choose``. ``start`` and ``end`` are optional hooks."""

    name: str = "bot"

    def start(self, info: GameInfo) -> None:
        self.rng = RandomStream(info.seed)

    @abstractmethod
    def choose(self, turn: Turn) -> Action:
        """Return one of ``turn.legal``."""

    def end(self, result: dict[str, Any]) -> None:  # noqa: B027 - optional hook
        """Called once with the final result (scores, winner)."""
