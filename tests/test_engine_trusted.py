"""``apply_trusted`` (search rollouts) plays exactly as ``apply_in_place`` for legal actions,
and the memoised legal actions are equal values, not shared mutable state."""

from __future__ import annotations

from engine_helpers import random_states

from engine import CHANCE, Capture, Dispatch, Pick, apply_trusted, legal_actions, to_move
from engine.serialize import state_to_dict


def test_trusted_apply_reaches_the_same_state_as_the_checked_one() -> None:
    played = set()
    for seed, n in (("trusted/0", 2), ("trusted/1", 3), ("trusted/2", 4)):
        trusted = None
        for checked, action in random_states(seed, n):
            if trusted is None:
                trusted = checked.clone()
            else:  # the checked state has had the previous action applied since
                assert state_to_dict(trusted) == state_to_dict(checked), (seed, action.text())
            apply_trusted(trusted, action)
            played.add(type(action))
        assert state_to_dict(trusted) == state_to_dict(checked)  # the game's end
    assert {Pick, Dispatch, Capture} <= played


def test_legal_actions_listed_twice_are_equal_values() -> None:
    for s, _ in random_states("trusted/memo", 4):
        movers = to_move(s)
        if movers != [CHANCE]:
            first = legal_actions(s, movers[0])
            again = legal_actions(s.clone(), movers[0])
            assert first == again
            assert [a.text() for a in first] == [a.text() for a in again]
