"""The game's events and the session's lines in a player's words.

An engine event (``engine.events``) is worded here from its fields (``describe``): card names
instead of labels (``white:Elder`` -> "white Elder"), "the white player scores" rather than
"white scores" (which read like "the white Elder scored"). Nothing here reads the engine's
sentences. ``readable`` smooths other text that names cards by label: decision prompts, the
audit summary, the session's notes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from engine import events as ev
from engine.cards import CARDS
from engine.disclosure import describe_claim

# Longest labels first, so that no label is replaced inside a longer one.
_LABELS = sorted(((c.label, c.name if c.is_event else f"{c.faction} {c.name}") for c in CARDS),
                 key=lambda pair: -len(pair[0]))
_LABEL_RE = re.compile("|".join(re.escape(label) for label, _ in _LABELS))
_NAME_OF = dict(_LABELS)
_ONE_ROUNDS = re.compile(r"\b1 rounds\b")
_A_VOWEL = re.compile(r"\ba ([AEIOU])")


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
    """A line that is no engine event (a decision's prompt, the audit's summary, the
    session's notes) with card labels as names and "1 rounds" as "1 round"."""
    line = _LABEL_RE.sub(lambda m: _NAME_OF[m.group(0)], line)
    line = _ONE_ROUNDS.sub("1 round", line)
    return _A_VOWEL.sub(r"an \1", line)


def _scorer(faction: str) -> str:
    # "white scores 3 VP (Elder, favored)" read like "the white Elder scored": the faction as
    # the player it is.
    return f"the {faction} player"


def _opened(e: ev.PlanetOpened) -> str:
    if not e.cards:
        return f"{e.planet}: no cards"
    return (f"{e.planet}: " + ", ".join(card_name(c) if c else "?" for c in e.cards)
            + f"; strongest {e.strongest or 'none'}, favored {e.favored or 'none'}")


def _scored(e: ev.Scored) -> str:
    if isinstance(e, ev.SecretsScored):
        return f"Whispered Secrets: {_scorer(e.faction)} scores {e.vp} VP"
    return f"{_scorer(e.faction)} scores {e.vp} VP ({e.reason})"


def _face_down(e: ev.DispatchedFaceDown) -> str:
    shown = "" if e.claim == "none" else f", disclosing {disclosed(e.claim)}"
    return f"{e.faction} dispatches a card face down to {e.planet}{shown}"


def _killed(e: ev.Killed) -> str:
    casualty = "" if e.casualty is None else f"; {e.casualty} takes a casualty"
    return f"{card_name(e.card)} is killed{casualty}"


def _round_scores(e: ev.RoundScores) -> str:
    return f"Scores after round {e.round}: " + ", ".join(
        f"{f} {vp} VP" + (f" ({c} casualt{'y' if c == 1 else 'ies'})" if c else "")
        for f, vp, c in zip(e.factions, e.vp, e.casualties, strict=True))


def _game_over(e: ev.GameOver) -> str:
    return ("Game over: " + ", ".join(f"{f} {score}" for f, score in
                                      zip(e.factions, e.final, strict=True))
            + f"; {e.winner} wins")


_WORDS: dict[type, Callable[[Any], str]] = {
    ev.RoundStarted: lambda e: f"Round {e.round}: draft passes {e.direction}",
    ev.DraftOver: lambda e: f"Draft over: {e.leftovers} card(s) left over",
    ev.LeftoversPlaced: lambda e: f"{e.faction} places the leftovers (Prophecy)",
    ev.DealtFaceUp: lambda e: f"{card_name(e.card)} is dealt face up to {e.planet}",
    ev.DispatchStarted: lambda e: f"Dispatch: {e.first} plays first",
    ev.DispatchedFaceDown: _face_down,
    ev.DispatchedFaceUp: lambda e: f"{e.faction} dispatches {card_name(e.card)} face up to "
                                   f"{e.planet}",
    ev.Captured: lambda e: f"{e.faction} captures a prisoner",
    ev.DiscardedForRoom: lambda e: f"{e.faction} cannot play and discards a card",
    ev.VisionFaceUp: lambda e: f"Vision: all future cards on {e.planet} are played face up",
    ev.Revealed: lambda e: f"Revealed on {e.planet}: {card_name(e.card)}",
    ev.Scored: _scored,
    ev.SecretsScored: _scored,
    ev.LostVP: lambda e: f"Famine: {e.faction} loses {e.vp} VP",
    ev.Killed: _killed,
    ev.KillAbsorbed: lambda e: "Honor Guards absorbs the kill",
    ev.Sacrificed: lambda e: f"{e.faction} sacrifices its Legions",
    ev.MercenariesUsed: lambda e: f"{e.faction} uses Mercenaries on {card_name(e.target)}",
    ev.Healed: lambda e: f"{e.card}: {e.faction} heals a casualty",
    ev.MartyrKilled: lambda e: f"Martyr: {e.faction} kills its prisoner {card_name(e.card)}; "
                               f"{e.casualty} takes a casualty",
    ev.PrisonerAdded: lambda e: f"{e.event}: {e.faction} adds its prisoner "
                                f"{card_name(e.card)} to {e.planet}",
    ev.ResolveStarted: lambda e: "Resolve planets",
    ev.SentryPlaced: lambda e: f"{e.faction} places the Sentry on {e.planet}",
    ev.PlanetOpened: _opened,
    ev.Claimed: lambda e: f"{e.faction} claims {e.card}",
    ev.AssassinsTie: lambda e: "Assassins tie for strongest: no more Assassins resolve",
    ev.SiegeStopsDuchess: lambda e: "Planetary Siege: the Duchess cannot score",
    ev.Bombarded: lambda e: "Orbital Bombardment: no more cards resolve here",
    ev.Transported: lambda e: (f"Transport discards {card_name(e.card)}" if e.to is None
                               else f"Transport moves {card_name(e.card)} to {e.to}"),
    ev.RoundScores: _round_scores,
    ev.GameOver: _game_over,
    ev.ScriptedChoice: lambda e: f"{e.faction} chooses {e.answer} ({e.kind})",
}


def describe(event: ev.Event) -> str:
    """An engine event in the player's words (from its fields, never from its log text)."""
    words = _WORDS.get(type(event))
    if words is None:  # an event kind this UI does not know yet: its log sentence, smoothed
        return readable(event.text)
    return words(event)
