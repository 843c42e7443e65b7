"""A seat handed over (``p2p.session.handover``): what every implementation must do alike to
play it (the ghost bot), and the record a session keeps of it. A leaf module: the session's
parts and its fields all name it."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any, Protocol

from engine import Action
from engine.randomness import RandomStream
from p2p.session.envelope import SignedMessage


class GhostPlayer(Protocol):
    """The leaver's session as its ghost is played (``p2p.session.ghost.GhostPlay``)."""

    made: list[SignedMessage]

    def feed(self, author: int, stream: Sequence[SignedMessage],
             logged_only: AbstractSet[tuple[int, int]] = ...) -> None: ...

    def move(self, stage: int) -> SignedMessage | None: ...

    @property
    def aborted(self) -> Any: ...

    @property
    def master(self) -> bytes: ...

    def seat_view(self) -> Any: ...  # the leaver's seat as its ghost knows it (SeatView)


# The ghost bot every implementation plays (named in the handover): a uniformly random legal
# action, drawn from a stream every peer computes alike.
GHOST_BOT = "random"
GHOST_DOMAIN = b"solstice/ghost/v1\x00"
# Message types a ghost is never fed: its own session must not hand over again or judge
# another peer's stop (its parent's referee does that).
NOT_FED = frozenset({"handover", "abort"})


def ghost_choice(joint_seed: bytes, stage: int, legal: Sequence[Action]) -> Action:
    """The ghost bot's choice in ``stage``: ``legal[i]`` for ``i`` drawn from
    RandomStream(SHA-256(GHOST_DOMAIN || setup joint seed || stage as 4 bytes))."""
    seed = hashlib.sha256(GHOST_DOMAIN + joint_seed + stage.to_bytes(4, "big")).digest()
    return legal[RandomStream(seed).randbelow(len(legal))]


@dataclass
class Ghost:
    """A seat handed over: its session, the handover, and when it took effect."""

    session: GhostPlayer
    peer: int
    handover: SignedMessage | None  # None: recovered from the escrow
    seq: int            # how many of the leaver's signed messages were taken (then it left)
    round: int
    stage: int
    actions: int        # how many engine actions were applied before the takeover
    bot: str = GHOST_BOT
    by: str = "handover"  # or "escrow"

    def record(self) -> dict[str, Any]:
        return {"round": self.round, "stage": self.stage, "bot": self.bot, "by": self.by}
