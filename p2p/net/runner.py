"""Run a game session over the mesh (trio): frames in and out, resync, a player, persistence.

One task owns the session; the mesh's frames and events, the player's answers and a ticker
all reach it through one channel, so the sans-IO session is never touched concurrently.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from engine import Action
from p2p.errors import LocalProtocolError
from p2p.net.mesh import Mesh, PeerConnected, PeerDisconnected, PeerLost, PeerReconnected
from p2p.session.events import Aborted, Event
from p2p.session.machine import FRAME_MESSAGE, FRAME_SYNC, GameSession
from p2p.storage.store import GameStore
from p2p.storage.transcript import write_transcript

log = logging.getLogger("solstice.runner")

Chooser = Callable[[GameSession, list[Action]], Awaitable[Action]]
EventSink = Callable[[Event], None]


@dataclass
class RunOptions:
    transcript: Path | None = None
    waiting_after: float = 5.0     # seconds without progress before "waiting for ..." is shown
    linger: float = 2.0            # seconds to keep answering peers after our game ended


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
    send, receive = trio.open_memory_channel[tuple[Any, ...]](math.inf)
    names = [p.name for p in mesh.roster.players]
    asking = False
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
            await trio.sleep(1.0)
            await send.send(("tick",))

    async def ask(legal: list[Action]) -> None:
        action = await choose(session, legal)
        await send.send(("action", action))

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
        session.start()
        seats_announced = False
        while True:
            await flush()
            seen = emit_new(seen)
            if not seats_announced and session.config is not None:
                seats_announced = True
                on_event(_seats_event(session, names))
            if session.finished:
                break
            if session.pending_input is not None and not asking:
                asking = True
                nursery.start_soon(ask, list(session.pending_input))
            item = await receive.receive()
            kind = item[0]
            if kind == "frame":
                _, index, payload = item
                if payload[:1] == FRAME_SYNC:
                    for frame in session.sync_reply(payload):
                        await mesh.send(index, frame)
                elif payload[:1] == FRAME_MESSAGE:
                    session.receive(index, payload)
                else:
                    on_event(Event("rejected", f"unknown frame from {names[index]}"))
            elif kind == "action":
                asking = False
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
                elif isinstance(event, PeerLost):
                    session.events.append(Event(
                        "aborted", f"{names[event.index]} did not come back in time; the game "
                                   "cannot go on", {"seat": None, "lost": event.index}))
                    session.aborted = Aborted(None, f"{names[event.index]} was lost")
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
        outcome = _outcome(session, names)
        store.mark_finished(outcome)
        path = options.transcript or store.dir / "transcript.json"
        write_transcript(path, mesh.roster, session, outcome)
        on_event(Event("transcript", str(path), str(path)))
        # Keep answering resync requests a moment so slower peers get our last messages.
        with trio.move_on_after(options.linger):
            while True:
                item = await receive.receive()
                if item[0] == "frame" and item[2][:1] == FRAME_SYNC:
                    for frame in session.sync_reply(item[2]):
                        await mesh.send(item[1], frame)
        nursery.cancel_scope.cancel()
    store.close()
    return session


def _seats_event(session: GameSession, names: list[str]) -> Event:
    """Who plays which faction, by name: the session itself only knows peer indexes."""
    config = session.config
    assert config is not None
    factions = [config.factions[session.seat_of_peer[p]] for p in range(len(names))]
    first = session.peer_of_seat[config.first_player]
    text = ("Seats: " + ", ".join(f"{names[p]} plays {factions[p]}" for p in range(len(names)))
            + f"; {names[first]} ({factions[first]}) plays first")
    return Event("seats", text, {names[p]: factions[p] for p in range(len(names))})


def _outcome(session: GameSession, names: list[str]) -> dict[str, Any]:
    if session.result is not None:
        return dict(session.result)  # the audit's result: ok, scores, winner, summary...
    aborted = session.aborted
    blame = aborted.seat if aborted else None
    return {"ok": False, "reason": aborted.reason if aborted else "unknown",
            "blame": names[blame] if isinstance(blame, int) and blame < len(names) else None}
