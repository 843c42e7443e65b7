"""Canonical JSON: the one byte encoding used for hashes, signatures and transcripts.

Rules (also in protocol.md, "Canonical encoding"): UTF-8; object keys sorted by code point;
no insignificant whitespace; only objects, arrays, strings, integers, booleans and null
(floats are refused: their text form is not canonical across implementations); bytes are
written by callers as lowercase hex strings.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from typing import Any


class CanonicalEncodingError(ValueError):
    """A value cannot be encoded canonically (a float, bytes, or an unknown type)."""


class JSONRefused(CanonicalEncodingError):
    """Bytes from outside that are not JSON we take: not UTF-8, not JSON, a float, or over
    one of the ``JSONLimits`` (the message says which)."""


@dataclass(frozen=True)
class JSONLimits:
    """Bounds on one JSON document from outside, checked before it is parsed, so that no
    document can exhaust the parser's recursion, memory or time (protocol.md, "Parser
    limits"). ``max_values`` bounds the values of every kind (containers, keys, scalars);
    ``max_digits`` the digits of one number."""

    max_bytes: int
    max_depth: int = 32
    max_values: int = 200_000
    max_digits: int = 40

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # A compiled (mypyc) frozen dataclass cannot be rebuilt field by field, as copy,
        # deepcopy and pickle rebuild a slots dataclass: rebuild it by its constructor.
        return (type(self), (self.max_bytes, self.max_depth, self.max_values, self.max_digits))


# The limits of each kind of input (protocol.md, "Parser limits"): a mesh frame is at most
# 1 MiB (``p2p.net.framing``), a lobby or spectator control message far less.
FRAME_LIMITS = JSONLimits(max_bytes=1 << 20)
CONTROL_LIMITS = JSONLimits(max_bytes=64 << 10, max_depth=8, max_values=4096)
BOT_LINE_LIMITS = JSONLimits(max_bytes=1 << 20, max_depth=32, max_values=200_000)
FILE_LIMITS = JSONLimits(max_bytes=64 << 20, max_depth=32, max_values=5_000_000)

# A JSON string (escapes included), in the unrolled form that never backtracks; one left
# open runs to the end of the text, so that a text of many quotes is never scanned again
# from each of them (that was quadratic: 16 000 escaped quotes took 6 s).
_STRING = re.compile(r'"[^"\\]*(?:\\[\s\S]?[^"\\]*)*(?:"|\Z)')
_BRACKETS = str.maketrans({"{": "[", "}": "]"})
_NOT_BRACKETS = re.compile(r"[^\[\]]+")
# A \u escape of a UTF-16 surrogate (an odd run of backslashes, then u, then D800-DFFF): a
# lone one makes a string no UTF-8 can carry, and canonical JSON never escapes a pair.
_SURROGATE = re.compile(r"(?<!\\)(?:\\\\)*\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


@functools.cache
def _long_number(digits: int) -> re.Pattern[str]:
    return re.compile(f"[0-9]{{{digits + 1}}}")


def check_limits(text: str, limits: JSONLimits) -> None:
    """Raise JSONRefused if ``text`` (JSON, or anything) could exceed ``limits`` when parsed.

    Linear in the text and done with C-speed string operations: strings are cut out, then
    what is left bounds the nesting (every pass removes the innermost brackets), the number
    of values (separators and brackets) and the length of every number."""
    if len(text) > limits.max_bytes:
        raise JSONRefused(f"{len(text)} characters, over the limit of {limits.max_bytes}")
    bare = _STRING.sub('""', text)
    openers = bare.count("[") + bare.count("{")
    values = bare.count(",") + bare.count(":") + openers + 1
    if values > limits.max_values:
        raise JSONRefused(f"about {values} values, over the limit of {limits.max_values}")
    if _long_number(limits.max_digits).search(bare):
        raise JSONRefused(f"a number of more than {limits.max_digits} digits")
    if openers <= limits.max_depth:
        return  # no deeper than it has brackets
    nesting = _NOT_BRACKETS.sub("", bare.translate(_BRACKETS))
    for _ in range(limits.max_depth):
        if not nesting:
            return
        nesting = nesting.replace("[]", "")
    if nesting:  # deeper than the limit, or brackets that do not pair (no JSON then)
        raise JSONRefused(f"nested deeper than {limits.max_depth} levels (or unbalanced)")


def _check(value: Any, path: str) -> None:
    if value is None or isinstance(value, bool | str):
        return
    if isinstance(value, int):
        return
    if isinstance(value, float):
        raise CanonicalEncodingError(f"{path}: floats are not canonical")
    if isinstance(value, list | tuple):
        for index, item in enumerate(value):
            _check(item, f"{path}[{index}]")
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise CanonicalEncodingError(f"{path}: object key {key!r} is not a string")
            _check(item, f"{path}.{key}")
        return
    raise CanonicalEncodingError(f"{path}: cannot encode {type(value).__name__}")


def _plain(value: Any) -> bool:
    """Fast pass: True if ``value`` holds only exact JSON-safe types (no float anywhere)."""
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str or kind is int or kind is bool or item is None:
            continue
        if kind is list or kind is tuple:
            stack.extend(item)
        elif kind is dict:
            if any(type(key) is not str for key in item):
                return False
            stack.extend(item.values())
        else:
            return False
    return True


def canonical_json(value: Any) -> bytes:
    """Encode ``value`` canonically; raise CanonicalEncodingError for what cannot be."""
    if not _plain(value):
        _check(value, "$")  # the slow pass names where the problem is (or allows subclasses)
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def _no_float(text: str) -> Any:
    raise JSONRefused(f"floats are not allowed: {text[:40]}")


def parse_json(data: bytes | str, limits: JSONLimits = FRAME_LIMITS) -> Any:
    """Parse UTF-8 JSON text from outside within ``limits``; floats are refused so that a
    decoded value re-encodes identically. Every failure is a JSONRefused (a ValueError)."""
    if isinstance(data, bytes | bytearray):
        if len(data) > limits.max_bytes:
            raise JSONRefused(f"{len(data)} bytes, over the limit of {limits.max_bytes}")
        try:
            data = bytes(data).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JSONRefused(f"not UTF-8 ({exc.reason} at byte {exc.start})") from None
    check_limits(data, limits)
    if "\\u" in data and _SURROGATE.search(data):
        raise JSONRefused("a \\u escape of a UTF-16 surrogate (not canonical; alone, no text)")
    try:
        return json.loads(data, parse_float=_no_float, parse_constant=_no_float)
    except JSONRefused:
        raise
    except (ValueError, RecursionError) as exc:  # RecursionError: the limits make it moot
        raise JSONRefused(str(exc)[:200]) from None
