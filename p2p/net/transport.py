"""Trio transport: TCP + TLS 1.3 with pinned peer ids, carrying length-prefixed frames.

Thin layer over the sans-IO pieces (``tls`` contexts, ``framing`` decoder). Every blocking step
a remote peer controls has a timeout: the TCP connect, the TLS handshake, and the first frame
(a TLS 1.3 client only learns that the server refused its certificate or identity when it
reads, so the first read doubles as the rejection check).
"""

from __future__ import annotations

import contextlib
import logging
import math
import ssl
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass

import trio

from p2p.errors import P2PError, RemoteProtocolError
from p2p.identity import Identity, peer_id_of, short_id
from p2p.net import tls
from p2p.net.framing import MAX_FRAME_SIZE, FrameDecoder, encode_frame
from p2p.net.reach import punched_stream, relayed_stream, reusable_socket
from p2p.net.rendezvous import RendezvousError

log = logging.getLogger(__name__)
_RECEIVE_CHUNK = 65536
_BROKEN = (trio.BrokenResourceError, trio.ClosedResourceError, ssl.SSLError, OSError)
_CLOSE_TIMEOUT = 1.0  # close_notify is a courtesy: never wait long for a dead peer.


@dataclass(frozen=True)
class NetConfig:
    """Timeouts and limits of the network layer (seconds; tests use small values)."""

    handshake_timeout: float = 10.0
    first_read_timeout: float = 10.0
    grace_period: float = 60.0  # how long a dropped peer may take to come back
    backoff_initial: float = 0.1
    backoff_max: float = 5.0
    lobby_timeout: float = math.inf  # humans gather at their own pace
    max_frame_size: int = MAX_FRAME_SIZE
    # A mesh link that has sent nothing for ``keepalive`` seconds sends an empty frame; one on
    # which nothing arrived for ``idle_timeout`` seconds is broken (a peer whose machine left
    # the network sends no FIN, and TCP alone would notice only minutes later).
    keepalive: float = 5.0
    idle_timeout: float = 20.0
    # Over the internet (protocol.md, "Over the internet"): a rendezvous (address, port) we
    # listen at, and relay through when a peer cannot be dialed directly within
    # ``direct_timeout`` seconds (0: always relay). None: LAN play, direct connections only.
    rendezvous: tuple[str, int] | None = None
    direct_timeout: float = 2.0
    # Then hole punching through both routers, for ``punch_timeout`` seconds (0: none), from
    # ``local_port`` (the port our node listens on: the node sets it); then the relay.
    punch_timeout: float = 3.0
    local_port: int | None = None


class PeerTimeout(RemoteProtocolError):
    """A peer did not complete a step in time (connect, handshake or first frame)."""


class ConnectionLost(P2PError):
    """The connection broke (reset, EOF, TLS failure): nobody is blamed, it may be retried."""


