"""Lobby + full mesh over real loopback TCP: formation, traffic, impostors, reconnects."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path

import pytest
import trio

from p2p.errors import LocalFileError, RemoteProtocolError
from p2p.identity import Identity
from p2p.net import node as node_module
from p2p.net.joincode import JoinCode
from p2p.net.lobby import (
    LobbyRefused,
    LobbyUpdate,
    check_mesh_welcome,
    encode_control,
    mesh_hello,
)
from p2p.net.mesh import Mesh, MeshEvent, PeerDisconnected, PeerLost, PeerReconnected
from p2p.net.node import (
    HostedLobby,
    Node,
    load_roster,
    open_node,
    roster_path,
    save_roster,
    saved_games,
)
from p2p.net.roster import Roster, RosterEntry
from p2p.net.tls import PeerIdentityMismatch
from p2p.net.transport import NetConfig, dial

LOOPBACK = "127.0.0.1"
CFG = NetConfig(
    handshake_timeout=2.0,
    first_read_timeout=2.0,
    grace_period=10.0,
    backoff_initial=0.02,
    backoff_max=0.2,
)
SHORT_GRACE = NetConfig(
    handshake_timeout=1.0,
    first_read_timeout=1.0,
    grace_period=0.6,
    backoff_initial=0.02,
    backoff_max=0.1,
)


class Peer:
    """One peer process, simulated: a node in its own cancel scope, with its own home."""

    def __init__(self, home: Path, config: NetConfig = CFG) -> None:
        self.home = home
        self.identity = Identity.load_or_create(home)  # a restart re-reads the same key
        self.config = config
        self.node: Node | None = None
        self.mesh: Mesh | None = None
        self.scope: trio.CancelScope | None = None
        self.stopped = trio.Event()

    async def run(self, port: int = 0, *, task_status: trio.TaskStatus[None]) -> None:
        try:
            with trio.CancelScope() as self.scope:
                async with open_node(
                    self.identity, home=self.home, bind=LOOPBACK, port=port, config=self.config
                ) as node:
                    self.node = node
                    task_status.started()
                    await trio.sleep_forever()
        finally:
            self.stopped.set()

    async def stop(self) -> None:
        """Like a killed process: every connection closes, nothing more is sent."""
        assert self.scope is not None
        self.scope.cancel()
        await self.stopped.wait()


async def start_peers(
    nursery: trio.Nursery, tmp_path: Path, n: int, config: NetConfig = CFG
) -> tuple[list[Peer], HostedLobby]:
    peers = [Peer(tmp_path / f"peer{i}", config) for i in range(n)]
    for peer in peers:
        await nursery.start(peer.run)
    assert peers[0].node is not None
    lobby = peers[0].node.host(players=n, name="host")
    code = lobby.code.encode()

    async def form(peer: Peer, i: int) -> None:
        assert peer.node is not None
        if i == 0:
            peer.mesh = await lobby.wait_mesh()
        else:
            peer.mesh = await peer.node.join(code, name=f"player{i}")

    async with trio.open_nursery() as formation:
        for i, peer in enumerate(peers):
            formation.start_soon(form, peer, i)
    return peers, lobby


def by_index(peers: list[Peer]) -> dict[int, Peer]:
    result = {}
    for peer in peers:
        assert peer.mesh is not None
        result[peer.mesh.my_index] = peer
    return result


async def next_event(mesh: Mesh, wanted: Callable[[MeshEvent], bool]) -> MeshEvent:
    async for event in mesh.events:
        if wanted(event):
            return event
    raise AssertionError("event channel closed")


async def expect_frames(mesh: Mesh, count: int) -> list[tuple[int, bytes]]:
    return [await mesh.incoming.receive() for _ in range(count)]


async def exchange(meshes: dict[int, Mesh], tag: str) -> None:
    """Every peer sends one frame to each other peer, then a broadcast; all must arrive."""
    n = len(meshes)
    for i, mesh in meshes.items():
        for j in meshes:
            if j != i:
                await mesh.send(j, f"{tag} {i}->{j}".encode())
        await mesh.broadcast(f"{tag} all from {i}".encode())
    for j, mesh in meshes.items():
        got = await expect_frames(mesh, 2 * (n - 1))
        for i in meshes:
            if i != j:
                from_i = [payload for sender, payload in got if sender == i]
                # In order per sender: the direct frame was queued before the broadcast.
                assert from_i == [f"{tag} {i}->{j}".encode(), f"{tag} all from {i}".encode()]


@pytest.mark.parametrize("n", [2, 3, 4])
async def test_lobby_forms_a_full_mesh(tmp_path: Path, n: int) -> None:
    with trio.fail_after(15):
        async with trio.open_nursery() as nursery:
            peers, lobby = await start_peers(nursery, tmp_path, n)
            indexed = by_index(peers)
            assert sorted(indexed) == list(range(n))
            assert indexed[0] is peers[0]  # the host is index 0
            roster = peers[0].mesh.roster
            for index, peer in indexed.items():
                mesh = peer.mesh
                assert mesh.roster == roster and mesh.game_id == lobby.code.game_id
                assert mesh.waiting_for() == ()
                assert roster.players[index].peer_id == peer.identity.peer_id
                # Stored for restarts, and still verifiable from the file alone.
                assert load_roster(peer.home, roster.game_id) == roster
                assert saved_games(peer.home) == [roster.game_id]
            assert roster.players[0].name == "host"
            await exchange({i: p.mesh for i, p in indexed.items()}, "round1")
            nursery.cancel_scope.cancel()


@pytest.mark.parametrize("restarted", [0, 1, 2])
async def test_peer_restarts_from_its_home_and_rejoins(tmp_path: Path, restarted: int) -> None:
    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            peers, _ = await start_peers(nursery, tmp_path, 3)
            indexed = by_index(peers)
            gone = indexed[restarted]
            others = {i: p.mesh for i, p in indexed.items() if i != restarted}
            game_id = gone.mesh.game_id
            port = gone.mesh.roster.players[restarted].port
            await gone.stop()

            for mesh in others.values():
                event = await next_event(mesh, lambda e: isinstance(e, PeerDisconnected))
                assert event.index == restarted
                assert mesh.waiting_for() == (restarted,)
                # Queued while the peer is away, delivered after it comes back.
                await mesh.send(restarted, f"while away from {mesh.my_index}".encode())

            back = Peer(gone.home)  # same home: same identity, stored roster
            assert back.identity.peer_id == gone.identity.peer_id
            await nursery.start(back.run, port)
            # resume returns at once (a restarted peer plays with whoever is reachable)
            back.mesh = await back.node.resume(game_id)
            assert back.mesh.my_index == restarted
            await back.mesh.wait_all_connected()
            assert back.mesh.waiting_for() == ()
            for mesh in others.values():
                await next_event(
                    mesh, lambda e: isinstance(e, PeerReconnected) and e.index == restarted
                )
                assert mesh.waiting_for() == ()
            queued = await expect_frames(back.mesh, 2)
            assert sorted(queued) == sorted(
                (i, f"while away from {i}".encode()) for i in others
            )
            await exchange({**others, restarted: back.mesh}, "after restart")
            nursery.cancel_scope.cancel()


async def test_impostor_is_refused_by_the_mesh(tmp_path: Path) -> None:
    with trio.fail_after(15):
        async with trio.open_nursery() as nursery:
            peers, _ = await start_peers(nursery, tmp_path, 2)
            indexed = by_index(peers)
            roster = indexed[0].mesh.roster
            host_entry = roster.players[0]
            mallory = Identity.generate()
            # Mallory claims to be index 1; TLS shows her own key, which the roster refutes.
            conn = await dial(LOOPBACK, host_entry.port, mallory, host_entry.peer_id, CFG)
            await conn.send_frame(encode_control(mesh_hello(roster.game_id, 1)))
            with pytest.raises(LobbyRefused, match="is not the roster's"):
                check_mesh_welcome(await conn.receive_first_frame(), roster, 0)
            with pytest.raises(RemoteProtocolError):  # and then hung up
                await conn.receive_first_frame()
            await conn.aclose()
            # A peer answering at a roster address with another key is refused by the dialer.
            with pytest.raises(PeerIdentityMismatch):
                await dial(LOOPBACK, host_entry.port, mallory, mallory.peer_id, CFG)
            # The real peers never noticed.
            assert indexed[0].mesh.waiting_for() == () == indexed[1].mesh.waiting_for()
            await exchange({i: p.mesh for i, p in indexed.items()}, "still fine")
            nursery.cancel_scope.cancel()


async def test_join_errors(tmp_path: Path) -> None:
    with trio.fail_after(15):
        async with trio.open_nursery() as nursery:
            host, joiner, late = (Peer(tmp_path / n) for n in ("host", "joiner", "late"))
            for peer in (host, joiner, late):
                await nursery.start(peer.run)
            lobby = host.node.host(players=2, name="host")
            code = lobby.code
            # A code whose host id is not the listening host's: the TLS pin fails.
            forged = JoinCode(code.address, code.port, code.game_id, late.identity.peer_id)
            with pytest.raises(PeerIdentityMismatch):
                await late.node.join(forged, name="late")
            # A code for another game at the right host is refused by the host.
            other = JoinCode(code.address, code.port, "00" * 16, code.host_id)
            with pytest.raises(LobbyRefused, match="not the game"):
                await late.node.join(other, name="late")
            async with trio.open_nursery() as formation:
                formation.start_soon(lobby.wait_mesh)
                formation.start_soon(lambda: joiner.node.join(code, name="joiner"))
            # The game has started: a peer its roster does not list is refused, clearly.
            with pytest.raises(LobbyRefused, match="has started without you"):
                await late.node.join(code, name="late")
            nursery.cancel_scope.cancel()


async def test_a_joiner_who_leaves_the_lobby_is_not_in_the_roster(tmp_path: Path) -> None:
    with trio.fail_after(15):
        async with trio.open_nursery() as nursery:
            host, quitter, stayer = (Peer(tmp_path / n) for n in ("host", "quitter", "stayer"))
            for peer in (host, quitter, stayer):
                await nursery.start(peer.run)
            lobby = host.node.host(players=2 + 1, name="host")
            quit_scope = trio.CancelScope()

            async def join_then_quit() -> None:
                with quit_scope:
                    await quitter.node.join(lobby.code, name="quitter")

            nursery.start_soon(join_then_quit)
            while len(lobby.joined()) < 2:
                await trio.sleep(0.01)
            quit_scope.cancel()  # the joiner gives up waiting: its lobby connection closes
            while len(lobby.joined()) > 1:
                await trio.sleep(0.01)
            third = Peer(tmp_path / "third")
            await nursery.start(third.run)
            async with trio.open_nursery() as formation:
                formation.start_soon(lambda: stayer.node.join(lobby.code, name="stayer"))
                formation.start_soon(lambda: third.node.join(lobby.code, name="third"))
                mesh = await lobby.wait_mesh()
            names = [p.name for p in mesh.roster.players]
            assert names[0] == "host" and sorted(names[1:]) == ["stayer", "third"]
            assert mesh.roster.index_of(quitter.identity.peer_id) is None
            nursery.cancel_scope.cancel()


async def test_a_waiting_joiner_sees_the_table_fill_up_one_by_one(tmp_path: Path) -> None:
    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            peers = [Peer(tmp_path / n) for n in ("host", "ann", "bob", "cid")]
            for peer in peers:
                await nursery.start(peer.run)
            assert peers[0].node is not None
            lobby = peers[0].node.host(players=4, name="host")
            seen: list[LobbyUpdate] = []
            async with trio.open_nursery() as formation:
                formation.start_soon(lobby.wait_mesh)
                for i, (peer, name) in enumerate(zip(peers[1:], ("ann", "player", "player"),
                                                     strict=True)):
                    while len(seen) < i:  # the next one comes once ann saw the last arrival
                        await trio.sleep(0.01)
                    assert peer.node is not None
                    formation.start_soon(partial(peer.node.join, lobby.code, name=name,
                                                 on_update=seen.append if i == 0 else None))
            assert [len(u.seated) for u in seen] == [2, 3, 4]  # the last one: the roster
            assert {u.players for u in seen} == {4}
            # The two who chose "player" are two peers, named apart by their short ids.
            tagged = [f"player#{p.identity.short_id}" for p in peers[2:]]
            assert [s.name for s in seen[-1].seated] == ["host", "ann", *tagged]
            assert [s.peer_id for s in seen[-1].seated] == [p.identity.peer_id for p in peers]
            nursery.cancel_scope.cancel()


async def host_and_ann(nursery: trio.Nursery, tmp_path: Path) -> tuple[Peer, Peer, Node]:
    """Two running peers; returns them and the host's node."""
    host, ann = Peer(tmp_path / "host"), Peer(tmp_path / "ann")
    for peer in (host, ann):
        await nursery.start(peer.run)
    assert host.node is not None and ann.node is not None
    return host, ann, host.node


