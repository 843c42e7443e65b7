"""Canonical JSON: the byte form that every hash and signature in the project covers."""

from __future__ import annotations

import re
from enum import StrEnum

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.canonical import CanonicalEncodingError, canonical_json, parse_json

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda children: st.lists(children) | st.dictionaries(st.text(), children),
    max_leaves=30,
)


def test_keys_are_sorted_and_there_is_no_whitespace() -> None:
    assert canonical_json({"b": [1, 2], "a": {"d": None, "c": True}}) == \
        b'{"a":{"c":true,"d":null},"b":[1,2]}'


def test_text_is_utf8_not_escaped() -> None:
    assert canonical_json({"name": "Sölstice"}) == '{"name":"Sölstice"}'.encode()


@pytest.mark.parametrize(("value", "where"), [
    ({"a": 1.5}, "$.a"),
    ({"a": [1, {"b": 2.0}]}, "$.a[1].b"),
    ([float("nan")], "$[0]"),
])
def test_floats_are_refused_naming_where(value: object, where: str) -> None:
    with pytest.raises(CanonicalEncodingError, match=rf"^{re.escape(where)}:"):
        canonical_json(value)


@pytest.mark.parametrize("value", [{1: "x"}, {"a": b"bytes"}, {"a": object()}, {"a": {1, 2}}])
def test_other_types_are_refused(value: object) -> None:
    with pytest.raises(CanonicalEncodingError):
        canonical_json(value)


def test_str_enums_encode_as_their_value() -> None:
    class Colour(StrEnum):
        BLUE = "blue"

    assert canonical_json({"c": Colour.BLUE}) == b'{"c":"blue"}'


def test_parsing_refuses_floats_so_a_decoded_value_re_encodes_identically() -> None:
    with pytest.raises(CanonicalEncodingError):
        parse_json(b'{"a":1.0}')


@given(json_values)
def test_encoding_round_trips_byte_for_byte(value: object) -> None:
    data = canonical_json(value)
    assert canonical_json(parse_json(data)) == data
