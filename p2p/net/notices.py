"""What the network side tells the player beside the session's own events (``SessionEvent``):
who plays, who is waited for, where the transcript went, why the game stopped for now.

Frozen classes, one per kind, each with a ``text`` (the line a log shows); ``GameEvent`` is
everything an ``EventSink`` receives. Session log lines and the driver's own log lines are
both ``LogLine``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from p2p.session.events import Peer, SessionEvent


@dataclass(frozen=True)
class RosterKnown:
    """The players, in peer order (``text``: "Players: ...")."""

    text: str
    names: tuple[str, ...]


@dataclass(frozen=True)
class SeatsDrawn:
    """The seats are drawn: who plays which faction (``factions``: name to faction)."""

    text: str
    factions: Mapping[str, str]


@dataclass(frozen=True)
class Waiting:
    """The game waits for ``peers`` (disconnected, cut off, slow, or resending)."""

    text: str
    peers: tuple[Peer, ...]


@dataclass(frozen=True)
class TranscriptWritten:
    path: Path

    @property
    def text(self) -> str:
        return str(self.path)


@dataclass(frozen=True)
class Stopped:
    """The game stopped for now on our side (a peer lost for good, a transcript not written);
    ``lost``: the peers the game needed and the mesh gave up on."""

    text: str
    lost: tuple[Peer, ...] = ()


@dataclass(frozen=True)
class ChoiceRefused:
    """The session refused our own player's answer (it was not a legal choice now)."""

    reason: str

    @property
    def text(self) -> str:
        return f"our player's choice was refused: {self.reason}"


@dataclass(frozen=True)
class StoreRepaired:
    """Our own message log was damaged; ``text`` says which line was dropped."""

    text: str


@dataclass(frozen=True)
class TableFilling:
    """A joiner's lobby: who is at the table so far (``seated``: name and peer id, the host
    first) of ``players`` seats; ``text`` says what changed."""

    text: str
    players: int
    seated: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class WatchersChanged:
    """The host's signed notice: who watches the game now (``names``, made printable)."""

    text: str
    names: tuple[str, ...]


NetEvent = RosterKnown | SeatsDrawn | Waiting | TranscriptWritten | Stopped | ChoiceRefused \
    | StoreRepaired | TableFilling | WatchersChanged
GameEvent = SessionEvent | NetEvent
EventSink = Callable[[GameEvent], None]
