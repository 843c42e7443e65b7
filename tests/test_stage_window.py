"""Issue 24, finding 9: a stage's deadline runs from the moment the stage began, not from the
runner's last clock tick (every ``TICK`` = 0.5 s), so its window is never shorter than
S + grace. Over real loopback TLS: every decision clock a peer announces starts when it is
announced."""

from __future__ import annotations

import trio
from test_net_tcp import Peer, play

from p2p.net.notices import GameEvent
from p2p.session.events import DecisionClock


class StampedPeer(Peer):
    def __init__(self, index: int) -> None:
        super().__init__(index)
        self.lags: list[float] = []

    def __call__(self, event: GameEvent) -> None:
        super().__call__(event)
        if isinstance(event, DecisionClock) and event.deadline is not None:
            started = event.deadline - event.seconds
            self.lags.append(trio.current_time() - started)


async def test_every_decision_window_starts_when_its_stage_begins(tmp_path, monkeypatch) -> None:
    import test_net_tcp

    monkeypatch.setattr(test_net_tcp, "Peer", StampedPeer)
    peers = await play(tmp_path, 2)
    lags = [lag for peer in peers for lag in peer.lags]  # type: ignore[attr-defined]
    assert len(lags) >= 40
    # Before the fix a window began at the last 0.5 s tick: lags spread over [0, 0.5).
    # Now only the handling of the item that began the stage lies between (ms; 0.25 s leaves
    # room for a loaded machine, and ~80 windows spread over [0, 0.5) never all fit under it).
    assert max(lags) < 0.25, sorted(lags)[-5:]
