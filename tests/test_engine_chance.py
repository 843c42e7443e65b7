"""Chance is an input: ``random_chance`` draws the pending outcome from the caller's stream."""

from __future__ import annotations

import pytest
from engine_helpers import game

from engine import (
    CHANCE,
    NotWaitingError,
    RandomStream,
    apply_in_place,
    legal_actions,
    random_chance,
    to_move,
)


def test_the_outcome_is_a_permutation_drawn_from_the_callers_stream() -> None:
    s = game()
    while to_move(s) != [CHANCE]:  # draft until the leftovers wait for their shuffle
        for seat in to_move(s):
            apply_in_place(s, legal_actions(s, seat)[0])
    kind, k = s.chance or ("", 0)
    assert kind == "leftovers" and k == 3
    outcome = random_chance(s, RandomStream("seed"))
    assert outcome.perm == tuple(RandomStream("seed").permutation(k))
    assert sorted(outcome.perm) == [0, 1, 2]


def test_asking_when_no_chance_is_pending_is_an_error() -> None:
    with pytest.raises(NotWaitingError):
        random_chance(game(), RandomStream("seed"))
