"""Card, planet and event data: the rulings' numbers as one table, loaded once.

Every card of the game has a fixed global id (0..47). Action cards come first, faction-major
(black, white, blue, green) in type order (Legions, Diplomat, Assassin, Duchess, Marshal, Elder);
events follow in the order of the rulings' event table, which is also the order in which events
of equal initiative resolve.
"""

from __future__ import annotations

from dataclasses import dataclass

FACTIONS: tuple[str, ...] = ("black", "white", "blue", "green")
TYPES: tuple[str, ...] = ("Legions", "Diplomat", "Assassin", "Duchess", "Marshal", "Elder")
EVENT_KINDS: tuple[str, ...] = ("Deception", "Fortune", "Destruction", "two-player")

# type -> (initiative, {faction: (strength, favor, vp, vp2)})
# vp: Diplomat/Assassin/Marshal VP, Duchess favored bonus, Elder VP if strongest.
# vp2: Elder VP if favored.
_ACTION_TABLE: dict[str, tuple[int, dict[str, tuple[int, int, int, int]]]] = {
    "Legions": (0, {f: (2, 2, 0, 0) for f in FACTIONS}),
    "Diplomat": (5, {"black": (1, 1, 2, 0), "white": (1, 1, 2, 0),
                     "blue": (1, 1, 2, 0), "green": (0, 3, 3, 0)}),
    "Assassin": (7, {"black": (1, 0, 3, 0), "white": (1, 0, 2, 0),
                     "blue": (1, 0, 2, 0), "green": (1, 0, 2, 0)}),
    "Duchess": (9, {"black": (0, 1, 1, 0), "white": (0, 1, 3, 0),
                    "blue": (0, 1, 1, 0), "green": (0, 1, 1, 0)}),
    "Marshal": (12, {"black": (1, 0, 2, 0), "white": (1, 0, 2, 0),
                     "blue": (1, 0, 3, 0), "green": (1, 0, 2, 0)}),
    "Elder": (13, {f: (1, 1, 1, 1) for f in FACTIONS}),
}

# (name, initiative, kind, face_up, claim, neutral_strength)
_EVENT_TABLE: tuple[tuple[str, int, str, bool, bool, int], ...] = (
    ("Whispered Secrets", 0, "Deception", True, False, 0),
    ("Rumor", 0, "Deception", False, False, 0),
    ("Vision", 0, "Deception", True, False, 0),
    ("Mimic", 0, "Deception", False, False, 0),
    ("Escape", 0, "Deception", False, False, 0),
    ("Transport", 4, "Deception", False, False, 0),
    ("Imposter", 9, "Deception", False, False, 0),
    ("Hidden Base", 9, "Fortune", True, False, 0),
    ("Peace Accords", 1, "Fortune", False, False, 0),
    ("Prophecy", 5, "Fortune", False, True, 0),
    ("Honor Guards", 8, "Fortune", False, False, 0),
    ("Sentry", 11, "Fortune", False, True, 0),
    ("Messenger", 12, "Fortune", False, True, 0),
    ("Medical Team", 15, "Fortune", False, False, 0),
    ("Atmospheric Storm", 0, "Destruction", False, False, 3),
    ("Blockade", 0, "Destruction", True, False, 0),
    ("Ambush", 2, "Destruction", False, False, 0),
    ("Planetary Siege", 9, "Destruction", False, False, 0),
    ("Orbital Bombardment", 10, "Destruction", False, False, 0),
    ("Martyr", 11, "Destruction", False, False, 0),
    ("Famine", 14, "Destruction", False, False, 0),
    ("Poison", 15, "Destruction", False, True, 0),
    ("Quagmire", 6, "two-player", False, False, 2),
    ("Mercenaries", 7, "two-player", False, False, 0),
)

FIRST_GAME_EVENTS: tuple[str, ...] = (
    "Whispered Secrets", "Rumor", "Hidden Base", "Orbital Bombardment",
    "Blockade", "Honor Guards", "Planetary Siege", "Famine",
)


