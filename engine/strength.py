"""Strength and favor on a planet, and who is strongest and favored (rulings 9 and 10)."""

from __future__ import annotations

from typing import Final

from engine.cards import CARDS
from engine.state import GameState

PEACE_ACCORDS: Final = next(c.id for c in CARDS if c.name == "Peace Accords")
SENTRY: Final = next(c.id for c in CARDS if c.name == "Sentry")


# per card id (totals runs for nearly every card resolved): (strength, favor) of an action
# card, None for an event; an event's neutral strength
_ACTION_VALUES: Final = [None if c.faction is None else (c.strength, c.favor) for c in CARDS]
_NEUTRAL: Final = [c.neutral_strength if c.faction is None else 0 for c in CARDS]


def totals(s: GameState, p: int) -> tuple[list[int], list[int], int, bool]:
    """(strength per seat, favor per seat, the strongest neutral source, Peace Accords present).

    Neutral sources are compared one by one, not added up (ruling 9): a faction beats
    Atmospheric Storm and Quagmire together with 4 strength."""
    strength = [0] * s.n
    favor = [0] * s.n
    neutral = 0
    peace = False
    card_of, controller = s.card_of, s.controller
    for slot in s.planets[p]:
        cid = card_of[slot]
        values = _ACTION_VALUES[cid]
        if values is None:
            if _NEUTRAL[cid] > neutral:
                neutral = _NEUTRAL[cid]
            if cid == PEACE_ACCORDS:
                peace = True
        else:
            k = controller[slot]
            strength[k] += values[0]
            favor[k] += values[1]
    if s.sentry_planet == p:
        holder = sentry_holder(s)
        if holder >= 0:
            strength[holder] += 1
            favor[holder] += 1
    return strength, favor, neutral, peace


def sentry_holder(s: GameState) -> int:
    for slot, seat, claimed_round in s.claims:
        if claimed_round == s.round - 1 and s.card_of[slot] == SENTRY:
            return seat
    return -1


def _unique_best(values: list[int], floor: int) -> int:
    best = max(values)
    if best <= floor or values.count(best) != 1:
        return -1
    return values.index(best)


def strongest_of(strength: list[int], neutral: int, peace: bool) -> int:
    if peace:
        candidates = [v for v in strength if v >= 1]
        if not candidates:
            return -1
        least = min(candidates)
        return strength.index(least) if candidates.count(least) == 1 else -1
    return _unique_best(strength, max(neutral, 0))


def strongest(s: GameState, p: int) -> int:
    strength, _, neutral, peace = totals(s, p)
    return strongest_of(strength, neutral, peace)


def favored(s: GameState, p: int) -> int:
    return _unique_best(totals(s, p)[1], 0)


def strongest_and_favored(s: GameState, p: int) -> tuple[int, int]:
    strength, favor, neutral, peace = totals(s, p)
    return strongest_of(strength, neutral, peace), _unique_best(favor, 0)
