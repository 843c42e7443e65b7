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
    """The index of the one greatest value when it is above ``floor``, else -1 (a tie or
    nothing above it). One loop over the ints: this runs for nearly every card resolved,
    where ``max``, ``count`` and ``index`` were three generic passes."""
    best, at, tied = values[0], 0, False
    for i in range(1, len(values)):
        v = values[i]
        if v > best:
            best, at, tied = v, i, False
        elif v == best:
            tied = True
    return -1 if best <= floor or tied else at


def strongest_of(strength: list[int], neutral: int, peace: bool) -> int:
    if peace:
        # the one least strength of at least 1, else -1
        least, at, tied = 0, -1, False
        for i in range(len(strength)):
            v = strength[i]
            if v < 1:
                continue
            if at < 0 or v < least:
                least, at, tied = v, i, False
            elif v == least:
                tied = True
        return -1 if tied else at
    return _unique_best(strength, neutral if neutral > 0 else 0)


def strongest(s: GameState, p: int) -> int:
    strength, _, neutral, peace = totals(s, p)
    return strongest_of(strength, neutral, peace)


def favored(s: GameState, p: int) -> int:
    # ``_unique_best(totals(s, p)[1], 0)`` without the strengths (most effects ask only this)
    favor = [0] * s.n
    card_of, controller = s.card_of, s.controller
    for slot in s.planets[p]:
        values = _ACTION_VALUES[card_of[slot]]
        if values is not None:
            favor[controller[slot]] += values[1]
    if s.sentry_planet == p:
        holder = sentry_holder(s)
        if holder >= 0:
            favor[holder] += 1
    return _unique_best(favor, 0)


def strongest_and_favored(s: GameState, p: int) -> tuple[int, int]:
    strength, favor, neutral, peace = totals(s, p)
    return strongest_of(strength, neutral, peace), _unique_best(favor, 0)
