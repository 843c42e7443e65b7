"""Cheap estimates shared by the built-in bots: card values for the draft, score margins, and
"resolve now" (what the planets would score if the Dispatch phase ended at this moment).

"Resolve now" runs the engine's own resolution on a determinized copy, so every card and event
is scored by the real rules instead of a second, drifting implementation. To end the Dispatch
phase early it drops the cards still in hands and steps the engine on; that uses two engine
internals (``engine.dispatch.next_turn``, ``engine.flow.advance``) on a private copy only.
"""

from __future__ import annotations

from engine import CARDS, Choose, GameState, Phase, apply_in_place
from engine.cleanup import final_scores
from engine.dispatch import next_turn
from engine.flow import advance

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


def resolve_now(d: GameState) -> list[int]:
    """Final-score-like totals (VP - casualties) per seat after resolving the planets as they
    stand, on ``d`` (a full-information copy that this call consumes). Cards still in hands are
    dropped; every later decision takes its default. Stops at the end of the round."""
    for _ in range(200):  # a bound in case of an engine surprise; each pass makes progress
        if d.phase is Phase.OVER or d.chance is not None:
            break
        if d.decision is not None:
            play_defaults(d)
            continue
        if d.phase is Phase.DISPATCH:
            for hand in d.hands:
                hand.clear()
            next_turn(d)
            advance(d)
            continue
        break
    return final_scores(d)
