"""The engine's step loop: resumable steps, pending decisions, chance, and reveals.

Processing between player actions is a sequence of named steps (``state.step``). A step may stop
the loop by asking for a decision, a chance outcome, or the reveal of cards this state does not
know (a network peer waits for the mental-poker deck to open them); the step is then re-run or
continued when the answer arrives. Steps are plain tuples, so a state can be cloned at any point.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Final

from engine.state import Decision, GameState, StepCall

Step = Callable[..., None]
STEPS: Final[dict[str, Step]] = {}


def step(name: str) -> Callable[[Step], Step]:
    def register(fn: Step) -> Step:
        STEPS[name] = fn
        return fn
    return register


def advance(s: GameState) -> None:
    """Run steps until the game needs input from a seat, chance or a reveal."""
    while s.step is not None and s.decision is None and s.chance is None and not s.awaiting:
        current = s.step
        s.step = None
        STEPS[current[0]](s, *current[1:])


def advance_until(s: GameState, stop: str) -> None:
    """``advance``, but stop before running the step named ``stop`` (for scenarios that look
    at a point between two steps, e.g. after Resolve Planets, before Clean Up)."""
    while s.step is not None and s.decision is None and s.chance is None and not s.awaiting:
        if s.step[0] == stop:
            return
        current = s.step
        s.step = None
        STEPS[current[0]](s, *current[1:])


def make_public(s: GameState, slots: Iterable[int]) -> bool:
    """Mark slots as seen by everyone; False (and ``awaiting`` set) until they are revealed.

    A state that does not know every card (a network peer) waits for the reveal of each newly
    public slot even when it knows the card itself: every peer must stop at the same point.
    """
    missing = []
    for slot in slots:
        if s.known[slot] != s.all_mask:
            s.known[slot] = s.all_mask
            if not s.omniscient:
                missing.append(slot)
        elif s.card_of[slot] < 0:
            missing.append(slot)
    if missing:
        s.awaiting = missing
        return False
    return True


def ask(s: GameState, seat: int, kind: str, options: Iterable[str], default: str, prompt: str,
        then: StepCall) -> None:
    """Ask ``seat`` to choose; a single option is taken at once (never asked)."""
    opts = tuple(options)
    if len(opts) == 1:
        s.step = (*then, opts[0])
        return
    s.decision = Decision(seat, kind, opts, default, prompt, then)


def seat_name(s: GameState, seat: int) -> str:
    return s.config.factions[seat]
