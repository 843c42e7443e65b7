"""The session's notices as the log pane says them: the headless log's clean lines, in the
players' names and factions (never "peer 3", never an action's wire text).

Shared by the player's UI (``ui.app.netgame``) and the spectator's (``ui.app.watchgame``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from engine import Action
from engine.state import GameState
from p2p.errors import CheatDetected, RemoteProtocolError
from p2p.net.notices import GameEvent
from p2p.session.events import ClockRanOut, DecisionClock, SeatHandedOver
from ui.app.replay_data import describe_move

PHASE_WORDS = {"draft": "the draft", "dispatch": "the dispatch", "resolve": "the resolution",
               "over": "the end"}


def handover_line(faction: str, name: str, round_number: int, phase: str,
                  mine: bool = False) -> str:
    """A seat handed over, said the moment it is known: who, which faction, when."""
    when = f"in round {round_number}" + (f", during {PHASE_WORDS[phase]}"
                                          if phase in PHASE_WORDS else "")
    if mine:
        return (f"You handed your seat over {when}; the game goes on without you (the ghost "
                f"plays {faction}, open-handed)")
    who = f"{name} ({faction})" if name else faction
    return (f"{who} handed the seat over {when} and left; the ghost plays {faction} from now "
            "on, open-handed (every remaining player sees its cards)")


def ran_out_line(state: GameState | None, action: Action) -> str:
    """Our clock ran out and the default was played: the move in words."""
    move = "the first choice"
    if state is not None:
        # A state that moved on already may not name the cards: the plain words do then.
        with contextlib.suppress(IndexError, KeyError, ValueError, AttributeError):
            move = describe_move(state, action)[0]
    return f"Your time ran out: played for you by default: {move}"


def clean_text(event: GameEvent, state: GameState | None,
               seat_label: Callable[[int], tuple[str, str]]) -> str | None:
    """The log line for ``event`` when it needs words of its own (None: its text, as it is, or
    ``""``: no line at all). ``seat_label(seat)``: (faction, player name)."""
    if isinstance(event, DecisionClock):
        return ""  # one per decision, in peer numbers: the status line shows the clocks
    if isinstance(event, ClockRanOut):
        return ran_out_line(state, event.action)
    if isinstance(event, SeatHandedOver):
        faction, name = seat_label(event.seat)
        phase = state.phase.value if state is not None else ""
        return handover_line(faction, name, event.round, phase, event.mine)
    return None


# What to do next, after the host's own words (a joiner or a watcher meets these).
NEXT_STEP = {
    "the host closed the lobby": "ask the host to open a new game, then join it (solstice "
                                 "join lists the games on the LAN)",
    "the host closed the connection": "the host's program stopped or lost the network; when "
                                      "it is back, join or watch again",
}


def error_words(exc: BaseException) -> str:
    """One line for a failed game, in words: the host's errors without "seat 0:" (the host
    is seat 0 of the lobby), with what to do next where we know it."""
    if isinstance(exc, RemoteProtocolError) and not isinstance(exc, CheatDetected) \
            and exc.seat == 0 and "host" in exc.reason:
        text = exc.reason
        for start, step in NEXT_STEP.items():
            if text.startswith(start):
                return f"{text}: {step}"
        return text
    return str(exc) or type(exc).__name__
