"""``greedy``: a one-step heuristic bot.

- Draft picks: the card (or, for the two-player first pick, the pair) with the highest
  ``heuristics.draft_value``: own high-value cards, events, and opponents' best cards to deny
  them.
- Dispatches and captures: for a few determinizations of what the seat knows, resolve the
  planets as they would stand after the move (``heuristics.resolve_now``) and keep the move
  with the best average score margin. A capture is credited with part of the card's draft
  value, since the prisoner comes back as a free card next round.
- Decisions (Assassin target, sacrifice, Transport, ...): the same, after applying the option.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from bots.base import Bot, GameInfo, Turn
from bots.heuristics import draft_value, one_step_values
from engine import Action, Choose, Discard, Dispatch, GameState, Pick
from engine.view import determinize


class GreedyBot(Bot):
    """One-step heuristic: draft by card value, dispatch by the planets' immediate outcome."""

    name = "greedy"
    description = ("one-step heuristic: drafts by card value, dispatches and decides by "
                   "simulating the immediate outcome on sampled states")

    def __init__(self, samples: int = 4) -> None:
        if int(samples) < 1:
            raise ValueError("samples must be at least 1")
        self.samples = int(samples)

    def start(self, info: GameInfo) -> None:
        super().start(info)
        self.faction = info.config.factions[info.seat]
        self.players = info.config.n

    def choose(self, turn: Turn) -> Action:
        legal = turn.legal
        if len(legal) == 1:
            return legal[0]
        first = legal[0]
        if isinstance(first, Pick):
            return self._pick(turn)
        if isinstance(first, Choose):
            return self._best(turn, legal)
        if isinstance(first, Discard):
            return legal[self.rng.randbelow(len(legal))]
        return self._dispatch(turn)

    # -- draft -------------------------------------------------------------------------------

    def _pick(self, turn: Turn) -> Action:
        state = turn.state()
        values = {a: sum(draft_value(state.card_of[x], self.faction, self.players)
                         for x in a.slots) for a in turn.legal if isinstance(a, Pick)}
        return self._argmax(list(values), list(values.values()))

    # -- dispatch ----------------------------------------------------------------------------

    def _dispatch(self, turn: Turn) -> Action:
        # Claims do not change the outcome, only what opponents learn: evaluate each
        # (card, planet) once and pick a claim at random afterwards.
        groups: dict[tuple[str | int, ...], list[Action]] = defaultdict(list)
        for action in turn.legal:
            if isinstance(action, Dispatch):
                groups[("dispatch", action.slot, action.planet)].append(action)
            else:
                groups[("other", action.text())].append(action)
        representatives = [actions[0] for actions in groups.values()]
        best = self._best(turn, representatives)
        options = groups[(("dispatch", best.slot, best.planet) if isinstance(best, Dispatch)
                          else ("other", best.text()))]
        return options[self.rng.randbelow(len(options))]

    # -- shared ------------------------------------------------------------------------------

    def _best(self, turn: Turn, candidates: Sequence[Action]) -> Action:
        """The candidate ``one_step_values`` rates best over the samples: the mean margin after
        ``resolve_now``, a capture credited with part of its prisoner's value."""
        redacted = turn.state()
        worlds: list[GameState] = [determinize(redacted, self.rng)
                                   for _ in range(self.samples)]
        return self._argmax(candidates, one_step_values(worlds, turn.seat, candidates,
                                                        self.faction))

    def _argmax(self, candidates: Sequence[Action], values: Sequence[float]) -> Action:
        top = max(values)
        best = [a for v, a in zip(values, candidates, strict=True) if v >= top - 1e-9]
        return best[self.rng.randbelow(len(best))]
