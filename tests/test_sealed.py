"""Box keys (``p2p/crypto/sealed.py``): which announced keys are refused, as protocol.md
("Opening cards") lists them, so a second implementation can refuse exactly the same ones."""

from __future__ import annotations

import hashlib

import pytest

from p2p.crypto.sealed import box_key, parse_public_key, parse_secret_key
from p2p.errors import RemoteProtocolError

P = 2**255 - 19
# The seven u values libsodium refuses as X25519 public keys (bit 255 is ignored: 14
# encodings), written as protocol.md writes them.
REFUSED = [0, 1,
           325606250916557431795983626356110631294008115727848805560023387167927233504,
           39382357235489614581723060781553021112529911719440698176882885853963445705823,
           P - 1, P, P + 1]


def encodings(u: int) -> list[str]:
    low = u.to_bytes(32, "little")
    return [low.hex(), (low[:31] + bytes([low[31] | 0x80])).hex()]


@pytest.mark.parametrize("text", [e for u in REFUSED for e in encodings(u)])
def test_the_listed_low_order_keys_are_refused(text: str) -> None:
    with pytest.raises(RemoteProtocolError, match="low-order"):
        parse_public_key(0, text)


@pytest.mark.parametrize("u", [2, P - 2, P + 2, 2**255 - 1, REFUSED[2] + 1, REFUSED[3] - 1])
def test_the_neighbours_of_the_low_order_keys_are_taken(u: int) -> None:
    parse_public_key(0, u.to_bytes(32, "little").hex())


def test_sixteen_derived_keys_are_taken() -> None:
    for i in range(16):
        parse_public_key(0, bytes(box_key(hashlib.sha256(bytes([i])).digest(),
                                          "00" * 16).public_key).hex())


@pytest.mark.parametrize("text", ["AB" * 32, "ab" * 31, "ab" * 32 + "\n", " " + "ab" * 31 + "a",
                                  7, None])
def test_a_box_key_is_64_lowercase_hex_digits(text: object) -> None:
    with pytest.raises(RemoteProtocolError):
        parse_public_key(0, text)


def test_an_opened_box_secret_must_be_lowercase_and_match_the_announced_key() -> None:
    key = box_key(b"\x01" * 32, "00" * 16)
    assert parse_secret_key(0, bytes(key).hex(), key.public_key) == key
    with pytest.raises(RemoteProtocolError, match="lowercase"):
        parse_secret_key(0, bytes(key).hex().upper(), key.public_key)
    other = box_key(b"\x02" * 32, "00" * 16)
    with pytest.raises(RemoteProtocolError, match="does not match"):
        parse_secret_key(0, bytes(other).hex(), key.public_key)