class Connection:
    """One authenticated TLS connection carrying frames. Sends are serialized by a lock."""

    def __init__(
        self,
        stream: trio.SSLStream[trio.SocketStream],
        peer_key: bytes,
        remote_address: str,
        config: NetConfig,
    ) -> None:
        self.stream = stream
        self.peer_key = peer_key
        self.peer_id = peer_id_of(peer_key)
        self.remote_address = remote_address
        self.config = config
        self.seat: int | None = None  # set by the caller once it knows who this is
        self._decoder = FrameDecoder(config.max_frame_size)
        self._pending: list[bytes] = []
        self._send_lock = trio.Lock()
        self._closed = False

    def __repr__(self) -> str:
        return f"Connection({short_id(self.peer_id)}@{self.remote_address})"

    async def send_frame(self, payload: bytes) -> None:
        frame = encode_frame(payload, self.config.max_frame_size)
        async with self._send_lock:
            try:
                await self.stream.send_all(frame)
            except _BROKEN as exc:
                raise ConnectionLost(f"{self!r}: send failed: {exc}") from exc

    async def receive_frame(self) -> bytes | None:
        """The next frame's payload, or None when the peer closed cleanly between frames.

        Raises ConnectionLost if the transport broke, RemoteProtocolError for bad framing.
        """
        self._decoder.seat = self.seat
        while not self._pending:
            try:
                data = await self.stream.receive_some(_RECEIVE_CHUNK)
            except _BROKEN as exc:
                raise ConnectionLost(f"{self!r}: receive failed: {exc}") from exc
            if not data:
                self._decoder.close()  # raises if the stream ended inside a frame
                return None
            self._pending.extend(self._decoder.feed(data))
        return self._pending.pop(0)

    async def receive_first_frame(self) -> bytes:
        """The first frame, within ``first_read_timeout``; EOF counts as a refusal."""
        with trio.move_on_after(self.config.first_read_timeout) as scope:
            try:
                frame = await self.receive_frame()
            except ConnectionLost as exc:
                reason = f"connection refused or broken: {exc}"
                raise RemoteProtocolError(self.seat, reason) from exc
        if scope.cancelled_caught:
            limit = self.config.first_read_timeout
            raise PeerTimeout(self.seat, f"no first message within {limit} s")
        if frame is None:
            raise RemoteProtocolError(self.seat, "closed the connection without a word")
        return frame

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        with trio.move_on_after(_CLOSE_TIMEOUT) as scope:
            scope.shield = True  # closing must finish even while we are being cancelled
            with contextlib.suppress(*_BROKEN):
                await self.stream.aclose()
        if scope.cancelled_caught:
            await trio.aclose_forcefully(self.stream.transport_stream)


async def _handshake(
    tcp: trio.SocketStream,
    ctx: ssl.SSLContext,
    server_side: bool,
    config: NetConfig,
    seat: int | None,
    remote_address: str | None = None,
) -> Connection:
    stream = trio.SSLStream(tcp, ctx, server_side=server_side, server_hostname=None)
    try:
        with trio.move_on_after(config.handshake_timeout) as scope:
            await stream.do_handshake()
        if scope.cancelled_caught:
            raise PeerTimeout(seat, f"TLS handshake not done within {config.handshake_timeout} s")
        ssl_object = stream._ssl_object  # trio exposes getpeercert() only through it
        peer_key = tls.peer_public_key(ssl_object)
    except (trio.BrokenResourceError, ssl.SSLError) as exc:
        await trio.aclose_forcefully(tcp)
        raise ConnectionLost(f"TLS handshake failed: {exc}") from exc
    except BaseException:
        await trio.aclose_forcefully(tcp)
        raise
    # A relayed stream comes from the rendezvous: the address it says the dialer had is the
    # one worth noting (a roster's direct attempt uses it; a lie costs only that attempt).
    host = remote_address or tcp.socket.getpeername()[0]
    return Connection(stream, peer_key, host, config)


async def dial(
    address: str,
    port: int,
    identity: Identity,
    expected_peer_id: str,
    config: NetConfig,
    seat: int | None = None,
) -> Connection:
    """Connect and authenticate: the server must prove ``expected_peer_id`` or we hang up.

    With a rendezvous in ``config``: a direct attempt first (a peer on our LAN, or behind a
    router that forwards its port), then hole punching through both routers, then the
    relay; the pinning is the same on every path.

    Raises ConnectionLost (nothing listening, reset), PeerTimeout, or PeerIdentityMismatch.
    """
    if config.rendezvous is None:
        return await _dial_direct(address, port, identity, expected_peer_id, config, seat,
                                  config.handshake_timeout)
    if (address, port) != config.rendezvous and config.direct_timeout > 0:
        try:
            return await _dial_direct(address, port, identity, expected_peer_id, config, seat,
                                      min(config.direct_timeout, config.handshake_timeout))
        except (P2PError, OSError) as exc:
            log.info("direct dial of %s:%d failed (%s): through the rendezvous", address, port,
                     exc)
    if config.local_port is not None and config.punch_timeout > 0:
        try:
            punched, where = await punched_stream(config.rendezvous, expected_peer_id,
                                                  config.local_port, config.punch_timeout)
            return await _authenticate(punched, identity, expected_peer_id, config, seat,
                                       where)
        except (P2PError, OSError) as exc:
            log.info("hole punching to %s failed (%s): through the relay", address, exc)
    try:
        tcp = await relayed_stream(config.rendezvous, expected_peer_id)
    except RendezvousError as exc:
        raise ConnectionLost(str(exc)) from None
    return await _authenticate(tcp, identity, expected_peer_id, config, seat)


