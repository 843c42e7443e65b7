"""Commitments: binding, hiding by salt, domain separation, blame on a bad opening."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.canonical import canonical_json
from p2p.crypto.commitments import Opening, check_opening, commit, verify
from p2p.errors import CheatDetected, CommitmentMismatch, MalformedMessage

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


@given(json_values, st.text(max_size=20))
def test_commit_then_verify(value, domain):
    commitment, opening = commit(value, domain)
    assert len(commitment) == 32
    assert verify(commitment, opening)
    check_opening(0, commitment, opening, domain)


@given(json_values, json_values)
def test_other_value_does_not_open(value, other):
    commitment, opening = commit(value, "d")
    if canonical_json(other) != canonical_json(value):
        assert not verify(commitment, Opening("d", other, opening.salt))


@given(json_values)
def test_fresh_salt_each_time(value):
    first, _ = commit(value, "d")
    second, _ = commit(value, "d")
    assert first != second  # two 32-byte salts colliding is 2**-256


def test_encoding_is_the_documented_one():
    commitment, opening = commit({"pick": 3}, "solstice/draft-pick/v1")
    body = canonical_json(["solstice/draft-pick/v1", {"pick": 3}, opening.salt.hex()])
    assert commitment == hashlib.sha256(b"solstice/commit/v1\x00" + body).digest()


def test_wrong_value_blames_the_seat():
    commitment, opening = commit(5, "pick")
    with pytest.raises(CommitmentMismatch) as info:
        check_opening(2, commitment, Opening("pick", 6, opening.salt))
    assert info.value.seat == 2
    assert isinstance(info.value, CheatDetected)
    assert info.value.evidence["commitment"] == commitment.hex()


def test_other_domain_is_refused_even_if_it_verifies():
    commitment, opening = commit(5, "seed")
    assert verify(commitment, opening)
    with pytest.raises(CommitmentMismatch) as info:
        check_opening(1, commitment, opening, domain="pick")
    assert info.value.seat == 1


def test_wrong_salt_blames_the_seat():
    commitment, _ = commit("x", "d")
    with pytest.raises(CommitmentMismatch) as info:
        check_opening(3, commitment, Opening("d", "x", bytes(32)))
    assert info.value.seat == 3


def test_non_canonical_value_never_verifies():
    commitment, opening = commit(1, "d")
    assert not verify(commitment, Opening("d", 1.0, opening.salt))
    assert not verify(commitment, Opening("d", 1, opening.salt[:31]))


def test_opening_round_trip_and_malformed():
    _, opening = commit([1, "a"], "d")
    assert Opening.from_dict(0, opening.to_dict()) == opening
    bad = opening.to_dict() | {"salt": opening.salt.hex().upper()}
    with pytest.raises(MalformedMessage) as info:
        Opening.from_dict(1, bad)
    assert info.value.seat == 1
