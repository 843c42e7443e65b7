"""Turning a seat's view (``engine.view.view``) into Rich text: cards, planets, scores.

Pure functions of plain data, so screens stay small and snapshots stay stable.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from engine.cards import CARD_BY_LABEL, Card
from engine.disclosure import describe_claim
from ui.app.wording import card_name, option_words

# Readable on a dark background: "black" cannot be drawn in black, so it is a light grey chip.
FACTION_STYLES: dict[str, str] = {
    "black": "bold #e0e0e0 on #4a4a4a",
    "white": "bold #ffffff",
    "blue": "bold #6cb6ff",
    "green": "bold #7ee787",
}
EVENT_STYLE = "bold #e3b341"
HIDDEN_STYLE = "#a0a0a0"
# The rulebook's event texts, shortened to one line each for hands and the help screen.
EVENT_TEXT = {
    "Whispered Secrets": "Face up. Reveal one card here, score 1 VP.",
    "Rumor": "May disclose any type or faction (a lie).",
    "Vision": "Face up. Reveal all cards here, or future cards here are face up.",
    "Mimic": "Favored may put a non-event prisoner here, as their own card.",
    "Escape": "Favored may add their prisoner here.",
    "Transport": "Favored scores 1 VP, may move unresolved cards to a later planet.",
    "Imposter": "Disclosed as event or Duchess; favored scores the planet if no Duchess.",
    "Hidden Base": "Face up. A Duchess scores +2 VP here.",
    "Peace Accords": "Least strength (at least 1) is strongest; favored scores 1 VP.",
    "Prophecy": "Favored scores 1 VP; next round places the leftovers.",
    "Honor Guards": "Must be killed first (Assassins then score nothing); favored heals.",
    "Sentry": "Strongest scores 1 VP; next round adds S1 F1 on a planet of choice.",
    "Messenger": "Favored scores 1 VP; drafts one more card next round.",
    "Medical Team": "Favored heals once, or scores 2 VP without casualties.",
    "Atmospheric Storm": "3 neutral strength.",
    "Blockade": "Face up. This planet holds one card fewer.",
    "Ambush": "Strongest may kill one card (no VP).",
    "Planetary Siege": "Duchess and Imposter cannot score here.",
    "Orbital Bombardment": "No further card resolves here.",
    "Martyr": "Strongest may kill their non-event prisoner for 1 VP.",
    "Famine": "Favored loses 2 VP.",
    "Poison": "Strongest drafts one card fewer next round.",
    "Quagmire": "All Legions here are killed; 2 neutral strength.",
    "Mercenaries": "Strongest Assassin may kill any card for 2 VP instead.",
}

PHASE_NAMES = {"draft": "Draft", "dispatch": "Dispatch", "resolve": "Resolve", "over": "Game over"}


def faction_style(faction: str | None) -> str:
    return FACTION_STYLES.get(faction or "", EVENT_STYLE)


def seat_name(view: dict[str, Any], seat: int, names: tuple[str, ...] = ()) -> str:
    """``black (you)``, ``white (bob)`` or just ``blue``."""
    faction = view["factions"][seat]
    if seat == view["seat"] and not view.get("spectator"):
        return f"{faction} (you)"
    name = names[seat] if seat < len(names) else ""
    return f"{faction} ({name})" if name else faction


def seat_text(view: dict[str, Any], seat: int, names: tuple[str, ...] = ()) -> Text:
    return Text(seat_name(view, seat, names), style=faction_style(view["factions"][seat]))


def stats(card: Card) -> str:
    """Short numbers: ``S2 F2 i0`` for actions, ``i9 Fortune`` for events."""
    if card.is_event:
        return f"i{card.initiative} {card.event_kind}"
    return f"S{card.strength} F{card.favor} i{card.initiative}"


def card_effect(card: Card) -> str:
    """What an action card scores (``VP 2 if favored``), or an event's kind."""
    if card.is_event:
        return EVENT_TEXT.get(card.name, f"{card.event_kind} event")
    if card.name == "Assassin":  # "VP 3 on kill" left open what it kills
        return f"kills an enemy Duchess: VP {card.vp}"
    return card.effect


def card_chip(label: str | None, *, dim: bool = False) -> Text:
    """A face-up card by name and stats: ``[blue Marshal S1 F0 i12]``."""
    if label is None:
        return Text("[unknown card]", style=HIDDEN_STYLE)
    card = CARD_BY_LABEL[label]
    name = card.name if card.is_event else f"{card.faction} {card.name}"
    text = Text("[")
    text.append(name, style=faction_style(card.faction))
    text.append(f" {stats(card)}]")
    if dim:
        text.stylize("dim")
    return text


