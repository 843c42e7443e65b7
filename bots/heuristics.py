"""Cheap estimates shared by the built-in bots: card values for the draft, score margins, and
"resolve now" (what the planets would score if the Dispatch phase ended at this moment).

"Resolve now" runs the engine's own resolution on a determinized copy, so every card and event
is scored by the real rules instead of a second, drifting implementation. To end the Dispatch
phase early it drops the cards still in hands and steps the engine on, on a private copy only.
It and the greedy rollout dispatch live in ``engine.rollout``, compiled with the engine: a
search's rollouts call them thousands of times a decision.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from engine import (
    CARDS,
    Action,
    Capture,
    Choose,
    Discard,
    Dispatch,
    GameState,
    RuleViolationError,
    apply_in_place,
    apply_trusted,
)
from engine.cards import PLANETS
from engine.disclosure import legal_claims
from engine.dispatch import open_planets
from engine.randomness import RandomStream
from engine.rollout import CAPTURE_SHARE, resolve_now
from engine.rollout import resolved_dispatch as _resolved_dispatch

# Draft value of an action card to its own faction: roughly the VP it is expected to bring.
_OWN_VALUE = {"Legions": 1.1, "Diplomat": 0.65, "Assassin": 0.5, "Duchess": 2.3,
              "Marshal": 0.65, "Elder": 1.2}
# Draft value of an event to whoever holds it (it scores for the strongest/favored player).
EVENT_VALUE = {
    "Whispered Secrets": 1.3, "Rumor": 0.4, "Vision": 0.4, "Mimic": 0.4, "Escape": 0.5,
    "Transport": 0.8, "Imposter": 0.9, "Hidden Base": 0.9, "Peace Accords": 0.5,
    "Prophecy": 0.7, "Honor Guards": 0.7, "Sentry": 1.0, "Messenger": 1.0, "Medical Team": 1.1,
    "Atmospheric Storm": 0.7, "Blockade": 0.3, "Ambush": 0.8, "Planetary Siege": 0.5,
    "Orbital Bombardment": 0.5, "Martyr": 0.5, "Famine": 0.8, "Poison": 0.6, "Quagmire": 0.6,
    "Mercenaries": 1.0,
}


def own_card_value(card_id: int) -> float:
    """What an action card is worth to its own faction (VP-ish units)."""
    card = CARDS[card_id]
    base = _OWN_VALUE[card.type]
    if card.type == "Duchess":
        return base + 0.5 * card.vp           # the favored bonus
    if card.type == "Elder":
        return base
    if card.type == "Legions":
        return base
    return base * card.vp + 0.3 * card.strength + 0.3 * card.favor


def draft_value(card_id: int, faction: str, players: int) -> float:
    """Value of drafting ``card_id`` for ``faction``: own cards for what they score, events for
    what they do, opponents' cards for denying them (worth more the fewer opponents there are)."""
    card = CARDS[card_id]
    if card.faction is None:
        return EVENT_VALUE.get(card.name, 0.5)
    if card.faction == faction:
        return own_card_value(card_id)
    deny = 0.6 if players == 2 else 0.35
    return deny * own_card_value(card_id)


def value_table(faction: str, players: int) -> list[float]:
    """``draft_value`` for every card id (rollouts look values up instead of computing them)."""
    return [draft_value(cid, faction, players) for cid in range(len(CARDS))]


def margin(scores: list[int], seat: int) -> int:
    """Seat's score minus the best other score (positive: leading)."""
    best_other = max(v for i, v in enumerate(scores) if i != seat)
    return scores[seat] - best_other


def play_defaults(d: GameState) -> None:
    """Answer pending decisions with their documented defaults until none is pending."""
    while d.decision is not None:
        apply_in_place(d, Choose(d.decision.seat, d.decision.default))


# Per card id, for the rollout dispatch below: (faction, strength, favor) of an action card,
# None for an event.
_FORCE = [None if c.faction is None else (c.faction, c.strength, c.favor) for c in CARDS]


