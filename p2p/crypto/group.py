"""Ed25519 prime-order group helpers on libsodium (PyNaCl ``nacl.bindings``).

Points and scalars are plain 32-byte ``bytes`` (libsodium's encodings: a point is the
little-endian y coordinate with the sign of x in bit 255; a scalar is little-endian). Cheap
structural checks live here in pure Python; the expensive check (on the curve and in the
prime-order subgroup) is libsodium's, done by ``check_point`` and also, unavoidably, inside
every ``crypto_scalarmult_ed25519_noclamp`` call. The deck relies on that: each received
point is multiplied exactly once by its consumer, which validates it at no extra cost.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache

from nacl import bindings as sodium
from nacl import exceptions as sodium_errors

from engine.canonical import canonical_json

#: Order of the prime-order subgroup (and of the base point B).
L = 2**252 + 27742317777372353535851937790883648493
#: The field prime; a canonical y coordinate is < FIELD_P.
FIELD_P = 2**255 - 19
POINT_BYTES = 32
SCALAR_BYTES = 32

#: y coordinates of the 8 points of small order (order 1, 2, 4 and 8). With y canonical,
#: rejecting these y values rejects every small-order point whatever the sign bit says.
_Y_ORDER_8 = int.from_bytes(
    bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"), "little"
)
SMALL_ORDER_Y = frozenset({0, 1, FIELD_P - 1, _Y_ORDER_8, FIELD_P - _Y_ORDER_8})

CARD_POINT_TAG = b"solstice/deck/card-point/v1\x00"


class InvalidPoint(ValueError):
    """Bytes that are not an acceptable group element (the caller adds who sent them)."""


class InvalidScalar(ValueError):
    """Bytes that are not a scalar in [1, L) (the caller adds who sent them)."""


def check_point_encoding(point: bytes) -> None:
    """Cheap checks any receiver runs on every point: length, canonical y, not small order.

    Does not prove the point is on the curve or in the subgroup: see ``check_point``.
    """
    if type(point) is not bytes or len(point) != POINT_BYTES:
        raise InvalidPoint("a point is exactly 32 bytes")
    y = int.from_bytes(point, "little") & ((1 << 255) - 1)
    if y >= FIELD_P:
        raise InvalidPoint("non-canonical point encoding (y >= p)")
    if y in SMALL_ORDER_Y:
        raise InvalidPoint("small-order point (identity or torsion)")


def check_point(point: bytes) -> None:
    """Full validation: canonical, on the curve, in the prime-order subgroup, not small order."""
    check_point_encoding(point)
    if not sodium.crypto_core_ed25519_is_valid_point(point):
        raise InvalidPoint("not a point of the prime-order subgroup")


def multipliable(point: bytes) -> bool:
    """Whether libsodium multiplies ``point`` (in the prime-order group, not small order):
    what tells, after a proof failed, whether a point was at fault rather than the proof."""
    try:
        mul(b"\x01" + bytes(31), point)
    except InvalidPoint:
        return False
    return True


def check_scalar(scalar: bytes) -> None:
    """A secret-key scalar must be canonical and non-zero: 0 < s < L.

    libsodium would silently reduce or truncate other values, letting one key have several
    encodings (or be 0, which would erase a card).
    """
    if type(scalar) is not bytes or len(scalar) != SCALAR_BYTES:
        raise InvalidScalar("a scalar is exactly 32 bytes")
    value = int.from_bytes(scalar, "little")
    if value == 0:
        raise InvalidScalar("scalar is zero")
    if value >= L:
        raise InvalidScalar("scalar is not reduced (>= L)")


def mul(scalar: bytes, point: bytes) -> bytes:
    """scalar * point. libsodium refuses off-subgroup or small-order points: InvalidPoint."""
    try:
        return sodium.crypto_scalarmult_ed25519_noclamp(scalar, point)
    except (sodium_errors.RuntimeError, sodium_errors.TypeError) as exc:
        raise InvalidPoint("libsodium refused the point (not in the prime-order group)") from exc


def mul_base(scalar: bytes) -> bytes:
    """scalar * B (no clamping: our scalars are already reduced and non-zero)."""
    return sodium.crypto_scalarmult_ed25519_base_noclamp(scalar)


def scalar_mul(a: bytes, b: bytes) -> bytes:
    return sodium.crypto_core_ed25519_scalar_mul(a, b)


def scalar_invert(a: bytes) -> bytes:
    return sodium.crypto_core_ed25519_scalar_invert(a)


def scalar_product(scalars: list[bytes]) -> bytes:
    out = scalars[0]
    for s in scalars[1:]:
        out = sodium.crypto_core_ed25519_scalar_mul(out, s)
    return out


def hash_to_scalar(tag: bytes, data: bytes) -> bytes:
    """A non-zero scalar from SHA-512(tag || data || counter byte) reduced mod L.

    Counter 0 first; the next counter only if the result is 0 (probability 2**-252), so
    the derivation is total and reproducible.
    """
    for counter in range(256):
        digest = hashlib.sha512(tag + data + bytes([counter])).digest()
        scalar = sodium.crypto_core_ed25519_scalar_reduce(digest)
        if any(scalar):
            return scalar
    raise AssertionError("SHA-512 produced 256 multiples of L")  # pragma: no cover


def hash_to_point(tag: bytes, data: bytes) -> bytes:
    """Hash to the prime-order group: h = SHA-512(tag || data);
    P = from_uniform(h[0:32]) + from_uniform(h[32:64]).

    Summing two Elligator 2 images (libsodium's from_uniform, which clears the cofactor)
    gives a point whose discrete log relative to any other is unknown to everybody, which
    j*B would not: with card j = j*B anyone could relate encrypted cards.
    """
    digest = hashlib.sha512(tag + data).digest()
    first = sodium.crypto_core_ed25519_from_uniform(digest[:32])
    second = sodium.crypto_core_ed25519_from_uniform(digest[32:])
    return sodium.crypto_core_ed25519_add(first, second)


def negation_key(point: bytes) -> bytes:
    """The encoding with the sign bit cleared: P and -P (and only they) share it."""
    return point[:31] + bytes([point[31] & 0x7F])


def all_distinct_up_to_sign(points: list[bytes] | tuple[bytes, ...]) -> bool:
    """True when no two points are equal and none is the negation of another.

    A negated pair would survive every shuffle layer as a negated pair (x*(-P) = -(x*P)),
    linking two face-down slots for every observer.
    """
    return len({negation_key(p) for p in points}) == len(points)


@lru_cache(maxsize=16)
def card_points(game_id: str, n_cards: int) -> tuple[bytes, ...]:
    """The public point of each card: hash_to_point(CARD_POINT_TAG, canonical_json([game_id, i])).

    Binding the game id makes points (hence encrypted decks) unrelated across games.
    Cached because every peer object of a game needs the same table.
    """
    points = tuple(
        hash_to_point(CARD_POINT_TAG, canonical_json([game_id, index])) for index in range(n_cards)
    )
    for point in points:
        check_point(point)
    if not all_distinct_up_to_sign(points):
        raise AssertionError("card points collide (SHA-512 collision?)")  # pragma: no cover
    return points
