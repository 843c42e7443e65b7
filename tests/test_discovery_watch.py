"""Spectators: an observer gets the public signed log only, audits the game itself and writes
a transcript that verifies; anything an observer sends is refused and changes nothing."""

from __future__ import annotations

import functools
import io
import json
from pathlib import Path
from typing import Any

import pytest
import trio

from bots.netseat import bot_chooser
from bots.registry import make_bot
from p2p.identity import Identity
from p2p.net.games import PeerOptions, host_game, join_game
from p2p.net.lobby import LobbyRefused, decode_control, encode_control
from p2p.net.node import HostedLobby
from p2p.net.notices import ChoiceRefused, GameEvent, TranscriptWritten
from p2p.net.observers import watch_hello
from p2p.net.transport import NetConfig, dial
from p2p.net.watch import watch_game
from p2p.session.envelope import MessageLog
from p2p.session.events import Rejected
from p2p.session.machine import FRAME_MESSAGE, GameSession
from p2p.storage.transcript import verify_transcript

pytestmark = pytest.mark.slow
LOOPBACK = "127.0.0.1"
CFG = NetConfig(handshake_timeout=5.0, first_read_timeout=5.0, grace_period=10.0,
                backoff_initial=0.02, backoff_max=0.2, lobby_timeout=30.0)


def _options(root: Path, name: str) -> PeerOptions:
    return PeerOptions(home=root / name, name=name, bind=LOOPBACK, net=CFG)


def _chooser() -> Any:
    return bot_chooser(make_bot("random"), out=io.StringIO())


