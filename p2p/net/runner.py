"""Run a game session over the mesh (trio): frames in and out, resync, a player, persistence.

One task owns the session; the mesh's frames and events, the player's answers and a ticker
all reach it through one bounded channel, so the sans-IO session is never touched concurrently
and a flooding peer slows only its own connection.

The ticker feeds the time to the session (``GameSession.tick``), which enforces the deadlines:
our own player's clock (a legal default is played when it runs out, the player's pending
question is then withdrawn) and every other peer's (a peer that misses one is declared to
have abandoned the game). Resync requests are answered at most ``SYNC_BURST`` at once and one
per ``SYNC_EVERY`` seconds per peer.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from engine import Action
from p2p.errors import LocalProtocolError
from p2p.net.mesh import (
    Mesh,
    PeerConnected,
    PeerCutOff,
    PeerDisconnected,
    PeerLost,
    PeerReconnected,
)
from p2p.session.events import Event
from p2p.session.inbox import FRAME_SYNC
from p2p.session.machine import GameSession
from p2p.session.timing import Timing
from p2p.storage.store import GameStore
from p2p.storage.transcript import outcome_of, write_transcript

log = logging.getLogger("solstice.runner")

Chooser = Callable[[GameSession, list[Action]], Awaitable[Action]]
EventSink = Callable[[Event], None]

SYNC_BURST = 4       # resync requests answered at once per peer...
SYNC_EVERY = 5.0     # ... then one per this many seconds
TICK = 0.5           # seconds between clock ticks fed to the session
_CHANNEL_SIZE = 256


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
    linger: float = 2.0            # seconds to keep answering peers after our game ended
    timing: Timing | None = None   # the table's clock, if we host (default: Timing())


def open_session(mesh: Mesh, store: GameStore) -> GameSession:
    """A new session for this mesh, or the stored one replayed after a restart."""
    keys = [p.key for p in mesh.roster.players]
    me = mesh.my_index
    if store.exists():
        stored_me, master = store.load_secret()
        if stored_me != me:
            raise LocalProtocolError(f"stored game says we are peer {stored_me}, not {me}")
        session = GameSession(mesh.game_id, keys, me, mesh.identity, master)
        session.replaying = True
        for signed in store.load_messages():
            session.accept(signed, direct=False)
        session.replaying = False
        session.outbox.clear()
    else:
        master = store.create(me)
        session = GameSession(mesh.game_id, keys, me, mesh.identity, master)
    session.on_record = store.append
    return session


async def run_session(mesh: Mesh, session: GameSession, choose: Chooser, store: GameStore,
                      on_event: EventSink, options: RunOptions | None = None) -> GameSession:
    """Play until the game ends (audited) or stops (a cheat, a peer lost for good)."""
    options = options or RunOptions()
    send, receive = trio.open_memory_channel[tuple[Any, ...]](_CHANNEL_SIZE)
    names = [p.name for p in mesh.roster.players]
    if options.timing is not None and not session.msglog.messages:
        session.timing = session.clock.timing = options.timing
    sync_budget = _SyncBudget(len(names))
    ask_scope: trio.CancelScope | None = None
    last_progress = trio.current_time()
    last_stage = -1
    shown_waiting: tuple[int, ...] = ()

    async def flush() -> None:
        while session.outbox:
            await mesh.broadcast(session.outbox.pop(0))

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

    async def ask(legal: list[Action], scope: trio.CancelScope, stage: int) -> None:
        with scope:
            action = await choose(session, legal)
            await send.send(("action", action, stage))

    async def answer_sync(index: int, payload: bytes) -> None:
        if not sync_budget.take(index):
            session.rejections[index] += 1
            return
        for frame in session.sync_reply(payload):
            await mesh.send(index, frame)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(pump_frames)
        nursery.start_soon(pump_events)
        nursery.start_soon(tick)
        if session.msglog.messages:
            # Restarted from our store: fetch what was said while we were away.
            for peer in range(len(names)):
                if peer != mesh.my_index:
                    await mesh.send(peer, session.sync_request())
        on_event(Event("roster", "Players: " + ", ".join(names), list(names)))
        seen = emit_new(0)
        session.tick(trio.current_time())
        session.start()
        seats_announced = False
        while True:
            await flush()
            seen = emit_new(seen)
            if not seats_announced and session.config is not None:
                seats_announced = True
                on_event(seats_event(session, names))
            if session.finished:
                break
            if ask_scope is not None and session.pending_input is None:
                ask_scope.cancel()  # our clock ran out and the default was played
                ask_scope = None
            if session.pending_input is not None and ask_scope is None:
                ask_scope = trio.CancelScope()
                nursery.start_soon(ask, list(session.pending_input), ask_scope,
                                   session.stage_index)
            item = await receive.receive()
            kind = item[0]
            if kind == "frame":
                _, index, payload = item
                if payload[:1] == FRAME_SYNC:
                    await answer_sync(index, payload)
                else:
                    session.receive(index, payload)  # any other tag is rejected there
            elif kind == "tick":
                session.tick(trio.current_time())
            elif kind == "action":
                if item[2] != session.stage_index:
                    continue  # answered after our clock ran out: the default stands
                ask_scope = None
                try:
                    session.submit(item[1])
                except LocalProtocolError as exc:
                    on_event(Event("rejected", f"our player's choice was refused: {exc}"))
            elif kind == "mesh":
                event = item[1]
                if isinstance(event, PeerReconnected):
                    on_event(Event("log", f"{names[event.index]} is back"))
                    await mesh.send(event.index, session.sync_request())
                elif isinstance(event, PeerConnected):
                    on_event(Event("log", f"{names[event.index]} is connected"))
                elif isinstance(event, PeerDisconnected):
                    on_event(Event("waiting", f"{names[event.index]} disconnected "
                                              f"({event.reason}); waiting for it to come back",
                                   [event.index]))
                elif isinstance(event, PeerCutOff):
                    on_event(Event("waiting", f"cut off {names[event.index]}: {event.reason}",
                                   [event.index]))
                elif isinstance(event, PeerLost):
                    # Not a verdict by itself: the other peers may still hear it (and relay
                    # its messages). If it is needed and stays silent, its deadline names it.
                    on_event(Event("waiting", f"{names[event.index]} did not come back within "
                                              "the grace period", [event.index]))
            if session.stage_index != last_stage:
                last_stage, last_progress, shown_waiting = (session.stage_index,
                                                            trio.current_time(), ())
            elif trio.current_time() - last_progress > options.waiting_after:
                waiting = tuple(p for p in session.waiting_for() if p != mesh.my_index)
                if waiting and waiting != shown_waiting:
                    shown_waiting = waiting
                    on_event(Event("waiting", "waiting for " + ", ".join(
                        names[p] for p in waiting), list(waiting)))
        await flush()
        emit_new(seen)
        outcome = outcome_of(session, names)
        store.mark_finished(outcome)
        path = options.transcript or store.dir / "transcript.json"
        write_transcript(path, mesh.roster, session, outcome)
        on_event(Event("transcript", str(path), str(path)))
        # Keep answering resync requests a moment so slower peers get our last messages.
        with trio.move_on_after(options.linger):
            while True:
                item = await receive.receive()
                if item[0] == "frame" and item[2][:1] == FRAME_SYNC:
                    await answer_sync(item[1], item[2])
        nursery.cancel_scope.cancel()
    store.close()
    return session


def seats_event(session: GameSession, names: list[str]) -> Event:
    """Who plays which faction, by name: the session itself only knows peer indexes."""
    config = session.config
    assert config is not None
    factions = [config.factions[session.seat_of_peer[p]] for p in range(len(names))]
    first = session.peer_of_seat[config.first_player]
    text = ("Seats: " + ", ".join(f"{names[p]} plays {factions[p]}" for p in range(len(names)))
            + f"; {names[first]} ({factions[first]}) plays first")
    return Event("seats", text, {names[p]: factions[p] for p in range(len(names))})
