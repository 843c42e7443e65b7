"""The greedy rollout's option values (``engine.rollout.option_values``) equal the values of
resolving every option in full (``resolved_value``, 0.0 where a disclosure breaks), exactly,
for every card of the hand in many dispatch states of random 2-, 3- and 4-player games: the
checkpointed resolution (a planet's options start from the base's state before that planet,
later planets' gains added where none of them reads the scores so far) is a shortcut, never a
different rating. Some states get a lying face-down card (a claim its card cannot make), so
that resolving breaks a disclosure on the way, and some low scores, where Famine and the heals
of Honor Guards and Medical Team depend on the scores before them. The strength loops the
option values spend their time in answer as their first forms did."""

from __future__ import annotations

from collections import Counter

import pytest

from engine import CARDS, Capture, Dispatch, GameState, Phase, to_move
from engine.disclosure import legal_claims
from engine.errors import RuleViolationError
from engine.randomness import RandomStream
from engine.rollout import card_options, option_values, resolved_value
from engine.serialize import state_bytes
from tests.engine_helpers import random_states

READS_SCORES = {"Famine", "Honor Guards", "Medical Team"}
# random games per player count: a two-player game has few cards and one Fortune event, so
# seldom Honor Guards or Medical Team
GAMES = {2: 40, 3: 10, 4: 10}


def full_values(s: GameState, seat: int, options: list) -> tuple[list[float], int]:
    """The ratings as every option resolved in full gives them (the rollout's old way), and
    how many of them broke a disclosure."""
    out = []
    broken = 0
    for action in options:
        try:
            out.append(resolved_value(s, seat, action))
        except RuleViolationError:
            out.append(0.0)
            broken += 1
    return out, broken


def dispatch_states(seed: str, n: int) -> list[GameState]:
    """Copies of every dispatch turn (no pending step, decision or chance) of a random game."""
    out = []
    for s, _ in random_states(seed, n):
        if s.phase is Phase.DISPATCH and s.step is None and s.decision is None \
                and s.chance is None and not s.awaiting:
            movers = to_move(s)
            if movers and movers[0] >= 0 and s.hands[movers[0]]:
                out.append(s.clone())
    return out


def lie_somewhere(s: GameState, rng: RandomStream) -> bool:
    """Give one face-down card on the planets a claim its card cannot make (a seat that lied
    in this world); False when no card can be made to lie."""
    liars = []
    for p, cards in enumerate(s.planets):
        for x in cards:
            if s.face_up[x] or s.dispatcher[x] < 0:
                continue
            truthful = legal_claims(s.card_of[x], s.config.planets[p], s.claim_vision[x])
            lie = next((c for c in ("event", "Duchess", "Legions") if c not in truthful), None)
            if lie is not None:
                liars.append((x, lie))
    if not liars:
        return False
    x, lie = liars[rng.randbelow(len(liars))]
    s.claim[x] = lie
    return True


def plant_reader(s: GameState, rng: RandomStream) -> bool:
    """Move a Famine, Honor Guards or Medical Team from the deck or the discards onto a random
    planet, as a face-down (or face-up) dispatch of a random seat with a truthful claim: random
    games seldom have one after the planet a card goes to, where it reads the scores so far.
    False when the game has none to move."""
    card_of = s.card_of
    spare = [(zone, x) for zone in (s.deck, s.discard) for x in zone
             if CARDS[card_of[x]].name in READS_SCORES]
    if not spare:
        return False
    zone, x = spare[rng.randbelow(len(spare))]
    zone.remove(x)
    p = rng.randbelow(len(s.planets))
    seat = rng.randbelow(s.n)
    s.planets[p].append(x)
    s.dispatcher[x] = seat
    claim = legal_claims(card_of[x], s.config.planets[p], s.vision_up[p])[0]
    s.claim_vision[x] = s.vision_up[p]
    s.known[x] |= 1 << seat
    if claim == "up":  # as face_up_dispatch leaves it: public, checked, an event's controller
        s.face_up[x] = True
        s.known[x] = s.all_mask
        s.controller[x] = -1
        claim = ""
    s.claim[x] = claim
    return True


