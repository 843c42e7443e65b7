"""The rendezvous and its relay over loopback (p2p.net.rendezvous, p2p.net.reach): games
relayed through it verify fair; a rendezvous that lies about addresses, or a relay that
alters, drops or delays bytes, names nobody (altered bytes fail TLS and the link is made
again); a listener must prove its peer id; the join code carries the rendezvous.

The NAT routers of tests/netns.py are in tests/test_internet.py."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
import trio

from bots.netseat import bot_chooser
from bots.registry import make_bot
from p2p.identity import Identity
from p2p.net.games import PeerOptions, host_game, join_game
from p2p.net.joincode import InvalidJoinCode, JoinCode
from p2p.net.reach import RendezvousUnreachable, listen_at, parse_address, relayed_stream
from p2p.net.rendezvous import MAX_LINE, Rendezvous, encode_line
from p2p.net.roster import new_game_id
from p2p.net.transport import NetConfig
from p2p.session.events import GameAborted
from p2p.session.machine import GameSession
from p2p.storage.transcript import verify_transcript

LOOPBACK = "127.0.0.1"


def _config(port: int, direct: float = 0.0) -> NetConfig:
    return NetConfig(handshake_timeout=5.0, first_read_timeout=5.0, grace_period=20.0,
                     backoff_initial=0.05, backoff_max=0.5, lobby_timeout=30.0,
                     rendezvous=(LOOPBACK, port), direct_timeout=direct, punch_timeout=0)


async def _table(root: Path, server: Rendezvous, players: int = 2, direct: float = 0.0
                 ) -> tuple[list[GameSession], list[list[Any]]]:
    """A table whose host uses ``server`` (joiners learn it from the join code); with
    ``direct`` 0 every connection is relayed (on loopback hole punching would be a direct
    connection: it is off here, and tried behind routers in tests/test_internet.py)."""
    sessions: list[GameSession] = []
    events: list[list[Any]] = [[] for _ in range(players)]
    async with trio.open_nursery() as nursery:
        port = await nursery.start(server.serve, LOOPBACK, 0)
        codes: list[JoinCode] = []
        opened = trio.Event()

        def options(i: int) -> PeerOptions:
            net = _config(port, direct) if i == 0 else NetConfig(
                handshake_timeout=5.0, first_read_timeout=5.0, grace_period=20.0,
                backoff_initial=0.05, backoff_max=0.5, direct_timeout=direct, punch_timeout=0)
            return PeerOptions(home=root / f"p{i}", name=f"p{i}", bind=LOOPBACK, net=net)

        def on_lobby(lobby: Any) -> None:
            codes.append(lobby.code)
            opened.set()

        async def seat(i: int) -> None:
            choose = bot_chooser(make_bot("random"), out=io.StringIO())
            if i == 0:
                sessions.append(await host_game(players, choose, events[0].append, options(0),
                                                on_lobby))
            else:
                await opened.wait()
                sessions.append(await join_game(codes[0].encode(), choose, events[i].append,
                                                options(i)))

        with trio.fail_after(120):
            async with trio.open_nursery() as table:
                for i in range(players):
                    table.start_soon(seat, i)
        assert codes[0].rendezvous == (LOOPBACK, port)
        nursery.cancel_scope.cancel()
    return sessions, events


def _fair(root: Path, sessions: list[GameSession], events: list[list[Any]]) -> None:
    assert all(not [e for e in evs if isinstance(e, GameAborted)] for evs in events), events
    assert all(s.result is not None and s.result["ok"] for s in sessions)
    assert len({str(s.result) for s in sessions}) == 1
    for path in root.glob("p*/games/*/transcript.json"):
        assert verify_transcript(path).ok


@pytest.mark.soak
async def test_a_game_relayed_through_the_rendezvous_verifies(tmp_path: Path) -> None:
    notes: list[str] = []
    sessions, events = await _table(tmp_path, Rendezvous(on_note=notes.append))
    _fair(tmp_path, sessions, events)
    assert notes and all("relaying" in n for n in notes)  # every connection was relayed


class Lying(Rendezvous):
    """Tells everyone a wrong address (127.0.0.2: nobody listens there)."""

    def observed(self, address: str) -> str:
        return "127.0.0.2"


class Altering(Rendezvous):
    """Flips one byte of the relayed stream once, mid-game, then relays faithfully."""

    def __init__(self) -> None:
        super().__init__()
        self.seen, self.altered = 0, False

    async def forward(self, data: bytes) -> bytes:
        self.seen += len(data)
        if not self.altered and self.seen > 60_000:
            self.altered = True
            return data[:-1] + bytes([data[-1] ^ 0x40])
        return data


class Dropping(Rendezvous):
    """Breaks one relayed connection mid-game, and delays every chunk by 20 ms."""

    def __init__(self) -> None:
        super().__init__()
        self.seen, self.dropped = 0, False

    async def forward(self, data: bytes) -> bytes:
        await trio.sleep(0.02)
        self.seen += len(data)
        if not self.dropped and self.seen > 60_000:
            self.dropped = True
            raise trio.BrokenResourceError("the relay dropped the connection")
        return data


@pytest.mark.slow
@pytest.mark.parametrize("server", [pytest.param(Lying, marks=pytest.mark.soak), Altering,
                                    pytest.param(Dropping, marks=pytest.mark.soak)])
async def test_a_bad_rendezvous_or_relay_names_nobody(tmp_path: Path, server: type) -> None:
    made = server()
    sessions, events = await _table(tmp_path, made, direct=0.0 if server is not Lying else 2.0)
    _fair(tmp_path, sessions, events)
    if server is Altering:
        assert made.altered
    if server is Dropping:
        assert made.dropped


async def test_a_listener_must_prove_its_peer_id() -> None:
    """Listening as someone else's peer id (to catch their connections) is refused: the
    squatter cannot sign the nonce; the owner can, and is then reachable."""
    server = Rendezvous()
    owner, squatter = Identity.generate(), Identity.generate()
    async with trio.open_nursery() as nursery:
        port = await nursery.start(server.serve, LOOPBACK, 0)
        tcp = await trio.open_tcp_stream(LOOPBACK, port)
        await tcp.send_all(encode_line({"op": "listen", "peer": owner.peer_id}))
        await tcp.receive_some(MAX_LINE)  # the challenge
        await tcp.send_all(encode_line({"op": "proof", "key": squatter.public_bytes.hex(),
                                        "sig": "00" * 64}))
        assert await tcp.receive_some(MAX_LINE) == b""  # hung up on
        assert owner.peer_id not in server.listeners
        with pytest.raises(RendezvousUnreachable, match="no such peer"):
            await relayed_stream((LOOPBACK, port), owner.peer_id)

        async def on_stream(stream: trio.SocketStream, remote: str) -> None:
            await stream.send_all(b"hello")

        seen = await nursery.start(listen_at, (LOOPBACK, port), owner, on_stream)
        assert seen[0] == LOOPBACK
        stream = await relayed_stream((LOOPBACK, port), owner.peer_id)
        assert await stream.receive_some(5) == b"hello"
        nursery.cancel_scope.cancel()


async def test_a_line_over_the_bound_is_refused() -> None:
    server = Rendezvous()
    async with trio.open_nursery() as nursery:
        port = await nursery.start(server.serve, LOOPBACK, 0)
        tcp = await trio.open_tcp_stream(LOOPBACK, port)
        await tcp.send_all(b"x" * (2 * MAX_LINE))
        with trio.fail_after(5):  # the rendezvous hangs up instead of buffering without end
            try:
                while await tcp.receive_some(MAX_LINE):
                    pass
            except trio.BrokenResourceError:
                pass  # a reset: it did not read what we sent
        nursery.cancel_scope.cancel()


def test_the_join_code_carries_the_rendezvous() -> None:
    host = Identity.generate().peer_id
    for rendezvous in [("203.0.113.5", 7447), ("2001:db8::5", 7447)]:
        for address in ["198.51.100.7", "2001:db8::7"]:
            code = JoinCode(address, 40123, new_game_id(), host, rendezvous)
            assert JoinCode.parse(code.encode()) == code
            assert JoinCode.parse(code.encode()).rendezvous == rendezvous
    lan = JoinCode("192.0.2.7", 40123, new_game_id(), host)
    assert JoinCode.parse(lan.encode()).rendezvous is None
    with pytest.raises(InvalidJoinCode):
        JoinCode.parse(code.encode()[:-3])


@pytest.mark.parametrize(("text", "parsed"), [
    ("203.0.113.5:7447", ("203.0.113.5", 7447)), ("[2001:db8::5]:7447", ("2001:db8::5", 7447))])
def test_rendezvous_addresses(text: str, parsed: tuple[str, int]) -> None:
    assert parse_address(text) == parsed


@pytest.mark.parametrize("text", ["203.0.113.5", "example.org:7447", "203.0.113.5:0", ":1"])
def test_bad_rendezvous_addresses_are_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_address(text)


@pytest.mark.parametrize("command", [["host", "-n", "2"], ["resume"]])
def test_a_bad_rendezvous_option_is_one_line_and_exit_2(command: list[str],
                                                        tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from ui.cli import app

    result = CliRunner().invoke(app, [*command, "--home", str(tmp_path), "--bot", "random",
                                      "--rendezvous", "example.org:7447"])
    assert result.exit_code == 2, result.output
    assert "error: --rendezvous" in result.output and "IP address" in result.output
    assert len(result.output.strip().splitlines()) == 1
