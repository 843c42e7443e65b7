"""How close ``ismcts``'s sampled worlds come to the truth at a table of ``greedy`` bots: a
measurement (``bench/bench_worlds.py``, ``tests/test_ismcts_memory.py``), not a bot.

Four-player games of greedy bots; at each dispatch decision of seat 0 (more than one legal
move), worlds are drawn from seat 0's view and draft memory (``bots.memory.Sampler``) under
each model, and each opponent's hand in the world is compared with its true hand. Models:
``off`` (every unseen card dealt uniformly, ``ismcts:memory=off``), ``uniform`` (the memory,
equal odds for the takers, ``model=uniform``) and ``beta=B`` (the memory, takers and unseen
picks drawn with odds exp(B times the card's draft value), ``model=value,beta=B``).

It reads the true state of each decision (``Turn._full``), which only a measurement may do.
"""

from __future__ import annotations

from collections.abc import Sequence

from bots.base import GameInfo, Turn
from bots.greedy import GreedyBot
from bots.heuristics import value_table
from bots.match import play_match
from bots.memory import DraftMemory, Sampler, pick_odds
from engine import Action, GameState, Phase
from engine.randomness import RandomStream


class _Measuring(GreedyBot):
    """Plays like greedy; scores every model's worlds at its dispatch decisions."""

    def __init__(self, models: Sequence[str], samples: int,
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
        return Sampler(r, self.memory, weights=pick_odds(self.values, beta))

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


def hand_accuracy(games: int, samples: int, models: Sequence[str],
                  seed: str = "worlds") -> dict[str, tuple[float, int]]:
    """Per model: the fraction of the opponents' hand cards its worlds place in the right
    hand, and how many hand cards were compared (over every world)."""
    tally = {model: [0, 0] for model in models}
    for g in range(games):
        bots = [_Measuring(models, samples, tally)] + [GreedyBot() for _ in range(3)]
        play_match(bots, f"{seed}/{g}")
    return {model: (hits / max(total, 1), total) for model, (hits, total) in tally.items()}
