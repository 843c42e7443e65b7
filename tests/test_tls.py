"""TLS over loopback: Ed25519 mutual certificates, pinning on both sides, timeouts, framing."""

from __future__ import annotations

import ssl

import pytest
import trio

from p2p.errors import RemoteProtocolError
from p2p.identity import Identity
from p2p.net import tls
from p2p.net.transport import (
    Connection,
    ConnectionLost,
    NetConfig,
    PeerTimeout,
    check_identity,
    dial,
    serve,
)

CFG = NetConfig(handshake_timeout=1.0, first_read_timeout=1.0)
LOOPBACK = "127.0.0.1"


def test_machine_openssl_supports_ed25519_tls13() -> None:
    # The design relies on it (otherwise tls.py would need the ECDSA fallback).
    assert ssl.HAS_TLSv1_3
    ctx = tls.server_context(Identity.generate())
    assert ctx.minimum_version == ssl.TLSVersion.TLSv1_3


async def start_server(nursery: trio.Nursery, identity: Identity, handler) -> int:
    return await nursery.start(
        lambda task_status: serve(
            identity, handler, bind=LOOPBACK, port=0, config=CFG, task_status=task_status
        )
    )


async def test_handshake_with_the_right_pinned_id() -> None:
    server_id, client_id = Identity.generate(), Identity.generate()
    seen: list[str] = []

    async def handler(conn: Connection) -> None:
        check_identity(conn, {client_id.peer_id})
        seen.append(conn.peer_id)
        await conn.send_frame(b"welcome " + await conn.receive_frame())

    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            port = await start_server(nursery, server_id, handler)
            conn = await dial(LOOPBACK, port, client_id, server_id.peer_id, CFG)
            assert conn.peer_id == server_id.peer_id
            assert conn.stream.version() == "TLSv1.3"
            await conn.send_frame(b"client")
            assert await conn.receive_first_frame() == b"welcome client"
            await conn.aclose()
            nursery.cancel_scope.cancel()
    assert seen == [client_id.peer_id]


async def test_client_refuses_a_server_with_another_identity() -> None:
    server_id, client_id, expected = Identity.generate(), Identity.generate(), Identity.generate()

    async def handler(conn: Connection) -> None:
        await trio.sleep_forever()

    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            port = await start_server(nursery, server_id, handler)
            with pytest.raises(tls.PeerIdentityMismatch) as info:
                await dial(LOOPBACK, port, client_id, expected.peer_id, CFG, seat=3)
            assert info.value.got == server_id.peer_id
            assert info.value.seat == 3 and server_id.short_id in info.value.reason
            nursery.cancel_scope.cancel()


async def test_server_refuses_a_client_with_another_identity() -> None:
    server_id, client_id, expected = Identity.generate(), Identity.generate(), Identity.generate()
    server_errors: list[BaseException] = []

    async def handler(conn: Connection) -> None:
        try:
            check_identity(conn, {expected.peer_id})
        except tls.PeerIdentityMismatch as exc:
            server_errors.append(exc)
            raise
        await conn.send_frame(b"should not happen")

    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            port = await start_server(nursery, server_id, handler)
            # The TLS 1.3 client finishes its handshake before the server has judged it; it
            # learns of the refusal on its first read.
            conn = await dial(LOOPBACK, port, client_id, server_id.peer_id, CFG)
            with pytest.raises(RemoteProtocolError):
                await conn.receive_first_frame()
            await conn.aclose()
            nursery.cancel_scope.cancel()
    assert len(server_errors) == 1
    assert server_errors[0].got == client_id.peer_id


async def test_client_without_a_certificate_is_rejected() -> None:
    server_id = Identity.generate()
    reached: list[Connection] = []

    async def handler(conn: Connection) -> None:
        reached.append(conn)

    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            port = await start_server(nursery, server_id, handler)
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
            tcp = await trio.open_tcp_stream(LOOPBACK, port)
            stream = trio.SSLStream(tcp, ctx, server_hostname=None)
            with pytest.raises((trio.BrokenResourceError, ssl.SSLError)):
                await stream.do_handshake()
                await stream.receive_some(10)  # TLS 1.3: the alert arrives on first read
            nursery.cancel_scope.cancel()
    assert reached == []


async def test_handshake_timeout_against_a_silent_server() -> None:
    async def silent(stream: trio.SocketStream) -> None:
        await trio.sleep_forever()

    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            listeners = await nursery.start(
                lambda task_status: trio.serve_tcp(
                    silent, 0, host=LOOPBACK, task_status=task_status
                )
            )
            port = listeners[0].socket.getsockname()[1]
            start = trio.current_time()
            with pytest.raises(PeerTimeout, match="handshake"):
                await dial(LOOPBACK, port, Identity.generate(), "0" * 64, CFG, seat=1)
            assert 0.9 <= trio.current_time() - start < 3
            nursery.cancel_scope.cancel()


async def test_first_read_timeout_against_a_mute_peer() -> None:
    server_id = Identity.generate()

    async def mute(conn: Connection) -> None:
        await trio.sleep_forever()

    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            port = await start_server(nursery, server_id, mute)
            conn = await dial(LOOPBACK, port, Identity.generate(), server_id.peer_id, CFG)
            with pytest.raises(PeerTimeout, match="first message"):
                await conn.receive_first_frame()
            await conn.aclose()
            nursery.cancel_scope.cancel()


async def test_oversize_frame_over_tls_is_a_remote_error() -> None:
    server_id = Identity.generate()
    errors: list[BaseException] = []
    small = NetConfig(handshake_timeout=1.0, first_read_timeout=1.0, max_frame_size=64)

    async def handler(conn: Connection) -> None:
        try:
            await conn.receive_frame()
        except RemoteProtocolError as exc:
            errors.append(exc)

    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            port = await nursery.start(
                lambda task_status: serve(
                    server_id,
                    handler,
                    bind=LOOPBACK,
                    port=0,
                    config=small,
                    task_status=task_status,
                )
            )
            conn = await dial(LOOPBACK, port, Identity.generate(), server_id.peer_id, CFG)
            await conn.stream.send_all((10_000).to_bytes(4, "big"))  # header only
            with trio.move_on_after(2):
                while not errors:
                    await trio.sleep(0.01)
            await conn.aclose()
            nursery.cancel_scope.cancel()
    assert len(errors) == 1 and "exceeds maximum 64" in str(errors[0])


async def test_nothing_listening_is_connection_lost() -> None:
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(
            lambda task_status: trio.serve_tcp(
                trio.SocketStream.aclose, 0, host=LOOPBACK, task_status=task_status
            )
        )
        port = listeners[0].socket.getsockname()[1]
        nursery.cancel_scope.cancel()
    await trio.sleep(0.05)
    with trio.fail_after(5), pytest.raises(ConnectionLost):
        await dial(LOOPBACK, port, Identity.generate(), "0" * 64, CFG)