class Table:
    """A 3-player bot game on loopback; ``during(lobby)`` runs once the lobby is open."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.sessions: dict[str, GameSession] = {}
        self.events: dict[str, list[GameEvent]] = {}

    def sink(self, name: str) -> Any:
        return self.events.setdefault(name, []).append

    async def play(self, during: Any) -> None:
        opened = trio.Event()
        lobby: list[HostedLobby] = []

        def on_lobby(hosted: HostedLobby) -> None:
            lobby.append(hosted)
            opened.set()

        async def host() -> None:
            self.sessions["alice"] = await host_game(3, _chooser(), self.sink("alice"),
                                                     _options(self.root, "alice"), on_lobby)

        async def join(name: str) -> None:
            self.sessions[name] = await join_game(lobby[0].code, _chooser(), self.sink(name),
                                                  _options(self.root, name))

        with trio.fail_after(90):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(host)
                await opened.wait()
                await during(lobby[0], nursery)
                for name in ("bob", "carol"):
                    nursery.start_soon(join, name)

    def transcript(self, name: str) -> Path:
        (path,) = [e.path for e in self.events[name] if isinstance(e, TranscriptWritten)]
        return path


async def test_a_spectator_watches_to_the_end_and_its_transcript_agrees(tmp_path: Path) -> None:
    table = Table(tmp_path)
    watched: dict[str, GameSession] = {}

    async def spectator(lobby: HostedLobby, nursery: trio.Nursery) -> None:
        async def watch() -> None:
            watched["dora"] = await watch_game(lobby.code, table.sink("dora"),
                                               _options(tmp_path, "dora"))
        nursery.start_soon(watch)
        await trio.sleep(0.5)  # let the spectator in before the lobby fills

    await table.play(spectator)
    session = watched["dora"]
    assert session.me is None and session.result is not None and session.result["ok"]
    verdicts = {name: verify_transcript(table.transcript(name))
                for name in ("alice", "bob", "carol", "dora")}
    assert all(v.ok for v in verdicts.values()), {n: v.summary for n, v in verdicts.items()}
    results = {(json.dumps(v.result["scores"], sort_keys=True), v.result["winner"])
               for v in verdicts.values()}
    assert len(results) == 1  # the spectator saw the very game the players played
    players = json.loads(table.transcript("alice").read_text())["messages"]
    seen = json.loads(table.transcript("dora").read_text())["messages"]
    assert sorted(map(json.dumps, players)) == sorted(map(json.dumps, seen))
    host_log = [e.text for e in table.events["alice"]]
    assert any("dora" in t and "is watching" in t for t in host_log), host_log


async def test_a_spectators_game_message_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    table = Table(tmp_path)
    refused: list[str] = []

    async def intruder(lobby: HostedLobby, nursery: trio.Nursery) -> None:
        code = lobby.code
        mallory = Identity.generate()
        conn = await dial(code.address, code.port, mallory, code.host_id, CFG, 0)
        await conn.send_frame(encode_control(watch_hello(code.game_id, "mallory")))
        welcome = decode_control(await conn.receive_first_frame())
        assert welcome["type"] == "watch-welcome"
        # A well-formed signed game message, as if mallory had a seat.
        fake = MessageLog(code.game_id, [mallory.public_bytes]).create(
            mallory, 0, "action", {"action": {"type": "pass"}, "stage": 0})
        await conn.send_frame(FRAME_MESSAGE + fake.encode())
        answer = await conn.receive_frame()
        assert answer is not None
        obj = decode_control(answer)
        assert obj["type"] == "refuse"
        refused.append(str(obj["reason"]))
        assert await conn.receive_frame() is None  # and the host hung up
        await conn.aclose()

    await table.play(intruder)
    assert refused and "may not send" in refused[0]
    assert all(s.result is not None and s.result["ok"] for s in table.sessions.values())
    assert not [e for events in table.events.values() for e in events
                if isinstance(e, Rejected | ChoiceRefused)]
    assert any("mallory (" in e.text and "stopped watching: dropped" in e.text
               for e in table.events["alice"])


async def test_a_host_refuses_spectators_beyond_its_limit(tmp_path: Path) -> None:
    options = PeerOptions(home=tmp_path / "alice", name="alice", bind=LOOPBACK, net=CFG,
                          watchers=0)
    lobby: list[HostedLobby] = []
    opened = trio.Event()

    def on_lobby(hosted: HostedLobby) -> None:
        lobby.append(hosted)
        opened.set()

    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(host_game, 2, _chooser(), lambda e: None, options, on_lobby)
            await opened.wait()
            with pytest.raises(LobbyRefused, match="nobody may watch"):
                await watch_game(lobby[0].code, lambda e: None, _options(tmp_path, "dora"))
            nursery.cancel_scope.cancel()


async def test_a_rematch_starts_a_second_game_with_the_same_peers(tmp_path: Path) -> None:
    from p2p.net.node import load_roster
    from p2p.net.rematch import host_rematch, join_rematch, with_rematch

    table = Table(tmp_path)
    names = ("alice", "bob", "carol")
    options = {name: _options(tmp_path, name) for name in names}
    opened = trio.Event()
    lobby: list[HostedLobby] = []

    def on_lobby(hosted: HostedLobby) -> None:
        lobby.append(hosted)
        opened.set()

    async def peer(name: str) -> None:
        if name == "alice":
            first = lambda choose: host_game(3, choose, table.sink(name),  # noqa: E731
                                             options[name], on_lobby)
            again = host_rematch
        else:
            await opened.wait()
            first = lambda choose: join_game(lobby[0].code, choose,  # noqa: E731
                                             table.sink(name), options[name])
            again = join_rematch
        run = with_rematch(first, again, _chooser, table.sink(name), options[name], 20.0)
        table.sessions[name] = await run(_chooser())

    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            for name in names:
                nursery.start_soon(peer, name)
    second = {s.game_id for s in table.sessions.values()}
    assert len(second) == 1 and lobby[0].code.game_id not in second
    assert all(s.result is not None and s.result["ok"] for s in table.sessions.values())
    (game_id,) = second
    first_peers = {p.peer_id for p in load_roster(tmp_path / "alice",
                                                  lobby[0].code.game_id).players}
    second_peers = {p.peer_id for p in load_roster(tmp_path / "alice", game_id).players}
    assert first_peers == second_peers
    for name in names:
        transcripts = [e for e in table.events[name] if isinstance(e, TranscriptWritten)]
        assert len(transcripts) == 2  # two games, each audited and written
        assert all(verify_transcript(e.path).ok for e in transcripts)


async def test_a_rematch_lobby_admits_only_the_last_table_and_starts_with_who_came(
        tmp_path: Path) -> None:
    from p2p.net.node import open_node
    from p2p.net.rematch import rematch_game_id

    alice, bob, eve = (Identity.generate() for _ in range(3))
    last_game = "ab" * 16
    with trio.fail_after(30):
        async with open_node(alice, home=tmp_path / "a", bind=LOOPBACK, config=CFG) as host:
            lobby = host.host(players=3, name="alice", game_id=rematch_game_id(last_game))
            lobby.allowed = frozenset({alice.peer_id, bob.peer_id})
            assert lobby.code.game_id == rematch_game_id(last_game) != last_game
            assert not lobby.close_early()  # nobody else yet: no game of one

            async with open_node(eve, home=tmp_path / "e", bind=LOOPBACK,
                                 config=CFG) as stranger:
                with pytest.raises(LobbyRefused, match="last game only"):
                    await stranger.join(lobby.code, name="eve")

            async with open_node(bob, home=tmp_path / "b", bind=LOOPBACK,
                                 config=CFG) as joiner, trio.open_nursery() as nursery:
                nursery.start_soon(functools.partial(joiner.join, lobby.code, name="bob"))
                while len(lobby.joined()) < 2:
                    await trio.sleep(0.05)
                assert lobby.close_early()  # the time limit ran out: two players it is
                mesh = await lobby.wait_mesh()
                assert [p.peer_id for p in mesh.roster.players] == [alice.peer_id, bob.peer_id]
                nursery.cancel_scope.cancel()
