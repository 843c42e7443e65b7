"""A 3- and a 4-player game over loopback TLS go on after one player leaves with a handover
(``--leave-after-round``), and every remaining peer's transcript verifies fair with the
takeover recorded."""

from __future__ import annotations

import dataclasses
import io
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import trio

from bots.netseat import bot_chooser
from bots.registry import make_bot
from p2p.net.games import PeerOptions, host_game, join_game
from p2p.net.notices import Stopped
from p2p.net.transport import NetConfig
from p2p.session.envelope import SignedMessage
from p2p.session.events import GameAborted, LogLine, SeatHandedOver
from p2p.storage.store import GameStore, StoreError
from p2p.storage.transcript import verify_transcript
from tests.test_net_tcp import Peer

LOOPBACK = "127.0.0.1"
CFG = NetConfig(handshake_timeout=5.0, first_read_timeout=5.0, grace_period=10.0,
                backoff_initial=0.02, backoff_max=0.2, lobby_timeout=30.0)
# A killed peer is given up on after this (the default is 60 s; it is all waiting here).
SHORT_GRACE = dataclasses.replace(CFG, grace_period=3.0)


Chooser = Callable[[int], Any]  # peer index (in the test) -> its chooser


def random_bot(_: int) -> Any:
    return bot_chooser(make_bot("random"), out=io.StringIO())


class Crash(Exception):
    """Stands for kill -9 (or a disk that fails for good): raised at a kill point a test
    injects, it ends the peer on the spot; ``play`` then starts the peer again."""


async def play(root: Path, n: int, options: Callable[[int], PeerOptions],
               chooser: Chooser = random_bot,
               scopes: dict[int, trio.CancelScope] | None = None,
               comeback: Callable[[list[Peer]], Awaitable[None]] | None = None) -> list[Peer]:
    """Host and n-1 joiners in one trio run; each joiner runs in a cancel scope of its own
    (kept in ``scopes``: a test may kill one). A joiner that dies of a ``Crash`` is started
    again with the same home and ``join`` command, at once as a user would after a kill -9,
    or once ``comeback`` (given the peers) returns; its events go on in the same ``Peer``."""
    peers = [Peer(i) for i in range(n)]
    code: dict[str, Any] = {}
    ready = trio.Event()
    scopes = {} if scopes is None else scopes

    def on_lobby(lobby: Any) -> None:
        code["code"] = lobby.code
        ready.set()

    async def host() -> None:
        peers[0].session = await host_game(n, chooser(0), peers[0], options(0), on_lobby)

    async def join(i: int) -> None:
        await ready.wait()
        crashed = False
        with trio.CancelScope() as scopes[i]:
            try:
                peers[i].session = await join_game(code["code"], chooser(i), peers[i],
                                                   options(i))
            except* Crash:
                crashed = True
        if crashed:
            if comeback is not None:
                await comeback(peers)
            peers[i].events.append(LogLine("--- restarted ---"))
            with trio.CancelScope() as scopes[i]:
                peers[i].session = await join_game(code["code"], chooser(i), peers[i],
                                                   options(i))

    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(host)
            for i in range(1, n):
                nursery.start_soon(join, i)
    return peers


class DiskFull(Crash, StoreError):
    """The disk fills up at a kill point: the write fails (the peer stops on the error, and
    is started again once there is room)."""

    def __init__(self) -> None:
        super().__init__("cannot write: No space left on device")


def kill_at(monkeypatch: pytest.MonkeyPatch, home: Path,
            hit: Callable[[SignedMessage, int], bool], written: bool,
            error: type[Crash] = Crash) -> list[SignedMessage]:
    """A kill point, fired once: the peer whose home is ``home`` dies (``error``) as it
    stores the first message ``hit`` picks (given the message and the peer's own index),
    before the line is on its disk or (``written``) right after it is, before it is sent
    anywhere. Returns the message it died on."""
    real = GameStore.append
    fired: list[SignedMessage] = []

    def append(store: GameStore, signed: SignedMessage, durable: bool = False) -> None:
        here = (not fired and store.dir.parent.parent == home
                and hit(signed, store.load_secret()[0]))
        if here:
            fired.append(signed)
            if not written:
                raise error()
        real(store, signed, durable)
        if here:
            raise error()

    monkeypatch.setattr(GameStore, "append", append)
    return fired


