"""``solstice rendezvous``: a meeting point anyone can run for players behind home routers
(protocol.md, "Over the internet: rendezvous and relay").

A player's peer keeps one *listen* line open here, proving its peer id by signing a nonce;
the rendezvous tells it the address it sees (its public address). A peer that cannot reach
another directly sends *connect* naming the peer id; the rendezvous tells the listener
(*incoming*), the listener opens an *accept* connection, and from then on the rendezvous
splices the two TCP streams: it forwards the players' TLS bytes, which it can neither read
nor forge (each side pins the other's peer id in the TLS handshake, end to end). It keeps
nothing on disk and nothing after a connection ends; it learns addresses, and how many bytes
flow, never what they say. It may delay, drop or lie: a lie fails the TLS pinning, and delay
or drops are the game's deadlines' business, as for any bad link.

Every resource a client controls is bounded: line length, listeners, pending tokens,
connections per source address, splices, and the time each step may take.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import trio

from p2p.errors import P2PError
from p2p.identity import is_peer_id, peer_id_of, verify_signature

log = logging.getLogger(__name__)

VERSION = 1
MAX_LINE = 512  # bytes of one control line, newline included
LISTEN_CONTEXT = b"solstice-rendezvous-listen-v1:"  # what a listener signs, before the nonce
STEP_TIMEOUT = 10.0  # seconds a client has for each step of the exchange
PING_EVERY = 10.0  # the rendezvous pings listeners; a client that hears nothing 3x this long
# reconnects
SPLICE_IDLE = 300.0  # a relayed connection quiet this long is closed (the game keeps alive)
_CHUNK = 65536


@dataclass(frozen=True)
class Limits:
    listeners: int = 1024
    pending: int = 256  # connects waiting for their listener's accept
    splices: int = 512
    per_address: int = 32  # open connections from one source address


class RendezvousError(P2PError):
    """A rendezvous or a client broke the exchange (who: the message says); it is never a
    verdict on a player (the rendezvous is untrusted and may lie)."""


def encode_line(obj: dict[str, object]) -> bytes:
    line = json.dumps(obj, separators=(",", ":"), sort_keys=True).encode() + b"\n"
    if len(line) > MAX_LINE:
        raise ValueError("control line too long")
    return line


def decode_line(line: bytes, who: str) -> dict[str, object]:
    try:
        obj = json.loads(line)
    except ValueError:
        raise RendezvousError(f"{who} sent a line that is not JSON") from None
    if not isinstance(obj, dict) or not isinstance(obj.get("op"), str):
        raise RendezvousError(f"{who} sent a line without an op")
    return obj


class LineReader:
    """Reads newline-terminated control lines of at most ``MAX_LINE`` bytes from a stream,
    keeping whatever came after the last line (the start of the spliced bytes)."""

    def __init__(self, stream: trio.abc.ReceiveStream, who: str) -> None:
        self.stream, self.who = stream, who
        self.buffer = b""

    async def line(self) -> dict[str, object]:
        while b"\n" not in self.buffer:
            if len(self.buffer) >= MAX_LINE:
                raise RendezvousError(f"{self.who} sent a line over {MAX_LINE} bytes")
            data = await self.stream.receive_some(MAX_LINE)
            if not data:
                raise RendezvousError(f"{self.who} closed the connection")
            self.buffer += data
        line, self.buffer = self.buffer.split(b"\n", 1)
        return decode_line(line, self.who)


@dataclass
class _Listener:
    stream: trio.SocketStream
    send_lock: trio.Lock = field(default_factory=trio.Lock)


@dataclass
class _Pending:
    peer: str
    arrived: trio.Event = field(default_factory=trio.Event)
    done: trio.Event = field(default_factory=trio.Event)
    stream: trio.SocketStream | None = None
    early: bytes = b""
    endpoint: tuple[str, int] | None = None  # a punch: where the listener's line came from


class Rendezvous:
    """The server's state: live listeners and connects waiting for an accept; nothing else."""

    def __init__(self, limits: Limits | None = None,
                 on_note: Callable[[str], None] | None = None) -> None:
        self.limits = limits or Limits()
        self.on_note = on_note  # the operator's log: one line per relayed connection
        self.listeners: dict[str, _Listener] = {}
        self.pending: dict[str, _Pending] = {}
        self.punches: dict[str, _Pending] = {}
        self.splices = 0
        self.per_address: dict[str, int] = {}

    async def serve(self, bind: str, port: int,
                    task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        listeners = await trio.open_tcp_listeners(port, host=bind)
        task_status.started(listeners[0].socket.getsockname()[1])
        await trio.serve_listeners(self.on_client, listeners)

    async def on_client(self, stream: trio.SocketStream) -> None:
        address = str(stream.socket.getpeername()[0])
        if self.per_address.get(address, 0) >= self.limits.per_address:
            await trio.aclose_forcefully(stream)
            return
        self.per_address[address] = self.per_address.get(address, 0) + 1
        try:
            await self._client(stream, address)
        except* (RendezvousError, trio.BrokenResourceError, trio.ClosedResourceError,
                 trio.TooSlowError, OSError) as group:
            # A client that breaks the exchange or vanishes ends its own connection only.
            log.info("client %s: %s", address, group.exceptions)
        finally:
            self.per_address[address] -= 1
            if not self.per_address[address]:
                del self.per_address[address]
            await trio.aclose_forcefully(stream)

    async def _client(self, stream: trio.SocketStream, address: str) -> None:
        reader = LineReader(stream, f"client {address}")
        with trio.fail_after(STEP_TIMEOUT):
            first = await reader.line()
        op = first["op"]
        if op == "listen":
            await self._listen(stream, reader, first, address)
        elif op == "connect":
            await self._connect(stream, reader, first, address)
        elif op == "punch":
            await self._punch(stream, first, address)
        elif op == "punched":
            token = first.get("token")
            punch = self.punches.get(token) if isinstance(token, str) else None
            if punch is None or punch.stream is not None:
                raise RendezvousError(f"client {address}: punched for no pending punch")
            punch.stream = stream
            punch.endpoint = (self.observed(address), stream.socket.getpeername()[1])
            punch.arrived.set()
            await punch.done.wait()  # the punch's task answers both sides
        elif op == "accept":
            token = first.get("token")
            pending = self.pending.get(token) if isinstance(token, str) else None
            if pending is None or pending.stream is not None:
                raise RendezvousError(f"client {address}: accept for no pending connect")
            pending.stream, pending.early = stream, reader.buffer
            pending.arrived.set()
            await pending.done.wait()  # the connect's task splices both streams
        else:
            raise RendezvousError(f"client {address}: unknown op {op!r}")

    async def _listen(self, stream: trio.SocketStream, reader: LineReader,
                      first: dict[str, object], address: str) -> None:
        peer = first.get("peer")
        if not is_peer_id(peer):
            raise RendezvousError(f"client {address}: listen without a peer id")
        assert isinstance(peer, str)
        nonce = secrets.token_hex(16)
        port = stream.socket.getpeername()[1]
        await stream.send_all(encode_line({"op": "challenge", "nonce": nonce,
                                           "address": self.observed(address), "port": port}))
        with trio.fail_after(STEP_TIMEOUT):
            proof = await reader.line()
        key, sig = proof.get("key"), proof.get("sig")
        try:
            raw_key = bytes.fromhex(key) if isinstance(key, str) else b""
            raw_sig = bytes.fromhex(sig) if isinstance(sig, str) else b""
            ok = peer_id_of(raw_key) == peer and verify_signature(
                raw_key, raw_sig, LISTEN_CONTEXT + nonce.encode())
        except ValueError:
            ok = False
        if not ok:
            raise RendezvousError(f"client {address}: no proof of peer id {peer[:8]}")
        if peer not in self.listeners and len(self.listeners) >= self.limits.listeners:
            raise RendezvousError("too many listeners")
        me = _Listener(stream)
        self.listeners[peer] = me  # the newest line of a peer wins (it reconnected)
        try:
            await stream.send_all(encode_line({"op": "listening"}))
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._ping, me)
                while True:  # nothing more is expected from a listener: drain till it closes
                    if not await stream.receive_some(MAX_LINE):
                        nursery.cancel_scope.cancel()
                        return
        finally:
            if self.listeners.get(peer) is me:
                del self.listeners[peer]

    async def _ping(self, listener: _Listener) -> None:
        while True:
            await trio.sleep(PING_EVERY)
            async with listener.send_lock:
                await listener.stream.send_all(encode_line({"op": "ping"}))

    async def _connect(self, stream: trio.SocketStream, reader: LineReader,
                       first: dict[str, object], address: str) -> None:
        found = await self._listener_named(stream, first)
        if found is None:
            return
        peer, listener = found
        if len(self.pending) >= self.limits.pending or self.splices >= self.limits.splices:
            await stream.send_all(encode_line({"op": "error", "reason": "relay is full"}))
            return
        token = secrets.token_hex(16)
        pending = _Pending(peer)
        self.pending[token] = pending
        try:
            async with listener.send_lock:
                await listener.stream.send_all(encode_line(
                    {"op": "incoming", "token": token, "from": self.observed(address)}))
            with trio.move_on_after(STEP_TIMEOUT):
                await pending.arrived.wait()
        finally:
            del self.pending[token]
        other = pending.stream
        if other is None:
            pending.done.set()
            await stream.send_all(encode_line({"op": "error", "reason": "peer did not accept"}))
            return
        self.splices += 1
        if self.on_note is not None:
            self.on_note(f"relaying {address} to peer {peer[:8]}")
        try:
            await stream.send_all(encode_line({"op": "relayed"}))
            await other.send_all(encode_line({"op": "relayed"}))
            await splice(stream, reader.buffer, other, pending.early, self.forward)
        finally:
            self.splices -= 1
            pending.done.set()


    async def _listener_named(self, stream: trio.SocketStream, first: dict[str, object]
                              ) -> tuple[str, _Listener] | None:
        """The listener the dialer's first line names (its peer id), or None once the dialer
        was told there is none here."""
        peer = first.get("peer")
        listener = self.listeners.get(peer) if isinstance(peer, str) else None
        if listener is None or not isinstance(peer, str):
            await stream.send_all(encode_line({"op": "error", "reason": "no such peer here"}))
            return None
        return peer, listener

    async def _punch(self, stream: trio.SocketStream, first: dict[str, object],
                     address: str) -> None:
        """Hole punching: the dialer's line and the listener's ``punched`` line each come
        from the port its peer listens on; each is told where the other's came from (its
        router's mapping), and both dial there at once (a TCP simultaneous open)."""
        found = await self._listener_named(stream, first)
        if found is None:
            return
        peer, listener = found
        if len(self.punches) >= self.limits.pending:
            await stream.send_all(encode_line({"op": "error", "reason": "too many punches"}))
            return
        token = secrets.token_hex(16)
        punch = _Pending(peer)
        self.punches[token] = punch
        try:
            async with listener.send_lock:
                await listener.stream.send_all(encode_line({"op": "punch", "token": token}))
            with trio.move_on_after(STEP_TIMEOUT):
                await punch.arrived.wait()
            if punch.stream is None or punch.endpoint is None:
                await stream.send_all(encode_line({"op": "error", "reason": "no answer"}))
                return
            mine = (self.observed(address), stream.socket.getpeername()[1])
            if self.on_note is not None:
                self.on_note(f"punching {address} to peer {peer[:8]}")
            await punch.stream.send_all(encode_line(
                {"op": "punch-to", "address": mine[0], "port": mine[1]}))
            await stream.send_all(encode_line(
                {"op": "punch-to", "address": punch.endpoint[0], "port": punch.endpoint[1]}))
        finally:
            del self.punches[token]
            punch.done.set()

    def observed(self, address: str) -> str:
        """The address we tell a client that it (or a dialer) has: the one we see. (A test's
        lying rendezvous says another.)"""
        return address

    async def forward(self, data: bytes) -> bytes:
        """The bytes a splice passes on: as they came. (A test's bad relay alters, delays or
        drops them.)"""
        return data