def planet_dispatch(d: GameState, seat: int, rng: RandomStream) -> Action:
    """A cheap rollout dispatch: a random card from the hand; an opponent's action card is
    captured when possible (played, it would only help its owner); one of the seat's own
    action cards goes preferably where it makes the seat strongest or favored on a planet
    (where its VP-scoring cards pay off), or strengthens a lead that is contested; events go
    to a random open planet. Builds the action directly from the state: listing every legal
    dispatch is most of a rollout's cost."""
    hand = d.hands[seat]
    slot = hand[rng.randbelow(len(hand))]
    cid = d.card_of[slot]
    force = _FORCE[cid]
    can_capture = not d.captured[seat]
    if force is not None and can_capture and d.seat_of_faction[force[0]] != seat:
        return Capture(seat, slot)
    planets = open_planets(d)
    if not planets:
        return Capture(seat, slot) if can_capture else Discard(seat, slot)
    if force is None or len(planets) == 1:
        p = planets[rng.randbelow(len(planets))]
    else:
        p = _best_planet(d, seat, force[1], force[2], planets, rng)
    return Dispatch(seat, slot, p, legal_claims(cid, d.config.planets[p], d.vision_up[p])[0])


def _best_planet(d: GameState, seat: int, strength: int, favor: int, planets: list[int],
                 rng: RandomStream) -> int:
    weights = []
    n = d.n
    card_of, seat_of_faction = d.card_of, d.seat_of_faction
    for p in planets:
        st = [0] * n
        fv = [0] * n
        for x in d.planets[p]:
            f = _FORCE[card_of[x]]
            if f is not None:
                k = seat_of_faction[f[0]]
                st[k] += f[1]
                fv[k] += f[2]
        mine_s, mine_f = st[seat], fv[seat]
        st[seat] = fv[seat] = -1
        other_s, other_f = max(st), max(fv)
        w = 1.0
        # becoming (or staying, against a close rival) strictly strongest / favored
        if mine_s <= other_s < mine_s + strength:
            w += 2.0 * PLANETS[d.config.planets[p]].vp
        if mine_f <= other_f < mine_f + favor:
            w += 2.0
        weights.append(w)
    r = (rng.word() / 2**64) * sum(weights)
    for p, w in zip(planets, weights, strict=True):
        r -= w
        if r <= 0:
            return p
    return planets[-1]


def resolved_value(worlds: list[GameState], seat: int, action: Action) -> float:
    """The mean over ``worlds`` of ``seat``'s score margin after ``action`` and ``resolve_now``,
    plus a quarter of its own score: the margin decides, the seat's own total breaks near-ties
    in favour of scoring rather than only holding others down. ``action`` must be legal in
    every world (one of the legal actions of the seat's view): it is applied unchecked.

    A world whose revealed card breaks its disclosure is left out (0.0 when all are): a seat
    that lied about a card this seat has seen leaves ``determinize`` no truthful world. The
    real table proves the lie when the card shows; this bot's decision must not fail first."""
    total, counted = 0.0, 0
    for world in worlds:
        d = world.clone()
        apply_trusted(d, action)
        try:
            scores = resolve_now(d)
        except RuleViolationError:
            continue
        total += margin(scores, seat) + 0.25 * scores[seat]
        counted += 1
    return total / counted if counted else 0.0


def one_step_values(worlds: list[GameState], seat: int, candidates: Sequence[Action],
                    faction: str) -> list[float]:
    """Greedy's estimate of each candidate move of ``seat``: the mean over ``worlds``
    (determinizations of what the seat knows) of its score margin plus a quarter of its own
    score after ``resolve_now``, and for a capture part of the prisoner's draft value (it comes
    back next round)."""
    n = worlds[0].n
    out = []
    for action in candidates:
        value = resolved_value(worlds, seat, action)
        if type(action) is Capture:
            value += CAPTURE_SHARE * draft_value(worlds[0].card_of[action.slot], faction, n)
        out.append(value)
    return out


def resolved_dispatch(d: GameState, seat: int, rng: RandomStream, faction: str) -> Action:
    """A rollout dispatch that plays like ``greedy`` on a full-information world: a random
    card from the hand goes to the open planet (or into captivity) where ``one_step_values``
    rates it best, ties broken at random. Several times the cost of ``planet_dispatch``
    per move, and a much better model of how a seat plays on (README, "Measured strength").
    Compiled with the engine (``engine.rollout``, the card values given as a table)."""
    return _resolved_dispatch(d, seat, rng, _value_table(faction, d.n))


@cache
def _value_table(faction: str, players: int) -> list[float]:
    return value_table(faction, players)