async def _dial_direct(address: str, port: int, identity: Identity, expected_peer_id: str,
                       config: NetConfig, seat: int | None, timeout: float) -> Connection:
    try:
        with trio.move_on_after(timeout) as scope:
            tcp = await trio.open_tcp_stream(address, port)
    except OSError as exc:
        raise ConnectionLost(f"cannot connect to {address}:{port}: {exc}") from exc
    if scope.cancelled_caught:
        raise PeerTimeout(seat, f"TCP connect to {address}:{port} timed out")
    return await _authenticate(tcp, identity, expected_peer_id, config, seat)


async def _authenticate(tcp: trio.SocketStream, identity: Identity, expected_peer_id: str,
                        config: NetConfig, seat: int | None,
                        remote_address: str | None = None) -> Connection:
    conn = await _handshake(tcp, tls.client_context(identity), False, config, seat,
                            remote_address)
    conn.seat = seat
    if conn.peer_id != expected_peer_id:
        await conn.aclose()
        raise tls.PeerIdentityMismatch(seat, {expected_peer_id}, conn.peer_id)
    return conn


def check_identity(conn: Connection, expected: Collection[str]) -> None:
    """Pinning for the accepting side, once it knows whom the dialer claims to be."""
    if conn.peer_id not in expected:
        raise tls.PeerIdentityMismatch(conn.seat, expected, conn.peer_id)


ConnectionHandler = Callable[[Connection], Awaitable[None]]


async def serve(
    identity: Identity,
    handler: ConnectionHandler,
    *,
    bind: str,
    port: int,
    config: NetConfig,
    task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Listen on ``bind:port``; report the bound port via ``task_status``; run ``handler``
    for each authenticated connection in its own task and close the connection after it.

    The handler decides whom to accept (pinning against the roster or the lobby); failed
    handshakes are logged and dropped here, so one bad dialer cannot stop the listener.
    """
    ctx = tls.server_context(identity)

    async def on_tcp(tcp: trio.SocketStream) -> None:
        await accept_stream(tcp, ctx, handler, config)

    if config.rendezvous is not None and config.punch_timeout > 0:
        listeners = [await _shared_listener(bind, port)]
    else:
        listeners = await trio.open_tcp_listeners(port, host=bind)
    bound_port = listeners[0].socket.getsockname()[1]
    async with trio.open_nursery() as nursery:
        nursery.start_soon(trio.serve_listeners, on_tcp, listeners)
        task_status.started(bound_port)


async def _shared_listener(bind: str, port: int) -> trio.SocketListener:
    """An IPv4 listener whose port hole punching may dial from too (SO_REUSEPORT)."""
    sock = reusable_socket(port)
    try:
        await sock.bind((bind or "0.0.0.0", port))
        sock.listen(128)
    except BaseException:
        sock.close()
        raise
    return trio.SocketListener(sock)


async def accept_stream(tcp: trio.SocketStream, ctx: ssl.SSLContext,
                        handler: ConnectionHandler, config: NetConfig,
                        remote_address: str | None = None) -> None:
    """Serve one incoming stream (from our listener, or relayed by the rendezvous): the TLS
    handshake as the server, then ``handler``; the connection is closed after it."""
    try:
        conn = await _handshake(tcp, ctx, True, config, None, remote_address)
    except (P2PError, OSError) as exc:
        log.info("dropped incoming connection: %s", exc)
        return
    try:
        await handler(conn)
    except* (P2PError, OSError) as group:
        # Handlers use nurseries, so errors arrive grouped. A misbehaving or vanished
        # peer ends its own connection, never the listener.
        log.info("connection %r ended: %s", conn, group.exceptions)
    except* Exception as group:
        # A bug met on one connection (nothing a peer sends should get here) still ends
        # only that connection: the listener and every other connection go on.
        log.error("connection %r ended by an internal error", conn, exc_info=group)
    finally:
        await conn.aclose()
