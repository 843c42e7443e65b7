"""A crawling peer over real loopback TLS (issue 24, finding 6): it answers just before every
deadline, and its game clock stops it within the bound the host's clock sets, named abandoned
by every honest peer (one finds its clock ran out, the other agrees by its own measure), who
are not named themselves. (The sans-IO version, with many more
cases, is tests/test_game_clock.py.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio
from test_game_clock import _crawl_bound
from test_net_recovery import LOOPBACK, Peer, _chooser, _game_dir

import p2p.net.runner as runner
from p2p.net.games import host_game, join_game
from p2p.net.notices import Stopped
from p2p.net.transport import NetConfig
from p2p.session import timing
from p2p.session.envelope import SignedMessage
from p2p.session.events import ABANDONED, GameAborted
from p2p.session.inbox import FRAME_MESSAGE
from p2p.session.machine import GameSession
from p2p.session.stage_table import STAGE_TABLE
from p2p.session.timing import Timing
from p2p.storage.transcript import verify_transcript

# Honest steps here take well under the 1 s increment; the crawler loses over 1 s a step. (The
# clock floor is lowered for this table, ``low_floor``: with the real one a crawler takes
# longer to be named, which the sans-IO tests of test_game_clock check on simulated time.)
CLOCK = Timing(decision=2, step=2, grace=0.5, decision_bank=6, decision_increment=1,
               step_bank=4, step_increment=1)
CFG = NetConfig(handshake_timeout=5.0, first_read_timeout=5.0, grace_period=10.0,
                backoff_initial=0.02, backoff_max=0.2, lobby_timeout=30.0)
CRAWLER = 2  # in the list of peers (its roster index depends on who joined first)


def _own_kind(session: GameSession, frames: list[bytes]) -> str | None:
    """The kind of the last message of our own among ``frames`` (None: none)."""
    kind = None
    for frame in frames:
        if frame[:1] == FRAME_MESSAGE:
            signed = SignedMessage.decode(frame[1:])
            if signed.msg.seat == session.me and signed.msg.type != "abort":
                kind = signed.msg.type
    return kind


@pytest.fixture(autouse=True)
def low_floor(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(timing, "MIN_INCREMENT", 1)
    monkeypatch.setattr(timing, "MIN_MARGIN", 0.2)


@pytest.fixture
def crawling(monkeypatch: pytest.MonkeyPatch) -> list[GameSession]:
    """The crawler's runner holds each batch with a message of its own back until just
    before the others' deadline for it; its own session judges nobody (the lateness it would
    see is its own doing)."""
    crawlers: list[GameSession] = []
    honest_flush = runner._GameRun._flush

    async def flush(self: Any) -> None:
        if self.session in crawlers:
            kind = _own_kind(self.session, self.session.outbox)
            if kind is not None:
                await trio.sleep(CLOCK.limit(STAGE_TABLE[kind].clock) + CLOCK.grace - 0.4)
        await honest_flush(self)

    monkeypatch.setattr(runner._GameRun, "_flush", flush)
    return crawlers


def test_a_crawler_over_tls_is_named_abandoned_within_the_bound(
        tmp_path: Path, crawling: list[GameSession]) -> None:
    peers = [Peer(tmp_path, i) for i in range(3)]
    for peer in peers:
        peer.options.net, peer.options.bind = CFG, LOOPBACK
    peers[0].options.timing = CLOCK

    def crawl(session: GameSession) -> None:
        session.tick = lambda now, stalled=False: None  # type: ignore[method-assign]
        crawling.append(session)

    peers[CRAWLER].options.on_session = crawl
    ready = trio.Event()
    code: list[Any] = []
    took: list[float] = []

    def on_lobby(lobby: Any) -> None:
        code.append(lobby.code)
        ready.set()

    async def run(i: int) -> None:
        try:
            if i == 0:
                peers[0].session = await host_game(3, _chooser(), peers[0], peers[0].options,
                                                   on_lobby)
            else:
                await ready.wait()
                peers[i].session = await join_game(code[0], _chooser(), peers[i],
                                                   peers[i].options)
        except Exception as exc:  # the test looks at it
            peers[i].error = exc

    async def table() -> None:
        with trio.fail_after(150):
            async with trio.open_nursery() as nursery:
                for i in range(3):
                    nursery.start_soon(run, i)
                await ready.wait()
                start = trio.current_time()
                while not all(p.session is not None and p.session.finished
                              for p in peers[:CRAWLER]):
                    await trio.sleep(0.1)
                    if not any(isinstance(e, GameAborted) for p in peers[:CRAWLER]
                               for e in p.events):
                        continue
                    if all(any(isinstance(e, GameAborted) for e in p.events)
                           for p in peers[:CRAWLER]):
                        break
                took.append(trio.current_time() - start)

    trio.run(table)
    (crawler,) = crawling
    bad = crawler.me  # its index in the roster (the join order decides it)
    for peer in peers[:CRAWLER]:
        assert peer.error is None, peer.error
        assert peer.session is not None and peer.session.aborted is not None
        aborted = peer.session.aborted
        assert (aborted.peer, aborted.kind) == (bad, ABANDONED), aborted.reason
        assert not peer.texts(Stopped)
        verdict = verify_transcript(_game_dir(peer) / "transcript.json")
        assert (verdict.status, verdict.blame) == ("abandoned", bad), verdict.summary
    reasons = [p.session.aborted.reason for p in peers[:CRAWLER]
               if p.session is not None and p.session.aborted is not None]
    assert any("game clock" in r for r in reasons), reasons  # the others agreed with it
    # The lobby and an honest game's own time (a few seconds here) come on top of the bound.
    assert took[0] <= _crawl_bound(CLOCK) + 15, took
