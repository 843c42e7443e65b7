"""A peer's side of a rendezvous (``p2p.net.rendezvous``): keep a listen line open there
(and learn our public address), open the relayed streams others ask for, and dial a peer
through the rendezvous when it cannot be reached directly.

What comes back is a plain TCP stream; the TLS handshake that pins the other peer's id runs
over it end to end (``p2p.net.transport``), so the rendezvous only carries bytes.
"""

from __future__ import annotations

import ipaddress
import logging
import struct
from collections.abc import Awaitable, Callable

import trio

from p2p.identity import Identity
from p2p.net.rendezvous import (
    LISTEN_CONTEXT,
    MAX_LINE,
    PING_EVERY,
    STEP_TIMEOUT,
    RendezvousError,
    decode_line,
    encode_line,
)

log = logging.getLogger(__name__)
Address = tuple[str, int]
StreamHandler = Callable[[trio.SocketStream, str], Awaitable[None]]
_BROKEN = (RendezvousError, OSError, trio.BrokenResourceError, trio.ClosedResourceError)


class RendezvousUnreachable(RendezvousError):
    """The rendezvous could not be reached or refused us (nobody is blamed)."""


def parse_address(text: str) -> Address:
    """``ADDR:PORT`` (``[V6]:PORT`` for IPv6) as given to ``--rendezvous``."""
    host, sep, port = text.strip().rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"{text!r}: a rendezvous is ADDRESS:PORT, e.g. 203.0.113.5:7447")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    try:
        ipaddress.ip_address(host)
    except ValueError:
        raise ValueError(f"{text!r}: the rendezvous address must be an IP address") from None
    return host, int(port)


async def _line(stream: trio.SocketStream, who: str) -> dict[str, object]:
    """One control line, read a byte at a time: nothing after its newline is consumed (the
    TLS bytes that follow belong to the handshake)."""
    data = b""
    while not data.endswith(b"\n"):
        if len(data) >= MAX_LINE:
            raise RendezvousError(f"{who} sent a line over {MAX_LINE} bytes")
        byte = await stream.receive_some(1)
        if not byte:
            raise RendezvousUnreachable(f"{who} closed the connection")
        data += byte
    return decode_line(data[:-1], who)


async def _open(rendezvous: Address) -> trio.SocketStream:
    try:
        with trio.fail_after(STEP_TIMEOUT):
            return await trio.open_tcp_stream(*rendezvous)
    except (OSError, trio.TooSlowError) as exc:
        raise RendezvousUnreachable(
            f"cannot reach the rendezvous at {rendezvous[0]}:{rendezvous[1]}: {exc}") from None


async def relayed_stream(rendezvous: Address, peer_id: str) -> trio.SocketStream:
    """A stream to ``peer_id`` through the rendezvous (not yet authenticated: the caller's
    TLS handshake pins the peer)."""
    tcp = await _open(rendezvous)
    try:
        with trio.fail_after(2 * STEP_TIMEOUT):
            await tcp.send_all(encode_line({"v": 1, "op": "connect", "peer": peer_id}))
            answer = await _line(tcp, "the rendezvous")
    except (*_BROKEN, trio.TooSlowError) as exc:
        await trio.aclose_forcefully(tcp)
        raise RendezvousUnreachable(f"relay to {peer_id[:8]} failed: {exc}") from None
    if answer.get("op") != "relayed":
        await trio.aclose_forcefully(tcp)
        reason = str(answer.get("reason", answer.get("op")))[:80]
        raise RendezvousUnreachable(f"the rendezvous cannot relay to {peer_id[:8]}: {reason!r}")
    return tcp


def reusable_socket(port: int) -> trio.socket.SocketType:
    """A TCP socket bound to ``port`` that may share it with our listener and other such
    sockets (SO_REUSEPORT): hole punching dials from the port we listen on, so that the
    router's mapping the rendezvous saw is the one the other peer dials."""
    sock = trio.socket.socket(trio.socket.AF_INET, trio.socket.SOCK_STREAM)
    sock.setsockopt(trio.socket.SOL_SOCKET, trio.socket.SO_REUSEADDR, 1)
    sock.setsockopt(trio.socket.SOL_SOCKET, trio.socket.SO_REUSEPORT, 1)
    return sock


