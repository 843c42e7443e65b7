#!/usr/bin/env python3
"""An example Solstice bot program speaking the JSON-lines bot protocol (protocol.md, "Bot
protocol"). Plain Python, standard library only: copy it and change ``choose``.

Run it against the built-in bots:

    solstice tournament --bots 'greedy,cmd:python3 bots/examples/example_bot.py' --games 20

Strategy (simple, but far better than random):
- draft: take the own card worth most (Duchess first), else the best event, else deny the
  opponents' Duchesses;
- dispatch: play a scoring card where it will likely score (Duchess to the planet worth most,
  Marshal/Elder where the faction leads in strength, Diplomat where it leads in favor, Assassin
  where an enemy Duchess was disclosed); dump opponents' cards where they cannot score alone;
- decisions: prefer the option that kills or scores ("yes", a card to kill) over doing nothing.
"""

from __future__ import annotations

import json
import random
import sys
from typing import Any

# A JSON object of the bot protocol, as json.loads gives it.
Message = dict[str, Any]

PROTOCOL = 1
FACTIONS = ("black", "white", "blue", "green")
# The cards' numbers (`solstice rules cards` prints them): type -> (strength, favor, VP), where
# VP is what the card scores (a Duchess: its bonus beside the planet's VP; an Elder: if
# strongest, and as much again if favored). The factions differ: each has one signature card
# worth 3 VP, and green's Diplomat is also S0 F3 where the others' are S1 F1.
NUMBERS = {"Legions": (2, 2, 0), "Diplomat": (1, 1, 2), "Assassin": (1, 0, 2),
           "Duchess": (0, 1, 1), "Marshal": (1, 0, 2), "Elder": (1, 1, 1)}
SIGNATURE = {"black": ("Assassin", (1, 0, 3)), "white": ("Duchess", (0, 1, 3)),
             "blue": ("Marshal", (1, 0, 3)), "green": ("Diplomat", (0, 3, 3))}
CARDS = {f: {**NUMBERS, SIGNATURE[f][0]: SIGNATURE[f][1]} for f in FACTIONS}
OWN_VALUE = {"Duchess": 6, "Diplomat": 3, "Marshal": 3, "Legions": 3, "Elder": 2, "Assassin": 2}
GOOD_EVENTS = {"Whispered Secrets": 3, "Medical Team": 2, "Messenger": 2, "Sentry": 2,
               "Hidden Base": 2, "Mercenaries": 2, "Imposter": 2, "Transport": 1, "Famine": 1}
NEUTRAL_STRENGTH = {"Atmospheric Storm": 3, "Quagmire": 2}  # strongest must beat these too


def send(message: Message) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def label_of(view: Message, slot: int) -> str | None:
    label: str | None = view["known"].get(str(slot))
    return label


def draft_score(label: str | None, faction: str) -> float:
    if label is None:
        return 0
    owner, _, name = label.partition(":")
    if owner == "event":
        return GOOD_EVENTS.get(name, 0.5)
    if owner == faction:  # worth more as the signature card: VP above the common value
        return OWN_VALUE.get(name, 1) + CARDS[faction][name][2] - NUMBERS[name][2]
    return 2.5 if name == "Duchess" else 0.5  # denying an opponent's Duchess


def planet_standing(view: Message, p: int, seat: int) -> tuple[int, int]:
    """(my strength - best other, my favor - best other) from the face-up or known cards;
    a neutral source (Atmospheric Storm, Quagmire) counts as another faction's strength."""
    factions = view["factions"]
    strength = [0] * len(factions)
    favor = [0] * len(factions)
    neutral = 0
    for card in view["planets"][p]["cards"]:
        label = card["label"]
        if not label:
            continue
        owner, _, name = label.partition(":")
        if owner == "event":
            neutral = max(neutral, NEUTRAL_STRENGTH.get(name, 0))
            continue
        k = factions.index(owner)
        card_strength, card_favor, _ = CARDS[owner][name]
        strength[k] += card_strength
        favor[k] += card_favor
    others = [i for i in range(len(factions)) if i != seat] or [seat]
    return (strength[seat] - max([neutral] + [strength[i] for i in others]),
            favor[seat] - max(favor[i] for i in others))


def dispatch_score(view: Message, seat: int, slot: int, p: int) -> float:
    label = label_of(view, slot)
    planet = view["planets"][p]
    faction = view["factions"][seat]
    if label is None:
        return 0
    owner, _, name = label.partition(":")
    s_lead, f_lead = planet_standing(view, p, seat)
    crowd = len(planet["cards"])
    if owner == "event":
        return 1.0 if name in ("Whispered Secrets", "Hidden Base") else 0.2
    if owner != faction:
        # An opponent's card adds to their strength and favor: bury it where we lead by the
        # most (it is least likely to make them strongest or favored there).
        return -2 + 0.3 * (s_lead + f_lead) - 0.1 * crowd
    duchess_claimed = any(c["claim"] == "Duchess" or (c["label"] or "").endswith(":Duchess")
                          for c in planet["cards"] if c["dispatcher"] != seat)
    if name == "Duchess":
        return float(planet["vp"]) + f_lead - (3 if duchess_claimed else 0)
    if name == "Assassin":
        return 3 if duchess_claimed else -1
    if name in ("Marshal", "Elder"):
        return 1.5 + s_lead
    if name == "Diplomat":
        return 1.5 + f_lead
    return 1 + 0.5 * s_lead  # Legions: supports whatever else is here


def choose(view: Message, legal: list[str], rng: random.Random) -> str:
    seat = view["seat"]
    faction = view["factions"][seat]
    scored: list[tuple[float, str]] = []
    for text in legal:
        words = text.split()
        verb = words[1]
        if verb == "pick":
            score = sum(draft_score(label_of(view, int(x)), faction) for x in words[2:])
        elif verb == "dispatch":
            score = dispatch_score(view, seat, int(words[2]), int(words[3]))
        elif verb == "capture":
            label = label_of(view, int(words[2])) or ""
            # Capturing an opponent's Duchess keeps it from scoring this round.
            score = 0.5 if label.endswith(":Duchess") and not label.startswith(faction) \
                else 0.3 * draft_score(label, faction) - 1
        elif verb == "choose":
            option = " ".join(words[2:])
            # Killing an opponent's card scores or hurts them; never kill our own.
            if option in ("yes", "reveal"):
                score = 1
            elif ":" in option:
                score = -5 if option.startswith(faction + ":") else 2
            else:
                score = 0
        else:
            score = 0
        scored.append((score + rng.random() * 0.01, text))  # random tie-break
    return max(scored)[1]


def main() -> None:
    rng = random.Random(0)
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            rng = random.Random(message.get("seed", "0"))
            send({"type": "ready", "name": "example", "protocol": PROTOCOL})
        elif kind == "decide":
            action = choose(message["view"], message["legal"], rng)
            send({"type": "action", "id": message["id"], "action": action})
        elif kind == "quit":
            break
        # "end" and unknown message types need no answer.


if __name__ == "__main__":
    main()
