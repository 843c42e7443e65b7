"""The engine's events: one typed, frozen value per log line, whose text is the log line.

The log's sentences are what bots see in their view and what scenario outputs and test vectors
hold, so the events must render them byte for byte as before they existed: the pin below is the
hash of the logs of 120 seeded games taken from the engine before it emitted events.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections import deque

import pytest

from engine import events as ev
from engine.resolution import _scoring_card
from tests.engine_helpers import random_states

# sha256 over "\n".join(log) + b"\0" of each game below, computed with the engine as it was
# before events (every line then written by hand at its emission site).
LOGS_BEFORE_EVENTS = "d1ecf45ce25d9b3f401554c95bec284d79faa28239f084f01288817a2215e332"


def final_state(seed: str, n: int, keep_log: bool):
    """The state ``random_states`` leaves at the end (it is live: the last one yielded)."""
    return deque(random_states(seed, n, keep_log=keep_log), maxlen=1)[0][0]


def finished_games():
    for n in (2, 3, 4):
        for g in range(40):
            yield final_state(f"events{n}/{g}", n, keep_log=True)


def test_the_log_is_the_events_text_byte_for_byte_as_before():
    digest = hashlib.sha256()
    kinds: set[type] = set()
    for s in finished_games():
        assert [e.text for e in s.events] == s.log
        kinds |= {type(e) for e in s.events}
        digest.update("\n".join(s.log).encode() + b"\0")
    assert digest.hexdigest() == LOGS_BEFORE_EVENTS
    # The games go through nearly every kind (the rare ones come up in the sweeps).
    assert {ev.Scored, ev.Killed, ev.Healed, ev.Captured, ev.PlanetOpened, ev.RoundScores,
            ev.GameOver, ev.RoundStarted, ev.Claimed, ev.ResolveStarted} <= kinds


def test_events_are_frozen_values():
    event = ev.Scored("white", 3, "Elder", "Elder, favored")
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.vp = 4  # type: ignore[misc]
    assert event == ev.Scored("white", 3, "Elder", "Elder, favored")
    assert not hasattr(event, "__dict__")  # slots


def test_a_score_names_its_card_and_the_game_over_its_reason():
    for s in finished_games():
        for event in s.events:
            if isinstance(event, ev.Scored):
                assert event.reason.startswith(event.card)
            if isinstance(event, ev.GameOver):
                assert event.reached_vp or event.casualty_limit
                assert event.winner in event.factions
    assert _scoring_card("Medical Team, no casualties") == "Medical Team"  # not "Medical"


def test_no_log_no_events():
    s = final_state("events-nolog", 3, keep_log=False)
    assert s.events == [] and s.log == []