async def _bound_connect(port: int, address: Address) -> trio.SocketStream:
    sock = reusable_socket(port)
    try:
        await sock.bind(("0.0.0.0", port))
        await sock.connect(address)
    except BaseException:
        sock.close()
        raise
    return trio.SocketStream(sock)


_PUNCH_LINES: dict[int, trio.Lock] = {}


async def _punch_line(rendezvous: Address, port: int, line: dict[str, object]) -> Address:
    """Send ``line`` to the rendezvous from ``port``; return the ``punch-to`` it answers.
    One at a time per port: two would be the same TCP connection (same ports both ends)."""
    async with _PUNCH_LINES.setdefault(port, trio.Lock()):
        return await _punch_line_once(rendezvous, port, line)


async def _punch_line_once(rendezvous: Address, port: int, line: dict[str, object]
                           ) -> Address:
    try:
        with trio.fail_after(STEP_TIMEOUT):
            tcp = await _bound_connect(port, rendezvous)
    except (OSError, trio.TooSlowError) as exc:
        raise RendezvousUnreachable(f"cannot reach the rendezvous to punch: {exc}") from None
    try:
        with trio.fail_after(2 * STEP_TIMEOUT):
            await tcp.send_all(encode_line(line))
            answer = await _line(tcp, "the rendezvous")
    except trio.TooSlowError:
        raise RendezvousUnreachable("the rendezvous did not answer the punch") from None
    finally:
        # An abortive close (RST): a graceful one would leave this port's connection to the
        # rendezvous in TIME_WAIT, and our next punch line, from the same port to the same
        # rendezvous, could not be made for a minute.
        tcp.socket.setsockopt(trio.socket.SOL_SOCKET, trio.socket.SO_LINGER,
                              struct.pack("ii", 1, 0))
        await trio.aclose_forcefully(tcp)
    address, target = answer.get("address"), answer.get("port")
    if answer.get("op") != "punch-to" or not isinstance(address, str) or not _is_ip(address) \
            or not isinstance(target, int) or not 0 < target < 65536:
        raise RendezvousError(f"no punch: {str(answer.get('reason', answer.get('op')))[:80]!r}")
    return address, target


async def _simultaneous_open(port: int, target: Address, timeout: float) -> trio.SocketStream:
    """Dial ``target`` from ``port`` until it connects or ``timeout`` passes: the other side
    dials us at the same moment, and each router lets the other's SYN in as the answer to
    its own."""
    with trio.move_on_after(timeout):
        while True:
            try:
                with trio.move_on_after(1.5):  # a SYN lost to a router is resent at 1 s
                    return await _bound_connect(port, target)
            except OSError:
                await trio.sleep(0.1)  # refused (the other's SYN not out yet): again
    raise RendezvousUnreachable(f"hole punching to {target[0]}:{target[1]} failed")


async def punched_stream(rendezvous: Address, peer_id: str, port: int,
                         timeout: float) -> tuple[trio.SocketStream, str]:
    """A direct stream to ``peer_id`` through both routers, by hole punching from our
    listening ``port``; raises RendezvousError if the routers do not let it through (a
    symmetric NAT maps each destination to another port)."""
    target = await _punch_line(rendezvous, port, {"v": 1, "op": "punch", "peer": peer_id})
    return await _simultaneous_open(port, target, timeout), target[0]


async def _punch_accept(rendezvous: Address, token: str, port: int, timeout: float,
                        on_stream: StreamHandler) -> None:
    try:
        target = await _punch_line(rendezvous, port, {"v": 1, "op": "punched",
                                                      "token": token})
        stream = await _simultaneous_open(port, target, timeout)
    except (*_BROKEN, trio.TooSlowError) as exc:
        log.info("hole punching (as the dialed side) failed: %s", exc)
        return
    await on_stream(stream, target[0])