def card_line(label: str | None) -> Text:
    """A card with its full description, for hands and choices."""
    if label is None:
        return Text("an unknown card", style=HIDDEN_STYLE)
    card = CARD_BY_LABEL[label]
    text = Text()
    text.append(card.name if card.is_event else f"{card.faction} {card.name}",
                style=faction_style(card.faction))
    text.append(f"  {stats(card)} · ")
    text.append(card_effect(card), style="italic")
    return text


def hidden_chip(entry: dict[str, Any], view: dict[str, Any], names: tuple[str, ...]) -> Text:
    """A face-down card: its disclosure and who played it (our own shows what it is)."""
    text = Text("[▒ ", style=HIDDEN_STYLE)
    claim = entry.get("claim") or "none"
    text.append("?" if claim == "none" else describe_claim(claim).removeprefix("a ")
                .removeprefix("an "), style="bold")
    # Only the faction (not the player's name) keeps chips short enough for 80 columns.
    who = entry["dispatcher"]
    if who is not None and who >= 0:
        faction = view["factions"][who]
        text.append(" by ")
        mine = who == view["seat"] and not view.get("spectator")
        if entry.get("ghost") is not None:  # known to every remaining player (``ghost_lines``)
            text.append("ghost ", style="bold")
        text.append("you" if mine else faction, style=faction_style(faction))
    if entry.get("label"):
        # Known to this viewer: their own card, or one they were shown (or a replay's open view).
        card = CARD_BY_LABEL[entry["label"]]
        name = card.name if card.is_event else f"{card.faction} {card.name}"
        text.append(f": {name}", style="italic")
    text.append("]", style=HIDDEN_STYLE)
    return text


def played_by(chip: Text, entry: dict[str, Any], view: dict[str, Any]) -> None:
    """Who played a face-up card, inside its chip ("by you", "by white"); a card dealt face
    up was played by nobody. (Its VP go to its own faction, whoever played it.)"""
    who = entry.get("dispatcher")
    if who is None or who < 0 or not chip.plain.endswith("]"):
        return
    faction = view["factions"][who]
    mine = who == view["seat"] and not view.get("spectator")
    chip.right_crop(1)
    chip.append(" by ")
    chip.append("you" if mine else faction, style=faction_style(faction))
    chip.append("]")


def planet_header(planet: dict[str, Any], view: dict[str, Any],
                  names: tuple[str, ...] = ()) -> Text:
    text = Text()
    text.append(planet["name"], style="bold underline")
    text.append(f" {planet['vp']}VP", style="bold #e3b341")
    limit = planet["limit"] if planet["limit"] is not None else 6
    text.append(f"  {len(planet['cards'])}/{limit} cards  ", style="dim")
    rule = "all cards face up (Vision)" if planet["vision_face_up"] else planet["rule"]
    text.append(rule, style="italic #9ecbff")
    if planet["sentry"]:
        text.append("  Sentry here", style="bold magenta")
    for key, mark in (("strongest", "⚔ strongest "), ("favored", "♥ favored ")):
        seat = planet.get(key)
        if seat is not None:
            text.append("  " + mark, style="bold")
            text.append_text(seat_text(view, seat, names))
    return text


FRESH_STYLE = "on #3b3220"


def planet_cards(planet: dict[str, Any], view: dict[str, Any],
                 names: tuple[str, ...] = (), fresh: frozenset[int] = frozenset(),
                 width: int | None = None) -> Text:
    """The cards on a planet; those in ``fresh`` (the last move) are marked and lit. With
    ``width``, a line breaks between cards, never inside one's brackets (unless a card alone
    is wider than the line)."""
    if not planet["cards"]:
        text = Text("  no cards", style="dim")
    else:
        text = Text("  ")
        chips = []
        for entry in planet["cards"]:
            if entry["face_up"]:
                chip = card_chip(entry["label"], dim=entry["resolved"])
                played_by(chip, entry, view)
            else:
                chip = hidden_chip(entry, view, names)
            if entry["slot"] in fresh:
                chip = Text("▸", style="bold #e3b341").append_text(chip)
                chip.stylize(FRESH_STYLE)
            chips.append(chip)
        if width is None:
            text.append_text(Text(" ").join(chips))
        else:
            used = 2
            for index, chip in enumerate(chips):
                if index and used + 1 + chip.cell_len > width:
                    text.append("\n  ")
                    used = 2
                elif index:
                    text.append(" ")
                    used += 1
                text.append_text(chip)
                used += chip.cell_len
    if planet["discarded"]:
        text.append("  killed/discarded: ", style="red")
        text.append(", ".join(card_name(label) for label in planet["discarded"]),
                    style="red")
    return text


