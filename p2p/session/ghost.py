"""Playing a ghost: the seat of a peer that left with a handover, played alike by every
remaining peer (and by ``solstice verify``) from the master secret the handover published.

Each peer rebuilds the leaver's own session (a ``GameSession`` as that peer, with its master,
made with ``ghost=True``) by replaying the signed log, then keeps it fed with every message.
Whatever that session would have sent it makes as an unsigned *ghost message* instead, which
the peer's own session takes as the leaver's contribution: deck steps, keys, seeds and
openings come from the master exactly as the leaver would have made them, and its decisions
from the ghost bot (``ghostseat.ghost_choice``). So every ghost move is the same on every
peer and needs no signature; a peer that plays the ghost otherwise is out of step at its next
state hash. See protocol.md, "Leaving with a handover".
"""

from __future__ import annotations

from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from typing import Any

from engine import Action
from p2p.errors import LocalProtocolError
from p2p.session.envelope import Message, SignedMessage
from p2p.session.fields import SessionFields
from p2p.session.ghostseat import ghost_choice
from p2p.session.seatview import SeatView


class GhostPlay(SessionFields):
    """The part of ``GameSession`` a ghost's session uses: it signs nothing; what it would
    send is kept in ``made`` (``sig`` empty, ``seq`` counting on from the leaver's own)."""

    made: list[SignedMessage]
    fed: list[int]  # per author: how many of its messages we were given

    def seat_view(self) -> SeatView | None:  # provided by GameSession
        raise NotImplementedError

    def submit(self, action: Action, stage: int | None = None) -> None:
        raise NotImplementedError  # provided by GameSession

    def _pump(self) -> None:
        raise NotImplementedError  # provided by GameSession

    def _ghost_send(self, kind: str, body: dict[str, Any]) -> None:
        assert self.me is not None
        body = {**body, "stage": self.stage_index}
        if self.stage is not None and self.stage.state is not None:
            body["state"] = self.stage.state
        if self.stage is not None and self.stage.history is not None:
            body["history"] = self.stage.history
        if self.stage is not None and self.stage.own is not None:
            body["own"] = self.stage.own[self.me]
        seq = self.msglog.next_seq(self.me) + len(self.made)
        signed = SignedMessage(Message(self.game_id, self.me, seq, "0" * 64, kind, body), b"")
        self.made.append(signed)
        self.queues[self.me].append(signed)

    def choose(self, stage: int, legal: Sequence[Action]) -> Action:
        """The ghost bot's decision (``ghost_choice``)."""
        return ghost_choice(self.setup.joint_seed(), stage, legal)

    def feed(self, author: int, stream: Sequence[SignedMessage],
             logged_only: AbstractSet[tuple[int, int]] = frozenset()) -> None:
        """Give the session the messages of ``author`` it has not had yet (``stream``: all of
        them in order, the signed ones first, then, for a ghost, its ghost messages).
        ``logged_only``: (author, seq) of claims a recovery took, which the game went on
        without (kept in the log, for the sequence, never queued)."""
        for signed in stream[self.fed[author]:]:
            if (signed.msg.seat, signed.msg.seq) in logged_only and signed.sig:
                self.msglog.receive(signed)
            elif signed.sig:
                self.absorb(signed, quiet=True)
            else:
                self.queues[author].append(signed)
        self.fed[author] = len(stream)
        self.relays.clear()
        self.outbox.clear()

    def move(self, stage: int) -> SignedMessage | None:
        """Our message for ``stage``, after running the game as far as it goes (None: we
        stopped; ``aborted`` says why)."""
        self._pump()
        view = self.seat_view()
        if self.pending_input is not None and self.input_stage == stage and view is not None:
            self.submit(self.choose(stage, view.legal), stage)
        for signed in reversed(self.made):
            if signed.msg.body.get("stage") == stage and signed.msg.type != "abort":
                return signed
        if self.aborted is not None:
            return None
        raise LocalProtocolError(f"the ghost of peer {self.me} made no message for stage "
                                 f"{stage}")
