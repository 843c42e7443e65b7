"""The receiving side of a game session: frames in, signatures and order checked, relays out.

``Inbox`` is a part of ``GameSession`` (a mixin: it uses the session's log, queues, outbox and
events). Every message of another author accepted for the first time is relayed to every peer
before anything of ours that builds on it (see protocol.md, "Authors, seats and frames"):
relays wait in ``relays`` and leave just before our next message, or when the transport
releases them (``release_relays``) after a short wait;
copies of messages already held are dropped silently; what one peer can make us hold is
bounded (messages queued ahead, messages held ahead of a gap, rejections reported).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from typing import Any

from engine.canonical import canonical_json, parse_json
from p2p.errors import CheatDetected, P2PError, RemoteProtocolError
from p2p.session.bundle import FRAME_BUNDLE, unbundle
from p2p.session.envelope import SignedMessage
from p2p.session.events import ABANDONED, UNFAIR, Aborted, Peer, Rejected, SessionEvent

log = logging.getLogger("solstice.session")

FRAME_MESSAGE = b"M"
FRAME_SYNC = b"S"
# Bounds on what one peer can make us hold: messages queued ahead of the game (an honest peer
# is never more than a stage or two ahead), messages held ahead of a gap in its sequence, and
# "rejected" events shown (further ones are only counted).
MAX_QUEUED = 64
MAX_FUTURE = 256
MAX_REJECTIONS_SHOWN = 20


class Inbox:
    """Receiving, relaying and resync for ``GameSession`` (which provides the state)."""

    n: int
    game_id: str
    me: Peer | None
    replaying: bool
    outbox: list[bytes]
    relays: list[bytes]
    events: list[SessionEvent]
    rejections: list[int]
    msglog: Any
    queues: Any
    future: Any
    on_record: Any
    queue_limit: int
    ghosts: Any
    aborted: Aborted | None
    after_verdict: list[dict[int, SignedMessage]]
    _escrow_holds: Callable[[SignedMessage], bool]  # provided by Recoveries

    def _pump(self) -> None:  # provided by GameSession
        raise NotImplementedError

    @property
    def finished(self) -> bool:  # provided by GameSession
        raise NotImplementedError

    def _abort(self, peer: Peer | None, reason: str, evidence: Any = None,
               kind: str = UNFAIR, box: bool = False, stage: int | None = None,
               final: bool = False) -> None:
        raise NotImplementedError


    def receive(self, from_peer: int, frame: bytes) -> None:
        """A frame from the connection of ``from_peer`` (a message, or a bundle of them)."""
        if not frame:
            self._reject(from_peer, "empty frame")
            return
        tag, payload = frame[:1], frame[1:]
        if tag == FRAME_BUNDLE:
            try:
                items = unbundle(frame, from_peer)
            except RemoteProtocolError as exc:
                self._reject(from_peer, exc.reason)
                return
            for item in items:
                self.receive(from_peer, item)
            return
        if tag != FRAME_MESSAGE:
            self._reject(from_peer, f"unknown frame tag {tag!r}")
            return
        if self.msglog.get_by_hash(hashlib.sha256(payload).hexdigest()) is not None:
            # A byte-exact copy of a message we hold (a relay): nothing to parse or verify.
            return
        try:
            signed = SignedMessage.decode(payload, from_peer)
        except RemoteProtocolError as exc:  # UnreadableInput too: over a parser limit
            self._reject(from_peer, exc.reason)
            return
        author = signed.msg.seat
        if author != from_peer and (author >= self.n or
                                    not signed.verify(self.msglog.keys[author])):
            # A relayed copy its named author did not sign: the relaying connection answers.
            self._reject(from_peer, f"relayed a message of seat {author} that seat did not "
                                    "sign (bad signature or no such seat)")
            return
        self.accept(signed, direct=author == from_peer)

    def accept(self, signed: SignedMessage, direct: bool = True) -> None:
        """A decoded signed message (from its author, or forwarded when ``direct`` is False)."""
        if self.absorb(signed, direct):
            self._pump()

    def absorb(self, signed: SignedMessage, direct: bool = False, quiet: bool = False) -> bool:
        """Verify and record a message without running the game; True if it was new.

        Duplicates (a relayed copy, a resync reply) are dropped silently; a message of
        another seq than expected waits for the gap (forwarded) or is rejected (direct).
        ``quiet``: a copy taken from inside another peer's signed abort (its evidence): one
        that does not check is that claim's failure, not a message rejected from its author
        nor damage to our log, so it is dropped without a ``Rejected`` event."""
        reject = self._reject if not quiet else self._drop_evidence
        if self.finished and self.me is not None:
            # Our verdict is in: nothing can change it, and what we hold is what it was drawn
            # from (our transcript), so a message that comes later is not taken into the log:
            # e.g. a late message of a peer we found silent, which would refute our own claim
            # in the transcript though it came after the deadline. (An observer re-checking
            # a file still checks every message of it.) One kind is taken still: another
            # peer's signed word that it saw the very silence we named (``concurs``), so our
            # transcript holds the unanimity that names the silent peer offline.
            self._hold_after_verdict(signed)
            return False
        msg = signed.msg
        if 0 <= msg.seat < self.n:
            known = self.msglog.get(msg.seat, msg.seq)
            if known is not None and known.encode() == signed.encode():
                return False
            if known is None and msg.seat in self.ghosts:
                return False  # a seat handed over: what its player sends now has no place
            if known is None and self._escrow_holds(signed):
                return False  # our claim of a seat waits for the others' shares
            if known is None and msg.seq > self.msglog.next_seq(msg.seat):
                # While we replay (restarted, our log short) a peer's newest message may come
                # before the resync that fills the gap: that is no fault of the peer's.
                if direct and not self.replaying:
                    reject(msg.seat, f"seq {msg.seq} out of order, expected "
                                      f"{self.msglog.next_seq(msg.seat)}")
                elif (msg.game == self.game_id and len(self.future[msg.seat]) < MAX_FUTURE
                      and signed.verify(self.msglog.keys[msg.seat])):
                    self.future[msg.seat][msg.seq] = signed  # forwarded ahead of a gap
                return False
            if known is None and len(self.queues[msg.seat]) >= self.queue_limit:
                reject(msg.seat, f"more than {self.queue_limit} messages ahead of the game: "
                                  "not taken")
                return False
        try:
            self.msglog.receive(signed)
        except CheatDetected as exc:
            self._abort(Peer(exc.seat) if exc.seat is not None else None, str(exc),
                        evidence=[m.to_json() for m in exc.evidence])
            return False
        except RemoteProtocolError as exc:
            reject(exc.seat, exc.reason)
            return False
        self._enqueue(signed)
        return True

    def concurs(self, signed: SignedMessage) -> bool:
        """``signed`` is another peer's abort naming the peer we named abandoned, at the same
        stage: its signed word that it saw the silence we saw."""
        stop, msg = self.aborted, signed.msg
        return (stop is not None and stop.kind == ABANDONED and stop.peer is not None
                and msg.type == "abort" and msg.game == self.game_id
                and 0 <= msg.seat < self.n and msg.seat not in (self.me, stop.peer)
                and msg.body.get("kind") == ABANDONED and msg.body.get("blame") == stop.peer
                and msg.body.get("stage") == stop.stage)

    def _hold_after_verdict(self, signed: SignedMessage) -> None:
        """After our verdict that X abandoned the game, a message of another peer (never X's)
        is held, and logged only as part of the unbroken run of its author's messages that
        ends with its concurring abort (it may have played on past the stage before it
        agreed: those messages come first in its sequence)."""
        stop, msg = self.aborted, signed.msg
        if stop is None or stop.kind != ABANDONED or stop.peer is None \
                or not 0 <= msg.seat < self.n or msg.seat in (self.me, stop.peer) \
                or msg.game != self.game_id:
            return
        held = self.after_verdict[msg.seat]
        nxt = self.msglog.next_seq(msg.seat)
        if msg.seq < nxt or len(held) >= MAX_QUEUED \
                or not signed.verify(self.msglog.keys[msg.seat]):
            return
        held.setdefault(msg.seq, signed)
        run: list[SignedMessage] = []
        while nxt in held:
            run.append(held[nxt])
            nxt += 1
        ends = [i for i, m in enumerate(run) if self.concurs(m)]
        if not ends:
            return
        for m in run[:ends[0] + 1]:
            del held[m.msg.seq]
            try:
                self.msglog.receive(m)
            except P2PError:
                return
            self._record(m)

    def concurrence_missing(self) -> list[Peer]:
        """After we named a peer abandoned: the other peers whose concurring abort our log
        lacks (what ``solstice verify`` needs, at three or more, to name that peer too)."""
        stop = self.aborted
        if stop is None or stop.kind != ABANDONED or stop.peer is None or self.me is None:
            return []
        said = {m.msg.seat for m in self.msglog.messages
                if m.msg.type == "abort" and m.msg.body.get("kind") == ABANDONED
                and m.msg.body.get("blame") == stop.peer
                and m.msg.body.get("stage") == stop.stage}
        return [Peer(p) for p in range(self.n)
                if p not in (self.me, stop.peer) and p not in self.ghosts and p not in said]

    def sync_request(self) -> bytes:
        """A frame asking a peer for every message we lack."""
        have = [self.msglog.next_seq(p) for p in range(self.n)]
        return FRAME_SYNC + canonical_json({"have": have})

    def sync_reply(self, frame: bytes) -> list[bytes]:
        """Frames answering a peer's sync request: all messages it lacks, in our order."""
        try:
            request = parse_json(frame[1:])  # bounded: engine.canonical.FRAME_LIMITS
        except ValueError:
            return []
        have = request.get("have") if isinstance(request, dict) else None
        if not isinstance(have, list) or len(have) != self.n or not all(
                isinstance(h, int) and not isinstance(h, bool) and h >= 0 for h in have):
            return []
        return [FRAME_MESSAGE + m.encode() for m in self.msglog.messages
                if m.msg.seq >= have[m.msg.seat]]

    def _reject(self, seat: int | None, reason: str) -> None:
        """Report a message we did not take (the first few per peer; the rest are counted)."""
        who = f"seat {seat}" if seat is not None else "a peer"
        log.debug("rejected a message from %s: %s", who, reason)
        if isinstance(seat, int) and 0 <= seat < self.n:
            self.rejections[seat] += 1
            if self.rejections[seat] > MAX_REJECTIONS_SHOWN:
                return
            if self.rejections[seat] == MAX_REJECTIONS_SHOWN:
                reason += " (further rejections of this peer are counted, not shown)"
        self.events.append(Rejected(Peer(seat) if seat is not None else None, reason))

    def _drop_evidence(self, seat: int | None, reason: str) -> None:
        log.debug("dropped a copy of seat %s's message from a claim's evidence: %s", seat, reason)

    def _record(self, signed: SignedMessage) -> None:
        if self.on_record is not None:
            self.on_record(signed)

    def _enqueue(self, signed: SignedMessage) -> None:
        author = signed.msg.seat
        self._take(signed)
        nxt = self.msglog.next_seq(author)
        while nxt in self.future[author]:
            if self._escrow_holds(self.future[author][nxt]):
                self.future[author].pop(nxt)
                break
            queued = self.future[author].pop(nxt)
            self.msglog.receive(queued)
            self._take(queued)
            nxt += 1

    def _take(self, signed: SignedMessage) -> None:
        """Record a newly accepted message and queue it; a player relays another author's
        message to every peer before anything of its own that builds on it (with our next
        message, or when the transport releases waiting relays), so two different messages
        with one (author, seq) meet at every honest peer within the stage (equivocation is
        proven) and a state hash is never compared before the inputs are in."""
        self._record(signed)
        self.queues[signed.msg.seat].append(signed)
        if self.me is not None and signed.msg.seat != self.me and not self.replaying:
            self.relays.append(FRAME_MESSAGE + signed.encode())

    def release_relays(self) -> bool:
        """Move the relays waiting for our next message to the outbox (the transport calls
        this when they have waited long enough); True if there were any."""
        if not self.relays:
            return False
        self.outbox.extend(self.relays)
        self.relays.clear()
        return True
