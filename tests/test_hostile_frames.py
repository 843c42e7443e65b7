"""Issue 24, finding 1: one frame of deeply nested JSON, from anyone who can open a TLS
connection, must end only that connection, never the node that got it.

Over real loopback TLS (127.0.0.1): the first lobby frame to a host, a frame from an outsider
to a playing peer's listener (every peer listens for re-dials), a hostile host's answers to a
joiner and to a spectator; and the ``D`` (resync done) frame of a roster peer, which reaches
the runner's task. Each of these raised RecursionError out of the node's nursery before the
bounded parser (``p2p.wire``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from engine.canonical import canonical_json
from p2p.errors import RemoteProtocolError
from p2p.identity import Identity
from p2p.net.games import PeerOptions
from p2p.net.joincode import JoinCode
from p2p.net.lobby import decode_control, encode_control
from p2p.net.mesh import Mesh
from p2p.net.node import Node, open_node
from p2p.net.observers import ObserverHub, watch_hello
from p2p.net.resync import Resync
from p2p.net.roster import Roster, RosterEntry, new_game_id
from p2p.net.transport import Connection, ConnectionLost, NetConfig, dial, serve
from p2p.net.watch import watch_game
from p2p.session.machine import GameSession
from p2p.wire import UnreadableInput

LOOPBACK = "127.0.0.1"
CFG = NetConfig(handshake_timeout=3.0, first_read_timeout=3.0, grace_period=5.0,
                backoff_initial=0.02, backoff_max=0.2, lobby_timeout=10.0)
NESTED = b"[" * 100_000          # the finding's frame: well under the 1 MiB frame limit
SMALL_NESTED = b"[" * 8000       # deep enough to recurse, under the 8 KiB lobby update limit


async def hang_up_on(conn: Connection) -> None:
    """The other side closed ``conn`` (cleanly or not): what a dropped connection looks like."""
    with trio.fail_after(5):
        try:
            while await conn.receive_frame() is not None:
                pass
        except (ConnectionLost, RemoteProtocolError):
            pass
    await conn.aclose()


async def send_from_outsider(tmp_path: Path, node: Node, payload: bytes) -> None:
    """A self-made identity dials ``node`` and sends ``payload`` as its first frame."""
    outsider = Identity.load_or_create(tmp_path / "outsider")
    conn = await dial(LOOPBACK, node.port, outsider, node.identity.peer_id, CFG)
    await conn.send_frame(payload)
    await hang_up_on(conn)


async def form_two(tmp_path: Path, nursery: trio.Nursery) -> tuple[Node, Node, Mesh, Mesh]:
    """A host and a joiner with their mesh formed, each node in ``nursery``."""
    nodes: list[Node] = []

    async def run(name: str, *, task_status: trio.TaskStatus[None]) -> None:
        identity = Identity.load_or_create(tmp_path / name)
        async with open_node(identity, home=tmp_path / name, bind=LOOPBACK, config=CFG) as node:
            nodes.append(node)
            task_status.started()
            await trio.sleep_forever()

    await nursery.start(run, "host")
    await nursery.start(run, "ann")
    host, ann = nodes
    lobby = host.host(players=2, name="host")
    meshes: dict[str, Mesh] = {}

    async def host_side() -> None:
        meshes["host"] = await lobby.wait_mesh()

    async with trio.open_nursery() as forming:
        forming.start_soon(host_side)
        meshes["ann"] = await ann.join(lobby.code, name="ann")
    return host, ann, meshes["host"], meshes["ann"]


async def assert_link_works(a: Mesh, b: Mesh) -> None:
    with trio.fail_after(5):
        await a.send(b.my_index, b"Mhello")
        assert await b.incoming.receive() == (a.my_index, b"Mhello")


# -- the listener of a host in its lobby ----------------------------------------------------


async def test_a_nested_first_lobby_frame_leaves_the_host_open_for_real_joiners(
        tmp_path: Path) -> None:
    async with trio.open_nursery() as nursery:
        with trio.fail_after(20):
            host_identity = Identity.load_or_create(tmp_path / "host")
            async with open_node(host_identity, home=tmp_path / "host", bind=LOOPBACK,
                                 config=CFG) as host:
                lobby = host.host(players=2, name="host")
                await send_from_outsider(tmp_path, host, NESTED)
                await send_from_outsider(tmp_path, host, b'{"type":"hello","name":' + NESTED)
                ann_identity = Identity.load_or_create(tmp_path / "ann")
                async with open_node(ann_identity, home=tmp_path / "ann", bind=LOOPBACK,
                                     config=CFG) as ann:
                    nursery.start_soon(lobby.wait_mesh)
                    mesh = await ann.join(lobby.code, name="ann")
                    assert mesh.roster.players[0].name == "host"
        nursery.cancel_scope.cancel()


# -- the listener of a peer in a game ---------------------------------------------------------


async def test_a_nested_frame_from_an_outsider_leaves_a_playing_peer_playing(
        tmp_path: Path) -> None:
    async with trio.open_nursery() as nursery:
        with trio.fail_after(20):
            host, ann, host_mesh, ann_mesh = await form_two(tmp_path, nursery)
            await send_from_outsider(tmp_path, ann, NESTED)
            await send_from_outsider(tmp_path, host, NESTED)
            # A mesh-hello with a nested game id: the re-dial path of the mesh itself.
            await send_from_outsider(tmp_path, ann, b'{"type":"mesh-hello","game":' + NESTED)
            await assert_link_works(host_mesh, ann_mesh)
            await assert_link_works(ann_mesh, host_mesh)
        nursery.cancel_scope.cancel()


# -- a hostile host ---------------------------------------------------------------------------


async def hostile_host(tmp_path: Path, nursery: trio.Nursery, game_id: str,
                       answers: list[bytes]) -> JoinCode:
    """A listener that answers every first frame with ``answers`` (frames), then waits."""
    identity = Identity.load_or_create(tmp_path / "hostile")

    async def handler(conn: Connection) -> None:
        await conn.receive_first_frame()
        for answer in answers:
            await conn.send_frame(answer)
        await trio.sleep(5)

    port = await nursery.start(lambda task_status: serve(
        identity, handler, bind=LOOPBACK, port=0, config=CFG, task_status=task_status))
    return JoinCode(LOOPBACK, port, game_id, identity.peer_id)


@pytest.mark.parametrize("answers", [
    [NESTED],                                                     # instead of the welcome
    [b"welcome", SMALL_NESTED],                                   # a lobby update
    [b"welcome", b'{"type":"lobby-chat","line":' + SMALL_NESTED],  # a lobby chat line
], ids=["welcome", "lobby-update", "lobby-chat"])
async def test_a_hostile_hosts_nested_lobby_frame_fails_only_the_join(
        tmp_path: Path, answers: list[bytes]) -> None:
    async with trio.open_nursery() as nursery:
        game_id = new_game_id()
        welcome = encode_control({"type": "welcome", "game": game_id, "players": 2})
        code = await hostile_host(tmp_path, nursery, game_id,
                                  [welcome if a == b"welcome" else a for a in answers])
        identity = Identity.load_or_create(tmp_path / "ann")
        with trio.fail_after(20):
            async with open_node(identity, home=tmp_path / "ann", bind=LOOPBACK,
                                 config=CFG) as ann:
                with pytest.raises(RemoteProtocolError) as caught:
                    await ann.join(code, name="ann")
                assert caught.value.seat == 0, "the host is blamed"
                assert "not valid JSON" in str(caught.value)
        nursery.cancel_scope.cancel()


# -- the spectator's control path -------------------------------------------------------------


async def test_a_nested_watch_hello_leaves_the_host_serving_its_watchers(
        tmp_path: Path) -> None:
    async with trio.open_nursery() as nursery:
        with trio.fail_after(20):
            host_identity = Identity.load_or_create(tmp_path / "host")
            async with open_node(host_identity, home=tmp_path / "host", bind=LOOPBACK,
                                 config=CFG) as host:
                lobby = host.host(players=2, name="host")
                host.observers = ObserverHub(lobby.code.game_id)
                await send_from_outsider(
                    tmp_path, host, b'{"type":"watch-hello","game":' + NESTED)
                watcher = Identity.load_or_create(tmp_path / "watcher")
                conn = await dial(LOOPBACK, host.port, watcher, host_identity.peer_id, CFG)
                await conn.send_frame(encode_control(watch_hello(lobby.code.game_id, "eve")))
                welcome = decode_control(await conn.receive_first_frame())
                assert welcome["type"] == "watch-welcome"
                await conn.aclose()
        nursery.cancel_scope.cancel()


def signed_roster(host: Identity, other: Identity, game_id: str) -> Roster:
    players = (RosterEntry(0, "host", host.public_bytes, LOOPBACK, 1),
               RosterEntry(1, "ann", other.public_bytes, LOOPBACK, 2))
    return Roster(game_id, players).sign(host)


@pytest.mark.parametrize("what", ["welcome", "roster", "message"])
async def test_a_hostile_hosts_nested_frame_ends_only_the_watch(tmp_path: Path,
                                                                 what: str) -> None:
    async with trio.open_nursery() as nursery:
        hostile = Identity.load_or_create(tmp_path / "hostile")
        game_id = new_game_id()
        roster = signed_roster(hostile, Identity.load_or_create(tmp_path / "ann"), game_id)
        welcome = encode_control({"type": "watch-welcome", "game": game_id, "watchers": []})
        roster_frame = encode_control({"type": "roster", "roster": roster.signed_json()})
        answers = {"welcome": [NESTED],
                   "roster": [welcome, b'{"type":"roster","roster":' + NESTED],
                   "message": [welcome, roster_frame, b"M" + NESTED]}[what]

        async def handler(conn: Connection) -> None:
            await conn.receive_first_frame()
            for answer in answers:
                await conn.send_frame(answer)
            await trio.sleep(5)

        port = await nursery.start(lambda task_status: serve(
            hostile, handler, bind=LOOPBACK, port=0, config=CFG, task_status=task_status))
        code = JoinCode(LOOPBACK, port, game_id, hostile.peer_id)
        with trio.fail_after(20), pytest.raises(RemoteProtocolError) as caught:
            await watch_game(code, lambda event: None,
                             PeerOptions(home=tmp_path / "watcher", name="eve", net=CFG))
        assert caught.value.seat == 0 and "not valid JSON" in str(caught.value)
        nursery.cancel_scope.cancel()


# -- resync: a roster peer's D frame ----------------------------------------------------------


def test_a_nested_sync_done_frame_is_no_answer_and_raises_nothing() -> None:
    host, ann = Identity.generate(), Identity.generate()
    session = GameSession(new_game_id(), [host.public_bytes, ann.public_bytes], 0, host,
                          b"\x01" * 32)
    resync = Resync(session, [1], held=True)
    for frame in (b"D" + NESTED, b'D{"next":' + NESTED + b"}", b'D{"next":[' + b"9" * 5000
                  + b"]}", b"D" + canonical_json({"next": "x" * 100_000})):
        assert resync.on_done(1, frame) is False
    assert resync.waiting_for() == [1], "a malformed D is not an answer"
    assert resync.on_done(1, b"D" + canonical_json({"next": [0, 0]})) is True


def test_unreadable_input_names_the_connection() -> None:
    with pytest.raises(UnreadableInput) as caught:
        decode_control(NESTED, 3)
    assert caught.value.seat == 3


async def test_a_roster_peer_answering_a_mesh_dial_with_nested_json_is_only_an_error(
        tmp_path: Path) -> None:
    """The mesh's own dial loop: peer 0 of the roster answers every mesh-hello with the
    nested frame; the dialing node keeps running and says why peer 0 is unreachable."""
    async with trio.open_nursery() as nursery:
        hostile = Identity.load_or_create(tmp_path / "hostile")
        game_id = new_game_id()

        async def handler(conn: Connection) -> None:
            await conn.receive_first_frame()
            await conn.send_frame(NESTED)
            await trio.sleep(5)

        port = await nursery.start(lambda task_status: serve(
            hostile, handler, bind=LOOPBACK, port=0, config=CFG, task_status=task_status))
        me = Identity.load_or_create(tmp_path / "ann")
        with trio.fail_after(20):
            async with open_node(me, home=tmp_path / "ann", bind=LOOPBACK, config=CFG) as ann:
                players = (RosterEntry(0, "host", hostile.public_bytes, LOOPBACK, port),
                           RosterEntry(1, "ann", me.public_bytes, LOOPBACK, ann.port))
                mesh = await ann.start_mesh(Roster(game_id, players).sign(hostile), wait=False)
                while "not valid JSON" not in mesh.last_error(0):
                    await trio.sleep(0.05)
                assert not mesh.is_connected(0)
        nursery.cancel_scope.cancel()


@pytest.mark.slow
async def test_a_nested_sync_done_frame_from_a_roster_peer_over_tls_changes_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A whole game over loopback TLS in which one joiner sends every peer a ``D`` frame of
    100 000 nested brackets at setup: nobody crashes, the game ends fair and verifies."""
    from test_net_adversary import ADVERSARY, Peer, is_adversary, play_table

    from p2p.storage.transcript import verify_transcript

    table_ref = [[Peer(tmp_path / f"peer{i}") for i in range(3)]]
    honest_send = GameSession._send

    def send(self: GameSession, kind: str, body: dict[str, object]) -> None:
        if is_adversary(table_ref[0], self.identity) and kind == "setup/commit":
            self.outbox.append(b"D" + NESTED)
        honest_send(self, kind, body)

    monkeypatch.setattr(GameSession, "_send", send)
    table = await play_table(tmp_path)
    for i, peer in enumerate(table):
        assert peer.session is not None and peer.session.result is not None, i
        if i != ADVERSARY:
            assert verify_transcript(peer.transcript).ok


