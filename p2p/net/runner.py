"""Run a game session over the mesh (trio): frames in and out, resync, a player, persistence.

One task owns the session; the mesh's frames and events, the player's answers and a ticker
all reach it through one bounded channel, so the sans-IO session is never touched concurrently
and a flooding peer slows only its own connection. A session rebuilt from our store signs
nothing until the others have re-sent what it lacks (``p2p.net.resync``); after the end we
keep answering until every peer is done too.

The ticker feeds the time to the session (``GameSession.tick``), which enforces the deadlines:
our own player's clock (a legal default is played when it runs out, the player's pending
question is then withdrawn) and every other peer's (a peer that misses one is declared to
have abandoned the game). A peer that is disconnected is not held to a deadline while the mesh
waits for it to come back; if it stays away longer than the mesh's grace period while the game
needs it, the game stops for now (it stays resumable: every player runs ``solstice resume``).
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
from p2p.net.resync import FRAME_FINISHED, FRAME_SYNC_DONE, Resync, names_of, who
from p2p.net.roster import Roster
from p2p.net.watchers import FRAME_WATCHERS, HeardWatchers
from p2p.session.bundle import bundle
from p2p.session.events import STOPPED, Aborted, LogLine, Peer
from p2p.session.inbox import FRAME_SYNC
from p2p.session.machine import GameSession
from p2p.session.seatview import SeatView
from p2p.session.timing import Timing
from p2p.storage.chatlog import load_lobby_chat
from p2p.storage.store import GameStore
from p2p.storage.transcript import outcome_of, write_transcript

log = logging.getLogger("solstice.runner")

# A player: given its seat's view with the choices wanted (``SeatView.legal``), it answers one.
Chooser = Callable[[SeatView], Awaitable[Action]]

SYNC_BURST = 4       # resync requests answered at once per peer...
SYNC_EVERY = 5.0     # ... then one per this many seconds
TICK = 0.5           # seconds between clock ticks fed to the session
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
    resume_command: str = "solstice resume"  # how the user continues this game (shown on stops)
    timing: Timing | None = None   # the table's clock, if we host (default: Timing())
    chat: ChatLink | None = None   # the player's side of the table chat (None: kept only)


class TranscriptNotWritten(LocalFileError):
    """The game is over and audited, but its transcript could not be written."""


def open_session(roster: Roster, identity: Identity, store: GameStore
                 ) -> tuple[GameSession, bool]:
    """A new session, or (True) the stored one replayed after a restart."""
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
        master = store.create(me)
        session = GameSession(roster.game_id, keys, me, identity, master)
    # Ours are fsynced before they are sent; the others' can be fetched again.
    session.on_record = lambda signed: store.append(signed, durable=signed.msg.seat == me)
    return session, resumed


async def run_session(mesh: Mesh, session: GameSession, choose: Chooser, store: GameStore,
                      on_event: EventSink, options: RunOptions | None = None,
                      resumed: bool = False) -> GameSession:
    """Play until the game ends (audited) or stops (a cheat, an abandonment, a peer lost).
    ``resumed``: the session was rebuilt from our store (it signs nothing until resynced)."""
    options = options or RunOptions()
    send, receive = trio.open_memory_channel[tuple[Any, ...]](_CHANNEL_SIZE)
    roster = mesh.roster
    names = [p.name for p in roster.players]
    others = [p for p in range(len(names)) if p != mesh.my_index]
    if options.timing is not None and not session.msglog.messages:
        session.timing = session.clock.timing = options.timing
    resync = Resync(session, others, held=resumed)
    heard_watchers = HeardWatchers(roster)  # the host's notices of who watches
    finished_on_replay = session.finished
    sync_budget = _SyncBudget(len(names))
    ask_scope: trio.CancelScope | None = None
    asked_stage: int | None = None
    lost: set[int] = set()
    lost_stop = False
    last_progress = trio.current_time()
    last_stage = -1
    shown_waiting: tuple[int, ...] = ()
    shown_at = 0.0
    started = trio.current_time()
    chat = open_room(mesh, store)
    if options.chat is not None:
        options.chat.attach(chat, mesh.broadcast, trio.current_time)

    def hear_chat(index: int, payload: bytes) -> None:
        note = chat.receive(index, payload, trio.current_time())
        if note.violation:  # like any other malformed frame of that peer
            session._reject(index, note.violation)
        elif options.chat is not None:
            options.chat.heard(chat, note)

    async def flush() -> None:
        frames, session.outbox = session.outbox, []
        for frame in bundle(frames):
            await mesh.broadcast(frame)

    def emit_new(start: int) -> int:
        for event in session.events[start:]:
            on_event(event)
        return len(session.events)

    async def pump_frames() -> None:
        async for index, payload in mesh.incoming:
            await send.send(("frame", index, payload))

    async def pump_events() -> None:
        async for event in mesh.events:
            await send.send(("mesh", event))

    async def tick() -> None:
        while True:
            await trio.sleep(TICK)
            await send.send(("tick",))

    async def ask(view: SeatView, scope: trio.CancelScope) -> None:
        with scope:
            action = await choose(view)
            await send.send(("action", action, view.stage))

    async def answer_sync(index: int, payload: bytes) -> None:
        if not sync_budget.take(index):
            session.rejections[index] += 1
            return
        for frame in resync.reply(payload):
            await mesh.send(index, frame)

    def stop_for_lost(peers: set[int]) -> None:
        """The game needs peers the mesh gave up on: stop for now, say who and how to go on."""
        text = (f"{names_of(roster, sorted(peers))} did not come back within "
                f"{mesh.config.grace_period:g} s; the game cannot go on now. To continue it "
                f"later, every player runs 'solstice resume {mesh.game_id} --home THEIR_HOME' "
                f"(here: '{options.resume_command}'); if the others have finished, add "
                "'--from THEIR_TRANSCRIPT'")
        on_event(Stopped(text, tuple(Peer(p) for p in sorted(peers))))
        session.aborted = Aborted(None, f"{names_of(roster, sorted(peers))} was lost", STOPPED,
                                  session.stage_index)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(pump_frames)
        nursery.start_soon(pump_events)
        nursery.start_soon(tick)
        if resumed:
            # Rebuilt from our store: ask everyone at once for what we lack (the requests
            # wait in the mesh's queues for peers not connected yet).
            for peer in others:
                await mesh.send(peer, resync.request())
        on_event(RosterKnown("Players: " + names_of(roster, range(len(names))), tuple(names)))
        seen = emit_new(0)
        session.tick(trio.current_time())
        session.start()
        seats_announced = False
        held_back = 0
        relays_since: float | None = None
        while True:
            # What is already waiting is taken in first, so that the relays and messages it
            # makes leave together in one bundle (bounded: a busy peer still sends).
            if receive.statistics().current_buffer_used and held_back < _HOLD_BACK:
                held_back += 1
            else:
                held_back = 0
                await flush()
            seen = emit_new(seen)
            if not seats_announced and session.config is not None:
                seats_announced = True
                on_event(seats_event(session, names))
            if not session.finished and lost & set(session.waiting_for()):
                lost_stop = True
                stop_for_lost(lost & set(session.waiting_for()))
                seen = emit_new(seen)
            if session.finished:
                break
            if ask_scope is not None and (session.pending_input is None
                                          or asked_stage != session.input_stage):
                ask_scope.cancel()  # our clock ran out (the default was played) or withdrawn
                ask_scope = None
            if session.pending_input is not None and ask_scope is None:
                ask_scope = trio.CancelScope()
                asked_stage = session.input_stage
                view = session.seat_view()
                assert view is not None  # a question is only put to a seated player
                nursery.start_soon(ask, view, ask_scope)
            if not session.relays:
                relays_since = None
                item = await receive.receive()
            else:
                if relays_since is None:
                    relays_since = trio.current_time()
                waited: tuple[Any, ...] | None = None
                with trio.move_on_at(relays_since + RELAY_WAIT):
                    waited = await receive.receive()
                if waited is None:  # nothing of ours to go with: the relays go alone
                    session.release_relays()
                    relays_since = None
                    held_back = _HOLD_BACK
                    continue
                item = waited
            kind = item[0]
            if kind == "frame":
                _, index, payload = item
                tag = payload[:1]
                if tag == FRAME_SYNC:
                    await answer_sync(index, payload)
                elif tag == FRAME_SYNC_DONE:
                    if resync.on_done(index, payload):
                        on_event(LogLine("caught up with every peer; playing on"))
                        session.start()
                elif tag == FRAME_FINISHED:
                    resync.finished_peers.add(index)
                elif tag == FRAME_CHAT:  # never part of the game's lockstep
                    hear_chat(index, payload)
                elif tag == FRAME_WATCHERS:
                    for event in heard_watchers.receive(index, payload):
                        on_event(event)
                else:
                    session.receive(index, payload)  # any other tag is rejected there
            elif kind == "tick":
                session.tick(trio.current_time())
            elif kind == "action":
                if item[2] != session.input_stage:
                    continue  # answered after our clock ran out: the default stands
                ask_scope = None
                try:
                    session.submit(item[1], item[2])
                except LocalProtocolError as exc:
                    on_event(ChoiceRefused(str(exc)))
            elif kind == "mesh":
                event = item[1]
                if isinstance(event, PeerReconnected | PeerConnected):
                    session.away.discard(event.index)
                    lost.discard(event.index)
                if isinstance(event, PeerReconnected):
                    on_event(LogLine(f"{who(roster, event.index)} is back"))
                    await mesh.send(event.index, resync.request())
                elif isinstance(event, PeerConnected):
                    on_event(LogLine(f"{who(roster, event.index)} is connected"))
                elif isinstance(event, PeerDisconnected):
                    session.away.add(event.index)
                    on_event(Waiting(f"{who(roster, event.index)} disconnected "
                                     f"({event.reason}); waiting up to "
                                     f"{mesh.config.grace_period:g} s for it to come back",
                                     (Peer(event.index),)))
                elif isinstance(event, PeerCutOff):
                    on_event(Waiting(f"cut off {who(roster, event.index)}: {event.reason}",
                                     (Peer(event.index),)))
                elif isinstance(event, PeerLost):
                    # Not a stop by itself: the other peers may still hear it (and relay its
                    # messages). The game stops (resumable) only if it needs this peer.
                    lost.add(event.index)
                    resync.lost.add(event.index)
                    on_event(Waiting(f"{who(roster, event.index)} did not come back within "
                                     f"{mesh.config.grace_period:g} s", (Peer(event.index),)))
            now = trio.current_time()
            if resync.held:
                waiting = tuple(resync.waiting_for())
                if waiting and now - started >= 2 and (waiting != shown_waiting
                                                        or now - shown_at >= 10):
                    shown_waiting, shown_at = waiting, now
                    on_event(Waiting(f"resuming: waiting for {names_of(roster, waiting)} to "
                                     "re-send what we lack before we play on "
                                     f"({now - started:.0f} s so far; giving up after "
                                     f"{mesh.config.grace_period:g} s)",
                                     tuple(Peer(p) for p in waiting)))
            elif session.stage_index != last_stage:
                last_stage, last_progress, shown_waiting = session.stage_index, now, ()
            elif now - last_progress > options.waiting_after:
                waiting = tuple(p for p in session.waiting_for() if p != mesh.my_index)
                if waiting and (waiting != shown_waiting or now - shown_at >= 30):
                    shown_waiting, shown_at = waiting, now
                    on_event(Waiting(f"waiting for {names_of(roster, waiting)} "
                                     f"({now - last_progress:.0f} s so far)",
                                     tuple(Peer(p) for p in waiting)))
        session.release_relays()
        await flush()
        emit_new(seen)
        failure = None
        if not lost_stop:  # a lost peer stops the game for now only: it stays resumable
            failure = _finish(session, store, roster, names, options, on_event, chat)
            # Keep answering until every other peer is done too, so that one that crashed
            # during the audit can fetch what it lacks when it comes back.
            await mesh.broadcast(resync.finished_frame())
        linger = options.linger_replayed if finished_on_replay else options.linger
        with trio.move_on_after(0 if lost_stop else linger):
            while not resync.everyone_done():
                item = await receive.receive()
                if item[0] == "frame" and item[2][:1] == FRAME_SYNC:
                    await answer_sync(item[1], item[2])
                elif item[0] == "frame" and item[2][:1] == FRAME_FINISHED:
                    resync.finished_peers.add(item[1])
                elif item[0] == "mesh" and isinstance(item[1], PeerConnected | PeerReconnected):
                    await mesh.send(item[1].index, resync.finished_frame())
                elif item[0] == "mesh" and isinstance(item[1], PeerLost):
                    resync.lost.add(item[1].index)
                elif (item[0] == "mesh" and isinstance(item[1], PeerDisconnected)
                      and _audited(session, item[1].index)):
                    # It hung up after its own audit message: it has the game (its F may
                    # have been cut off with the connection); only a peer that went away
                    # before its audit may come back needing our messages.
                    resync.finished_peers.add(item[1].index)
        with trio.move_on_after(DRAIN):
            await mesh.drain()  # our F (and last answers) must leave before we hang up
        nursery.cancel_scope.cancel()
    store.close()
    if failure is not None:
        raise failure
    return session


def _audited(session: GameSession, peer: int) -> bool:
    """Our log holds ``peer``'s audit message (its part of the game's end)."""
    return any(m.msg.seat == peer and m.msg.type == "audit" for m in session.msglog.messages)


def _finish(session: GameSession, store: GameStore, roster: Roster, names: list[str],
            options: RunOptions, on_event: EventSink, chat: ChatRoom
            ) -> TranscriptNotWritten | None:
    """Write the transcript, then mark the game finished. The log stays: a transcript that
    could not be written is rebuilt from it with ``solstice transcript``."""
    outcome = outcome_of(session, names)
    path = options.transcript or store.dir / "transcript.json"
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