async def test_the_host_sends_no_roster_it_could_not_store(tmp_path: Path) -> None:
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            host, ann, node = await host_and_ann(nursery, tmp_path)
            (host.home / "games").write_text("a file where the games directory goes")
            lobby = node.host(players=2, name="host")
            errors: list[Exception] = []

            async def join() -> None:
                assert ann.node is not None
                try:
                    await ann.node.join(lobby.code, name="ann")
                except RemoteProtocolError as exc:
                    errors.append(exc)

            nursery.start_soon(join)
            with pytest.raises(LocalFileError, match="cannot write"):
                await lobby.wait_mesh()
            assert lobby.roster is None
            await host.stop()
            while not errors:
                await trio.sleep(0.01)
            assert "closed the lobby before the game started" in str(errors[0])
            assert saved_games(ann.home) == []  # nobody got a roster the host does not have
            nursery.cancel_scope.cancel()


async def test_a_roster_other_than_the_stored_one_is_refused(tmp_path: Path) -> None:
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            host, ann, node = await host_and_ann(nursery, tmp_path)
            lobby = node.host(players=2, name="host")
            # Ann holds a roster of this game already, with her on another port (signed by the
            # host: a second roster for one game).
            me = RosterEntry(1, "ann", ann.identity.public_bytes, LOOPBACK, 1)
            first = Roster(lobby.code.game_id, (lobby.joined()[0], me)).sign(host.identity)
            save_roster(ann.home, first)
            nursery.start_soon(lobby.wait_mesh)
            with pytest.raises(RemoteProtocolError, match="other than the one stored"):
                await ann.node.join(lobby.code, name="ann")
            assert load_roster(ann.home, lobby.code.game_id) == first
            nursery.cancel_scope.cancel()


