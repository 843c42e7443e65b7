"""Canonical JSON: the one byte encoding used for hashes, signatures and transcripts.

Rules (also in protocol.md, "Canonical encoding"): UTF-8; object keys sorted by code point;
no insignificant whitespace; only objects, arrays, strings, integers, booleans and null
(floats are refused: their text form is not canonical across implementations); bytes are
written by callers as lowercase hex strings.
"""

from __future__ import annotations

import json
from typing import Any


class CanonicalEncodingError(ValueError):
    """A value cannot be encoded canonically (a float, bytes, or an unknown type)."""


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


def parse_json(data: bytes | str) -> Any:
    """Parse JSON text; floats are refused so that a decoded value re-encodes identically."""

    def no_float(text: str) -> Any:
        raise CanonicalEncodingError(f"floats are not allowed: {text}")

    return json.loads(data, parse_float=no_float, parse_constant=no_float)
