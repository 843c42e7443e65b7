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

from typing import Final

from engine.actions import Action, Capture, Discard, Dispatch, Pick
from engine.cards import CARDS
from engine.cleanup import final_scores
from engine.disclosure import legal_claims
from engine.dispatch import next_turn, open_planets, verify_claim
from engine.draft import pick_count
from engine.errors import RuleViolationError
from engine.flow import STEPS, advance, make_public
from engine.game import CHANCE, apply_in_place, apply_trusted, random_chance, to_move
from engine.randomness import RandomStream
from engine.state import GameState, Phase

CAPTURE_SHARE = 0.4  # part of a prisoner's draft value credited now (it returns next round)

# by card id: a dispatch that acts before the planets resolve (a VP, reveals); and a card whose
# effect reads the scores so far (Famine the favored seat's VP, Honor Guards and Medical Team
# its casualties). ``option_values`` resolves those cases in full.
_SPEAKS_ON_DISPATCH: Final = [card.name in ("Whispered Secrets", "Vision") for card in CARDS]
_READS_SCORES: Final = [card.name in ("Famine", "Honor Guards", "Medical Team")
                        for card in CARDS]

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
    options = card_options(d, seat, slot)
    if len(options) <= 1:
        return options[0] if options else Discard(seat, slot)
    scored = option_values(d, seat, slot, options)
    top = -1e300
    for i, action in enumerate(options):
        if type(action) is Capture:
            scored[i] += CAPTURE_SHARE * values[cid]
        if scored[i] > top:
            top = scored[i]
    best = [options[i] for i in range(len(options)) if scored[i] >= top - 1e-9]
    return best[rng.randbelow(len(best))] if len(best) > 1 else best[0]


def card_options(d: GameState, seat: int, slot: int) -> list[Action]:
    """``slot``'s dispatches (one truthful claim each, in planet order), then its capture
    unless the seat has captured this round: what ``resolved_dispatch`` rates."""
    cid = d.card_of[slot]
    claim_of = d.config.planets
    vision_up = d.vision_up
    options: list[Action] = []
    for p in open_planets(d):
        options.append(Dispatch(seat, slot, p, legal_claims(cid, claim_of[p], vision_up[p])[0]))
    if not d.captured[seat]:
        options.append(Capture(seat, slot))
    return options


def _margin_value(scores: list[int], seat: int) -> float:
    return _margin(scores, seat) + 0.25 * scores[seat]


def _full_value(d: GameState, seat: int, action: Action) -> float:
    """``resolved_value``, 0.0 where resolving breaks a disclosure."""
    try:
        return resolved_value(d, seat, action)
    except RuleViolationError:
        return 0.0


