"""What the session tells its driver and the UI: events out, and the reason a game stopped."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# Verdict kinds of a stopped game (``Aborted.kind``):
UNFAIR = "unfair"          # a peer is proven to have broken the rules; the proof is attached
ABANDONED = "abandoned"    # a peer stopped answering (observed by the honest peers, no proof)
STOPPED = "stopped"        # the game cannot go on, and nobody in particular is named


@dataclass(frozen=True)
class Event:
    """Something the transport or UI should know: ``kind`` is one of "log", "input",
    "rejected", "over", "aborted", "audit", "clock", "timeout"."""

    kind: str
    text: str
    data: Any = None


class Aborted(Exception):
    """The session stopped: a peer was caught cheating, stopped answering, or the game can no
    longer go on. ``seat`` is the peer named (None: nobody), ``kind`` one of UNFAIR,
    ABANDONED, STOPPED, ``stage`` the stage number the game stopped at."""

    def __init__(self, seat: int | None, reason: str, kind: str = UNFAIR,
                 stage: int = 0) -> None:
        super().__init__(reason)
        self.seat = seat
        self.reason = reason
        self.kind = kind
        self.stage = stage
