"""Engine-only benchmark: complete random 4-player games per second in one process.

Each game: ``random_config`` + a shuffled deck from a seeded stream, then a uniformly random
legal action (or chance permutation) until the game is over, applied with ``apply_in_place``
(no logs). Reports games/s, actions/s and the machine; ``--profile`` runs cProfile once and
prints the top functions by internal time.

    .venv/bin/python bench/bench_engine.py [--games N] [--players 4] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import os
import platform
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import (
    CHANCE,
    apply_in_place,
    is_over,
    legal_actions,
    new_game,
    random_chance,
    random_config,
    to_move,
)
from engine.randomness import RandomStream


def play(seed: int, n: int) -> int:
    """One complete random game; returns the number of actions applied."""
    stream = RandomStream(f"bench/{seed}")
    config = random_config(n, stream)
    deck = list(config.card_ids())
    stream.shuffle(deck)
    s = new_game(config, deck, keep_log=False)
    actions = 0
    while not is_over(s):
        movers = to_move(s)
        if movers == [CHANCE]:
            action = random_chance(s, stream)
        else:
            legal = legal_actions(s, movers[0])
            action = legal[stream.randbelow(len(legal))]
        apply_in_place(s, action)
        actions += 1
    return actions


def run(games: int, n: int) -> tuple[float, int]:
    start = time.perf_counter()
    actions = sum(play(seed, n) for seed in range(games))
    return time.perf_counter() - start, actions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    parser.add_argument("--profile", action="store_true", help="also profile once (cProfile)")
    parser.add_argument("--top", type=int, default=20)
    args = parser.parse_args()

    print(f"machine: {platform.machine()} {platform.processor() or ''} "
          f"({os.cpu_count()} CPUs), {platform.system()} {platform.release()}")
    print(f"python:  {platform.python_implementation()} {platform.python_version()}")
    run(50, args.players)  # warm-up (caches in engine.disclosure)
    elapsed, actions = run(args.games, args.players)
    print(f"{args.games} random {args.players}-player games in {elapsed:.2f} s: "
          f"{args.games / elapsed:.0f} games/s, {actions / elapsed:.0f} actions/s, "
          f"{actions / args.games:.0f} actions/game (incl. chance)")
    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        run(min(args.games, 500), args.players)
        profiler.disable()
        stats = pstats.Stats(profiler)
        stats.sort_stats("tottime").print_stats(args.top)


if __name__ == "__main__":
    main()