@pytest.mark.parametrize("n", [2, 3, 4])
def test_option_values_equal_full_resolutions(n: int) -> None:
    seen: Counter[str] = Counter()
    rng = RandomStream(f"lies/{n}")
    for game in range(GAMES[n]):
        for i, s in enumerate(dispatch_states(f"options/{n}/{game}", n)):
            if i % 3 == 0 and lie_somewhere(s, rng):
                seen["lying world"] += 1
            if i % 2 == 1:
                # low scores, where Famine (at most 2 VP lost) and the heals (only with a
                # casualty) depend on the scores so far
                s.vp = [rng.randbelow(2) for _ in range(n)]
                s.casualties = [rng.randbelow(2) for _ in range(n)]
            if plant_reader(s, rng):
                seen["planted"] += 1
            seat = to_move(s)[0]
            before = state_bytes(s)
            for slot in s.hands[seat]:
                options = card_options(s, seat, slot)
                if len(options) < 2:
                    continue
                expected, broken = full_values(s, seat, options)
                assert option_values(s, seat, slot, options) == expected, (game, i, slot)
                assert state_bytes(s) == before  # the world is not consumed
                # what the cases covered, so that a narrower sample fails here, not silently
                name = CARDS[s.card_of[slot]].name
                seen["options"] += len(options)
                seen["broken disclosure"] += broken
                if any(isinstance(a, Capture) for a in options):
                    seen["capture"] += 1
                if name in ("Whispered Secrets", "Vision"):
                    seen["acts on dispatch"] += 1
                for a in options:
                    if not isinstance(a, Dispatch):
                        continue
                    if a.claim == "up":
                        seen["face up"] += 1
                    later = {CARDS[s.card_of[x]].name for cards in s.planets[a.planet + 1:]
                             for x in cards}
                    seen["later reads scores" if later & READS_SCORES else "additive"] += 1
    for case in ("options", "capture", "face up", "acts on dispatch", "later reads scores",
                 "additive", "lying world", "broken disclosure"):
        assert seen[case] > 0, (case, dict(seen))


def _unique_best_as_written(values: list[int], floor: int) -> int:
    """``engine.strength._unique_best`` as it was written before its one-loop form."""
    best = max(values)
    if best <= floor or values.count(best) != 1:
        return -1
    return values.index(best)


def _strongest_of_as_written(strength: list[int], neutral: int, peace: bool) -> int:
    if peace:
        candidates = [v for v in strength if v >= 1]
        if not candidates:
            return -1
        least = min(candidates)
        return strength.index(least) if candidates.count(least) == 1 else -1
    return _unique_best_as_written(strength, max(neutral, 0))


def test_strength_loops_equal_their_first_form() -> None:
    """The one-loop ``_unique_best`` and ``strongest_of`` answer as the max/count/index forms
    did, over every seat count and small values (ties, zeros, negatives floors), and
    ``favored`` as the favor totals' unique best, on every planet of random states."""
    from engine.strength import _unique_best, favored, strongest_of, totals

    rng = RandomStream("strength-loops")
    for _ in range(20_000):
        n = 2 + rng.randbelow(3)
        values = [rng.randbelow(6) - 1 for _ in range(n)]
        floor = rng.randbelow(4) - 1
        assert _unique_best(values, floor) == _unique_best_as_written(values, floor), values
        peace = rng.randbelow(2) == 1
        assert strongest_of(values, floor, peace) == \
            _strongest_of_as_written(values, floor, peace), (values, floor, peace)
    for n in (2, 3, 4):
        for k, (s, _) in enumerate(random_states(f"strength/{n}", n)):
            if k % 5:
                continue
            for p in range(len(s.planets)):
                assert favored(s, p) == _unique_best_as_written(totals(s, p)[1], 0)