# -- a lone surrogate: valid JSON, but no text (found by tests/test_parser_fuzz.py) ------------

SURROGATE = b'"\\ud800"'


def test_a_lone_surrogate_in_a_message_chat_or_lobby_line_is_only_a_rejection() -> None:
    """``"\\ud800"`` parses to a string no UTF-8 can carry: re-encoding it (the canonical
    check of every signed message and chat line) raised UnicodeEncodeError out of the
    session's and the chat room's receive, i.e. out of the game's task, before."""
    from p2p.net.chat import ChatRoom
    from p2p.net.lobbychat import LobbyChat
    from p2p.session.envelope import GENESIS

    host, ann = Identity.generate(), Identity.generate()
    game_id = new_game_id()
    keys = [host.public_bytes, ann.public_bytes]
    session = GameSession(game_id, keys, 0, host, b"\x01" * 32)
    message = (b'{"msg":{"body":{"x":' + SURROGATE + b'},"game":"' + game_id.encode()
               + b'","prev":"' + GENESIS.encode() + b'","seat":1,"seq":0,"type":"x"},"sig":"'
               + b"00" * 64 + b'"}')
    session.receive(1, b"M" + message)
    assert session.events and "not valid JSON" in session.events[-1].text
    room = ChatRoom(game_id, keys, 0, host, ["host", "ann"])
    chat = (b'C{"chat":{"author":1,"game":"' + game_id.encode() + b'","n":0,"text":'
            + SURROGATE + b'},"sig":"' + b"00" * 64 + b'"}')
    assert "not valid JSON" in room.receive(1, chat, 0.0).violation
    line = (b'{"key":"' + b"00" * 32 + b'","line":{"game":"' + game_id.encode() + b'","n":0,'
            b'"peer":"' + ann.peer_id.encode() + b'","text":' + SURROGATE + b'},"sig":"'
            + b"00" * 64 + b'","type":"lobby-chat"}')
    assert "not valid JSON" in LobbyChat(game_id, host).relay(ann.public_bytes, line, 0.0).violation


