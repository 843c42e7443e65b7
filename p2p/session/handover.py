"""Leaving with a handover: a player that leaves publishes its per-game master secret in a
signed ``handover`` message; every remaining peer checks it against the commitments the
leaver made at the start and from then on plays the seat as a ghost (``p2p.session.ghost``).

The handover is one of the leaver's messages, so it takes effect at the same stage on every
peer: the first stage that needs the leaver after its last contribution. See protocol.md,
"Leaving with a handover".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from p2p.crypto.sealed import box_key
from p2p.errors import LocalProtocolError
from p2p.hexfields import is_lower_hex
from p2p.session.events import ABANDONED, Peer, SeatHandedOver
from p2p.session.fields import SessionFields
from p2p.session.ghostseat import GHOST_BOT, NOT_FED, Ghost
from p2p.session.secrets import deck_keys, local_seed

if TYPE_CHECKING:
    from p2p.session.envelope import SignedMessage
    from p2p.session.stages import Stage

HANDOVER = "handover"
class Handovers(SessionFields):
    """Handing our seat over, taking another peer's handover, and playing its ghost."""

    def hand_over(self) -> None:
        """Leave the game now; every remaining peer plays our seat from here on."""
        if self.me is None or self.finished:
            raise LocalProtocolError("only a playing peer in a running game can leave it")
        if not self.seat_of_peer:
            raise LocalProtocolError("the seats are not drawn yet: there is no seat to hand "
                                     "over (close the game instead)")
        if any(m.msg.seat == self.me and m.msg.type == HANDOVER
               for m in self.msglog.messages):
            self.left = True  # handed over before a restart: that handover stands, once
            return
        self.pending_input = None
        self._send(HANDOVER, {"master": self.master.hex(), "bot": GHOST_BOT})
        self.left = True
        assert self.engine is not None or self.deck is not None
        self.events.append(SeatHandedOver(self.me, self.seat_of_peer[self.me], self._round(),
                                          self.stage_index, GHOST_BOT, mine=True))

    def _leaving(self) -> bool:
        """``leave_after_round`` is over: we hand over instead of contributing."""
        return (self.leave_after_round is not None and self.engine is not None
                and self.engine.round > self.leave_after_round)

    def _round(self) -> int:
        return self.engine.round if self.engine is not None else 0

    def _take_handover(self, peer: Peer, signed: SignedMessage, stage: Stage) -> bool:
        """``peer``'s handover, met when ``stage`` needs it: check it and make the seat a
        ghost (False: it does not check, and the game stopped naming ``peer``)."""
        if peer == self.me:  # our own, replayed after a restart: we left
            self.left = True
            return False
        body = signed.msg.body
        evidence = [signed.to_json()]
        if not self.seat_of_peer:
            self._abort(peer, "left before the seats were drawn", evidence, kind=ABANDONED)
            return False
        master_text = body.get("master")
        sent_at = body.get("stage")
        problem = None
        if not is_lower_hex(master_text, 32):
            problem = "its master secret is not 32 bytes of lowercase hex"
        elif body.get("bot") != GHOST_BOT:
            problem = f"it names a ghost bot other than {GHOST_BOT!r}"
        elif type(sent_at) is not int or not 0 < sent_at <= stage.index:
            problem = f"it is for stage {sent_at!r}, not one up to stage {stage.index}"
        else:
            problem = self._handover_mismatch(peer, bytes.fromhex(master_text))
        if problem is not None or not isinstance(master_text, str):
            self._abort(peer, f"its handover does not check: {problem}", evidence)
            return False
        ghost = self._new_ghost(peer, bytes.fromhex(master_text))
        ghost.replaying = True
        record = Ghost(ghost, peer, signed, signed.msg.seq, self._round(), stage.index,
                       len(self.actions))
        self.ghosts[peer] = record
        self._feed(record)
        ghost.replaying = False
        self.queues[peer].clear()  # what it sent after its handover has no place
        self.referee.claims.pop(peer, None)
        seat = self.seat_of_peer[peer]
        self.events.append(SeatHandedOver(peer, seat, record.round, stage.index, GHOST_BOT))
        return True

    def _handover_mismatch(self, peer: Peer, master: bytes) -> str | None:
        """What the published master fails to open of ``peer``'s commitments (None: all)."""
        seed = local_seed(master, self.game_id, "setup", peer)[0]["commitment"]
        committed = self.setup.commitment(peer)
        if committed is None or committed.hex() != seed:
            return "its setup seed commitment"
        if bytes(box_key(master, self.game_id).public_key) != bytes(self.box_public[peer]):
            return "its box key"
        seat = self.seat_of_peer[peer]
        deck_commitment = self.deck.key_commitment(seat) if self.deck is not None else None
        if (deck_commitment is not None and
                deck_keys(master, self.game_id).commitment(self.game_id, seat)[0]
                != deck_commitment):
            return "its deck key commitment"
        return None

    def _stream_of(self, author: int) -> list[SignedMessage]:
        """Every message of ``author`` a ghost is given: its signed ones up to its handover
        or stop, then, for a ghost, its ghost messages."""
        stream = []
        for seq in range(self.msglog.next_seq(author)):
            signed = self.msglog.get(author, seq)
            assert signed is not None
            if (author, seq) in self.recovered:
                stream.append(signed)  # its claim of a seat since recovered: logged only
                continue
            if signed.msg.type in NOT_FED:
                break
            stream.append(signed)
        ghost = self.ghosts.get(Peer(author))
        if ghost is not None:
            stream += ghost.session.made
        return stream

    def _feed(self, record: Ghost) -> None:
        session = record.session
        for author in range(self.n):
            stream = self._stream_of(author)
            if author == record.peer:
                stream = stream[:record.seq]  # its own ghost messages it holds already
            session.feed(author, stream, self.recovered)

    def _ghost_move(self, peer: Peer, stage: Stage) -> SignedMessage | None:
        """The ghost's message for ``stage`` (None: its session stopped on a fault it found,
        and so do we, naming the same peer)."""
        record = self.ghosts[peer]
        self._feed(record)
        signed = record.session.move(stage.index)
        if signed is None:
            stopped = record.session.aborted
            assert stopped is not None
            self._abort(stopped.peer, f"(found playing the ghost of peer {peer}) "
                                      f"{stopped.reason}", kind=stopped.kind,
                        stage=stopped.stage)
        return signed
