"""``solstice play --learn``: the first time each phase comes up, a short explanation in the
rulebook's terms, with the cards on the table as the example. The texts are data; the
examples are filled in from our seat's view."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine import events as ev
from engine.cards import CARD_BY_LABEL, CARDS
from ui.app.wording import card_name

# phase -> (title, rule text); "{example}" is filled in from the view.
LESSONS: dict[str, tuple[str, str]] = {
    "draft": (
        "Draft: choosing your hand",
        "Everyone drafts a hand of five cards: choose one card, keep it face down, and pass "
        "the rest to your neighbour ({direction} this round; the direction alternates every "
        "round). In a two-player game you choose two cards at the first pick. The cards "
        "nobody drafted are dealt face up to the planets.\n\nYour cards now: {example}.\n\n"
        "On each card, S is its strength, F its favor and i its initiative (the lower "
        "resolves first). A card's colour is its faction: its VP go to that faction's "
        "player, whoever plays it; an event card has no colour and scores for whoever meets "
        "its condition.",
    ),
    "dispatch": (
        "Dispatch: playing cards to planets",
        "Starting with the first player, each player in turn plays one card face down to a "
        "planet with fewer than six cards, and discloses what that planet asks:\n{example}\n"
        "Once per round you may instead capture: one of your own cards leaves your hand as "
        "your prisoner (⛓ marks who holds one) and comes back to your hand next round.",
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
        if not cards:
            return None  # not dealt yet: the lesson waits for the cards it names
        example = ", ".join(cards[:6])
    elif phase == "dispatch":
        example = "\n".join(f"  {p['name']}: {p['rule']}" for p in view["planets"])
    else:
        example = " → ".join(p["name"] for p in view["planets"])
    return title, text.format(example=example, direction=view.get("direction", "left"))


GENERIC_EXAMPLES = {"draft": "the hand you are dealt", "dispatch": "  each planet's rule",
                    "resolve": "top to bottom, as the board shows them"}


def every_lesson(view: dict[str, Any] | None) -> list[tuple[str, str]]:
    """Every lesson, to open from the help at any time: the phases' with this view's cards
    when there is one, the resolution's without the moment that first opened them."""
    out = []
    for phase, (title, text) in LESSONS.items():
        found = lesson(phase, view) if view is not None else None
        out.append(found or (title, text.format(example=GENERIC_EXAMPLES[phase],
                                                direction="left or right")))
    for title, text in EVENT_LESSONS.values():
        out.append((title, text.split("\n\nHere:")[0]))
    return out


# -- lessons the resolution's events open, the first time each comes up ------------------------

# lesson key -> (title, rule text in the rulebook's terms); "{example}" comes from the event.
EVENT_LESSONS: dict[str, tuple[str, str]] = {
    "strongest": (
        "Strongest and favored",
        "The faction with the most strength on the planet is strongest, and the one with "
        "the most favor on the planet is favored. These values are summed from all of a "
        "faction's cards, regardless of initiative. If tied, no faction claims either "
        "title. Many cards and events score or act only for the strongest or the favored "
        "faction, and this can change as cards are killed.\n\nHere: {example}",
    ),
    "scoring": (
        "Scoring",
        "If a card's scoring condition is met, the player to whom the card belongs scores "
        "the VPs, not the player who played it: a card's colour is its faction. Diplomats "
        "score if their faction is favored, the Marshal if strongest, the Elder for each "
        "of the two it meets; the Duchess scores the planet's VP.\n\nHere: {example}",
    ),
    "casualties": (
        "Kills and casualties",
        "Kill: discard the indicated card. If it was a non-event card, the owning player "
        "takes a casualty token. Each casualty costs 1 VP at the end of the game, and the "
        "game ends after a round in which a player has three casualties. Heal: return one "
        "of your casualties to the supply.\n\nHere: {example}",
    ),
    "claims": (
        "Claims",
        "Claim: place the card face up in front of you once the planet is fully resolved. "
        "Next round, adhere to the bonus or penalty indicated, then discard the claimed "
        "card (Messenger: draft one more card; Poison: one fewer; Prophecy: place the "
        "leftover cards; Sentry: add its strength and favor to one planet).\n\nHere: "
        "{example}",
    ),
    "prisoners": (
        "Prisoners",
        "Instead of dispatching, a player may capture a prisoner once per Dispatch phase: "
        "one card of their own hand (event or action) goes face down beneath their "
        "reference card (⛓ marks who holds one; only its owner knows which card it is). "
        "It is back in their hand for the next draft, so they are dealt one card fewer. "
        "Some events use a prisoner: Mimic and Escape put it on a planet, Martyr kills it "
        "for 1 VP.\n\nHere: {example}",
    ),
}

# Every lesson a learning game teaches: the phases' and the events' (what ``play --learn``'s
# curated game meets, and what F1 lists).
LESSON_IDS: tuple[str, ...] = (*LESSONS, *EVENT_LESSONS)


def _cards(cards: tuple[str | None, ...]) -> str:
    return ", ".join(card_name(c) if c else "a hidden card" for c in cards) or "no cards"


