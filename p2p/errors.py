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


class LocalFileError(LocalProtocolError):
    """A local file or directory (home, identity key, game store, transcript) is unusable;
    the message names the path and, where there is one, the command that fixes it."""


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


# -- the fair-play core (commitments, shared seeds, mental-poker deck) ------------------
class MalformedMessage(CheatDetected):
    """A message has the wrong shape: missing field, wrong type, bad hex, bad point or scalar.

    A malformed point or scalar is treated as a cheat, not a mere bug: small-order and
    off-subgroup points are the classic way to extract bits of a peer's secret scalar.
    """


class OutOfOrder(RemoteProtocolError):
    """A well-formed message arrived at a time the protocol does not allow it
    (a reveal before every commitment is in, a second message for the same step, a step
    out of seat order, a private message for somebody else)."""


class CommitmentMismatch(CheatDetected):
    """An opening does not match the commitment its author published earlier."""


class SlotKeyMismatch(CheatDetected):
    """A disclosed slot key k does not match the author's public slot-key commitment k*B."""


class ProofFailed(CheatDetected):
    """A deck layer's zero-knowledge proof does not verify (``p2p.deck.proving``): its author
    did not apply the secret scalars it committed to. The signed message alone proves it."""


class DeckCorrupted(CheatDetected):
    """Opening a slot gave no card of this game, or a card already live in another slot.

    Every disclosed key matched its commitment and every layer and re-mask proved itself on
    arrival, so this takes a forged proof (or a bug): nobody can be named from the messages.
    ``seat`` is therefore ``None`` here: the session stops the game as void, collects every
    peer's key opening and runs ``p2p.deck.audit.audit_deck``, the last check of what went
    wrong (it names a layer's author, or the peer refusing to open).
    """


class RemaskFault(CheatDetected):
    """A re-masked slot opened to something that is not a card of the game, or to a card the
    same re-mask put in another fresh slot: its author chose both the point and the scalar,
    so it alone is at fault (``p2p.deck.remask``)."""


class StepMismatch(CheatDetected):
    """Audit: a published shuffle or re-key step differs from the recomputation with the
    author's opened keys."""


class MissingOpening(RemoteProtocolError):
    """Audit: a peer did not open its deck keys; refusing to open is blamed on that peer."""