async def splice(a: trio.SocketStream, a_early: bytes, b: trio.SocketStream,
                 b_early: bytes, forward: Callable[[bytes], Awaitable[bytes]]) -> None:
    """Forward bytes both ways until both sides are done, one breaks (then both are ended:
    the peers notice and make their link again) or the link is idle too long."""
    last = [trio.current_time()]

    async def pipe(src: trio.SocketStream, early: bytes, dst: trio.SocketStream,
                   scope: trio.CancelScope) -> None:
        try:
            if early:
                await dst.send_all(await forward(early))
            while data := await src.receive_some(_CHUNK):
                last[0] = trio.current_time()
                await dst.send_all(await forward(data))
            await dst.send_eof()
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            scope.cancel()

    async with trio.open_nursery() as nursery:
        async def idle_watch() -> None:
            while trio.current_time() - last[0] < SPLICE_IDLE:
                await trio.sleep(SPLICE_IDLE / 10)
            nursery.cancel_scope.cancel()

        async def both() -> None:
            async with trio.open_nursery() as pipes:
                pipes.start_soon(pipe, a, a_early, b, nursery.cancel_scope)
                pipes.start_soon(pipe, b, b_early, a, nursery.cancel_scope)
            nursery.cancel_scope.cancel()

        nursery.start_soon(idle_watch)
        nursery.start_soon(both)
