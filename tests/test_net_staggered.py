"""Absence is judged on what the table saw (issue 33, item 1), over loopback TLS (trio,
127.0.0.1): a peer that is down, reconnecting, replaying or resyncing is never run against a
stage deadline, by itself or by the others, until it is back and able to sign; a returning
peer resyncs from the peers that are up and plays on; waiting ends in a resumable stop, never
in a verdict.

Peers "crash" by being cancelled (their node closes every connection; what they signed is on
disk) and come back with ``resume_game`` on the same home. The table's clock is short (1 s a
step, 2 s a decision, 0.5 s grace), so a returned peer wrongly held to a deadline is named
well before the late peer returns.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio
from test_net_recovery import LOOPBACK, Peer, _chooser, _game_dir, _result

from p2p.net.games import host_game, join_game, resume_game, unfinished_games
from p2p.net.notices import Stopped
from p2p.net.transport import NetConfig
from p2p.session.events import GameAborted
from p2p.session.timing import Timing

FAST = Timing(decision=2, step=1, grace=0.5)
# Seconds the second peer comes back after the first: longer than any stage's deadline and
# grace (3.5 s for a decision), shorter than the mesh's grace period.
LATE = 5.0
CFG = NetConfig(handshake_timeout=5.0, first_read_timeout=5.0, grace_period=8.0,
                backoff_initial=0.02, backoff_max=0.2, lobby_timeout=30.0)


def _peers(root: Path, n: int) -> list[Peer]:
    peers = [Peer(root, i) for i in range(n)]
    for peer in peers:
        peer.options.net = CFG
        peer.options.timing = FAST
        peer.options.bind = LOOPBACK
    return peers


def _crash_chooser(crash_at: int, crashed: trio.Event) -> Any:
    """The host's player: at its ``crash_at``-th choice the crash happens (the victims are
    cancelled), then it answers on."""
    honest = _chooser()
    count = [0]

    async def choose(view: Any) -> Any:
        count[0] += 1
        if count[0] == crash_at:
            crashed.set()
            await trio.sleep(0.2)
        return await honest(view)

    return choose


async def _resume(peer: Peer, game_id: str) -> None:
    try:
        peer.session = await resume_game(game_id, _chooser(), peer, peer.options)
    except Exception as exc:  # the test looks at it
        peer.error = exc


async def _staggered_return(root: Path, crash_at: int) -> list[Peer]:
    """Three peers; at the host's ``crash_at``-th choice peers 1 and 2 go down together;
    peer 1 is back at once, peer 2 ``LATE`` seconds later."""
    peers = _peers(root, 3)
    crashed, ready = trio.Event(), trio.Event()
    code: list[Any] = []
    scopes = [trio.CancelScope() for _ in peers]

    def on_lobby(lobby: Any) -> None:
        code.append(lobby.code)
        ready.set()

    async def run(i: int) -> None:
        with scopes[i]:
            if i == 0:
                peers[0].session = await host_game(3, _crash_chooser(crash_at, crashed),
                                                   peers[0], peers[0].options, on_lobby)
            else:
                await ready.wait()
                peers[i].session = await join_game(code[0], _chooser(), peers[i],
                                                   peers[i].options)

    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            for i in range(3):
                nursery.start_soon(run, i)
            await crashed.wait()
            scopes[1].cancel()
            scopes[2].cancel()
            game_id = code[0].game_id
            await trio.sleep(0.3)
            nursery.start_soon(_resume, peers[1], game_id)
            await trio.sleep(LATE)
            nursery.start_soon(_resume, peers[2], game_id)
    return peers


def _finished_alike(peers: list[Peer]) -> None:
    for peer in peers:
        assert peer.error is None, peer.error
        aborts = peer.texts(GameAborted, Stopped)
        assert peer.session is not None and peer.session.result is not None, aborts
        assert not aborts, aborts
    results = [_result(_game_dir(p) / "transcript.json") for p in peers]
    assert all(r == results[0] for r in results)


@pytest.mark.parametrize("crash_at", [1, pytest.param(7, marks=pytest.mark.soak)])
def test_two_victims_with_staggered_returns_finish_the_game(tmp_path: Path,
                                                            crash_at: int) -> None:
    """Peers 1 and 2 go down together (at the draft's first pick, or later); peer 1 comes
    back at once, peer 2 five seconds later (after any stage's deadline and grace): peer 1
    resyncs from the host alone and waits with it; nobody is named; the game finishes."""
    peers = trio.run(_staggered_return, tmp_path, crash_at)
    _finished_alike(peers)


async def _stopped_game(root: Path, n: int) -> tuple[list[Peer], str]:
    """A game that stopped for now: the last joiner vanished at its second choice and the
    others gave up on it after the mesh's grace period."""
    peers = _peers(root, n)
    ready = trio.Event()
    code: list[Any] = []

    def on_lobby(lobby: Any) -> None:
        code.append(lobby.code)
        ready.set()

    async def run(i: int) -> None:
        scope: list[trio.CancelScope] = []
        with trio.CancelScope() as cancel:
            scope.append(cancel)
            choose = _chooser(2 if i == n - 1 else None, scope)
            if i == 0:
                peers[0].session = await host_game(n, choose, peers[0], peers[0].options,
                                                   on_lobby)
            else:
                await ready.wait()
                peers[i].session = await join_game(code[0], choose, peers[i], peers[i].options)

    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            for i in range(n):
                nursery.start_soon(run, i)
    game_id = code[0].game_id
    for peer in peers[:-1]:
        assert any("did not come back" in t for t in peer.texts(Stopped)), peer.texts(Stopped)
        assert unfinished_games(peer.options.home_dir) == [game_id]
        peer.events.clear()
    return peers, game_id


async def _resume_staggered(peers: list[Peer], game_id: str, delays: list[float]) -> None:
    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            for peer, delay in zip(peers, delays, strict=True):
                nursery.start_soon(_resume_after, peer, game_id, delay)


async def _resume_after(peer: Peer, game_id: str, delay: float) -> None:
    await trio.sleep(delay)
    await _resume(peer, game_id)


@pytest.mark.soak  # (make test keeps the two-victims case of this class)
def test_staggered_resumes_of_a_stopped_game_finish_it(tmp_path: Path) -> None:
    """Three players resume a stopped game at different times (0 s, 1 s, 6 s): the first two
    catch up with each other and wait, unjudged, for the third; the game finishes."""
    peers, game_id = trio.run(_stopped_game, tmp_path, 3)
    trio.run(_resume_staggered, peers, game_id, [0.0, 1.0, 1.0 + LATE])
    _finished_alike(peers)


@pytest.mark.soak  # make test's time (issue 40: under 10 minutes): in make soak
def test_a_lone_resume_stops_resumably_then_finishes_with_the_others(tmp_path: Path) -> None:
    """One player resumes a stopped game alone: nobody comes, and after the mesh's grace
    period it stops for now, naming nobody (the game stays resumable); when everyone resumes
    later, the game finishes."""
    peers, game_id = trio.run(_stopped_game, tmp_path, 2)
    lone = peers[0]
    trio.run(_resume_staggered, [lone], game_id, [0.0])
    assert lone.error is None, lone.error
    assert lone.session is not None and lone.session.result is None
    assert lone.session.aborted is not None and lone.session.aborted.peer is None, \
        lone.session.aborted.reason
    assert not lone.texts(GameAborted), lone.texts(GameAborted)
    assert lone.texts(Stopped), lone.events
    assert unfinished_games(lone.options.home_dir) == [game_id]
    lone.events.clear()
    trio.run(_resume_staggered, peers, game_id, [0.0, LATE])
    _finished_alike(peers)
