"""How close ``ismcts``'s sampled worlds come to the truth at a table of ``greedy`` bots
(``bots.world_accuracy``): the fraction of the opponents' hand cards a world places in the
right hand, per model of who took which card. Greedy drafts the card of highest value, so the
sharper the odds, the closer the worlds; ``ismcts`` uses 4 with two players and 40 with more
(``beta=auto``).

    .venv/bin/python bench/bench_worlds.py [--games 60] [--samples 20]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots.world_accuracy import hand_accuracy

MODELS = ("off", "uniform", "beta=4", "beta=10", "beta=20", "beta=40", "beta=100")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--samples", type=int, default=20)
    args = parser.parse_args()
    started = time.process_time()
    figures = hand_accuracy(args.games, args.samples, MODELS)
    print(f"worlds at a table of four greedy bots, {args.games} games, {args.samples} worlds "
          f"per dispatch decision of seat 0 and model ({time.process_time() - started:.1f} s "
          "CPU): the opponents' hand cards a world places in the right hand")
    for model, (share, _) in figures.items():
        print(f"  {model:9} {100 * share:5.1f} %")


if __name__ == "__main__":
    main()
