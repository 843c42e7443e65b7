"""A stage: the one message each required peer contributes before the game moves on."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from p2p.session.envelope import SignedMessage
from p2p.session.events import Peer

# Stage kinds whose messages carry the public state hash the author computed.
STATEFUL = ("keys", "action", "pick/commit")


@dataclass
class Stage:
    kind: str
    peers: frozenset[Peer]
    index: int
    collected: dict[Peer, SignedMessage] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def missing(self) -> list[Peer]:
        return sorted(self.peers - set(self.collected))
