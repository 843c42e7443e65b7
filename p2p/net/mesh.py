"""Trio lobby + full mesh: host or join a game, then exchange frames with every other peer.

Usage (see protocol.md, "Lobby and join codes" and "Mesh and reconnects")::

    async with open_node(identity, home=home, bind="0.0.0.0", port=0) as node:
        lobby = node.host(players=3, name="alice")      # listening already; show lobby.code
        mesh = await lobby.wait_mesh()                   # everyone joined and connected
    # or: mesh = await node.join(code_text, name="bob")
    # or, after a restart with the same home: mesh = await node.resume(game_id)

    await mesh.send(index, payload); await mesh.broadcast(payload)
    async for index, payload in mesh.incoming: ...
    async for event in mesh.events: ...                  # PeerDisconnected / PeerReconnected ...

Delivery is in order and at most once per connection. Frames sent to a disconnected peer are
queued and delivered after it reconnects, but frames in flight when a connection broke may be
lost: after ``PeerReconnected`` the session resynchronises (signed messages carry per-author
sequence numbers, so each side can tell what the other is missing).

No peer can block or flood us: ``send`` never waits (a peer that stops reading until its
outbox of ``_OUTBOX_SIZE`` frames is full is cut off: its connection is dropped and its queue
emptied, the resync after a reconnect makes up for it), and a peer sending more than
``FRAME_RATE`` frames per second on average (bursts up to ``FRAME_BURST``, e.g. a resync reply;
a bundle counts the frames it carries) is cut off the same way. Both are reported as
``PeerCutOff`` events.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

import trio

from p2p.errors import LocalProtocolError, P2PError, RemoteProtocolError
from p2p.identity import Identity, short_id
from p2p.net.lobby import (
    check_mesh_hello,
    check_mesh_welcome,
    encode_control,
    mesh_hello,
    mesh_welcome,
)
from p2p.net.roster import Roster, RosterEntry
from p2p.net.transport import Connection, ConnectionLost, NetConfig, dial
from p2p.session.bundle import frame_cost

log = logging.getLogger(__name__)
_OUTBOX_SIZE = 4096
_INCOMING_SIZE = 256
FRAME_RATE = 2000.0   # frames per second a peer may send on average
FRAME_BURST = 20000   # ... and at once (a resync reply carries the whole log)


# --------------------------------------------------------------------------- events


@dataclass(frozen=True)
class PeerConnected:
    """First connection to this peer since the mesh started (in this process)."""

    index: int


@dataclass(frozen=True)
class PeerDisconnected:
    """The connection broke; the dialing side re-dials until the grace period ends."""

    index: int
    reason: str


@dataclass(frozen=True)
class PeerReconnected:
    index: int


@dataclass(frozen=True)
class PeerLost:
    """The peer stayed away for the whole grace period (the session decides what to do)."""

    index: int


@dataclass(frozen=True)
class PeerCutOff:
    """We dropped this peer's connection: it flooded us or stopped reading (``reason``)."""

    index: int
    reason: str


MeshEvent = PeerConnected | PeerDisconnected | PeerReconnected | PeerLost | PeerCutOff


class PeerFlooding(ConnectionLost):
    """A peer exceeded a bound (frame rate); its connection is dropped."""


