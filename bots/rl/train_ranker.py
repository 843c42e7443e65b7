"""Train the ``learned`` bot's ranker (``bots.rl.ranker``) by imitating a teacher (numpy only).

    python -m bots.rl.train_ranker --games 60 --teacher ismcts:iterations=150 \\
        --out bots/data/learned.npz [--eval 200]

The teacher (any bot spec; ``ismcts`` by default) plays one seat (rotating) against
``greedy``; at each of its decisions with a choice, the features of every legal action and
the teacher's choice are kept. The ranker is then fitted to them (``bots.rl.ranker.fit``),
and ``--eval N`` plays it N games against ``greedy`` (seats rotated) and prints its wins with
a 95 % interval. Everything runs on the CPU, in this process.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from bots.base import Bot, GameInfo, Turn
from bots.greedy import GreedyBot
from bots.match import play_match
from bots.registry import make_bot
from bots.rl.ranker import Ranker, features, fit
from engine import Action


class _Recording(Bot):
    """The teacher, its decisions' features and choices kept."""

    name = "teacher"

    def __init__(self, teacher: Bot, data: list[tuple[np.ndarray, int]]) -> None:
        self.teacher, self.data = teacher, data

    def start(self, info: GameInfo) -> None:
        super().start(info)
        self.teacher.start(info)

    def choose(self, turn: Turn) -> Action:
        chosen = self.teacher.choose(turn)
        if len(turn.legal) > 1:
            _, X = features(turn, self.rng)
            self.data.append((X, turn.legal.index(chosen)))
        return chosen


def collect(games: int, teacher: str, seed: str) -> list[list[tuple[np.ndarray, int]]]:
    """The teacher's decisions, game by game."""
    out: list[list[tuple[np.ndarray, int]]] = []
    for game in range(games):
        data: list[tuple[np.ndarray, int]] = []
        bots: list[Bot] = [GreedyBot(), GreedyBot()]
        bots[game % 2] = _Recording(make_bot(teacher), data)
        play_match(bots, f"{seed}/{game}", keep_log=False)
        out.append(data)
    return out


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return centre - half, centre + half


def evaluate(spec: str, games: int, seed: str) -> tuple[int, int]:
    """Wins of ``spec`` against greedy over ``games`` two-player games, seats rotated."""
    wins = 0
    for game in range(games):
        bots = [make_bot("greedy"), make_bot("greedy")]
        bots[game % 2] = make_bot(spec)
        result = play_match(bots, f"{seed}/{game}", keep_log=False)
        wins += result.winner == game % 2
    return wins, games


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=60, help="teacher games (default 60)")
    parser.add_argument("--teacher", default="ismcts:iterations=150")
    parser.add_argument("--epochs", type=int, default=200)
    parser.add_argument("--seed", default="ranker")
    parser.add_argument("--out", required=True)
    parser.add_argument("--eval", type=int, default=0, metavar="N",
                        help="then play N games against greedy and print the result")
    parser.add_argument("--curve", default="", metavar="K,K,...",
                        help="the learning curve: fit on the first K teacher games too, and "
                             "play --eval games against greedy with each (K=0: untrained)")
    args = parser.parse_args(argv)
    started = time.process_time()
    games = collect(args.games, args.teacher, args.seed)
    data = [d for game in games for d in game]
    collected = time.process_time() - started
    with tempfile.TemporaryDirectory() as scratch:  # the curve's rankers are not kept
        for k in [int(x) for x in args.curve.split(",") if x.strip()]:
            part = [d for game in games[:k] for d in game]
            fitted = fit(part, epochs=args.epochs) if part else Ranker()
            path = Path(scratch) / f"curve{k}.npz"
            fitted.save(path)
            wins, played = evaluate(f"learned:{path}", args.eval, f"{args.seed}-eval")
            low, high = wilson(wins, played)
            print(f"curve: {k} teacher games ({len(part)} decisions): against greedy {wins}/"
                  f"{played} ({wins / played:.1%}, 95 % CI {low:.1%}-{high:.1%})", flush=True)
    fitting = time.process_time()
    ranker = fit(data, epochs=args.epochs)
    fitting = time.process_time() - fitting
    agree = sum(int(np.argmax(X @ ranker.w)) == chosen for X, chosen in data)
    greedy_agree = sum(bool(X[chosen, 1]) for X, chosen in data)
    ranker.save(args.out)
    print(f"{len(data)} teacher decisions from {args.games} games in {collected:.0f} CPU-s; "
          f"fitted in {fitting:.0f} CPU-s; the ranker "
          f"picks the teacher's move in {agree / len(data):.1%} (greedy's best move: "
          f"{greedy_agree / len(data):.1%}); saved {args.out}", flush=True)
    if args.eval:
        wins, played = evaluate(f"learned:{args.out}", args.eval, f"{args.seed}-eval")
        low, high = wilson(wins, played)
        print(f"against greedy: {wins}/{played} ({wins / played:.1%}, 95 % CI "
              f"{low:.1%}-{high:.1%})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
