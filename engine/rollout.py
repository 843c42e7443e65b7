"""Greedy rollouts for search bots, compiled with the rest of the engine.

``bots.ismcts``'s default rollout plays every seat like ``greedy`` on a full-information world:
each dispatch is a random card from the hand sent where resolving the planets now rates it best,
each draft pick a roulette over the seat's card values. Interpreted, the Python around the
engine's own resolution (the option list, a clone and a "resolve now" per option, the margins)
cost as much as the resolution itself; here it is compiled, and the loop of a whole rollout
runs without returning to the interpreter. The bots keep the policy's meaning
(``bots.heuristics.resolved_dispatch`` and ``resolve_now`` call these functions); the card
values come in as tables (``bots.heuristics.value_table``), so the engine knows nothing of the
bots' valuations.

Pure like the rest of the engine: the randomness is the ``RandomStream`` passed in, and every
function draws from it exactly as the interpreted versions did, so seeded searches play the
same moves on both builds.
"""

from __future__ import annotations

from engine.actions import Action, Capture, Discard, Dispatch, Pick
from engine.cleanup import final_scores
from engine.disclosure import legal_claims
from engine.dispatch import next_turn, open_planets
from engine.draft import pick_count
from engine.errors import RuleViolationError
from engine.flow import advance
from engine.game import CHANCE, apply_in_place, apply_trusted, random_chance, to_move
from engine.randomness import RandomStream
from engine.state import GameState, Phase

CAPTURE_SHARE = 0.4  # part of a prisoner's draft value credited now (it returns next round)

def answer_default(s: GameState) -> None:
    """Answer the pending decision with its default: ``apply_in_place(Choose(seat, default))``
    without the check that the default is among the options (the rules make every default an
    option; a rollout answers thousands of them)."""
    d = s.decision
    assert d is not None
    s.decision = None
    s.step = (*d.then, d.default)
    advance(s)


def resolve_now(d: GameState) -> list[int]:
    """Final-score-like totals (VP - casualties) per seat after resolving the planets as they
    stand, on ``d`` (a full-information copy that this call consumes). Cards still in hands are
    dropped; every later decision takes its default. Stops at the end of the round."""
    for _ in range(1000):  # a bound in case of an engine surprise; each pass makes progress
        if d.phase is Phase.OVER or d.chance is not None:
            break
        if d.decision is not None:
            # one at a time, the loop checking again: a compiled build (mypyc) would keep
            # ``d.decision`` narrowed to not-None across an inner loop's iterations
            answer_default(d)
            continue
        if d.phase is Phase.DISPATCH:
            for hand in d.hands:
                hand.clear()
            next_turn(d)
            advance(d)
            continue
        break
    return final_scores(d)


def _margin(scores: list[int], seat: int) -> int:
    best_other = -(1 << 30)
    for i, v in enumerate(scores):
        if i != seat and v > best_other:
            best_other = v
    return scores[seat] - best_other


def resolved_value(d: GameState, seat: int, action: Action) -> float:
    """``seat``'s score margin plus a quarter of its own score after ``action`` (applied
    unchecked to a copy of ``d``) and ``resolve_now``. Raises ``RuleViolationError`` when a
    card revealed in resolving breaks its disclosure (a seat lied about a card)."""
    c = d.clone()
    apply_trusted(c, action)
    scores = resolve_now(c)
    return _margin(scores, seat) + 0.25 * scores[seat]


def resolved_dispatch(d: GameState, seat: int, rng: RandomStream, values: list[float]) -> Action:
    """``greedy``'s dispatch on a full-information world: a random card from the hand goes to
    the open planet (or into captivity) where ``resolve_now`` rates it best (a capture credited
    ``CAPTURE_SHARE`` of the card's value in ``values``, the seat's draft value per card id),
    ties broken at random. A world where resolving breaks a disclosure rates the option 0.0."""
    hand = d.hands[seat]
    slot = hand[rng.randbelow(len(hand))]
    cid = d.card_of[slot]
    claim_of = d.config.planets
    vision_up = d.vision_up
    options: list[Action] = []
    for p in open_planets(d):
        options.append(Dispatch(seat, slot, p, legal_claims(cid, claim_of[p], vision_up[p])[0]))
    if not d.captured[seat]:
        options.append(Capture(seat, slot))
    if len(options) <= 1:
        return options[0] if options else Discard(seat, slot)
    scored: list[float] = []
    top = -1e300
    for action in options:
        try:
            value = resolved_value(d, seat, action)
        except RuleViolationError:
            value = 0.0
        if type(action) is Capture:
            value += CAPTURE_SHARE * values[cid]
        scored.append(value)
        if value > top:
            top = value
    best = [options[i] for i in range(len(options)) if scored[i] >= top - 1e-9]
    return best[rng.randbelow(len(best))] if len(best) > 1 else best[0]


def rollout_pick(d: GameState, seat: int, rng: RandomStream, weights: list[float]) -> Pick:
    """Draft by roulette over squared card weights (``weights`` per card id): mostly good
    cards, never certain."""
    hand = list(d.hands[seat])
    card_of = d.card_of
    chosen: list[int] = []
    for _ in range(pick_count(d, seat)):
        squares = [weights[card_of[x]] ** 2 for x in hand]
        r = (rng.word() / 2**64) * sum(squares)
        i = 0
        while i < len(hand) - 1:
            r -= squares[i]
            if r <= 0:
                break
            i += 1
        chosen.append(hand.pop(i))
    return Pick(seat, tuple(sorted(chosen)))


def greedy_rollout(d: GameState, rng: RandomStream, stop_round: int,
                   weights: list[list[float]], values: list[list[float]]) -> None:
    """Play ``d`` on to the end of the game, or of round ``stop_round`` (its reshuffle request)
    when it is not negative: chance from ``rng``, decisions by their defaults, picks by
    ``rollout_pick`` over ``weights[seat]``, dispatches by ``resolved_dispatch`` with
    ``values[seat]``."""
    while d.phase is not Phase.OVER:
        seat = to_move(d)[0]
        if seat == CHANCE:
            chance = d.chance
            if stop_round >= 0 and chance is not None and chance[0] == "reshuffle" and \
                    d.round == stop_round:
                return
            apply_in_place(d, random_chance(d, rng))
        elif d.decision is not None:
            # Defaults are the rules' sensible "do nothing special" answers; random answers
            # to "kill which card?" questions mostly add noise.
            answer_default(d)
        elif d.phase is Phase.DRAFT:
            apply_trusted(d, rollout_pick(d, seat, rng, weights[seat]))
        else:
            apply_trusted(d, resolved_dispatch(d, seat, rng, values[seat]))


__all__ = ["CAPTURE_SHARE", "answer_default", "greedy_rollout", "resolve_now",
           "resolved_dispatch", "resolved_value", "rollout_pick"]
