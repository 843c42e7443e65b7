"""What the human may do now, derived only from the legal action list the session gives.

The UI never builds an action on its own: every choice it offers is a step down a tree whose
leaves are the legal actions, so an illegal action cannot be offered.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine import Action, Capture, Choose, Discard, Dispatch, Pick


@dataclass(frozen=True)
class Destination:
    """Where a card can go: a planet (index), a prisoner capture, or a forced discard."""

    kind: str  # "planet" | "capture" | "discard"
    planet: int = -1


def prompt_kind(legal: Sequence[Action]) -> str:
    """"draft", "dispatch" or "decision" (the legal list never mixes them)."""
    first = legal[0]
    if isinstance(first, Pick):
        return "draft"
    if isinstance(first, Choose):
        return "decision"
    return "dispatch"


class DraftChoices:
    def __init__(self, legal: Sequence[Action]) -> None:
        self.picks = [a for a in legal if isinstance(a, Pick)]
        self.count = len(self.picks[0].slots) if self.picks else 0
        self.slots: list[int] = []
        for pick in self.picks:
            for slot in pick.slots:
                if slot not in self.slots:
                    self.slots.append(slot)

    def action_for(self, chosen: Sequence[int]) -> Pick | None:
        """The legal pick of exactly these slots, if there is one."""
        wanted = sorted(chosen)
        return next((p for p in self.picks if sorted(p.slots) == wanted), None)


class DispatchChoices:
    def __init__(self, legal: Sequence[Action]) -> None:
        self.legal = [a for a in legal if isinstance(a, Dispatch | Capture | Discard)]

    def cards(self) -> list[int]:
        """Hand slots that can be played somehow, in hand order."""
        out: list[int] = []
        for action in self.legal:
            if action.slot not in out:
                out.append(action.slot)
        return out

    def destinations(self, slot: int) -> list[Destination]:
        out: list[Destination] = []
        for action in self.legal:
            if action.slot != slot:
                continue
            if isinstance(action, Dispatch):
                dest = Destination("planet", action.planet)
            elif isinstance(action, Capture):
                dest = Destination("capture")
            else:
                dest = Destination("discard")
            if dest not in out:
                out.append(dest)
        return out

    def claims(self, slot: int, planet: int) -> list[str]:
        return [a.claim for a in self.legal
                if isinstance(a, Dispatch) and a.slot == slot and a.planet == planet]

    def action_for(self, slot: int, dest: Destination, claim: str | None = None) -> Action:
        for action in self.legal:
            if action.slot != slot:
                continue
            if dest.kind == "capture" and isinstance(action, Capture):
                return action
            if dest.kind == "discard" and isinstance(action, Discard):
                return action
            if (dest.kind == "planet" and isinstance(action, Dispatch)
                    and action.planet == dest.planet and (claim is None or action.claim == claim)):
                return action
        raise ValueError(f"no legal action for slot {slot} to {dest} claiming {claim}")


def decision_options(legal: Sequence[Action]) -> list[Choose]:
    return [a for a in legal if isinstance(a, Choose)]