def option_values(d: GameState, seat: int, slot: int, options: list[Action]) -> list[float]:
    """``resolved_value`` of every option (0.0 where resolving breaks a disclosure), without
    resolving every planet once per option where the result is provably the same.

    The options differ only in where ``slot`` lies. Under ``resolve_now`` every decision
    takes its default (Transport, Escape, Mimic and Martyr: no; Sentry: the first planet), so
    no card moves between planets and the planets resolve one after another, each reading
    only its own cards, the Sentry mark and, through Famine (the favored seat's VP), Honor
    Guards and Medical Team (its casualties), the scores. Hence:

    * the capture option resolves exactly as the hand without ``slot`` (its prisoner is only
      asked about, and the answer is no): the base;
    * a dispatch to planet q leaves planets before q as in the base, whose state at the start
      of planet q (kept as a checkpoint) with the card placed is the option's;
    * after planet q each later planet adds to VP and casualties what it adds in the base,
      unless one of them holds Famine, Honor Guards or Medical Team (whose effect depends on
      the totals so far): then the option resolves them itself.

    Where a dispatch does something before resolving (Whispered Secrets scores a VP and
    reveals a card, Vision reveals cards), where the world is not omniscient or the card not
    known, or where the base breaks a disclosure or stops waiting for a reveal, every option
    is resolved in full (``resolved_value``) as before. ``tests/test_engine_rollout_options.py``
    checks the values against that for every card of many random dispatch states."""
    cid = d.card_of[slot]
    if cid < 0 or not d.omniscient or _SPEAKS_ON_DISPATCH[cid]:
        return [_full_value(d, seat, a) for a in options]
    planet_count = len(d.planets)
    wanted = [False] * planet_count
    for action in options:
        if isinstance(action, Dispatch):
            wanted[action.planet] = True
    # the last planet with a card whose effect reads the scores so far (-1: none)
    card_of = d.card_of
    last_reader = -1
    for p in range(planet_count):
        for x in d.planets[p]:
            if _READS_SCORES[card_of[x]]:
                last_reader = p
    base = d.resolving_copy()  # every hand empty (the card in none), as resolve_now leaves it
    # The per-slot lists a dispatch writes and resolving only reads, written once here for
    # every option's copy (in the base the card lies nowhere, so they are never read there).
    base.dispatcher = d.dispatcher[:]
    base.dispatcher[slot] = seat
    base.claim_vision = d.claim_vision[:]
    next_turn(base)  # on to resolving, as resolve_now goes
    checkpoints: list[GameState | None] = [None] * planet_count
    at_start: list[list[int]] = []  # the base's scores at the start of each planet, then end
    try:
        for p in range(planet_count + 1):
            if not _run_to_planet(base, p):
                return [_full_value(d, seat, a) for a in options]
            at_start.append(final_scores(base))
            if p < planet_count and wanted[p]:
                checkpoints[p] = base.resolving_copy()
    except RuleViolationError:
        return [_full_value(d, seat, a) for a in options]
    # the scores once every planet resolved: the end of the round (``end_round``: the game's
    # end, or the cards gathered and the reshuffle asked) changes none
    final = at_start[planet_count]
    out: list[float] = []
    for action in options:
        if not isinstance(action, Dispatch):  # the capture
            out.append(_margin_value(final, seat))
            continue
        q = action.planet
        c = checkpoints[q]
        assert c is not None
        checkpoints[q] = None  # one option per planet: it consumes the copy
        try:
            scores = _resolve_from(c, seat, slot, q, action.claim, q >= last_reader,
                                   at_start[q + 1], final)
        except RuleViolationError:
            out.append(0.0)
            continue
        out.append(_full_value(d, seat, action) if scores is None
                   else _margin_value(scores, seat))
    return out


def _resolve_from(c: GameState, seat: int, slot: int, q: int, claim: str, additive: bool,
                  base_after: list[int], base_final: list[int]) -> list[int] | None:
    """The scores ``resolve_now`` gives the dispatch of ``slot`` to planet ``q``, from ``c``
    (the base at the start of planet q, consumed): the card placed as ``place_dispatch`` and
    ``face_up_dispatch`` place it, planet q resolved, and then either the base's gains after
    planet q added (``additive``: no later planet reads the scores so far) or the later planets
    resolved too (the round's end changes no score). None where resolving stopped otherwise (a
    reveal awaited)."""
    c.planets[q].append(slot)
    # ``dispatcher[slot]`` is ``seat`` already; ``claim_vision`` is shared with the base
    vision = c.vision_up[q]
    if c.claim_vision[slot] != vision:
        c.claim_vision = c.claim_vision[:]
        c.claim_vision[slot] = vision
    c.claim[slot] = claim
    c.known[slot] |= 1 << seat
    if claim == "up":
        c.face_up[slot] = True
        if not make_public(c, [slot]):
            return None
        verify_claim(c, slot, q)
        c.controller[slot] = c.owner(slot)
    if not _run_to_planet(c, q + 1):
        return None
    if additive:
        vp, casualties = c.vp, c.casualties
        return [vp[i] - casualties[i] + base_final[i] - base_after[i] for i in range(c.n)]
    if not _run_to_planet(c, len(c.planets)):
        return None
    return final_scores(c)  # the round's end changes no score


def _run_to_planet(s: GameState, p: int) -> bool:
    """Run steps as ``resolve_now`` does (every decision its default) until planet ``p`` is
    about to start (``p`` = the number of planets: the end of resolving); False where the
    steps stopped before (chance, a reveal, no step)."""
    started = s.planet_started
    while s.chance is None and not s.awaiting:
        d = s.decision
        if d is not None:
            s.decision = None
            s.step = (*d.then, d.default)
            continue
        current = s.step
        if current is None:
            return False
        if current[0] == "resolve" and current[1] == p and (
                p >= len(started) or not started[p]):
            return True
        s.step = None
        STEPS[current[0]](s, *current[1:])
    return False


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


__all__ = ["CAPTURE_SHARE", "answer_default", "card_options", "greedy_rollout", "option_values",
           "resolve_now", "resolved_dispatch", "resolved_value", "rollout_pick"]