class _RateLimit:
    """A token bucket: ``take(cost)`` is False once more than ``burst`` frames came faster
    than ``rate`` per second (a bundle costs the frames it carries)."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = float(burst)
        self.last = trio.current_time()

    def take(self, cost: int = 1) -> bool:
        now = trio.current_time()
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens < cost:
            return False
        self.tokens -= cost
        return True


class MeshFormationFailed(RemoteProtocolError):
    """A roster peer did not connect within the grace period while the mesh was forming."""


# --------------------------------------------------------------------------- roster storage


# --------------------------------------------------------------------------- mesh


class _Link:
    """Our side of the relationship with one other peer, across reconnects."""

    def __init__(self, entry: RosterEntry, dialer: bool) -> None:
        self.entry = entry
        self.dialer = dialer  # True if we dial them (our index is higher)
        self.outbox_send, self.outbox_recv = trio.open_memory_channel[bytes](_OUTBOX_SIZE)
        self.conn: Connection | None = None
        self.scope: trio.CancelScope | None = None
        self.generation = 0
        self.ever_connected = False
        self.lost = False
        self.closed = False  # Mesh.close(): no more dialing
        self.last_error = ""


class Mesh:
    """Authenticated connections to every other peer of one game's roster.

    ``incoming`` yields ``(index, payload)``; ``events`` yields MeshEvent values. Indexes are
    roster (join-order) indexes, not game seats.
    """

    def __init__(
        self,
        roster: Roster,
        identity: Identity,
        config: NetConfig,
        nursery: trio.Nursery,
    ) -> None:
        index = roster.index_of(identity.peer_id)
        if index is None:
            raise LocalProtocolError(f"identity {identity.short_id} is not in the roster")
        self.roster = roster
        self.my_index = index
        self.identity = identity
        self.config = config
        self._nursery = nursery
        self._links = {
            e.index: _Link(e, dialer=e.index < index) for e in roster.players if e.index != index
        }
        self._incoming_send, self.incoming = trio.open_memory_channel[tuple[int, bytes]](
            _INCOMING_SIZE
        )
        # Events are rare and must never block a network task: unbounded.
        self._events_send, self.events = trio.open_memory_channel[MeshEvent](math.inf)
        self._changed = trio.Event()

    # ---- public API

    @property
    def game_id(self) -> str:
        return self.roster.game_id

    def is_connected(self, index: int) -> bool:
        return self._link(index).conn is not None

    def waiting_for(self) -> tuple[int, ...]:
        """Indexes of peers we currently have no connection to (for "waiting for X" UIs)."""
        return tuple(i for i, link in sorted(self._links.items()) if link.conn is None)

    def last_error(self, index: int) -> str:
        """Why the last attempt to reach ``index`` failed ("" if none)."""
        return self._link(index).last_error

    async def send(self, index: int, payload: bytes) -> None:
        """Queue ``payload`` for peer ``index`` (delivered in order; see module docstring).
        Never waits: a peer whose outbox is full is cut off and its outbox emptied."""
        link = self._link(index)
        try:
            link.outbox_send.send_nowait(payload)
        except trio.WouldBlock:
            self._cut_off(link, f"not reading: {_OUTBOX_SIZE} frames queued for it")

    async def broadcast(self, payload: bytes) -> None:
        for index in sorted(self._links):
            await self.send(index, payload)

    async def wait_all_connected(self) -> None:
        """Return once every peer is connected; MeshFormationFailed if one is lost first."""
        while True:
            lost = [i for i, link in self._links.items() if link.lost and link.conn is None]
            if lost:
                link = self._links[lost[0]]
                entry = link.entry
                raise MeshFormationFailed(
                    lost[0], f"{entry.name} ({short_id(entry.peer_id)}) did not connect within "
                    f"{self.config.grace_period:g} s ({link.last_error or 'it never dialed us'})"
                )
            if not self.waiting_for():
                return
            await self._wait_changed()

    async def drain(self) -> None:
        """Wait until every connected peer's queue is empty (our last frames are on their
        way); the caller bounds the wait."""
        while any(link.conn is not None and link.outbox_recv.statistics().current_buffer_used
                  for link in self._links.values()):
            await trio.sleep(0.05)

    def close(self) -> None:
        """Drop every connection and stop re-dialing."""
        for link in self._links.values():
            link.lost = link.closed = True
            if link.scope is not None:
                link.scope.cancel()

    # ---- internals

    def _cut_off(self, link: _Link, reason: str) -> None:
        while True:
            try:
                link.outbox_recv.receive_nowait()
            except trio.WouldBlock:
                break
        log.warning("cut off peer %d: %s", link.entry.index, reason)
        self._events_send.send_nowait(PeerCutOff(link.entry.index, reason))
        if link.scope is not None:
            link.scope.cancel()

    def _link(self, index: int) -> _Link:
        try:
            return self._links[index]
        except KeyError:
            reason = f"no peer with index {index} (we are {self.my_index})"
            raise LocalProtocolError(reason) from None

    async def _wait_changed(self) -> None:
        await self._changed.wait()

    def _notify(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    def _start(self) -> None:
        for link in self._links.values():
            if link.dialer:
                self._nursery.start_soon(self._dial_loop, link)
            else:
                self._nursery.start_soon(self._grace_watch, link)

    async def _run_connection(self, link: _Link, conn: Connection) -> None:
        """Carry frames over ``conn`` until it breaks or a newer connection replaces it."""
        if link.scope is not None:
            link.scope.cancel()  # A re-dial won: the old connection is stale.
        link.generation += 1
        generation = link.generation
        conn.seat = link.entry.index
        reconnect = link.ever_connected
        link.conn, link.ever_connected, link.lost, link.last_error = conn, True, False, ""
        event: MeshEvent = (
            PeerReconnected(link.entry.index) if reconnect else PeerConnected(link.entry.index)
        )
        self._events_send.send_nowait(event)
        self._notify()
        reason = "closed"
        try:
            with trio.CancelScope() as scope:
                link.scope = scope
                try:
                    async with trio.open_nursery() as nursery:
                        nursery.start_soon(self._writer, link, conn)
                        await self._reader(link, conn)
                        nursery.cancel_scope.cancel()
                except* (P2PError, OSError) as group:
                    reason = "; ".join(str(e) for e in group.exceptions)
                except* Exception as group:  # a bug: it ends this connection, not the mesh
                    log.error("link to peer %d ended by an internal error",
                              link.entry.index, exc_info=group)
                    reason = "internal error"
        finally:
            # Also when the whole node is cancelled: the peer must see the close at once.
            await conn.aclose()
        if link.generation == generation:  # Not replaced: this peer really is gone for now.
            link.conn, link.scope, link.last_error = None, None, reason
            self._events_send.send_nowait(PeerDisconnected(link.entry.index, reason))
            self._notify()

    async def _reader(self, link: _Link, conn: Connection) -> None:
        rate = _RateLimit(FRAME_RATE, FRAME_BURST)
        while True:
            with trio.move_on_after(self.config.idle_timeout):
                payload = await conn.receive_frame()
                if payload is None:
                    return
                if not rate.take(frame_cost(payload)):
                    reason = f"flood: more than {FRAME_RATE:g} frames/s"
                    self._events_send.send_nowait(PeerCutOff(link.entry.index, reason))
                    raise PeerFlooding(reason)
                if payload:  # an empty frame is a keepalive: it only proves the link lives
                    await self._incoming_send.send((link.entry.index, payload))
                continue
            raise ConnectionLost(f"nothing heard from peer {link.entry.index} for "
                                 f"{self.config.idle_timeout:g} s")

    async def _writer(self, link: _Link, conn: Connection) -> None:
        while True:
            with trio.move_on_after(self.config.keepalive) as idle:
                try:
                    payload = await link.outbox_recv.receive()
                except trio.EndOfChannel:
                    return
            await conn.send_frame(b"" if idle.cancelled_caught else payload)

    async def _dial_loop(self, link: _Link) -> None:
        """We have the higher index: dial, and re-dial with backoff after each drop. A peer
        away longer than the grace period is reported lost, and still dialed (at the
        slowest backoff) until the mesh is closed: it may come back after the game, to
        learn how it went on without it, as a peer that dials us may."""
        entry = link.entry
        while not link.closed:
            away_since = trio.current_time()
            backoff = self.config.backoff_initial
            conn: Connection | None = None
            while conn is None:
                if link.closed:  # Mesh.close() while we were backing off
                    return
                try:
                    conn = await self._dial_once(entry)
                except (P2PError, OSError) as exc:
                    link.last_error = str(exc)
                    log.info("dialing peer %d failed: %s", entry.index, exc)
                    if (not link.lost
                            and trio.current_time() - away_since >= self.config.grace_period):
                        link.lost = True
                        self._events_send.send_nowait(PeerLost(entry.index))
                        self._notify()
                    await trio.sleep(backoff)
                    backoff = min(backoff * 2, self.config.backoff_max)
            await self._run_connection(link, conn)

    async def _dial_once(self, entry: RosterEntry) -> Connection:
        conn = await dial(
            entry.address, entry.port, self.identity, entry.peer_id, self.config, entry.index
        )
        try:
            await conn.send_frame(encode_control(mesh_hello(self.game_id, self.my_index)))
            check_mesh_welcome(await conn.receive_first_frame(), self.roster, entry.index)
        except BaseException:
            await conn.aclose()
            raise
        return conn

    async def _grace_watch(self, link: _Link) -> None:
        """They dial us: declare them lost if they stay away longer than the grace period."""
        while True:
            while link.conn is not None:
                await self._wait_changed()
            with trio.move_on_after(self.config.grace_period):
                while link.conn is None:
                    await self._wait_changed()
                continue
            if not link.lost:
                link.lost = True
                self._events_send.send_nowait(PeerLost(link.entry.index))
                self._notify()
            while link.conn is None:
                await self._wait_changed()

    async def _accept(self, conn: Connection, first: bytes) -> None:
        """A higher-index peer dialed us with a mesh-hello: pin it to the roster and serve it."""
        index = check_mesh_hello(first, self.roster, self.my_index, conn.peer_id)
        await conn.send_frame(encode_control(mesh_welcome(self.game_id, self.my_index)))
        await self._run_connection(self._links[index], conn)


