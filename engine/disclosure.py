"""What a dispatcher may (truthfully) disclose, per planet: the rulebook's disclosure rules.

Rulings 7 and 8: Capital and Industrial disclose the type; the Water the faction or the type;
the Jungle plays events face up and everything else face down with nothing said; the Desert
says nothing. Events say "event". Face-up events, and every card on a planet where Vision chose
"face up", are played face up. Rumor may claim any faction or type (in the planet's form);
Imposter may claim "event" or "Duchess".
"""

from __future__ import annotations

from functools import cache

from engine.cards import CARDS, FACTIONS, PLANETS, TYPES


@cache
def legal_claims(card_id: int, planet: str, vision_up: bool) -> tuple[str, ...]:
    card = CARDS[card_id]
    rule = PLANETS[planet].disclosure
    if card.face_up or vision_up:
        return ("up",)
    if rule == "jungle":
        return ("up",) if card.is_event else ("none",)
    if rule == "nothing":
        return ("none",)
    with_faction = rule == "faction_or_type"
    if card.name == "Rumor":
        return ("event", *TYPES, *(FACTIONS if with_faction else ()))
    if card.name == "Imposter":
        return ("event", "Duchess")
    if card.is_event:
        return ("event",)
    if with_faction:
        assert card.faction is not None
        return (card.faction, card.type)
    return (card.type,)


@cache
def claims_by_card(planet: str, vision_up: bool) -> tuple[tuple[str, ...], ...]:
    """``legal_claims`` for every card id at once (indexed by card id): one lookup per planet
    when listing every legal dispatch."""
    return tuple(legal_claims(cid, planet, vision_up) for cid in range(len(CARDS)))


@cache
def plausible_claims(planet: str, vision_up: bool) -> frozenset[str]:
    """Claims some card could truthfully make here (for checking a card we cannot see)."""
    return frozenset(c for cid in range(len(CARDS)) for c in legal_claims(cid, planet, vision_up))


def describe_claim(claim: str) -> str:
    if claim == "up":
        return "face up"
    if claim == "none":
        return "face down, nothing disclosed"
    if claim in FACTIONS:
        return f"a {claim} card"
    if claim == "event":
        return "an event"
    # Card types starting with a vowel sound (Elder, Assassin) take "an".
    return f"{'an' if claim[:1] in 'AEIOU' else 'a'} {claim}"
