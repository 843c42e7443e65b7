"""Train a small numpy policy on the Solstice PettingZoo environment and save it for the
``learned`` bot::

    .venv/bin/python bots/examples/train_learned.py --games 20000 --out learned.npz
    .venv/bin/solstice tournament --bots learned:learned.npz,random --games 200 --seed 1

Needs the rl extra (``pip install 'solstice[rl]'``). REINFORCE against random opponents by
default (``bots.rl.train``); ``--opponents self`` trains in self-play, ``--teacher greedy``
imitates the greedy bot (and ``--resume`` goes on from a saved policy).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run from a checkout as well

from bots.rl.policy import Policy
from bots.rl.train import OPPONENTS, train


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000, help="training games (default 2000)")
    parser.add_argument("--players", default="2,3,4",
                        help="player counts, played in turn (default 2,3,4)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the games and weights")
    parser.add_argument("--lr", type=float,
                        help="learning rate (default 0.05; with --teacher 0.01)")
    parser.add_argument("--hidden", type=int, default=32, help="hidden units (default 32)")
    parser.add_argument("--opponents", choices=OPPONENTS, default="random")
    parser.add_argument("--reward", choices=("win", "margin"), default="win")
    parser.add_argument("--teacher", metavar="SPEC",
                        help="imitate this bot (e.g. greedy) instead of REINFORCE")
    parser.add_argument("--resume", type=Path, help="continue training this policy file")
    parser.add_argument("--out", type=Path, default=Path("learned.npz"),
                        help="where to save the policy (default learned.npz)")
    args = parser.parse_args(argv)
    try:
        players = [int(x) for x in args.players.split(",")]
        if not all(2 <= n <= 4 for n in players):
            raise ValueError
    except ValueError:
        parser.error(f"--players must list counts from 2 to 4, not {args.players!r}")
    if args.games < 1:
        parser.error("--games must be at least 1")
    policy = Policy.load(args.resume) if args.resume else None
    lr = args.lr if args.lr is not None else 0.01 if args.teacher else 0.05
    result = train(args.games, players=players, seed=args.seed, hidden=args.hidden,
                   lr=lr, opponents=args.opponents, reward=args.reward, policy=policy,
                   teacher=args.teacher,
                   progress=lambda g, w: print(f"game {g}: learner won {w:.1%}", flush=True))
    result.policy.save(args.out)
    print(f"{result.games} games, {result.steps} steps in {result.seconds:.1f} CPU-s; "
          f"learner won {result.learner_wins / result.games:.1%}; saved {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
