"""Errors of the peer-to-peer layer, split by blame (as h11 does).

``LocalProtocolError``: this peer tried to do something the protocol forbids (a bug or misuse
here). ``RemoteProtocolError``: a peer sent something malformed or out of order. ``CheatDetected``:
a peer is proven to have broken the rules of fair play; ``evidence`` holds the signed messages or
values that prove it, so it can be shown to anyone.
"""

from __future__ import annotations

from typing import Any


class P2PError(Exception):
    """Base class of every error raised by p2p/."""


class LocalProtocolError(P2PError):
    """This peer misused the protocol (a bug on our side, not the remote's fault)."""


class RemoteProtocolError(P2PError):
    """A remote peer sent something malformed, unexpected or unverifiable."""

    def __init__(self, seat: int | None, reason: str) -> None:
        who = f"seat {seat}" if seat is not None else "unknown peer"
        super().__init__(f"{who}: {reason}")
        self.seat = seat
        self.reason = reason


class CheatDetected(RemoteProtocolError):
    """A peer is proven to have cheated; ``evidence`` proves it to a third party."""

    def __init__(self, seat: int | None, reason: str, evidence: Any = None) -> None:
        super().__init__(seat, reason)
        self.evidence = evidence