def options_in(root: Path, net: NetConfig = CFG, **extra: Any) -> Callable[[int], PeerOptions]:
    """Each peer's options: its own home under ``root``; ``extra``: field -> (index -> value)."""
    def options(i: int) -> PeerOptions:
        return PeerOptions(home=root / f"peer{i}", name=f"bot{i}", bind=LOOPBACK, port=0,
                           net=net, **{k: f(i) for k, f in extra.items()})

    return options


@pytest.mark.parametrize(("n", "leaver"), [(3, 1), pytest.param(4, 2, marks=pytest.mark.soak)])
def test_the_table_plays_on_after_a_handover_and_every_transcript_verifies(
        tmp_path: Path, n: int, leaver: int) -> None:
    options = options_in(tmp_path, leave_after_round=lambda i: 0 if i == leaver else None)
    peers = trio.run(play, tmp_path, n, options)
    gone = peers[leaver]
    assert gone.session is not None and gone.session.left
    assert any(isinstance(e, Stopped) and "we left" in e.text for e in gone.events)
    game_id, left_peer = gone.session.game_id, gone.session.me  # (joiners race for places)
    assert GameStore(tmp_path / f"peer{leaver}", game_id).finished  # not offered to resume
    results = []
    for peer in peers:
        if peer is gone:
            continue
        session = peer.session
        assert session is not None and session.result is not None, \
            [e.text for e in peer.events if isinstance(e, GameAborted | Stopped)]
        assert any(isinstance(e, SeatHandedOver) for e in session.events)
        path = peer.transcript
        verdict = verify_transcript(path)
        assert verdict.ok, verdict.summary
        faction = session.config.factions[session.seat_of_peer[left_peer]]
        assert set(verdict.result["left"]) == {faction}
        assert "seat played by the random ghost" in verdict.summary
        results.append(verdict.result["scores"])
    assert all(r == results[0] for r in results)


async def play_with_a_death(root: Path, n: int, victim: int, *more: int,
                            net: NetConfig = SHORT_GRACE, **extra: Any) -> list[Peer]:
    """A table with escrow where the joiner ``victim`` (and the joiners ``more``) is killed
    for good in round 2 (its task cancelled: its connections drop, it never comes back);
    several are killed at once, as soon as the first of them is asked for a decision.
    ``net``, ``extra``: as for ``options_in``."""
    scopes: dict[int, trio.CancelScope] = {}
    victims = (victim, *more)

    def chooser(i: int) -> Any:
        honest = random_bot(i)

        async def choose(view: Any) -> Any:
            if i in victims and view.state.round >= 2:
                for v in victims:
                    scopes[v].cancel()
                await trio.sleep_forever()
            return await honest(view)

        return choose

    # (the others stay this long after the end for a player whose seat was recovered)
    extra.setdefault("linger", lambda i: 2.0)
    options = options_in(root, net, escrow=lambda i: i == 0, accept_escrow=lambda i: i != 0,
                         **extra)
    return await play(root, n, options, chooser, scopes)


@pytest.mark.parametrize("n", [3, pytest.param(4, marks=pytest.mark.soak)])
def test_with_escrow_the_table_plays_on_after_a_player_is_killed_for_good(
        tmp_path: Path, n: int) -> None:
    victim = n - 1
    peers = trio.run(play_with_a_death, tmp_path, n, victim)
    assert peers[victim].session is None  # it never finished
    results = []
    for peer in peers[:victim]:
        session = peer.session
        assert session is not None and session.result is not None, \
            [e.text for e in peer.events if isinstance(e, GameAborted | Stopped)]
        path = peer.transcript
        verdict = verify_transcript(path)
        assert verdict.ok, verdict.summary
        (record,) = verdict.result["left"].values()
        assert record["by"] == "escrow"
        results.append(verdict.result["scores"])
    assert all(r == results[0] for r in results)
