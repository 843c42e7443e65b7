"""What the session tells its driver and the UI: events out, and the reason a game stopped."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Event:
    """Something the transport or UI should know: ``kind`` is one of "log", "input",
    "rejected", "over", "aborted", "audit"."""

    kind: str
    text: str
    data: Any = None


class Aborted(Exception):
    """The session stopped: a peer was caught cheating or the game can no longer go on."""

    def __init__(self, seat: int | None, reason: str) -> None:
        super().__init__(reason)
        self.seat = seat
        self.reason = reason