def phase_line(view: dict[str, Any], names: tuple[str, ...] = (),
               width: int | None = None) -> Text:
    """Round, phase, direction, first player, deck; in ``width`` columns the first player's
    name is left out when the whole line would not fit (the score line names everyone)."""
    if width is not None and names:
        full = phase_line(view, names)
        if full.cell_len > width:
            return phase_line(view, ())
    text = Text()
    text.append(f"Round {view['round']}", style="bold")
    text.append(" · ")
    text.append(PHASE_NAMES.get(view["phase"], view["phase"]), style="bold #e3b341")
    text.append(f" · passing {view['direction']} · first: ")
    text.append_text(seat_text(view, view["first_player"], names))
    text.append(f" · deck {view['deck_size']}")
    return text


def scores_line(view: dict[str, Any], names: tuple[str, ...] = ()) -> Text:
    parts = []
    for seat, score in enumerate(view["scores"]):
        part = seat_text(view, seat, names)
        part.append(f" {score['vp']}VP", style="bold")
        part.append(f" {score['casualties']}✝", style="red" if score["casualties"] else "dim")
        if view["has_prisoner"][seat]:
            part.append(" ⛓", style="dim")
        parts.append(part)
    return Text("  ").join(parts)


def claims_line(view: dict[str, Any], names: tuple[str, ...] = ()) -> Text | None:
    if not view["claims"]:
        return None
    text = Text("Claimed: ", style="dim")
    for claim in view["claims"]:
        text.append(f"{claim['event']} → ")
        text.append_text(seat_text(view, claim["seat"], names))
        # A claim made last round works during this one (Sentry, Messenger, Poison...).
        text.append(" (this round) " if claim["active"] else " (from next round) ",
                    style="dim")
    return text


def ghost_lines(view: dict[str, Any], names: tuple[str, ...] = ()) -> list[Text]:
    """The hand of each seat a ghost plays since its player handed it over: open, so that
    every remaining player sees what the ghost holds."""
    lines = []
    for seat, labels in view.get("ghost_hands") or ():
        text = Text("Ghost ", style="bold")
        text.append_text(seat_text(view, seat, names))
        text.append(" plays open-handed: ", style="bold")
        # Names only (the chips' numbers are in F1): the line stays short on a small screen.
        text.append_text(Text(", ").join(
            Text(card_name(label), style=faction_style(CARD_BY_LABEL[label].faction))
            if label else Text("?") for label in labels)
            if labels else Text("no cards in hand", style="dim"))
        lines.append(text)
    return lines


def prisoner_line(view: dict[str, Any]) -> Text | None:
    """Our own prisoner as a card (others' prisoners stay hidden: only ⛓ marks them)."""
    prisoner = view.get("prisoner")
    if not prisoner:
        return None
    text = Text("Your prisoner: ", style="bold")
    text.append_text(card_chip(prisoner["label"]))
    text.append(" (back in your hand next round)", style="dim")
    return text


def score_rows(view: dict[str, Any], names: tuple[str, ...] = ()) -> Text:
    """One line per player (for the side column of a wide terminal)."""
    text = Text("Scores", style="bold")
    for seat, score in enumerate(view["scores"]):
        text.append("\n")
        text.append_text(seat_text(view, seat, names))
        text.append(f"\n   {score['vp']} VP", style="bold")
        text.append(f"  {score['casualties']} casualt{'y' if score['casualties'] == 1 else 'ies'}",
                    style="red" if score["casualties"] else "dim")
        if view["has_prisoner"][seat]:
            text.append("  ⛓ prisoner", style="dim")
        text.append(f"  hand {view['hand_sizes'][seat]}", style="dim")
    return text


def option_text(option: str, view: dict[str, Any], names: tuple[str, ...] = ()) -> Text:
    """A decision option in words: card labels described, slots located, yes/no plain."""
    if ":" in option and option in CARD_BY_LABEL:
        return card_line(option)
    if option.isdigit():
        slot = int(option)
        for planet in view["planets"]:
            for entry in planet["cards"]:
                if entry["slot"] == slot:
                    text = Text(f"face-down card on {planet['name']}: ")
                    text.append_text(hidden_chip(entry, view, names))
                    return text
        return Text(f"card in slot {slot}")
    return Text(option_words(option), style="bold")
