"""Benchmark: how long honest peers take to end a game after a peer goes silent.

Run: .venv/bin/python bench/bench_silence.py [--runs N] [--step S] [--grace G]

Three peers (host + 2 joiners, random bots) play over real loopback TLS (127.0.0.1) with the
table clock set to S seconds per automatic step (decisions 5 s) and a local grace of G
seconds. One joiner stays connected (keepalives flow) but stops sending at its first ``keys``
contribution after stage 20. For each honest peer we measure, on the trio clock, the time from
the moment the silent peer withheld its message to the moment that honest peer stopped the
game with the verdict "abandoned by <silent peer>". The protocol's bound is S + G plus up to
one clock tick (0.5 s) and the network delay.
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots.netseat import bot_chooser
from bots.registry import make_bot
from p2p.identity import Identity
from p2p.net.games import PeerOptions, host_game, join_game
from p2p.net.notices import GameEvent
from p2p.net.transport import NetConfig
from p2p.session.events import ABANDONED, GameAborted
from p2p.session.machine import GameSession
from p2p.session.timing import Timing

CFG = NetConfig(handshake_timeout=5.0, first_read_timeout=5.0, grace_period=30.0,
                backoff_initial=0.02, backoff_max=0.2, lobby_timeout=30.0)
SILENT = 2


async def one_run(root: Path, timing: Timing) -> list[float]:
    silent_key = Identity.load_or_create(root / f"peer{SILENT}").public_bytes
    withheld: list[float] = []
    stopped: dict[int, float] = {}
    honest_contribute = GameSession._contribute

    def contribute(self: GameSession, stage: Any) -> None:
        if self.identity is not None and self.identity.public_bytes == silent_key and (
                withheld or (stage.kind == "keys" and self.stage_index > 20)):
            if not withheld:
                withheld.append(trio.current_time())
            return
        honest_contribute(self, stage)

    GameSession._contribute = contribute  # type: ignore[method-assign]
    code: dict[str, Any] = {}
    ready = trio.Event()
    done = [trio.Event() for _ in range(3)]

    def sink(i: int) -> Any:
        def on_event(event: GameEvent) -> None:
            if isinstance(event, GameAborted) and event.kind == ABANDONED and \
                    i not in stopped and i != SILENT:
                stopped[i] = trio.current_time()
        return on_event

    def options(i: int) -> PeerOptions:
        return PeerOptions(home=root / f"peer{i}", name=f"bot{i}", bind="127.0.0.1", port=0,
                           net=CFG, timing=timing)

    async def run(i: int) -> None:
        choose = bot_chooser(make_bot("random"), out=io.StringIO())
        if i == 0:
            def on_lobby(lobby: Any) -> None:
                code["code"] = lobby.code
                ready.set()
            await host_game(3, choose, sink(i), options(i), on_lobby)
        else:
            await ready.wait()
            await join_game(code["code"], choose, sink(i), options(i))
        done[i].set()

    try:
        with trio.fail_after(150):
            async with trio.open_nursery() as nursery:
                for i in range(3):
                    nursery.start_soon(run, i)
                for i in range(3):
                    if i != SILENT:
                        await done[i].wait()
                nursery.cancel_scope.cancel()
    finally:
        GameSession._contribute = honest_contribute  # type: ignore[method-assign]
    assert withheld and len(stopped) == 2, (withheld, stopped)
    return [stopped[i] - withheld[0] for i in sorted(stopped)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--step", type=int, default=2)
    parser.add_argument("--grace", type=float, default=1.0)
    args = parser.parse_args()
    timing = Timing(decision=5, step=args.step, grace=args.grace)
    delays: list[float] = []
    for run in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            got = trio.run(one_run, Path(tmp), timing)
        delays.extend(got)
        print(f"run {run + 1}: honest peers stopped {', '.join(f'{d:.2f}' for d in got)} s "
              "after the silent peer withheld its message", flush=True)
    print(f"step {args.step} s + grace {args.grace:g} s: median {statistics.median(delays):.2f} s,"
          f" max {max(delays):.2f} s over {len(delays)} measurements (3 peers, loopback TLS, "
          "random bots, trio clock)")


if __name__ == "__main__":
    main()
