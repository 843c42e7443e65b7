"""Group helpers: every malformed point and scalar is refused; card points are sound."""

from __future__ import annotations

import hashlib
import os

import pytest
from nacl import bindings as sodium

from p2p.crypto.group import (
    FIELD_P,
    InvalidPoint,
    InvalidScalar,
    L,
    card_points,
    check_point,
    check_point_encoding,
    check_scalar,
    hash_to_point,
    hash_to_scalar,
    mul,
    mul_base,
    negation_key,
    scalar_invert,
    scalar_mul,
)

ORDER_8 = bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05")
IDENTITY = (1).to_bytes(32, "little")
ORDER_2 = (FIELD_P - 1).to_bytes(32, "little")
ORDER_4 = bytes(32)


def random_point() -> bytes:
    return sodium.crypto_core_ed25519_from_uniform(os.urandom(32))


def random_scalar() -> bytes:
    return hash_to_scalar(b"test\x00", os.urandom(16))


@pytest.mark.parametrize("point", [IDENTITY, ORDER_2, ORDER_4, ORDER_8])
def test_small_order_points_refused(point):
    with pytest.raises(InvalidPoint, match="small-order"):
        check_point_encoding(point)
    with pytest.raises(InvalidPoint):
        check_point(point)
    with pytest.raises(InvalidPoint):
        mul(random_scalar(), point)


def test_small_order_refused_whatever_the_sign_bit():
    flipped = ORDER_8[:31] + bytes([ORDER_8[31] | 0x80])
    with pytest.raises(InvalidPoint):
        check_point_encoding(flipped)


def test_non_canonical_encoding_refused():
    # y = p + 3 encodes the same field element as y = 3, in a second (forbidden) way.
    non_canonical = (FIELD_P + 3).to_bytes(32, "little")
    with pytest.raises(InvalidPoint, match="non-canonical"):
        check_point_encoding(non_canonical)


@pytest.mark.parametrize("length", [0, 31, 33])
def test_wrong_length_refused(length):
    with pytest.raises(InvalidPoint):
        check_point(bytes(length))
    with pytest.raises(InvalidScalar):
        check_scalar(b"\x01" * length)


def test_point_outside_prime_order_subgroup_refused():
    mixed = sodium.crypto_core_ed25519_add(random_point(), ORDER_8)
    check_point_encoding(mixed)  # passes the cheap checks ...
    with pytest.raises(InvalidPoint):
        check_point(mixed)  # ... but not the subgroup check
    with pytest.raises(InvalidPoint):
        mul(random_scalar(), mixed)  # and libsodium refuses to multiply it


def test_point_not_on_curve_refused():
    # Find a canonical y with no x on the curve (about half of all y).
    for y in range(2, 100):
        encoded = y.to_bytes(32, "little")
        if not sodium.crypto_core_ed25519_is_valid_point(encoded):
            with pytest.raises(InvalidPoint):
                check_point(encoded)
            with pytest.raises(InvalidPoint):
                mul(random_scalar(), encoded)
            return
    raise AssertionError("no off-curve y found")


@pytest.mark.parametrize(
    "value, reason", [(0, "zero"), (L, ">= L"), (L + 1, ">= L"), (2**256 - 1, ">= L")]
)
def test_bad_scalars_refused(value, reason):
    with pytest.raises(InvalidScalar, match=reason):
        check_scalar(value.to_bytes(32, "little"))


def test_good_scalar_accepted():
    check_scalar((L - 1).to_bytes(32, "little"))
    check_scalar((1).to_bytes(32, "little"))


def test_commutative_encryption_round_trip():
    point, a, b = random_point(), random_scalar(), random_scalar()
    assert mul(a, mul(b, point)) == mul(b, mul(a, point))
    assert mul(scalar_invert(a), mul(a, point)) == point
    assert mul(scalar_mul(a, b), point) == mul(a, mul(b, point))
    assert mul(a, sodium.crypto_scalarmult_ed25519_base_noclamp(b)) == mul_base(scalar_mul(a, b))


def test_hash_to_point_is_valid_and_deterministic():
    first = hash_to_point(b"tag\x00", b"x")
    assert first == hash_to_point(b"tag\x00", b"x")
    assert first != hash_to_point(b"tag\x00", b"y")
    check_point(first)


@pytest.mark.parametrize("n", [16, 26, 32])
def test_card_points_distinct_up_to_sign(n):
    points = card_points("game-a", n)
    assert len(points) == n
    assert len({negation_key(p) for p in points}) == n
    for p in points:
        check_point(p)
    assert set(points).isdisjoint(card_points("game-b", n))  # bound to the game id


def test_card_points_are_not_multiples_of_base_by_index():
    # Card j must not be j*B: then anyone could relate encrypted cards.
    points = card_points("game-a", 4)
    small = {mul_base(j.to_bytes(32, "little")) for j in range(1, 100)}
    assert small.isdisjoint(points)


def test_negation_key_pairs_a_point_with_its_negation():
    point = random_point()
    minus = mul((L - 1).to_bytes(32, "little"), point)
    assert minus != point
    assert negation_key(minus) == negation_key(point)
    assert negation_key(random_point()) != negation_key(point)


def test_card_point_matches_the_documented_derivation():
    digest = hashlib.sha512(b"solstice/deck/card-point/v1\x00" + b'["g1",3]').digest()
    expected = sodium.crypto_core_ed25519_add(
        sodium.crypto_core_ed25519_from_uniform(digest[:32]),
        sodium.crypto_core_ed25519_from_uniform(digest[32:]),
    )
    assert card_points("g1", 4)[3] == expected


def test_hash_to_scalar_matches_the_documented_derivation():
    digest = hashlib.sha512(b"tag\x00" + b"data" + b"\x00").digest()
    assert hash_to_scalar(b"tag\x00", b"data") == (int.from_bytes(digest, "little") % L).to_bytes(
        32, "little"
    )
