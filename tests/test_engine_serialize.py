"""Serialization (engine/serialize.py): states round-trip; the public hash ignores secrets."""

from __future__ import annotations

import json

import pytest
from engine_helpers import dispatch, draft, game, hand, play_out, random_states

from engine.canonical import canonical_json
from engine.draft import undo_picks
from engine.randomness import RandomStream
from engine.serialize import public_hash, state_bytes, state_from_dict, state_to_dict
from engine.view import redact


def sampled(n: int, games: int, every: int):
    for g in range(games):
        for i, (s, _) in enumerate(random_states(f"ser{n}/{g}", n)):
            if i % every == 0:
                yield s


@pytest.mark.parametrize("n", [2, 3, 4])
def test_a_state_round_trips_through_its_dict_and_canonical_json(n: int) -> None:
    count = 0
    for s in sampled(n, 10, 4):
        data = state_to_dict(s)
        back = state_from_dict(json.loads(canonical_json(data)))
        assert state_to_dict(back) == data
        assert state_bytes(back) == state_bytes(s)
        count += 1
    assert count > 100


@pytest.mark.parametrize("n", [2, 3, 4])
def test_a_restored_state_plays_on_exactly_like_the_original(n: int) -> None:
    for s in sampled(n, 4, 17):
        copy = state_from_dict(state_to_dict(s), keep_log=False)
        a = play_out(s.clone(), RandomStream("same"))
        b = play_out(copy, RandomStream("same"))
        assert state_to_dict(a) == state_to_dict(b)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_public_hash_is_equal_for_redactions_to_different_seats(n: int) -> None:
    for s in sampled(n, 6, 5):
        h = public_hash(s)
        assert {public_hash(redact(s, seat)) for seat in range(n)} == {h}
        assert public_hash(redact(s, None)) == h


def test_public_hash_changes_with_public_information() -> None:
    s = game(n=3)
    draft(s)
    before = public_hash(s)
    dispatch(s, 0, hand(s, 0)[0], "Capital")
    assert public_hash(s) != before


def test_public_hash_ignores_a_secret_card() -> None:
    s = game(n=3)
    other = s.clone()
    # swap two cards in seat 0's hand and seat 1's hand: nobody else can tell
    a, b = other.hands[0][0], other.hands[1][0]
    other.card_of[a], other.card_of[b] = other.card_of[b], other.card_of[a]
    assert public_hash(other) == public_hash(s)
    assert state_bytes(other) != state_bytes(s)


def test_state_bytes_are_canonical_json() -> None:
    s = game(n=4)
    raw = state_bytes(s)
    assert raw == canonical_json(json.loads(raw))


def _hash_by_definition(s) -> str:
    import hashlib

    s = s.clone()
    undo_picks(s)  # the pending picks count as not yet made
    public = state_to_dict(s)
    for name in ("card_of", "omniscient", "picks"):
        public.pop(name)
    return hashlib.sha256(b"solstice/state/v1\x00" + canonical_json(public)).hexdigest()


@pytest.mark.parametrize("n", [2, 4])
def test_public_hash_is_the_hash_of_the_canonical_public_dict_in_every_state(n: int) -> None:
    """The fast hash (per-slot lists' text reused while unchanged) gives the defined bytes."""
    for s in sampled(n, 4, 1):
        assert public_hash(s) == _hash_by_definition(s)


def test_public_hash_sees_a_per_slot_list_changed_in_place_and_back() -> None:
    s = game(n=3)
    draft(s)
    before = public_hash(s)
    s.known[0] ^= 1  # the same list object, one entry changed
    assert public_hash(s) == _hash_by_definition(s) != before
    s.known[0] ^= 1
    assert public_hash(s) == before
