"""The engine's and session's log lines in a player's words.

The engine logs card labels (``white:Elder``, ``event:Famine``) and a few template seams
("Desert: ; strongest none", "1 rounds"); the UI shows every such line through ``readable``.
"""

from __future__ import annotations

import re

from engine.cards import CARDS, FACTIONS
from engine.disclosure import describe_claim

# Longest labels first, so that no label is replaced inside a longer one.
_LABELS = sorted(((c.label, c.name if c.is_event else f"{c.faction} {c.name}") for c in CARDS),
                 key=lambda pair: -len(pair[0]))
_LABEL_RE = re.compile("|".join(re.escape(label) for label, _ in _LABELS))
_NAME_OF = dict(_LABELS)
_EMPTY_PLANET = re.compile(r"^([A-Z][\w' ]*): ; strongest none, favored none$")
_ONE_ROUNDS = re.compile(r"\b1 rounds\b")
_A_VOWEL = re.compile(r"\ba ([AEIOU])")
_DISCLOSED = re.compile(r", disclosed as (\w+)$")
# "white scores 3 VP (Elder, favored)" read like "the white Elder scored": the faction as the
# player it is ("the white player scores").
_SCORER = re.compile(rf"^({'|'.join(FACTIONS)}) scores ")


def card_name(label: str) -> str:
    """``white:Elder`` -> ``white Elder``; ``event:Famine`` -> ``Famine``."""
    return _NAME_OF.get(label, label)


# A decision's options in words (the engine's option names are for the protocol).
OPTION_WORDS = {
    "yes": "Yes", "no": "No", "done": "Done (move no more cards)",
    "reveal": "Reveal all cards here now",
    "face_up": "All future cards here are played face up",
}


def disclosed(claim: str) -> str:
    """What a face-down dispatch disclosed, after "disclosing": never "disclosing face
    down, nothing disclosed"."""
    return "nothing" if claim == "none" else describe_claim(claim)


def option_words(option: str) -> str:
    return OPTION_WORDS.get(option, option)


def readable(line: str) -> str:
    """One log line with card labels as names and the template seams smoothed."""
    empty = _EMPTY_PLANET.match(line)
    if empty:
        return f"{empty.group(1)}: no cards"
    line = _LABEL_RE.sub(lambda m: _NAME_OF[m.group(0)], line)
    line = _SCORER.sub(r"the \1 player scores ", line)
    line = _ONE_ROUNDS.sub("1 round", line)
    line = _DISCLOSED.sub(lambda m: ", disclosing " + disclosed(m.group(1)), line)
    return _A_VOWEL.sub(r"an \1", line)