def event_lesson(event: ev.Event) -> tuple[str, str, str] | None:
    """(key, title, text) of the lesson ``event`` opens the first time its kind comes up,
    with the event itself as the example (None: this event teaches nothing new)."""
    if isinstance(event, ev.PlanetOpened) and event.cards:
        key = "strongest"
        example = (f"{event.planet} holds {_cards(event.cards)}; strongest: "
                   f"{event.strongest or 'nobody (a tie, or no strength)'}, favored: "
                   f"{event.favored or 'nobody (a tie, or no favor)'}.")
    elif isinstance(event, ev.Scored):
        key = "scoring"
        if event.card in EVENT_CARDS:  # an event belongs to nobody
            example = (f"the {event.card} event scores {event.vp} VP for the {event.faction} "
                       "player, who meets its condition (an event card has no faction).")
        else:
            example = (f"the {event.faction} player scores {event.vp} VP with its "
                       f"{event.card}.")
    elif isinstance(event, ev.Killed):
        key = "casualties"
        example = f"{card_name(event.card)} is killed; " + (
            f"the {event.casualty} player takes a casualty." if event.casualty
            else "it is an event, so nobody takes a casualty.")
    elif isinstance(event, ev.Claimed):
        key = "claims"
        example = f"the {event.faction} player claims {event.card}."
    elif isinstance(event, ev.Captured):
        key = "prisoners"
        example = (f"the {event.faction} player captures a prisoner instead of dispatching "
                   "a card this turn.")
    else:
        return None
    title, text = EVENT_LESSONS[key]
    return key, title, text.format(example=example)


# What makes each card score, in the rulebook's terms (for the one-line reasons).
SCORES_WHEN = {
    "Diplomat": "favored", "Marshal": "strongest", "Elder": "strongest or favored",
    "Duchess": "scores the planet", "Assassin": "killed an enemy Duchess",
    "Mercenaries": "killed with Mercenaries", "Peace Accords": "favored",
    "Transport": "favored", "Prophecy": "favored", "Messenger": "favored",
    "Sentry": "strongest", "Medical Team": "favored, no casualties to heal",
    "Imposter": "favored, no Duchess scored", "Martyr": "strongest, killed its prisoner",
    "Whispered Secrets": "played it face up",
}


EVENT_CARDS = frozenset(card.name for card in CARDS if card.is_event)

# Why an action card that needs a title scored nothing (faction, strongest, favored -> words).
NO_VP: dict[str, Callable[[str, str | None, str | None], str]] = {
    "Legions": lambda f, s, fav: "Legions never score (they add strength, and may be "
                                 "sacrificed)",
    "Diplomat": lambda f, s, fav: f"{f} is not favored (favored: {fav or 'nobody'})",
    "Marshal": lambda f, s, fav: f"{f} is not strongest (strongest: {s or 'nobody'})",
    "Elder": lambda f, s, fav: f"{f} is neither strongest nor favored",
    "Assassin": lambda f, s, fav: "it killed no enemy Duchess",
    "Duchess": lambda f, s, fav: "with several Duchesses only the favored one scores (and "
                                 "none on a tie), or an event stopped it",
}


def unscored(opened: ev.PlanetOpened, events: list[ev.Event]) -> list[str]:
    """A line for each action card on ``opened``'s planet that neither scored nor was killed
    in ``events`` (what happened there), saying why it scored nothing."""
    scored = {(e.faction, e.card) for e in events if isinstance(e, ev.Scored)}
    gone = {e.card for e in events if isinstance(e, ev.Killed)}
    lines = []
    for label in opened.cards:
        card = CARD_BY_LABEL.get(label) if label else None
        if card is None or card.is_event or label in gone or card.faction is None \
                or (card.faction, card.name) in scored:
            continue
        why = NO_VP[card.name](card.faction, opened.strongest, opened.favored)
        lines.append(f"{card.faction} {card.name}: no VP — {why}")
    return lines


def reason(event: ev.Event) -> str | None:
    """One line for what a resolving card did and why ("Marshal: black strongest, +2 VP"),
    from the event's fields; None for an event that needs no reason."""
    if isinstance(event, ev.Scored):
        why = SCORES_WHEN.get(event.card, "its condition is met")
        return f"{event.card}: {event.faction} {why}, +{event.vp} VP"
    if isinstance(event, ev.PlanetOpened) and event.cards:
        return (f"{event.planet}: strongest {event.strongest or 'nobody'}, favored "
                f"{event.favored or 'nobody'}; its cards now resolve from the lowest "
                "initiative up")
    if isinstance(event, ev.Killed):
        return f"{card_name(event.card)}: killed, " + (
            f"{event.casualty} takes a casualty (−1 VP at the end)" if event.casualty
            else "an event: no casualty")
    if isinstance(event, ev.MartyrKilled):
        return f"Martyr: {event.faction} strongest, kills its prisoner; {event.casualty} " \
               "takes a casualty"
    if isinstance(event, ev.Healed):
        return f"{event.card}: {event.faction} favored, heals a casualty"
    if isinstance(event, ev.LostVP):
        return f"Famine: {event.faction} favored, −{event.vp} VP"
    if isinstance(event, ev.Claimed):
        return f"{event.card}: {event.faction} claims it; it acts next round"
    return None