@dataclass(frozen=True, slots=True)
class Card:
    """One printed card. ``faction`` is None for events; ``type`` is "event" for events."""

    id: int
    label: str
    name: str
    type: str
    faction: str | None
    initiative: int
    strength: int = 0
    favor: int = 0
    vp: int = 0
    vp2: int = 0
    event_kind: str | None = None
    face_up: bool = False
    claim: bool = False
    neutral_strength: int = 0
    order: int = 0  # position among equal-initiative events (table order)

    @property
    def is_event(self) -> bool:
        return self.faction is None

    @property
    def effect(self) -> str:
        """What an action card does, with its numbers (``VP 2 if favored``); "" for events."""
        return {
            "Diplomat": f"VP {self.vp} if favored",
            "Assassin": f"VP {self.vp} on kill",
            "Duchess": f"planet VP, +{self.vp} if favored",
            "Marshal": f"VP {self.vp} if strongest",
            "Elder": f"VP {self.vp} if strongest, {self.vp2} if favored",
            "Legions": "may be sacrificed",
        }.get(self.type, "")

    def describe(self) -> str:
        """A one-line summary with the card's numbers, for logs and UIs."""
        if self.is_event:
            notes = ["face up" if self.face_up else "", "claimed" if self.claim else "",
                     f"{self.neutral_strength} neutral strength" if self.neutral_strength
                     else ""]
            return (f"{self.name} (event, {self.event_kind}, initiative {self.initiative}"
                    + "".join(f", {note}" for note in notes if note) + ")")
        return (f"{self.faction} {self.type} (S{self.strength} F{self.favor}, "
                f"initiative {self.initiative}, {self.effect})")


def _build_cards() -> tuple[Card, ...]:
    cards: list[Card] = []
    for faction in FACTIONS:
        for card_type in TYPES:
            initiative, values = _ACTION_TABLE[card_type]
            strength, favor, vp, vp2 = values[faction]
            cards.append(Card(
                id=len(cards), label=f"{faction}:{card_type}", name=card_type, type=card_type,
                faction=faction, initiative=initiative, strength=strength, favor=favor,
                vp=vp, vp2=vp2,
            ))
    for order, (name, initiative, kind, face_up, claim, neutral) in enumerate(_EVENT_TABLE):
        cards.append(Card(
            id=len(cards), label=f"event:{name}", name=name, type="event", faction=None,
            initiative=initiative, event_kind=kind, face_up=face_up, claim=claim,
            neutral_strength=neutral, order=order,
        ))
    return tuple(cards)


CARDS: tuple[Card, ...] = _build_cards()
CARD_BY_LABEL: dict[str, Card] = {card.label: card for card in CARDS}
EVENT_BY_NAME: dict[str, Card] = {card.name: card for card in CARDS if card.is_event}
EVENT_NAMES: tuple[str, ...] = tuple(name for name, *_ in _EVENT_TABLE)


def action_card(faction: str, card_type: str) -> Card:
    return CARD_BY_LABEL[f"{faction}:{card_type}"]


def events_of_kind(kind: str) -> tuple[str, ...]:
    return tuple(name for name, _, k, *_ in _EVENT_TABLE if k == kind)


@dataclass(frozen=True, slots=True)
class Planet:
    """A planet card: its VP when scored and how dispatched cards are disclosed there."""

    name: str
    vp: int
    disclosure: str  # "type", "faction_or_type", "jungle", "nothing"

    def rule_text(self) -> str:
        return {
            "type": "disclose the card type",
            "faction_or_type": "disclose the faction OR the type, never both",
            "jungle": "events face up; other cards face down, nothing disclosed",
            "nothing": "nothing is disclosed",
        }[self.disclosure]


PLANETS: dict[str, Planet] = {
    "Capital": Planet("Capital", 3, "type"),
    "Industrial": Planet("Industrial", 2, "type"),
    "Water": Planet("Water", 2, "faction_or_type"),
    "Jungle": Planet("Jungle", 2, "jungle"),
    "Desert": Planet("Desert", 2, "nothing"),
}
STANDARD_PLANETS: tuple[str, ...] = ("Capital", "Industrial", "Water", "Jungle")

PLANET_LIMIT = 6
HAND_SIZE = 6
DRAFT_QUOTA = 5
WIN_VP = 16
MAX_CASUALTIES = 3
