"""``apply_trusted`` (search rollouts) plays exactly as ``apply_in_place`` for legal actions,
and the memoised legal actions are equal values, not shared mutable state."""

from __future__ import annotations

import copy

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


def test_a_snapshot_is_the_state_as_it_was_sharing_only_unchanged_lists() -> None:
    """``GameState.snapshot`` (a record's trail): the same values as ``clone`` at every state
    of random games, unchanged by the game playing on, and sharing a list with the snapshot
    before only where the two are equal."""
    shared = 0
    for seed, n in (("snapshot/0", 2), ("snapshot/1", 4)):
        trail = []  # (snapshot, its state's dict then)
        prev = None
        for s, _ in random_states(seed, n):
            snap = s.snapshot(prev)
            assert state_to_dict(snap) == state_to_dict(s.clone())
            if prev is not None:
                for name in ("card_of", "known", "face_up", "vp", "deck", "claims"):
                    mine, before = getattr(snap, name), getattr(prev, name)
                    assert (mine is before) == (mine == before)
                    shared += mine is before
                for p, cards in enumerate(snap.planets):
                    assert (cards is prev.planets[p]) == (cards == prev.planets[p])
                    assert cards is not s.planets[p]  # never the live state's own list
            assert snap.card_of is not s.card_of
            trail.append((snap, copy.deepcopy(state_to_dict(s))))  # the dict shares lists
            prev = snap
        for snap, then in trail:  # the live state played on: every snapshot is as it was
            assert state_to_dict(snap) == then
    assert shared > 100
