"""``solstice play --learn``: the first time each phase comes up, a short explanation in the
rulebook's terms, with the cards on the table as the example. The texts are data; the
examples are filled in from our seat's view."""

from __future__ import annotations

from typing import Any

from ui.app.wording import card_name

# phase -> (title, rule text); "{example}" is filled in from the view.
LESSONS: dict[str, tuple[str, str]] = {
    "draft": (
        "Draft: choosing your hand",
        "Everyone drafts a hand of five cards: choose one card, keep it face down, and pass "
        "the rest to your neighbour ({direction} this round; the direction alternates every "
        "round). In a two-player game you choose two cards at the first pick. The cards "
        "nobody drafted are dealt face up to the planets.\n\nYour cards now: {example}.\n\n"
        "A card's colour is its faction: its VP go to that faction's player, whoever plays "
        "it.",
    ),
    "dispatch": (
        "Dispatch: playing cards to planets",
        "Starting with the first player, each player in turn plays one card face down to a "
        "planet with fewer than six cards, and discloses what that planet asks:\n{example}\n"
        "Once per round you may instead capture a card as your prisoner: it comes back to "
        "your hand for the next draft.",
    ),
    "resolve": (
        "Resolve: who scores",
        "Planets resolve from the top down ({example}). On each, every card is revealed; the "
        "faction with the most strength is strongest, the one with the most favor is "
        "favored (a tie: nobody). Cards then resolve from the lowest initiative (the i "
        "number) up, scoring or acting for their faction. A killed card is discarded and "
        "its faction takes a casualty (a killed event: nobody does).\n\nThe game ends "
        "after a round in which a faction has 16 VP or 3 casualties; the final score is VP "
        "minus casualties.",
    ),
}


def lesson(phase: str, view: dict[str, Any]) -> tuple[str, str] | None:
    """The lesson for ``phase`` with this view's cards as the example (None: no lesson)."""
    if phase not in LESSONS:
        return None
    title, text = LESSONS[phase]
    if phase == "draft":
        cards = [card_name(c["label"]) for c in view["hand"] if c.get("label")]
        example = ", ".join(cards[:6]) or "none yet"
    elif phase == "dispatch":
        example = "\n".join(f"  {p['name']}: {p['rule']}" for p in view["planets"])
    else:
        example = " → ".join(p["name"] for p in view["planets"])
    return title, text.format(example=example, direction=view.get("direction", "left"))
