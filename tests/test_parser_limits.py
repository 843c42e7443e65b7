"""The bounded parser's limits, one rule at a time (protocol.md, "Parser limits")."""

from __future__ import annotations

import time

import pytest

from engine.canonical import (
    CONTROL_LIMITS,
    FRAME_LIMITS,
    JSONLimits,
    JSONRefused,
    canonical_json,
    check_limits,
    parse_json,
)


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_nesting_up_to_the_limit_is_taken_and_one_more_level_is_refused() -> None:
    assert parse_json(nested(32)) is not None
    with pytest.raises(JSONRefused, match="nested deeper than 32"):
        parse_json(nested(33))
    assert parse_json('{"a":' * 32 + "0" + "}" * 32) is not None


def test_brackets_inside_strings_are_text_not_nesting() -> None:
    assert parse_json('["' + "[" * 1000 + '"]') == ["[" * 1000]
    assert parse_json('["\\"[[[[", "]]"]') == ['"[[[[', "]]"]


def test_unbalanced_brackets_are_refused_before_json_recurses_into_them() -> None:
    started = time.perf_counter()
    with pytest.raises(JSONRefused):
        parse_json(b"[" * 1_000_000)
    assert time.perf_counter() - started < 1.0


def test_the_number_of_values_is_bounded() -> None:
    small = JSONLimits(max_bytes=1 << 20, max_values=10)
    assert parse_json("[1,2,3,4,5,6,7,8]", small) == [1, 2, 3, 4, 5, 6, 7, 8]
    with pytest.raises(JSONRefused, match="values"):
        parse_json("[" + ",".join("0" * 20) + "]", small)


def test_numbers_have_at_most_40_digits_but_hex_strings_may_be_longer() -> None:
    assert parse_json("9" * 40) == int("9" * 40)
    with pytest.raises(JSONRefused, match="40 digits"):
        parse_json("9" * 41)
    assert parse_json('"' + "1" * 64 + '"') == "1" * 64


def test_size_is_checked_before_anything_else() -> None:
    with pytest.raises(JSONRefused, match="over the limit of 65536"):
        parse_json(b'"' + b"x" * 70_000 + b'"', CONTROL_LIMITS)
    assert len(canonical_json(["x" * 60_000])) < FRAME_LIMITS.max_bytes


@pytest.mark.parametrize("data, why", [
    (b"\xff", "not UTF-8"), ('"é"'.encode("utf-16"), "not UTF-8"),
    (b'\xef\xbb\xbf"a"', "BOM"), (b"1.5", "floats"), (b"NaN", "floats"),
    (b'"\\ud800"', "surrogate"), (b"[1,]", "Expecting value"),
])
def test_what_is_not_canonical_json_is_refused_with_the_parsers_own_error(data: bytes,
                                                                         why: str) -> None:
    with pytest.raises(JSONRefused, match=why):
        parse_json(data)


def test_check_limits_alone_leaves_parsing_to_the_caller() -> None:
    check_limits('{"type":"log","message":"x"}', FRAME_LIMITS)
    with pytest.raises(JSONRefused):
        check_limits(nested(100), FRAME_LIMITS)


@pytest.mark.parametrize("text", [
    '\\"' * 100_000,                       # escaped quotes outside any string
    '"' + '\\"' * 100_000 + "\\",           # ... inside one left open, a lone backslash last
    '"' * 100_000, "\\" * 100_000 + "\\u0041", "[" + '"a",' * 100_000,
], ids=["escaped-quotes", "open-string", "quotes", "backslashes", "open-list"])
def test_the_check_takes_linear_time_on_texts_made_to_defeat_it(text: str) -> None:
    started = time.perf_counter()
    with pytest.raises(JSONRefused):
        parse_json(text)
    assert time.perf_counter() - started < 0.5  # the string scan was quadratic: 6 s at 32 KB
