"""Plain values the network side (trio thread) sends to the UI, and the UI's answer.

They are frozen dataclasses, not Textual messages, so that the network code and the bridge
tests never import Textual.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine import Action
from engine.events import Event


@dataclass(frozen=True)
class RosterLine:
    name: str
    fingerprint: str  # the first characters of the peer id


@dataclass(frozen=True)
class LobbyOpened:
    """We host: the join code to hand out and how many players the game needs (and the short
    code, when the game is advertised on the LAN)."""

    code: str
    players: int
    game_id: str = ""
    short: str | None = None


@dataclass(frozen=True)
class RosterChanged:
    players: int
    roster: tuple[RosterLine, ...]


@dataclass(frozen=True)
class Connecting:
    """Before the first board: joining, connecting the mesh, shuffling the deck."""

    text: str


@dataclass(frozen=True)
class BoardChanged:
    """A fresh view of the game for our seat, and whom the game waits for."""

    view: dict[str, Any]
    waiting: tuple[str, ...] = ()
    names: tuple[str, ...] = ()  # player name per seat ("" when unknown)
    # Decision clocks (issue #11): seconds left per seat still deciding (None: not on the
    # clock), from the session's DecisionClock events; the status line shows them.
    clocks: tuple[float | None, ...] = ()


@dataclass(frozen=True)
class AskHuman:
    """Our seat must act: one of ``legal``. Answer with ``HumanAnswer(serial, action)``."""

    serial: int
    view: dict[str, Any]
    legal: tuple[Action, ...]
    names: tuple[str, ...] = ()


@dataclass(frozen=True)
class HumanAnswer:
    serial: int
    action: Action


@dataclass(frozen=True)
class HandOver:
    """The human leaves for good, handing the seat to the ghost bot (UI -> trio)."""


@dataclass(frozen=True)
class SetEscrow:
    """The host turns the escrow on or off in its lobby, before the game starts (UI ->
    trio)."""

    on: bool


@dataclass(frozen=True)
class AskEscrow:
    """The table we are joining escrows every player's secret: does the player agree?
    (trio -> UI; answered with ``EscrowAnswer``)."""

    text: str


@dataclass(frozen=True)
class EscrowAnswer:
    """The player's answer to ``AskEscrow`` (UI -> trio)."""

    accept: bool


@dataclass(frozen=True)
class EscrowState:
    """The escrow the host's game will start with (``can_change``: the lobby is still
    open, so ``e`` may turn it around)."""

    on: bool
    can_change: bool = True


@dataclass(frozen=True)
class ChatSay:
    """The human typed a chat line for the table (UI -> trio)."""

    text: str


@dataclass(frozen=True)
class NetNote:
    """A line for the log pane; ``kind`` says how it is shown (log, waiting, rejected, aborted,
    over, transcript, roster, seats, clock, timeout, audit, bot): see ``netgame.note_of``.
    ``event``: the engine event a game log line says (None for any other line); the UI reads
    what happened from it, never from ``text``."""

    kind: str
    text: str
    event: Event | None = None


@dataclass(frozen=True)
class GameEnded:
    """The network program is done: ``result`` is the audited result dict, or None when the
    game stopped (``reason`` says why). ``game_id``/``home`` tell how to resume."""

    result: dict[str, Any] | None
    reason: str = ""
    transcript: str | None = None
    game_id: str | None = None
    home: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    handed_over: str | None = None  # our faction: we left, the ghost plays it on
    watch_code: str | None = None  # the join code, which ``solstice watch`` takes too
    # A watcher's game that did not finish and proves nobody unfair: "connection lost" or
    # "game stopped" (None: finished, or stopped on a cheat).
    unfinished: str | None = None