async def _accept(rendezvous: Address, token: str, remote: str,
                  on_stream: StreamHandler) -> None:
    try:
        tcp = await _open(rendezvous)
    except RendezvousUnreachable as exc:
        log.info("%s", exc)
        return
    try:
        with trio.fail_after(STEP_TIMEOUT):
            await tcp.send_all(encode_line({"v": 1, "op": "accept", "token": token}))
            answer = await _line(tcp, "the rendezvous")
        if answer.get("op") != "relayed":
            raise RendezvousError(f"the rendezvous answered {answer.get('op')!r} to accept")
    except (*_BROKEN, trio.TooSlowError) as exc:
        log.info("relayed accept failed: %s", exc)
        await trio.aclose_forcefully(tcp)
        return
    await on_stream(tcp, remote)


async def _listen_once(rendezvous: Address, identity: Identity, on_stream: StreamHandler,
                       nursery: trio.Nursery, on_seen: Callable[[Address], None],
                       punch: tuple[int, float] | None) -> None:
    tcp = await _open(rendezvous)
    try:
        with trio.fail_after(STEP_TIMEOUT):
            await tcp.send_all(encode_line({"v": 1, "op": "listen",
                                            "peer": identity.peer_id}))
            challenge = await _line(tcp, "the rendezvous")
            nonce, address, port = (challenge.get(k) for k in ("nonce", "address", "port"))
            if not (isinstance(nonce, str) and len(nonce) <= 64 and isinstance(address, str)
                    and isinstance(port, int)):
                raise RendezvousError("the rendezvous sent a bad challenge")
            ipaddress.ip_address(address)  # a lie here only costs the direct attempts
            signature = identity.sign(LISTEN_CONTEXT + nonce.encode())
            await tcp.send_all(encode_line({"op": "proof", "key": identity.public_bytes.hex(),
                                            "sig": signature.hex()}))
            if (await _line(tcp, "the rendezvous")).get("op") != "listening":
                raise RendezvousError("the rendezvous did not take our listen line")
        on_seen((address, port))
        while True:
            with trio.fail_after(3 * PING_EVERY):
                line = await _line(tcp, "the rendezvous")
            token, remote = line.get("token"), line.get("from")
            if not isinstance(token, str) or len(token) > 64:
                continue
            if line.get("op") == "incoming":
                hint = remote if isinstance(remote, str) and _is_ip(remote) else rendezvous[0]
                nursery.start_soon(_accept, rendezvous, token, hint, on_stream)
            elif line.get("op") == "punch" and punch is not None:
                nursery.start_soon(_punch_accept, rendezvous, token, *punch, on_stream)
    finally:
        await trio.aclose_forcefully(tcp)


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


async def listen_at(rendezvous: Address, identity: Identity, on_stream: StreamHandler,
                    punch: tuple[int, float] | None = None,
                    task_status: trio.TaskStatus[Address] = trio.TASK_STATUS_IGNORED) -> None:
    """Keep a listen line open at the rendezvous, reporting the address it sees us at
    (``task_status``: the first time; a first failure is raised, later ones retried with
    backoff), and hand each relayed or punched stream to ``on_stream(stream, remote
    address hint)``. ``punch``: (our listening port, seconds to try) to take part in hole
    punching when a peer asks for it; None: relay only."""
    started = [False]

    def on_seen(seen: Address) -> None:
        if not started[0]:
            started[0] = True
            task_status.started(seen)

    backoff = 0.5
    async with trio.open_nursery() as nursery:
        while True:
            try:
                await _listen_once(rendezvous, identity, on_stream, nursery, on_seen, punch)
            except (*_BROKEN, trio.TooSlowError, ValueError) as exc:
                if not started[0]:
                    raise RendezvousUnreachable(str(exc)) from None
                log.info("rendezvous line lost (%s); again in %.1f s", exc, backoff)
            await trio.sleep(backoff)
            backoff = min(backoff * 2, 10.0)
