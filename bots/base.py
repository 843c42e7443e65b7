"""The bot interface: a bot sees one seat's knowledge and picks one of the legal actions.

A bot never receives hidden state: ``Turn.view`` is the seat's view (plain, JSON-ready data,
the same dict a process bot receives) and ``Turn.state()`` a copy of the game redacted to what
the seat knows, for bots that search (``engine.view.determinize`` fills in the unknown cards).

Lifecycle, per game: ``start(GameInfo)`` once, ``choose(Turn)`` for every decision of the
bot's seat (draft picks, dispatches, captures, and choices such as an Assassin's target), then
``end(result)`` once. Only ``choose`` is required. A minimal bot::

    class FirstBot(Bot):
        name = "first"
        description = "always plays the first legal action"

        def choose(self, turn: Turn) -> Action:
            return turn.legal[0]

If ``choose`` raises, answers something that is not in ``turn.legal``, or takes longer than
``time_budget`` seconds, the match runner logs the error and plays a random legal action for
the seat (see ``bots.guard``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from bots.faults import Fault
from engine import Action, GameConfig, GameState, draw_legal, legal_actions
from engine.randomness import RandomStream
from engine.view import redact, view


class Turn:
    """One decision for one seat: ``seat``, ``legal`` (the options, as engine actions; answer
    with one of them), ``view`` (the seat's view, computed on first use) and ``state()``.

    Without a ``legal`` list the options are listed from the game on first use of ``legal``;
    ``draw(stream)`` answers a uniformly random one without listing them all."""

    __slots__ = ("_drawn", "_full", "_legal", "_state", "_view", "seat")

    def __init__(self, full: GameState, seat: int, legal: list[Action] | None = None) -> None:
        self._full = full
        self.seat = seat
        self._legal: tuple[Action, ...] | None = None if legal is None else tuple(legal)
        self._drawn: Action | None = None
        self._view: dict[str, Any] | None = None
        self._state: GameState | None = None

    @property
    def legal(self) -> tuple[Action, ...]:
        """Every legal action of the seat, in the engine's order."""
        if self._legal is None:
            self._legal = tuple(legal_actions(self._full, self.seat))
        return self._legal

    def draw(self, stream: RandomStream) -> Action:
        """``legal[stream.randbelow(len(legal))]``: the same words of ``stream``, an equal
        action, without listing the options when they were not listed yet
        (``engine.draw_legal``)."""
        if self._legal is not None:
            return self._legal[stream.randbelow(len(self._legal))]
        action = self._drawn = draw_legal(self._full, self.seat, stream)
        return action

    def drew(self, action: object) -> bool:
        """Whether ``action`` is the last one ``draw`` made from the game (so it is legal as
        it is)."""
        return action is self._drawn

    @property
    def view(self) -> dict[str, Any]:
        """Everything the seat may know, as plain data (see ``engine.view.view``)."""
        if self._view is None:
            self._view = view(self._full, self.seat)
        return self._view

    @property
    def legal_texts(self) -> list[str]:
        """The options in their text form (``"0 dispatch 12 2 Duchess"``), as sent to process
        bots."""
        return [a.text() for a in self.legal]

    def state(self) -> GameState:
        """The game as this seat knows it (unknown cards are -1): a fresh copy, safe to search
        on and to mutate."""
        if self._state is None:
            self._state = redact(self._full, self.seat)
        return self._state.clone()


@dataclass
class GameInfo:
    """What a bot is told at the start: its seat, the public configuration, a seed of its own
    (bots that use randomness should draw it from this seed so that games replay exactly)."""

    seat: int
    config: GameConfig
    seed: bytes
    extra: dict[str, Any] = field(default_factory=dict)
    game: str = ""  # names the game in faults and trace files (a tournament's game number)


class Bot(ABC):
    """Subclass this; implement ``choose``. ``start`` and ``end`` are optional hooks.

    Class attributes: ``name`` (shown in logs and tournament tables), ``description`` (one line,
    shown by ``solstice bots``), ``time_budget`` (seconds per decision, None for no limit;
    an in-process bot is checked after it answers, a process bot is not waited for longer) and
    ``reads_log`` (whether ``choose`` may read the game log of its view; an engine-only game
    between bots that never do keeps no log, which costs about an eighth of a random game).
    """

    name: str = "bot"
    description: str = ""
    time_budget: float | None = None
    reads_log: bool = True

    def start(self, info: GameInfo) -> None:
        """Called once before the game; the default keeps a random stream in ``self.rng``."""
        self.rng = RandomStream(info.seed)

    @abstractmethod
    def choose(self, turn: Turn) -> Action:
        """Return one of ``turn.legal``."""

    def take_faults(self) -> list[Fault]:
        """Faults the bot noticed in its own behaviour since the last call, for the guard to
        report (a process bot: skipped lines, wrong ids). Most bots have none."""
        return []

    def end(self, result: dict[str, Any]) -> None:  # noqa: B027 - optional hook
        """Called once with the final result: ``{"seat", "scores", "winner"}``."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release resources (a process bot stops its program). Called by the owner of the
        bot once it will play no more games."""
