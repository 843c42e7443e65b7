"""Run a game session over the mesh (trio): frames in and out, resync, a player, persistence.

One task owns the session; the mesh's frames and events, the player's answers and a ticker
all reach it through one bounded channel, so the sans-IO session is never touched concurrently
and a flooding peer slows only its own connection. A session rebuilt from our store signs
nothing until the others have re-sent what it lacks (``p2p.net.resync``); after the end we
keep answering until every peer is done too.

The ticker feeds the time to the session (``GameSession.tick``), which enforces the deadlines:
our own player's clock (a legal default is played when it runs out, the player's pending
question is then withdrawn) and every other peer's (a peer that misses one, or whose game
clock runs out, is declared to have abandoned the game); the time is also fed just before each
frame. A peer is *away*, and held to no deadline, from the moment it is disconnected (or, when
we resumed, from our start) until it is connected again and has said it can sign (``R``: it
is not replaying or resyncing any more); if it stays away longer than the mesh's grace period
while the game needs it (or we cannot catch up within that time), the game stops for now: it
stays resumable (every player runs ``solstice resume``), it is never a verdict.
Resync requests are answered at most ``SYNC_BURST`` at once and one per ``SYNC_EVERY`` seconds
per peer.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from engine import Action
from p2p.errors import LocalFileError, LocalProtocolError
from p2p.identity import Identity
from p2p.net.chat import FRAME_CHAT, ChatRoom
from p2p.net.chatlink import ChatLink, open_room
from p2p.net.mesh import (
    Mesh,
    PeerConnected,
    PeerCutOff,
    PeerDisconnected,
    PeerLost,
    PeerReconnected,
)
from p2p.net.notices import (
    ChoiceRefused,
    EventSink,
    RosterKnown,
    SeatsDrawn,
    Stopped,
    TranscriptWritten,
    Waiting,
)
from p2p.net.resync import (
    FRAME_FINISHED,
    FRAME_READY,
    FRAME_SYNC_DONE,
    MAX_REASKS,
    Resync,
    names_of,
    who,
)
from p2p.net.roster import Roster
from p2p.net.watchers import FRAME_WATCHERS, HeardWatchers
from p2p.session.bundle import FRAME_BUNDLE, bundle
from p2p.session.envelope import SignedMessage
from p2p.session.events import STOPPED, Aborted, LogLine, Peer
from p2p.session.handover import HANDOVER
from p2p.session.inbox import FRAME_MESSAGE, FRAME_SYNC
from p2p.session.machine import GameSession
from p2p.session.seatview import SeatView
from p2p.session.secrets import fixed_master, master_of
from p2p.session.timing import Timing
from p2p.storage.chatlog import load_lobby_chat
from p2p.storage.paths import transcript_destination
from p2p.storage.recovery import recorder
from p2p.storage.store import GameStore
from p2p.storage.transcript import outcome_of, write_transcript

log = logging.getLogger("solstice.runner")

# A player: given its seat's view with the choices wanted (``SeatView.legal``), it answers one.
Chooser = Callable[[SeatView], Awaitable[Action]]

SYNC_BURST = 4       # resync requests answered at once per peer...
SYNC_EVERY = 5.0     # ... then one per this many seconds
TICK = 0.5           # seconds between clock ticks fed to the session
# A gap this long between two of our own clock readings means we were not running (a
# suspended or starved process): frames may have waited unread in our sockets meanwhile, so
# the session charges that time to nobody.
STALL = 4 * TICK
DRAIN = 2.0          # seconds we wait at the end for our last frames to leave
_CHANNEL_SIZE = 256
_HOLD_BACK = 32      # items taken in at most before what they made is sent
# Relays wait this long for a message of ours to travel with (see protocol.md, the relay):
# well under any deadline, so a peer its author starved still gets the message in time.
RELAY_WAIT = 0.2


class _SyncBudget:
    """Per peer: how many resync requests we still answer (a request costs a whole log)."""

    def __init__(self, peers: int) -> None:
        self.tokens = [float(SYNC_BURST)] * peers
        self.last = [trio.current_time()] * peers

    def take(self, peer: int) -> bool:
        now = trio.current_time()
        self.tokens[peer] = min(SYNC_BURST, self.tokens[peer] + (now - self.last[peer])
                                / SYNC_EVERY)
        self.last[peer] = now
        if self.tokens[peer] < 1:
            return False
        self.tokens[peer] -= 1
        return True


@dataclass
class RunOptions:
    transcript: Path | None = None
    waiting_after: float = 5.0     # seconds without progress before "waiting for ..." is shown
    # After our game ended we keep answering the others until each has said it is done too,
    # for at most ``linger`` seconds (``linger_replayed`` when the game was over in our log
    # already on a restart: the others have most likely finished; this is long enough for a
    # peer still re-dialing us with backoff to connect and say it is done).
    linger: float = 60.0
    linger_replayed: float = 15.0
    # After we named a peer abandoned, the seconds we wait for the other peers' signed word
    # that they saw that silence too, before the transcript is written: at three or more
    # players, `solstice verify` names the silent peer only where all of them signed it.
    concur: float = 10.0
    resume_command: str = "solstice resume"  # how the user continues this game (shown on stops)
    timing: Timing | None = None   # the table's clock, if we host (default: Timing())
    chat: ChatLink | None = None   # the player's side of the table chat (None: kept only)
    leave_after_round: int | None = None  # hand our seat over when this round is over
    escrow: bool = False           # if we host: the table escrows every player's secret


class TranscriptNotWritten(LocalFileError):
    """The game is over and audited, but its transcript could not be written."""


def open_session(roster: Roster, identity: Identity, store: GameStore, started: bool = False,
                 fixed_secrets: bytes | None = None) -> tuple[GameSession, bool]:
    """A new session, or (True) the stored one replayed after a restart. ``started``: the
    game may have begun without our knowing (we resume it, or the host sent its roster
    again): with no secret stored, the session is held like a resumed one with a lost log,
    so that it signs nothing before the others re-sent what they hold of ours
    (``p2p.storage.recovery``). ``fixed_secrets``: a game whose every peer is in this
    process takes its master from this seed (``secrets.fixed_master``), not the identity."""
    keys = [p.key for p in roster.players]
    me = roster.index_of(identity.peer_id)
    if me is None:
        raise LocalProtocolError(f"{identity.short_id} is not in game {roster.game_id}")
    resumed = store.exists()
    if resumed:
        stored_me, master = store.load_secret()
        if stored_me != me:
            raise LocalProtocolError(f"stored game says we are peer {stored_me}, not {me}")
        session = GameSession(roster.game_id, keys, me, identity, master)
        session.replaying = True
        for signed in store.load_messages():
            session.accept(signed, direct=False)
        session.replaying = False
        session.outbox.clear()
    else:
        master = store.create(me, master_of(identity, roster.game_id, keys)
                              if fixed_secrets is None
                              else fixed_master(fixed_secrets, roster.game_id, me))
        session = GameSession(roster.game_id, keys, me, identity, master)
        resumed = started
    session.on_record = recorder(store, me, master, lambda: session.replaying)
    return session, resumed


async def run_session(mesh: Mesh, session: GameSession, choose: Chooser, store: GameStore,
                      on_event: EventSink, options: RunOptions | None = None,
                      resumed: bool = False) -> GameSession:
    """Play until the game ends (audited) or stops (a cheat, an abandonment, a peer lost).
    ``resumed``: the session was rebuilt from our store (it signs nothing until resynced)."""
    run = _GameRun(mesh, session, choose, store, on_event, options or RunOptions(), resumed)
    await run.run()
    return session


class _GameRun:
    """One game over the mesh: the task that owns the session and what it keeps between
    items (see the module docstring)."""

    def __init__(self, mesh: Mesh, session: GameSession, choose: Chooser, store: GameStore,
                 on_event: EventSink, options: RunOptions, resumed: bool) -> None:
        self.mesh, self.session, self.choose, self.store = mesh, session, choose, store
        self.on_event, self.options, self.resumed = on_event, options, resumed
        self.send, self.receive = trio.open_memory_channel[tuple[Any, ...]](_CHANNEL_SIZE)
        self.roster = mesh.roster
        self.names = [p.name for p in self.roster.players]
        self.others = [p for p in range(len(self.names)) if p != mesh.my_index]
        if options.timing is not None and not session.msglog.messages:
            session.timing = session.clock.timing = options.timing
        if options.leave_after_round is not None:
            session.leave_after_round = options.leave_after_round
        session.escrow_wanted = options.escrow
        self.resync = Resync(session, self.others, held=resumed, up=mesh.is_connected)
        self.told_overclaim: set[int] = set()
        # Since when each away peer has been away (kept across reconnects until its ``R``:
        # the grace period bounds the whole absence, however often it re-dials).
        self.away_since: dict[int, float] = {}
        if resumed:  # nobody is here yet, as far as we know: nobody is timed until it is
            session.away.update(self.others)
            self.away_since = dict.fromkeys(self.others, trio.current_time())
        self.heard_watchers = HeardWatchers(self.roster)  # the host's notices of who watches
        self.finished_on_replay = session.finished
        self.sync_budget = _SyncBudget(len(self.names))
        self.ask_scope: trio.CancelScope | None = None
        self.asked_stage: int | None = None
        self.lost: set[int] = set()
        self.lost_stop = False
        self.reached: set[int] = set()  # peers connected to us in this run
        self.released_at: float | None = None  # resumed: when we caught up
        self.started = self.last_progress = trio.current_time()
        self.fed_at: float | None = None  # when we last gave the session the time
        self.last_stage = -1
        self.shown_waiting: tuple[int, ...] = ()
        self.shown_at = 0.0
        self.seen = 0              # session events passed on so far
        self.held_back = 0         # items taken in since we last sent
        self.relays_since: float | None = None
        self.chat = open_room(mesh, store)
        if options.chat is not None:
            options.chat.attach(self.chat, mesh.broadcast, trio.current_time)

    async def run(self) -> None:
        session, mesh = self.session, self.mesh
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._pump_frames)
            nursery.start_soon(self._pump_events)
            nursery.start_soon(self._tick)
            if self.resumed:
                # Rebuilt from our store: ask everyone at once for what we lack (the requests
                # wait in the mesh's queues for peers not connected yet).
                for peer in self.others:
                    await mesh.send(peer, self.resync.request())
            self.on_event(RosterKnown("Players: " + names_of(self.roster,
                                                             range(len(self.names))),
                                      tuple(self.names)))
            self._emit_new()
            self._feed_time()
            session.start()
            await self._play(nursery)
            session.release_relays()
            await self._flush()
            self._emit_new()
            failure = None
            if session.left:
                # Our handover is stored: it is delivered like any message of ours (after a
                # crash before it left, by this run) before we mark the game over for good.
                with trio.move_on_after(self.options.linger):
                    await self._say_we_left()
                await mesh.broadcast(self.resync.finished_frame())  # nobody waits for us
                self._left()
            elif not self.lost_stop:  # a lost peer stops the game for now: it stays resumable
                await self._gather_concurrence()
                failure = _finish(session, self.store, self.roster, self.names, self.options,
                                  self.on_event, self.chat)
                # Keep answering until every other peer is done too, so that one that
                # crashed during the audit can fetch what it lacks when it comes back.
                await mesh.broadcast(self.resync.finished_frame())
            linger = (self.options.linger_replayed
                      if self.finished_on_replay or self._table_left() else self.options.linger)
            # A seat handed over says no more: its ghost is done when the game is. A seat
            # recovered from the escrow is not: its player may come back, and is answered
            # (with the claims that took its seat) while we linger.
            for peer, ghost in session.ghosts.items():
                if ghost.by == "handover":
                    self.resync.finished_peers.add(peer)
                else:  # (lost to the mesh long ago, most likely)
                    self.resync.lost.discard(peer)
            with trio.move_on_after(0 if self.lost_stop or session.left else linger):
                await self._linger()
            with trio.move_on_after(DRAIN):
                await mesh.drain()  # our F (and last answers) must leave before we hang up
            nursery.cancel_scope.cancel()
        self.store.close()
        if failure is not None:
            raise failure

    async def _play(self, nursery: trio.Nursery) -> None:
        """Take items in until the game is over or stops."""
        session = self.session
        seats_announced = False
        while True:
            # What is already waiting is taken in first, so that the relays and messages it
            # makes leave together in one bundle (bounded: a busy peer still sends).
            if self.receive.statistics().current_buffer_used and self.held_back < _HOLD_BACK:
                self.held_back += 1
            else:
                self.held_back = 0
                await self._flush()
            self._emit_new()
            if not seats_announced and session.config is not None:
                seats_announced = True
                self.on_event(seats_event(session, self.names))
            # (while our escrow claim waits, the peers whose claims it needs are needed too)
            lost_needed = self.lost & {*session.waiting_for(), *session.escrow_waits_for()}
            if not session.finished and lost_needed and session.give_up_on(sorted(lost_needed)):
                self._emit_new()  # (a table with escrow plays on once the others agree)
            elif not session.finished and lost_needed:
                self.lost_stop = True
                self._stop_for_lost(lost_needed)
                self._emit_new()
            elif self._others_left():
                self.lost_stop = True
                self._stop_for_left()
                self._emit_new()
            elif not session.finished and self.resync.held and (
                    trio.current_time() - self.started > self.mesh.config.grace_period):
                self.lost_stop = True
                self._stop_unsynced()
                self._emit_new()
            if session.finished:
                return
            self._ask_if_wanted(nursery)
            item = await self._next_item()
            if item is None:
                continue
            # The session reads the time now, not at the last tick: a stage this item begins
            # gets its whole window (S + grace), never up to a TICK less, a frame is timed
            # from its arrival, and the game clocks charge the wait since to those waited for
            # (advancing the clock without ``tick`` would let that wait go uncharged).
            self._feed_time()
            kind = item[0]
            if kind == "frame":
                await self._on_frame(item[1], item[2])
            elif kind == "tick":
                self._check_returning()
                self._feed_time()
            elif kind == "action":
                self._on_action(item[1], item[2])
            elif kind == "mesh":
                await self._on_mesh(item[1])
            self._report_waiting()

    def _feed_time(self) -> None:
        """Give the session the time, saying whether we were stalled since the last time."""
        now = trio.current_time()
        stalled = self.fed_at is not None and now - self.fed_at > STALL
        self.fed_at = now
        self.session.tick(now, stalled=stalled)

    async def _next_item(self) -> tuple[Any, ...] | None:
        """The next item; None when relays waited ``RELAY_WAIT`` for a message of ours to go
        with and were released to go alone."""
        session = self.session
        if not session.relays:
            self.relays_since = None
            return await self.receive.receive()
        if self.relays_since is None:
            self.relays_since = trio.current_time()
        with trio.move_on_at(self.relays_since + RELAY_WAIT):
            return await self.receive.receive()
        session.release_relays()
        self.relays_since = None
        self.held_back = _HOLD_BACK  # send them now
        return None

    def _ask_if_wanted(self, nursery: trio.Nursery) -> None:
        """Put the session's question to our player, or withdraw one it no longer asks."""
        session = self.session
        if self.ask_scope is not None and (session.pending_input is None
                                           or self.asked_stage != session.input_stage):
            self.ask_scope.cancel()  # our clock ran out (the default was played) or withdrawn
            self.ask_scope = None
        if session.pending_input is not None and self.ask_scope is None:
            self.ask_scope = trio.CancelScope()
            self.asked_stage = session.input_stage
            view = session.seat_view()
            assert view is not None  # a question is only put to a seated player
            nursery.start_soon(self._ask, view, self.ask_scope)

    async def _on_frame(self, index: int, payload: bytes) -> None:
        tag = payload[:1]
        if tag == FRAME_SYNC:
            await self._answer_sync(index, payload)
        elif tag == FRAME_SYNC_DONE:
            released = self.resync.on_done(index, payload)
            if index in self.resync.overclaimed and index not in self.told_overclaim:
                self.told_overclaim.add(index)
                self.on_event(LogLine(
                    f"{who(self.roster, index)} claims to hold messages of ours it never "
                    f"sent, after {MAX_REASKS} requests: that claim is ignored"))
            if released:
                await self._released()
            elif self.resync.take_reask(index):
                await self.mesh.send(index, self.resync.request())
        elif tag == FRAME_READY:
            self._ready(index)
        elif tag == FRAME_FINISHED:
            self.resync.finished_peers.add(index)
        elif tag == FRAME_CHAT:  # never part of the game's lockstep
            self._hear_chat(index, payload)
        elif tag == FRAME_WATCHERS:
            for event in self.heard_watchers.receive(index, payload):
                self.on_event(event)
        else:
            self.session.receive(index, payload)  # any other tag is rejected there

    def _on_action(self, action: Action, stage: int) -> None:
        if stage != self.session.input_stage:
            return  # answered after our clock ran out: the default stands
        self.ask_scope = None
        try:
            self.session.submit(action, stage)
        except LocalProtocolError as exc:
            self.on_event(ChoiceRefused(str(exc)))

    async def _on_mesh(self, event: Any) -> None:
        roster, on_event = self.roster, self.on_event
        grace = self.mesh.config.grace_period
        if isinstance(event, PeerReconnected | PeerConnected):
            self.reached.add(event.index)
            if event.index in self.session.away or isinstance(event, PeerReconnected):
                # Back, but perhaps replaying or resyncing: away until it says it can sign.
                self.session.away.add(event.index)
                self.away_since.setdefault(event.index, trio.current_time())
            if not self.resync.held:
                await self.mesh.send(event.index, FRAME_READY)
        if isinstance(event, PeerReconnected):
            on_event(LogLine(f"{who(roster, event.index)} is back"))
            await self.mesh.send(event.index, self.resync.request())
        elif isinstance(event, PeerConnected):
            on_event(LogLine(f"{who(roster, event.index)} is connected"))
        elif isinstance(event, PeerDisconnected):
            self.session.away.add(event.index)
            self.away_since.setdefault(event.index, trio.current_time())
            on_event(Waiting(f"{who(roster, event.index)} disconnected ({event.reason}); "
                             f"waiting up to {grace:g} s for it to come back",
                             (Peer(event.index),)))
            if self.resync.try_release():  # we waited for its answer: the others' will do
                await self._released()
        elif isinstance(event, PeerCutOff):
            on_event(Waiting(f"cut off {who(roster, event.index)}: {event.reason}",
                             (Peer(event.index),)))
        elif isinstance(event, PeerLost):
            # Not a stop by itself: the other peers may still hear it (and relay its
            # messages). The game stops (resumable) only if it needs this peer.
            self.lost.add(event.index)
            self.resync.lost.add(event.index)
            on_event(Waiting(f"{who(roster, event.index)} did not come back within "
                             f"{grace:g} s", (Peer(event.index),)))

    async def _released(self) -> None:
        """Our hold is released: we caught up with every peer that is up; we sign again."""
        self.released_at = trio.current_time()
        self.on_event(LogLine("caught up with every peer; playing on" if self.resync.needs_everyone
                              else "caught up with the peers that are up; playing on"))
        await self.mesh.broadcast(FRAME_READY)
        self.session.start()

    def _ready(self, index: int) -> None:
        """``index`` can sign again: from now its deadlines run (what it used of the current
        stage before it went away still counts)."""
        self.away_since.pop(index, None)
        self.lost.discard(index)
        if index in self.session.away:
            self.session.away.discard(index)
            self.on_event(LogLine(f"{who(self.roster, index)} is back in the game"))

    def _check_returning(self) -> None:
        """A peer away for longer than the grace period (down, or connected but still not
        able to sign) counts as lost: the game stops, resumably, if it needs that peer."""
        grace = self.mesh.config.grace_period
        now = trio.current_time()
        for index, since in list(self.away_since.items()):
            if (now - since > grace and index not in self.lost
                    and self.mesh.is_connected(index)):  # (the mesh reports the others)
                self.lost.add(index)
                self.on_event(Waiting(f"{who(self.roster, index)} is connected but did not "
                                      f"catch up within {grace:g} s", (Peer(index),)))
            elif self._seen_gone(index, now):
                self.lost.add(index)
                self.on_event(Waiting(
                    f"{who(self.roster, index)} has not come back since our restart, and "
                    "another player has claimed it gone: we join that claim",
                    (Peer(index),)))

    def _seen_gone(self, index: int, now: float) -> bool:
        """Resumed and caught up, we count ``index`` gone as the table saw it, not from our
        restart: it has not reached us since, and another player's escrow claim names it
        (its wait is running out while we would wait a whole grace period of our own). The
        table's short grace, not the mesh's, covers a peer that is up but slow to dial."""
        return (self.released_at is not None and index not in self.reached
                and index not in self.lost and index in self.session.away
                and now - self.released_at > self.session.timing.grace
                and self.session.claimed_by_others(index))

    def _report_waiting(self) -> None:
        """Say whom we wait for: while resuming, and when the game has not moved for a
        while (repeated only when it changes, or every 10 and 30 s)."""
        session, roster = self.session, self.roster
        now = trio.current_time()
        if self.resync.held:
            waiting = tuple(self.resync.waiting_for())
            if waiting and now - self.started >= 2 and (waiting != self.shown_waiting
                                                        or now - self.shown_at >= 10):
                self.shown_waiting, self.shown_at = waiting, now
                self.on_event(Waiting(
                    f"resuming: waiting for {names_of(roster, waiting)} to re-send what we "
                    f"lack before we play on ({now - self.started:.0f} s so far; giving up "
                    f"after {self.mesh.config.grace_period:g} s)",
                    tuple(Peer(p) for p in waiting)))
        elif session.stage_index != self.last_stage:
            self.last_stage, self.last_progress, self.shown_waiting = (
                session.stage_index, now, ())
        elif now - self.last_progress > self.options.waiting_after:
            waiting = tuple(p for p in session.waiting_for() if p != self.mesh.my_index)
            if waiting and (waiting != self.shown_waiting or now - self.shown_at >= 30):
                self.shown_waiting, self.shown_at = waiting, now
                self.on_event(Waiting(f"waiting for {names_of(roster, waiting)} "
                                      f"({now - self.last_progress:.0f} s so far)",
                                      tuple(Peer(p) for p in waiting)))

    async def _say_we_left(self) -> None:
        """We left, and every other peer is to know before we stop. We send each one, as it
        connects, our handover (or, when the others took our seat from the escrow, ``F``:
        none of them is to wait for us after its game) and a sync request, and answer its
        sync requests, until its ``S`` or ``D`` shows it holds the handover (for ``F``: its
        ``D``, which comes after the ``F`` on one connection). A peer done or lost needs
        nothing more."""
        session, resync, mesh = self.session, self.resync, self.mesh
        handover = self._our_handover()
        hello = FRAME_MESSAGE + handover.encode() if handover else resync.finished_frame()
        done = resync.finished_peers | resync.lost | set(session.ghosts)

        def told(frame: bytes) -> bool:
            if handover is not None:
                return frame[:1] in (FRAME_SYNC, FRAME_SYNC_DONE) \
                    and resync.holds_ours(frame, handover.msg.seq)
            return frame[:1] == FRAME_SYNC_DONE

        for peer in self.others:
            await mesh.send(peer, hello)
            await mesh.send(peer, resync.request())
        while not all(p in done for p in self.others):
            item = await self.receive.receive()
            if item[0] == "frame" and told(item[2]):
                done.add(item[1])
            if item[0] == "frame" and item[2][:1] == FRAME_SYNC:
                await self._answer_sync(item[1], item[2])
            elif item[0] == "frame" and item[2][:1] == FRAME_FINISHED:
                done.add(item[1])
            elif item[0] == "mesh" and isinstance(item[1], PeerConnected | PeerReconnected):
                await mesh.send(item[1].index, hello)
                await mesh.send(item[1].index, resync.request())
            elif item[0] == "mesh" and isinstance(item[1], PeerLost):
                done.add(item[1].index)

    async def _gather_concurrence(self) -> None:
        """We named a peer abandoned: take in the others' aborts saying they saw the same
        silence (the session logs only those now), for at most ``concur`` seconds, so that our
        transcript shows what the table agreed; a peer lost or gone is not waited for."""
        session = self.session
        missing = session.concurrence_missing()
        if not missing:
            return
        self.on_event(LogLine(
            f"waiting up to {self.options.concur:g} s for {names_of(self.roster, missing)} to "
            "sign that they saw the same silence (for the transcript)"))
        if self.finished_on_replay:  # (sent while we were down: ask for what we lack)
            await self.mesh.broadcast(self.resync.request())
        gone: set[int] = set()
        with trio.move_on_after(self.options.concur):
            while set(session.concurrence_missing()) - gone - self.lost:
                item = await self.receive.receive()  # a tick comes every TICK seconds at least
                if item[0] == "frame" and item[2][:1] == FRAME_SYNC:
                    await self._answer_sync(item[1], item[2])
                elif item[0] == "frame" and item[2][:1] in (FRAME_MESSAGE, FRAME_BUNDLE):
                    session.receive(item[1], item[2])
                elif item[0] == "frame" and item[2][:1] == FRAME_FINISHED:
                    self.resync.finished_peers.add(item[1])
                    gone.add(item[1])  # it finished without that word for us
                elif item[0] == "mesh" and isinstance(item[1], PeerLost | PeerDisconnected):
                    gone.add(item[1].index)
        self._emit_new()

    async def _linger(self) -> None:
        """After the end: answer resyncs until every other peer is done too."""
        resync = self.resync
        # Peers that hung up after their own audit message but before their F, and when.
        hung_up: dict[int, float] = {}
        # A player whose seat was recovered from the escrow is most likely gone for good: it
        # is waited for the short linger only (time enough to come back and learn so).
        recovered = [p for p in self.session.ghosts if p not in resync.finished_peers]
        short = trio.current_time() + self.options.linger_replayed
        while not resync.everyone_done():
            item = await self.receive.receive()  # a tick comes every TICK seconds at least
            if item[0] == "frame" and item[2][:1] == FRAME_SYNC:
                await self._answer_sync(item[1], item[2])
            elif item[0] == "frame" and item[2][:1] == FRAME_FINISHED:
                resync.finished_peers.add(item[1])
            elif item[0] == "mesh" and isinstance(item[1], PeerConnected | PeerReconnected):
                hung_up.pop(item[1].index, None)
                await self.mesh.send(item[1].index, resync.finished_frame())
            elif item[0] == "mesh" and isinstance(item[1], PeerLost):
                resync.lost.add(item[1].index)
            elif (item[0] == "mesh" and isinstance(item[1], PeerDisconnected)
                  and _audited(self.session, item[1].index)):
                # It hung up after its own audit message: most likely it has the game and
                # its F was cut off with the connection, but it may have crashed before the
                # others' audits came in: it is done for us only after the short linger,
                # time enough to come back and fetch them.
                hung_up[item[1].index] = trio.current_time()
            now = trio.current_time()
            if now >= short:
                resync.finished_peers.update(recovered)
            for peer, since in list(hung_up.items()):
                if now - since >= self.options.linger_replayed:
                    resync.finished_peers.add(peer)
                    del hung_up[peer]

    # -- small parts ------------------------------------------------------------------------

    def _hear_chat(self, index: int, payload: bytes) -> None:
        note = self.chat.receive(index, payload, trio.current_time())
        if note.violation:  # like any other malformed frame of that peer
            self.session._reject(index, note.violation)
        elif self.options.chat is not None:
            self.options.chat.heard(self.chat, note)

    async def _flush(self) -> None:
        frames, self.session.outbox = self.session.outbox, []
        for frame in bundle(frames):
            await self.mesh.broadcast(frame)

    def _emit_new(self) -> None:
        for event in self.session.events[self.seen:]:
            self.on_event(event)
        self.seen = len(self.session.events)

    async def _pump_frames(self) -> None:
        async for index, payload in self.mesh.incoming:
            await self.send.send(("frame", index, payload))

    async def _pump_events(self) -> None:
        async for event in self.mesh.events:
            await self.send.send(("mesh", event))

    async def _tick(self) -> None:
        while True:
            await trio.sleep(TICK)
            await self.send.send(("tick",))

    async def _ask(self, view: SeatView, scope: trio.CancelScope) -> None:
        with scope:
            action = await self.choose(view)
            await self.send.send(("action", action, view.stage))

    async def _answer_sync(self, index: int, payload: bytes) -> None:
        if not self.sync_budget.take(index):
            self.session.rejections[index] += 1
            return
        for frame in self.resync.reply(payload):
            await self.mesh.send(index, frame)

    def _stop_unsynced(self) -> None:
        """We could not catch up within the grace period: stop for now (resumable)."""
        mesh = self.mesh
        waiting = self.resync.waiting_for() or [p for p in self.others
                                                 if not mesh.is_connected(p)]
        text = (f"could not catch up with the other players within "
                f"{mesh.config.grace_period:g} s (no answer from "
                f"{names_of(self.roster, waiting) or 'anyone'}); the game cannot go on now. To "
                f"continue it later, every player runs 'solstice resume {mesh.game_id} --home "
                f"THEIR_HOME' (here: '{self.options.resume_command}')")
        self.on_event(Stopped(text, tuple(Peer(p) for p in waiting)))
        self.session.aborted = Aborted(None, "could not catch up with the other players",
                                       STOPPED, self.session.stage_index)

    def _stop_for_lost(self, peers: set[int]) -> None:
        """The game needs peers the mesh gave up on: stop for now, say who and how to go on."""
        mesh, roster = self.mesh, self.roster
        text = (f"{names_of(roster, sorted(peers))} did not come back within "
                f"{mesh.config.grace_period:g} s; the game cannot go on now. To continue it "
                f"later, every player runs 'solstice resume {mesh.game_id} --home THEIR_HOME' "
                f"(here: '{self.options.resume_command}'); if the others have finished, add "
                "'--from THEIR_TRANSCRIPT'")
        self.on_event(Stopped(text, tuple(Peer(p) for p in sorted(peers))))
        self.session.aborted = Aborted(None, f"{names_of(roster, sorted(peers))} was lost",
                                       STOPPED, self.session.stage_index)

    def _left(self) -> None:
        """We handed our seat over, or the others took it from the escrow while we were
        away: the game goes on without us (its transcript is the others'); ours is marked
        over, so it is not resumed."""
        session = self.session
        text = (f"we left game {self.mesh.game_id} at round {session._round()}, stage "
                f"{session.stage_index}; every remaining peer plays our seat with the "
                "ghost bot, and their transcript will show it")
        if self._our_handover() is None:
            text = (f"while we were away, the other players of game {self.mesh.game_id} "
                    f"found us gone and rebuilt our seat's secret from the escrow: the "
                    "ghost bot plays it on, and their transcript will show it; we play no "
                    "more in this game")
        self.store.mark_finished({"ok": False, "verdict": "left", "reason": text})
        self.on_event(Stopped(text))

    def _our_handover(self) -> SignedMessage | None:
        return next((m for m in self.session.msglog.messages
                     if m.msg.seat == self.mesh.my_index and m.msg.type == HANDOVER), None)

    def _others_left(self) -> bool:
        """Restarted after our own audit message (our part of the game is done), still
        lacking the others' and reached by none of them for ``linger_replayed`` seconds: they
        most likely finished and left (a peer that hung up after its audit counts as done
        with the game), so we do not wait out the whole grace period for them."""
        me, session = self.mesh.my_index, self.session
        return (self.resync.held and not self.reached and _audited(session, me)
                and trio.current_time() - self.started >= self.options.linger_replayed)

    def _table_left(self) -> bool:
        """Restarted, and every peer not done yet signed its audit and has not come to us
        since: they most likely finished and left while we were down, so we answer for them
        no longer than after a game over in our log (the short linger)."""
        resync, session = self.resync, self.session
        return self.resumed and all(
            p in resync.finished_peers or p in resync.lost
            or (_audited(session, p) and p not in self.reached) for p in self.others)

    def _stop_for_left(self) -> None:
        others = names_of(self.roster, self.others)
        text = (f"our audit was signed before the restart, but we lack the end of the game, "
                f"and none of {others} came back within {self.options.linger_replayed:g} s: "
                "they have most likely finished and left. Finish this copy from one of their "
                f"transcripts: '{self.options.resume_command} --from THEIR_TRANSCRIPT' (or "
                "resume again while they are still up)")
        self.on_event(Stopped(text, tuple(Peer(p) for p in self.others)))
        self.session.aborted = Aborted(None, "the others finished and left", STOPPED,
                                       self.session.stage_index)