# -- the real command ---------------------------------------------------------------------------


@pytest.mark.soak  # make test's time (issue 40: under 10 minutes): in make soak
def test_solstice_host_survives_a_nested_first_frame_and_plays_its_game(tmp_path: Path) -> None:
    """The finding as reproduced: a real ``solstice host`` process, a nested first lobby
    frame from a self-made identity, then a real ``solstice join``: the host neither exits
    nor prints a traceback, and the game is played to its end."""
    import subprocess
    import sys
    import threading

    solstice = Path(sys.executable).parent / "solstice"
    host = subprocess.Popen(
        [str(solstice), "host", "-n", "2", "--bind", LOOPBACK, "--bot", "random", "--home",
         str(tmp_path / "host"), "--no-discovery", "--name", "host"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert host.stdout is not None
        first = host.stdout.readline()
        assert first.startswith("join code: "), first
        code = JoinCode.parse(first.split(": ", 1)[1])
        output: list[str] = []
        threading.Thread(target=lambda: output.extend(host.stdout or ()), daemon=True).start()

        async def attack() -> None:
            outsider = Identity.load_or_create(tmp_path / "outsider")
            conn = await dial(code.address, code.port, outsider, code.host_id, CFG)
            await conn.send_frame(NESTED)
            await hang_up_on(conn)

        trio.run(attack)
        assert host.poll() is None, "".join(output)
        joined = subprocess.run(
            [str(solstice), "join", code.encode(), "--bot", "random", "--bind", LOOPBACK,
             "--home", str(tmp_path / "ann"), "--name", "ann", "--no-discovery"],
            capture_output=True, text=True, timeout=120)
        assert joined.returncode == 0, joined.stdout + joined.stderr
        assert host.wait(timeout=60) == 0, "".join(output)
        assert "Traceback" not in "".join(output)
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()
