"""Catching up after a restart, and staying for the table after the end (protocol.md,
"Persistence and restart").

Frames besides the session's signed messages (``M``):

- ``S`` + ``{"have": [next seq per author]}``: "send me every message I lack".
- ``D`` + ``{"next": [next seq per author]}``: sent after the answer to an ``S``: "that was
  everything I hold". A restarted peer signs nothing new until every other peer has sent it a
  ``D`` and it holds every message of its own that any of them holds: whatever its disk lost,
  it then never signs a second, different message with a sequence number it used before.
- ``F``: "my game is over". A finished peer keeps answering ``S`` until every other peer has
  said ``F`` (or was lost), for at most the linger time. A peer that handed its seat over
  stays instead until every other peer's ``S`` or ``D`` shows that it holds the handover
  (sending it, and an ``S``, to each peer that connects), for at most the linger time:
  restarted after a crash between storing the handover and sending it, it delivers it then.
- ``R``: "I am here and able to sign" (sent on every connection while we are not held, and to
  every peer when our hold is released). Until a peer's ``R`` arrives after it (re)connected,
  it counts as away: no deadline runs against it (``GameSession.away``).

A restarted peer waits for the peers that are up (connected to it), not for every peer: one
still down cannot answer, and what it holds comes when it is back. A peer that holds no
message of its own (its records may be lost) waits for every peer: a message of its that it
sent just before it lost its disk may have reached only the one that is down, and signing that
sequence number again would be an equivocation.

A ``D`` whose ``next`` for us is beyond what we hold after its answer says the peer holds
messages of ours it did not send. An honest peer sends everything it holds before its ``D``
(one connection keeps the order), so we ask it again, at most ``MAX_REASKS`` times (a message
of ours we could not take yet may come on a later answer); after that its claim counts only
up to what we hold, and the peer is reported (``overclaimed``): a lie cannot hold a restarted
peer until the table's 60 s bound stops the game.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from engine.canonical import CanonicalEncodingError, canonical_json, parse_json
from p2p.identity import short_id
from p2p.net.roster import Roster
from p2p.session.machine import GameSession

FRAME_SYNC_DONE = b"D"
FRAME_FINISHED = b"F"
FRAME_READY = b"R"
MAX_REASKS = 3   # fresh sync requests to a peer whose D claims messages of ours it did not send


def who(roster: Roster, index: int) -> str:
    """A peer as users should see it in every message: name and short peer id."""
    entry = roster.players[index]
    return f"{entry.name} ({short_id(entry.peer_id)})"


def names_of(roster: Roster, indexes: Sequence[int]) -> str:
    return ", ".join(who(roster, i) for i in indexes)


def everyone(peer: int) -> bool:
    return True


class Resync:
    """What a (restarted) peer still needs from the others, and which of them are done.

    ``held``: the session was rebuilt from our store, so it may have lost messages of its own;
    it stays in replay mode (accepting, signing nothing) until ``on_done`` (or
    ``try_release``, when a peer we waited for went down) releases it. ``up``: whether a peer
    is connected now (we wait only for those, unless we hold no message of our own).
    """

    def __init__(self, session: GameSession, others: Sequence[int], held: bool,
                 up: Callable[[int], bool] = lambda peer: True) -> None:
        self.session = session
        self.others = tuple(others)
        self.held = held and not session.finished
        me = session.me
        # Our records may be lost: only every peer's answer is enough.
        self.needs_everyone = self.held and me is not None and session.msglog.next_seq(me) == 0
        self.up = everyone if self.needs_everyone else up
        self.answered: set[int] = set()
        self.own_elsewhere = 0   # the highest "next seq" of ours any peer reported
        self.finished_peers: set[int] = set()
        self.lost: set[int] = set()
        self.reasks: dict[int, int] = {}        # per peer: sync requests sent again
        self.overclaimed: dict[int, int] = {}   # per peer: the "next" of ours it claimed
        self.due_reask: set[int] = set()        # peers to send a fresh sync request to
        if self.held:
            session.replaying = True

    def request(self) -> bytes:
        return self.session.sync_request()

    def reply(self, request: bytes) -> list[bytes]:
        """The answer to an ``S`` frame: the messages it lacks, then ``D``."""
        frames = self.session.sync_reply(request)
        have = [self.session.msglog.next_seq(p) for p in range(self.session.n)]
        return [*frames, FRAME_SYNC_DONE + canonical_json({"next": have})]

    def on_done(self, index: int, frame: bytes) -> bool:
        """A ``D`` from ``index``; True if this released the hold (the caller then lets the
        session contribute)."""
        me = self.session.me
        try:
            reported = parse_json(frame[1:])["next"]
            theirs = int(reported[me]) if me is not None else 0
        except (CanonicalEncodingError, KeyError, TypeError, IndexError, ValueError):
            return False  # malformed: this peer has not answered us
        held_now = self.session.msglog.next_seq(me) if me is not None else 0
        if theirs > held_now and self.held:
            if self.reasks.get(index, 0) < MAX_REASKS:
                self.reasks[index] = self.reasks.get(index, 0) + 1
                self.due_reask.add(index)
                return False  # not answered yet: ask again
            self.overclaimed[index] = theirs
            theirs = held_now
        self.answered.add(index)
        self.own_elsewhere = max(self.own_elsewhere, theirs)
        return self._try_release()

    def take_reask(self, index: int) -> bool:
        """Whether ``index`` is to get a fresh sync request (its ``D`` claimed more of ours
        than it sent); the caller sends ``request()``."""
        if index in self.due_reask:
            self.due_reask.discard(index)
            return True
        return False

    def waiting_for(self) -> list[int]:
        """Peers whose complete answer we still need before we may sign again: those up
        that have not answered."""
        if not self.held:
            return []
        return [p for p in self.others if p not in self.answered and self.up(p)]

    def try_release(self) -> bool:
        """Release the hold if every peer up has answered (at least one did); True if this
        released it."""
        return self._try_release()

    def lacking_own(self) -> int:
        """How many of our own messages a peer holds that we still lack."""
        me = self.session.me
        if me is None:
            return 0
        ours: int = self.session.msglog.next_seq(me)
        return max(0, self.own_elsewhere - ours)

    def _try_release(self) -> bool:
        if not self.held or not self.answered or self.waiting_for() or self.lacking_own():
            return False
        self.held = False
        self.session.replaying = False
        return True

    # ---- after the end

    def finished_frame(self) -> bytes:
        return FRAME_FINISHED

    def holds_ours(self, frame: bytes, last: int) -> bool:
        """A peer's ``S`` or ``D`` says it holds our messages up to seq ``last``: what a
        leaver waits for from each peer before it stops (its handover delivered)."""
        me = self.session.me
        try:
            counts = parse_json(frame[1:])["have" if frame[:1] != FRAME_SYNC_DONE else "next"]
            return me is not None and int(counts[me]) > last
        except (CanonicalEncodingError, KeyError, TypeError, IndexError, ValueError):
            return False

    def everyone_done(self) -> bool:
        return all(p in self.finished_peers or p in self.lost for p in self.others)
