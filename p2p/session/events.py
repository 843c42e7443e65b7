"""What the session tells its driver and the UI: typed events out, and the reason a game stopped.

One frozen class per event (``SessionEvent`` is their union); each has typed fields and a
``text`` property, the line a log shows. Match on the class, never on a string.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NewType

from engine import Action
from engine.events import Event as GameEvent
from p2p.session.timing import clock_text

Peer = NewType("Peer", int)  # a peer's index in the lobby's roster (who signs messages)
Seat = NewType("Seat", int)  # an engine seat, drawn at setup (whom the rules name)

# Verdict kinds of a stopped game (``Aborted.kind``):
UNFAIR = "unfair"          # a peer is proven to have broken the rules; the proof is attached
ABANDONED = "abandoned"    # a peer stopped answering (observed by the honest peers, no proof)
STOPPED = "stopped"        # the game cannot go on, and nobody in particular is named


@dataclass(frozen=True)
class LogLine:
    """A line of the game's log (the engine's, or the session's setup). ``game``: the engine
    event the line says (None for the session's own lines), which readers match on instead of
    the line's words."""

    text: str
    game: GameEvent | None = None


@dataclass(frozen=True)
class InputWanted:
    """Our player must choose one of ``legal`` for stage ``stage`` (of kind ``kind``)."""

    stage: int
    kind: str
    legal: tuple[Action, ...]

    @property
    def text(self) -> str:
        return self.kind


@dataclass(frozen=True)
class Rejected:
    """A frame or message from ``peer`` (None: unknown) was not taken; the game goes on."""

    peer: Peer | None
    reason: str

    @property
    def text(self) -> str:
        who = f"peer {self.peer}" if self.peer is not None else "a peer"
        return f"rejected a message from {who}: {self.reason}"


@dataclass(frozen=True)
class GameOver:
    """The game ended and the end-of-game audit passed: ``result`` is the audit's result."""

    result: dict[str, Any]

    @property
    def text(self) -> str:
        return str(self.result["summary"])


@dataclass(frozen=True)
class GameAborted:
    """The game stopped: ``peer`` proven at fault (``kind`` UNFAIR) or silent (ABANDONED), or
    nobody named (STOPPED); ``evidence``: the signed messages that prove it, if any.
    ``seat``: the game seat of ``peer`` once seats are drawn (reasons name game seats)."""

    peer: Peer | None
    reason: str
    kind: str
    stage: int
    evidence: Any = None
    seat: int | None = None

    @property
    def text(self) -> str:
        if self.peer is None:
            who = "nobody in particular"
        elif self.seat is None:
            who = f"peer {self.peer}"
        else:  # the reason's "seat N" is a game seat: so is this one, with the peer beside it
            who = f"seat {self.seat}, peer {self.peer}"
        label = {UNFAIR: "blame", ABANDONED: "abandoned by"}.get(self.kind, "blame")
        return f"game stopped: {self.reason} ({label}: {who})"


@dataclass(frozen=True)
class DeckAudit:
    """The deck is corrupt: every peer opens its deck keys to find the layer at fault."""

    reason: str

    @property
    def text(self) -> str:
        return f"{self.reason}: every peer opens its deck keys to find the layer at fault"


@dataclass(frozen=True)
class TableClock:
    """The table's clock, as the host set it (seconds per decision and per automatic step;
    ``summary``: all of it, the players' game clocks included)."""

    decision: int
    step: int
    summary: str = ""

    @property
    def text(self) -> str:
        return "table clock: " + (self.summary or f"{self.decision:g} s per decision, "
                                                  f"{self.step:g} s per automatic step")


@dataclass(frozen=True)
class DecisionClock:
    """A decision stage began: ``peers`` decide within ``seconds`` (``deadline`` on the
    driver's clock, None before the driver first fed the time); ``banks``: each of those
    peers' game clock for decisions, seconds left as we measure it (None: no game clock)."""

    kind: str
    peers: tuple[Peer, ...]
    seconds: int
    deadline: float | None
    stage: int
    banks: tuple[float | None, ...] = ()

    @property
    def text(self) -> str:
        left = [f"peer {p} {clock_text(b)}" for p, b in zip(self.peers, self.banks, strict=False)
                if b is not None]
        game = f" (game clock left: {', '.join(left)})" if left else ""
        return (f"{self.kind} by peer(s) {', '.join(map(str, self.peers))}: "
                f"{self.seconds:g} s to decide{game}")


@dataclass(frozen=True)
class ClockRanOut:
    """Our player's decision time ran out: ``action`` was played for it."""

    action: Action

    @property
    def text(self) -> str:
        return f"our clock ran out: {self.action.text()} played by default"


@dataclass(frozen=True)
class SeatHandedOver:
    """``peer`` (at ``seat``) left the game at round ``round``, stage ``stage``, with a
    handover (or ``escrow``: named abandoned, its secret rebuilt from the escrow): from now on
    every remaining peer plays its seat alike with the ghost bot ``bot``, open-handed (its
    cards are known to every remaining player). ``mine``: our seat."""

    peer: Peer
    seat: Seat
    round: int
    stage: int
    bot: str
    mine: bool = False
    escrow: bool = False  # recovered from the escrow (it left without a word)

    @property
    def text(self) -> str:
        who = "we" if self.mine else f"seat {self.seat}, peer {self.peer},"
        how = "; its secret was rebuilt from the escrow" if self.escrow else ""
        return (f"{who} left at round {self.round}, stage {self.stage}{how}; the seat is "
                f"played by the {self.bot} ghost, open-handed")


SessionEvent = (LogLine | InputWanted | Rejected | GameOver | GameAborted | DeckAudit
                | TableClock | DecisionClock | ClockRanOut | SeatHandedOver)


class Aborted(Exception):
    """The session stopped: a peer was caught cheating, stopped answering, or the game can no
    longer go on. ``peer`` is the peer named (None: nobody), ``kind`` one of UNFAIR,
    ABANDONED, STOPPED, ``stage`` the stage number the game stopped at."""

    def __init__(self, peer: Peer | None, reason: str, kind: str = UNFAIR,
                 stage: int = 0) -> None:
        super().__init__(reason)
        self.peer = peer
        self.reason = reason
        self.kind = kind
        self.stage = stage