def _audited(session: GameSession, peer: int) -> bool:
    """Our log holds ``peer``'s audit message (its part of the game's end)."""
    return any(m.msg.seat == peer and m.msg.type == "audit" for m in session.msglog.messages)


def _finish(session: GameSession, store: GameStore, roster: Roster, names: list[str],
            options: RunOptions, on_event: EventSink, chat: ChatRoom
            ) -> TranscriptNotWritten | None:
    """Write the transcript, then mark the game finished. The log stays: a transcript that
    could not be written is rebuilt from it with ``solstice transcript``."""
    outcome = outcome_of(session, names)
    path = store.dir / "transcript.json"
    if options.transcript is not None:
        path = transcript_destination(options.transcript, roster.game_id)
        if path != Path(options.transcript):  # e.g. the last game's, before a rematch
            on_event(LogLine(f"{options.transcript} holds another game's transcript, which is "
                             f"kept; this game's is written beside it, to {path}"))
    failure = None
    try:
        write_transcript(path, roster, session, outcome, chat.transcript(),
                         [line.to_json() for line in load_lobby_chat(store.dir)])
    except OSError as exc:
        failure = TranscriptNotWritten(
            f"the game is over ({outcome.get('summary') or outcome.get('reason')}), but its "
            f"transcript could not be written to {path}: {exc.strerror or exc}; rebuild it "
            f"with: solstice transcript {roster.game_id} --home {store.dir.parent.parent} "
            "--out FILE")
        on_event(Stopped(str(failure)))
    else:
        on_event(TranscriptWritten(Path(path)))
    store.mark_finished(outcome)
    return failure


def seats_event(session: GameSession, names: list[str]) -> SeatsDrawn:
    """Who plays which faction, by name: the session itself only knows peer indexes."""
    config = session.config
    assert config is not None
    factions = [config.factions[session.seat_of_peer[p]] for p in range(len(names))]
    first = session.peer_of_seat[config.first_player]
    text = ("Seats: " + ", ".join(f"{names[p]} plays {factions[p]}" for p in range(len(names)))
            + f"; {names[first]} ({factions[first]}) plays first")
    return SeatsDrawn(text, {names[p]: factions[p] for p in range(len(names))})
