"""Hex fields of the wire: lowercase hex digits of an exact length, nothing else.

Upper case, whitespace, a sign or a ``0x`` prefix would each be a second encoding of the same
bytes (protocol.md, "Canonical encoding"), and ``bytes.fromhex`` takes the first two; so every
parser of a received hex field checks it here. The caller raises its own error, so each field
keeps its own message and blames the seat it blamed before.
"""

from __future__ import annotations

from typing import TypeGuard

_DIGITS = frozenset("0123456789abcdef")


def is_lower_hex(value: object, size: int | None = None) -> TypeGuard[str]:
    """True if ``value`` is a string of lowercase hex digits encoding exactly ``size`` bytes
    (``None``: any number of whole bytes but zero)."""
    return (
        isinstance(value, str)
        and len(value) > 0
        and len(value) % 2 == 0
        and (size is None or len(value) == 2 * size)
        and set(value) <= _DIGITS
    )


def parse_lower_hex(value: object, size: int | None = None) -> bytes | None:
    """The bytes ``value`` encodes if ``is_lower_hex(value, size)``, else None."""
    return bytes.fromhex(value) if is_lower_hex(value, size) else None
