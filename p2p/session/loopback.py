"""n game sessions wired back to back in one process (no sockets): for tests and benchmarks.

``deliver`` moves every frame in every outbox to every other session; ``play`` runs a whole
game, answering each session's input requests with a chooser (a bot) given the seat's
``SeatView``, optionally tampering with frames in flight to play a cheater.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable

from engine import Action
from p2p.identity import Identity
from p2p.session.bundle import bundle
from p2p.session.machine import GameSession
from p2p.session.seatview import SeatView

Chooser = Callable[[SeatView], Action]  # a player: answers one of the view's ``legal``
Tamper = Callable[[int, bytes], bytes | None]


class LoopbackGame:
    """``network``: as the network runner does, relays wait for their session's next message
    (released when nothing else moves) and the frames a session has ready go bundled; by
    default every frame goes alone and at once (tests tamper with single messages).
    ``session``: the session class every peer runs (a test may extend the stage table)."""

    def __init__(self, n: int, game_id: str | None = None, network: bool = False,
                 session: type[GameSession] = GameSession) -> None:
        self.network = network
        self.game_id = game_id or secrets.token_hex(16)
        self.identities = [Identity.generate() for _ in range(n)]
        self.masters = [secrets.token_bytes(32) for _ in range(n)]
        keys = [identity.public_bytes for identity in self.identities]
        self.sessions = [session(self.game_id, keys, me, self.identities[me], self.masters[me])
                         for me in range(n)]
        self.frames = 0
        self.bytes = 0

    def deliver(self, tamper: Tamper | None = None) -> bool:
        """Move all pending frames; True if anything moved."""
        moved = False
        for sender, session in enumerate(self.sessions):
            if not self.network:
                session.release_relays()
            out, session.outbox = session.outbox, []
            # Lazily: a tamperer sees each frame just before it is delivered.
            frames: Iterable[bytes | None] = (tamper(sender, f) if tamper else f for f in out)
            if self.network:
                frames = bundle([f for f in frames if f is not None])
            for data in frames:
                if data is None:
                    continue
                self.frames += 1
                self.bytes += len(data)
                moved = True
                for peer, other in enumerate(self.sessions):
                    if peer != sender:
                        other.receive(sender, data)
        return moved

    def play(self, choose: Chooser, tamper: Tamper | None = None,
             max_rounds: int = 100000) -> None:
        for session in self.sessions:
            session.start()
        for _ in range(max_rounds):
            moved = self.deliver(tamper)
            for session in self.sessions:
                view = session.seat_view() if not session.finished else None
                if view is not None and view.legal:
                    session.submit(choose(view), view.stage)
                    moved = True
            if all(s.finished for s in self.sessions):
                return
            if not moved and not any([s.release_relays() for s in self.sessions]):
                return
