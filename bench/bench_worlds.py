"""How close ``ismcts``'s sampled worlds come to the truth at a table of ``greedy`` bots.

Four-player games of greedy bots; at each dispatch decision of seat 0 (more than one legal
move), ``--samples`` worlds are drawn from seat 0's view and draft memory
(``bots.memory.Sampler``) under each model, and each opponent's hand in the world is compared
with its true hand: the figure is the fraction of the opponents' hand cards a world places in
the right hand. Models: ``off`` (every unseen card dealt uniformly, ``memory=off``),
``uniform`` (the memory, equal odds for the takers, ``model=uniform``) and ``beta=B`` (the
memory, takers and unseen picks drawn with odds exp(B times the card's draft value),
``model=value,beta=B``). Greedy drafts the card of highest value, so the sharper the odds, the
closer the worlds; ``ismcts`` uses 4 with two players and 40 with more (``beta=auto``).

Reads the true state of each decision (``Turn._full``), which only a measurement may do.

    .venv/bin/python bench/bench_worlds.py [--games 60] [--samples 20]
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots.base import GameInfo, Turn
from bots.greedy import GreedyBot
from bots.heuristics import value_table
from bots.match import play_match
from bots.memory import DraftMemory, Sampler
from engine import Action, GameState, Phase
from engine.randomness import RandomStream

MODELS = ("off", "uniform", "beta=4", "beta=10", "beta=20", "beta=40", "beta=100")


class Measuring(GreedyBot):
    """Plays like greedy; scores every model's worlds at its dispatch decisions."""

    def __init__(self, models: tuple[str, ...], samples: int,
                 tally: dict[str, list[int]]) -> None:
        super().__init__()
        self.models, self.samples, self.tally = models, samples, tally

    def start(self, info: GameInfo) -> None:
        super().start(info)
        n = info.config.n
        self.memory = DraftMemory(info.seat)
        self.values = [value_table(faction, n) for faction in info.config.factions]
        self.stream = RandomStream(f"worlds/{info.game}")

    def _sampler(self, model: str, r: GameState) -> Sampler:
        if model == "off":
            return Sampler(r, None)
        if model == "uniform":
            return Sampler(r, self.memory)
        beta = float(model.removeprefix("beta="))
        weights = [[math.exp(beta * v) for v in values] for values in self.values]
        return Sampler(r, self.memory, weights=weights)

    def choose(self, turn: Turn) -> Action:
        r = turn.state()
        self.memory.observe(r)
        if r.phase is not Phase.DRAFT and len(turn.legal) > 1:
            full = turn._full
            truth = {o: [full.card_of[x] for x in full.hands[o]]
                     for o in range(r.n) if o != turn.seat}
            for model in self.models:
                sampler = self._sampler(model, r)
                for _ in range(self.samples):
                    world = sampler.world(self.stream)
                    for o, cards in truth.items():
                        hits = sum(1 for x in world.hands[o] if world.card_of[x] in cards)
                        self.tally[model][0] += hits
                        self.tally[model][1] += len(cards)
        return super().choose(turn)


def measure(games: int, samples: int, models: tuple[str, ...] = MODELS,
            seed: str = "worlds") -> dict[str, float]:
    """The fraction of the opponents' hand cards each model's worlds place right."""
    tally = {model: [0, 0] for model in models}
    for g in range(games):
        bots = [Measuring(models, samples, tally)] + [GreedyBot() for _ in range(3)]
        play_match(bots, f"{seed}/{g}")
    return {model: hits / max(total, 1) for model, (hits, total) in tally.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--samples", type=int, default=20)
    args = parser.parse_args()
    started = time.process_time()
    figures = measure(args.games, args.samples)
    print(f"worlds at a table of four greedy bots, {args.games} games, {args.samples} worlds "
          f"per dispatch decision of seat 0 and model ({time.process_time() - started:.1f} s "
          "CPU): the opponents' hand cards a world places in the right hand")
    for model, share in figures.items():
        print(f"  {model:9} {100 * share:5.1f} %")


if __name__ == "__main__":
    main()
