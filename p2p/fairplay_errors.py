"""Specific errors of the fair-play core (commitments, shared seeds, mental-poker deck).

Each class says *what* went wrong so that the session can show a precise reason; each carries
the blamed seat (``None`` only where the fault is proven but its author is not yet known, see
``DeckCorrupted``) and, for cheats, the offending message or value as ``evidence``.
"""

from __future__ import annotations

from p2p.errors import CheatDetected, RemoteProtocolError


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


class DeckCorrupted(CheatDetected):
    """Opening a slot gave no card of this game, or a card already live in another slot.

    Every disclosed key matched its commitment, so the fault lies in some earlier shuffle or
    re-key step; which peer did it is proven only by the deck audit. ``seat`` is therefore
    ``None`` here: the session must stop the game, collect every peer's key opening and run
    ``p2p.deck_audit.audit_deck``, which names the culprit (or the peer refusing to open).
    """


class StepMismatch(CheatDetected):
    """Audit: a published shuffle or re-key step differs from the recomputation with the
    author's opened keys."""


class MissingOpening(RemoteProtocolError):
    """Audit: a peer did not open its deck keys; refusing to open is blamed on that peer."""
