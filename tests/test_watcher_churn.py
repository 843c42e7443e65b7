"""Issue 24, finding 8: a spectator that reconnects in a loop must not make the host sign, and
every player print, a line per admission. Over real loopback TLS: a host's observer hub, a
spectator connecting and hanging up 40 times; the host signs at most a notice or two (only
when the set of watchers has settled and differs from the last told), and its own
arrival/departure lines stay within their burst."""

from __future__ import annotations

from pathlib import Path

import trio

from p2p.identity import Identity
from p2p.net.lobby import decode_control, encode_control
from p2p.net.node import open_node
from p2p.net.observers import NOTE_BURST, ObserverHub, watch_hello
from p2p.net.transport import NetConfig, dial
from p2p.net.watchers import FRAME_WATCHERS, Watcher
from p2p.session.envelope import GENESIS, Message, sign_message

LOOPBACK = "127.0.0.1"
CFG = NetConfig(handshake_timeout=3.0, first_read_timeout=3.0)
VISITS = 40


async def game_goes_on(hub: ObserverHub, host: Identity) -> None:
    """What a game does to the hub meanwhile: a signed message every 10 ms."""
    signed = sign_message(host, Message(hub.game_id, 0, 0, GENESIS, "test", {}))
    while True:
        hub.publish(signed)
        await trio.sleep(0.01)
SETTLE, EVERY = 0.2, 1.0  # the hub's churn limits, shortened (defaults 1 s and 5 s)


async def test_a_spectator_reconnecting_in_a_loop_floods_nobody(tmp_path: Path) -> None:
    host = Identity.load_or_create(tmp_path / "host")
    notices: list[bytes] = []
    told: list[tuple[Watcher, ...]] = []
    notes: list[str] = []

    async def broadcast(frame: bytes) -> None:
        notices.append(frame)

    with trio.fail_after(40):
        async with open_node(host, home=tmp_path / "host", bind=LOOPBACK, config=CFG) as node, \
                trio.open_nursery() as nursery:
            lobby = node.host(players=2, name="host")
            hub = node.observers = ObserverHub(lobby.code.game_id, settle=SETTLE, every=EVERY)
            hub.on_note = notes.append
            nursery.start_soon(hub.announce, broadcast, host, told.append)
            nursery.start_soon(game_goes_on, hub, host)
            eve = Identity.load_or_create(tmp_path / "eve")
            started = trio.current_time()
            for _ in range(VISITS):
                conn = await dial(LOOPBACK, node.port, eve, host.peer_id, CFG)
                await conn.send_frame(encode_control(watch_hello(lobby.code.game_id, "eve")))
                assert decode_control(await conn.receive_first_frame())["type"] == \
                    "watch-welcome"
                await trio.sleep(0.02)  # long enough for the host to take notice
                await conn.aclose()
                while hub.watchers:  # the host noticed it left
                    await trio.sleep(0.001)
            churned = trio.current_time() - started
            await trio.sleep(EVERY + 0.5)  # whatever is due has gone out by now
            nursery.cancel_scope.cancel()
    assert all(frame[:1] == FRAME_WATCHERS for frame in notices)
    # Before: a notice per arrival and per departure (80), each printed by every player.
    assert len(notices) <= 2 + churned / EVERY, (len(notices), churned)
    assert not told or told[-1] == ()  # nobody is watching at the end: the last word says so
    assert len(notes) <= NOTE_BURST + 1 + (churned + EVERY + 0.5) / EVERY, notes  # was 80


async def test_a_watcher_that_stays_is_announced_despite_churn(tmp_path: Path) -> None:
    host = Identity.load_or_create(tmp_path / "host")
    told: list[tuple[Watcher, ...]] = []

    async def broadcast(frame: bytes) -> None:
        pass

    with trio.fail_after(40):
        async with open_node(host, home=tmp_path / "host", bind=LOOPBACK, config=CFG) as node, \
                trio.open_nursery() as nursery:
            lobby = node.host(players=2, name="host")
            hub = node.observers = ObserverHub(lobby.code.game_id, settle=SETTLE, every=EVERY)
            nursery.start_soon(hub.announce, broadcast, host, told.append)
            nursery.start_soon(game_goes_on, hub, host)
            dora = Identity.load_or_create(tmp_path / "dora")
            stays = await dial(LOOPBACK, node.port, dora, host.peer_id, CFG)
            await stays.send_frame(encode_control(watch_hello(lobby.code.game_id, "dora")))
            await stays.receive_first_frame()
            eve = Identity.load_or_create(tmp_path / "eve")
            started = trio.current_time()
            while trio.current_time() - started < EVERY + 1.5:  # churn all along
                conn = await dial(LOOPBACK, node.port, eve, host.peer_id, CFG)
                await conn.send_frame(encode_control(watch_hello(lobby.code.game_id, "eve")))
                await conn.receive_first_frame()
                await conn.aclose()
                await trio.sleep(0.05)
            nursery.cancel_scope.cancel()
            await stays.aclose()
    assert any(w.name for w in told[0] if w.name == "dora"), told