class Crash(Exception):
    """Stands for SIGKILL: the process dies on the spot."""


async def test_the_last_joiner_killed_before_storing_the_roster_gets_it_again_and_plays(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The race of issue #12, without timing: the host sends the roster (its lobby closes),
    the last joiner dies before the roster is on its disk and restarts with nothing."""
    real_save = node_module.save_roster

    def save_or_die(home: Path, roster: Roster) -> Path:
        if Path(home) == tmp_path / "bob":
            raise Crash
        return real_save(home, roster)

    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            host, ann, bob, eve = (Peer(tmp_path / n) for n in ("host", "ann", "bob", "eve"))
            for peer in (host, ann, bob, eve):
                await nursery.start(peer.run)
            assert host.node and ann.node and bob.node and eve.node
            lobby = host.node.host(players=3, name="host")
            meshes: dict[str, Mesh] = {}

            async def form(name: str, wait: Callable[[], Awaitable[Mesh]]) -> None:
                meshes[name] = await wait()

            nursery.start_soon(form, "host", lobby.wait_mesh)
            nursery.start_soon(form, "ann", partial(ann.node.join, lobby.code, name="ann"))
            while len(lobby.joined()) < 2:
                await trio.sleep(0.01)
            monkeypatch.setattr(node_module, "save_roster", save_or_die)
            with pytest.raises(Crash):
                await bob.node.join(lobby.code, name="bob")
            monkeypatch.setattr(node_module, "save_roster", real_save)
            await bob.stop()
            assert lobby.roster is not None and not roster_path(bob.home, lobby.code.game_id
                                                                ).exists()
            # Someone the roster does not list is still refused, with the reason.
            with pytest.raises(LobbyRefused, match="has started without you"):
                await eve.node.join(lobby.code, name="bob")
            # Bob restarts: nothing stored, another port. The host sends the roster again.
            bob = Peer(tmp_path / "bob")
            await nursery.start(bob.run)
            assert bob.node is not None
            roster = await bob.node.enter_lobby(lobby.code, name="bob")
            assert roster == lobby.roster
            assert load_roster(bob.home, roster.game_id) == roster  # stored before use
            assert not bob.node.listens_for(roster)  # it must listen on the roster's port
            await bob.stop()
            bob = Peer(tmp_path / "bob")
            await nursery.start(bob.run, roster.players[2].port)
            assert bob.node is not None
            meshes["bob"] = await bob.node.resume(roster.game_id)
            while len(meshes) < 3 or any(m.waiting_for() for m in meshes.values()):
                await trio.sleep(0.01)
            await exchange({m.my_index: m for m in meshes.values()}, "the game goes on")
            nursery.cancel_scope.cancel()


@pytest.mark.parametrize("stopped", [0, 1])
async def test_peer_lost_after_the_grace_period(tmp_path: Path, stopped: int) -> None:
    with trio.fail_after(15):
        async with trio.open_nursery() as nursery:
            peers, _ = await start_peers(nursery, tmp_path, 2, SHORT_GRACE)
            indexed = by_index(peers)
            survivor = indexed[1 - stopped].mesh
            await indexed[stopped].stop()
            await next_event(survivor, lambda e: isinstance(e, PeerDisconnected))
            start = trio.current_time()
            event = await next_event(survivor, lambda e: isinstance(e, PeerLost))
            assert event.index == stopped
            assert trio.current_time() - start >= 0.4
            assert survivor.waiting_for() == (stopped,)
            if stopped == 0:  # we dial: the reason the re-dials failed is kept for the UI
                assert survivor.last_error(0)
            nursery.cancel_scope.cancel()


def test_roster_path_layout(tmp_path: Path) -> None:
    assert roster_path(tmp_path, "ab" * 16) == tmp_path / "games" / ("ab" * 16) / "roster.json"


async def test_close_drops_every_connection_and_stops_dialing(tmp_path: Path) -> None:
    with trio.fail_after(15):
        async with trio.open_nursery() as nursery:
            peers, _ = await start_peers(nursery, tmp_path, 3)
            indexed = by_index(peers)
            indexed[2].mesh.close()  # index 2 dials both others
            for i in (0, 1):
                event = await next_event(indexed[i].mesh, lambda e: isinstance(e, PeerDisconnected))
                assert event.index == 2
            await trio.sleep(0.3)  # several backoff periods: no re-dial may happen
            assert indexed[2].mesh.waiting_for() == (0, 1)
            assert indexed[0].mesh.waiting_for() == (2,) == indexed[1].mesh.waiting_for()
            nursery.cancel_scope.cancel()


KEEPALIVE = NetConfig(
    handshake_timeout=2.0,
    first_read_timeout=2.0,
    grace_period=10.0,
    backoff_initial=0.02,
    backoff_max=0.2,
    keepalive=0.05,
    idle_timeout=0.4,
)


def drain_events(mesh: Mesh) -> list[MeshEvent]:
    events = []
    while True:
        try:
            events.append(mesh.events.receive_nowait())
        except trio.WouldBlock:
            return events


async def test_keepalives_hold_an_idle_link_open_and_never_reach_the_session(
        tmp_path: Path) -> None:
    with trio.fail_after(15):
        async with trio.open_nursery() as nursery:
            peers, _ = await start_peers(nursery, tmp_path, 2, KEEPALIVE)
            meshes = {i: p.mesh for i, p in by_index(peers).items()}
            for mesh in meshes.values():
                drain_events(mesh)
            await trio.sleep(1.5)  # nearly four idle timeouts without a game frame
            for mesh in meshes.values():
                assert not any(isinstance(e, PeerDisconnected) for e in drain_events(mesh))
                with pytest.raises(trio.WouldBlock):
                    mesh.incoming.receive_nowait()  # keepalives are not payloads
            await exchange(meshes, "after idling")
            nursery.cancel_scope.cancel()


@pytest.mark.parametrize("silent", [0, 1])
async def test_a_peer_that_falls_silent_is_dropped_after_the_idle_timeout(
        tmp_path: Path, silent: int) -> None:
    with trio.fail_after(15):
        async with trio.open_nursery() as nursery:
            peers, _ = await start_peers(nursery, tmp_path, 2, KEEPALIVE)
            indexed = by_index(peers)
            quiet, survivor = indexed[silent].mesh, indexed[1 - silent].mesh
            drain_events(survivor)
            # Like a machine that left the network: it stops sending, without closing.
            quiet.config = NetConfig(**{**vars(KEEPALIVE), "keepalive": 3600.0,
                                        "idle_timeout": 3600.0})
            start = trio.current_time()
            event = await next_event(survivor, lambda e: isinstance(e, PeerDisconnected))
            assert event.index == silent
            assert "nothing heard" in event.reason
            assert trio.current_time() - start >= 0.3
            nursery.cancel_scope.cancel()


# -- bounds: no peer can flood us or make us wait ----------------------------------------------


async def test_a_peer_flooding_frames_is_cut_off(tmp_path: Path, monkeypatch) -> None:
    import p2p.net.mesh as mesh_module

    monkeypatch.setattr(mesh_module, "FRAME_RATE", 100.0)
    monkeypatch.setattr(mesh_module, "FRAME_BURST", 200)
    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            peers, _ = await start_peers(nursery, tmp_path, 2)
            indexed = by_index(peers)
            flooder, victim = indexed[1].mesh, indexed[0].mesh
            drain_events(victim)

            async def consume() -> None:
                async for _ in victim.incoming:
                    pass

            nursery.start_soon(consume)
            for i in range(2000):  # far above 100 frames/s after a burst of 200
                await flooder.send(0, b"junk %d" % i)
            event = await next_event(victim, lambda e: isinstance(e, mesh_module.PeerCutOff))
            assert event.index == 1 and "flood" in event.reason
            nursery.cancel_scope.cancel()


async def test_a_peer_that_stops_reading_never_blocks_our_sends(tmp_path: Path,
                                                                monkeypatch) -> None:
    import p2p.net.mesh as mesh_module

    monkeypatch.setattr(mesh_module, "_OUTBOX_SIZE", 16)
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            peers, _ = await start_peers(nursery, tmp_path, 2)
            indexed = by_index(peers)
            sender, stalled = indexed[0].mesh, indexed[1].mesh
            del stalled  # it never reads its incoming frames: its reader, then TCP, fill up
            drain_events(sender)
            payload = b"x" * 60_000
            cut = None
            for _ in range(3000):  # ~180 MB if nothing gave way; each send returns at once
                with trio.fail_after(1):
                    await sender.send(1, payload)
                cut = next((e for e in drain_events(sender)
                            if isinstance(e, mesh_module.PeerCutOff)), None)
                if cut is not None:
                    break
                await trio.sleep(0)
            assert cut is not None and cut.index == 1 and "not reading" in cut.reason
            nursery.cancel_scope.cancel()
