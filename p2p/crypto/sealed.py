"""Private payloads inside broadcast messages: X25519 sealed boxes (libsodium via PyNaCl).

Every game message is broadcast so that all peers keep one identical signed log; a slot key
meant for one seat travels sealed to that seat's per-game box key. At the audit every peer
opens its box secret key (it is used for nothing else), so anyone can check every private
disclosure afterwards.
"""

from __future__ import annotations

import hashlib

from nacl.exceptions import CryptoError
from nacl.public import PrivateKey, PublicKey, SealedBox

from p2p.errors import RemoteProtocolError
from p2p.hexfields import parse_lower_hex

BOX_KEY_DOMAIN = b"solstice/box-key/v1\x00"


def box_key(master: bytes, game_id: str) -> PrivateKey:
    """This peer's box key for one game, derived from its persisted master secret."""
    return PrivateKey(hashlib.sha256(BOX_KEY_DOMAIN + master + game_id.encode()).digest())


def parse_public_key(seat: int, value: object) -> PublicKey:
    raw = parse_lower_hex(value, 32)
    if raw is None:
        raise RemoteProtocolError(seat, "box key must be 32 bytes of lowercase hex")
    try:
        key = PublicKey(raw)
    except (ValueError, CryptoError) as exc:
        raise RemoteProtocolError(seat, f"bad box key: {exc}") from None
    # A low-order point (all zeros, the identity, the other small-order points) makes every
    # box sealed to it fail inside libsodium: refuse it here, blaming the author, instead of
    # at the first deal in every honest peer.
    try:
        SealedBox(key).encrypt(b"")
    except (RuntimeError, CryptoError):
        raise RemoteProtocolError(seat, "box key is a low-order point") from None
    return key


def parse_secret_key(seat: int, value: object, public: PublicKey) -> PrivateKey:
    """An opened box secret key, checked against the public key the seat announced."""
    raw = parse_lower_hex(value, 32)
    if raw is None:
        raise RemoteProtocolError(seat, "opened box key must be 32 bytes of lowercase hex")
    try:
        key = PrivateKey(raw)
    except (ValueError, CryptoError) as exc:
        raise RemoteProtocolError(seat, f"bad opened box key: {exc}") from None
    if bytes(key.public_key) != bytes(public):
        raise RemoteProtocolError(seat, "opened box key does not match its announced key")
    return key


def seal(recipient: PublicKey, data: bytes) -> str:
    return SealedBox(recipient).encrypt(data).hex()


def unseal(key: PrivateKey, sender: int, ciphertext: object) -> bytes:
    """Open a sealed payload; a payload that does not open blames its sender."""
    raw = parse_lower_hex(ciphertext)
    if raw is None:
        raise RemoteProtocolError(sender, "sealed payload must be lowercase hex")
    try:
        return SealedBox(key).decrypt(raw)
    except (ValueError, CryptoError):
        raise RemoteProtocolError(sender, "sealed payload does not open with the "
                                          "recipient's key") from None
