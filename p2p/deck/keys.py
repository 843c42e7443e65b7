"""A peer's deck secrets, all derived from one committed 32-byte seed.

Before the game each peer commits to its seed; every shuffle key, shuffle permutation and
slot key it will ever use is a deterministic function of that seed. So the commitment binds
all of them in advance (a peer cannot pick keys adaptively), the audit needs one opening per
peer, and a peer that refuses to open at the end is the one blamed.

Derivations (batch and slot numbers as 4-byte big-endian):
  shuffle key x_b  = hash_to_scalar(SHUFFLE_KEY_TAG, seed || batch)
  permutation pi_b = RandomStream(SHA-256(PERMUTATION_TAG || seed || batch)).permutation(m)
  slot key k_s     = hash_to_scalar(SLOT_KEY_TAG, seed || slot)
  blind key y_b      = hash_to_scalar(BLIND_KEY_TAG, seed || batch)
  re-mask scalar r_s = hash_to_scalar(REMASK_KEY_TAG, seed || s), s the fresh slot
  re-mask order      = RandomStream(SHA-256(REMASK_ORDER_TAG || seed || first fresh slot))
                       .permutation(m)
  re-mask shuffle c  = hash_to_scalar(REMASK_SHUFFLE_TAG, seed || first fresh slot)
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass, field
from typing import Any

from engine.randomness import RandomStream
from p2p.crypto.commitments import Opening, commit
from p2p.crypto.group import hash_to_scalar

DECK_KEYS_DOMAIN = "solstice/deck-keys/v1"
SHUFFLE_KEY_TAG = b"solstice/deck/shuffle-key/v1\x00"
PERMUTATION_TAG = b"solstice/deck/permutation/v1\x00"
SLOT_KEY_TAG = b"solstice/deck/slot-key/v1\x00"
REMASK_KEY_TAG = b"solstice/deck/remask-key/v1\x00"
BLIND_KEY_TAG = b"solstice/deck/blind-key/v1\x00"
REMASK_ORDER_TAG = b"solstice/deck/remask-order/v1\x00"
REMASK_SHUFFLE_TAG = b"solstice/deck/remask-shuffle/v1\x00"
SEED_BYTES = 32


def committed_value(game_id: str, seat: int, seed: bytes) -> dict[str, Any]:
    """The value a peer commits to: the seed bound to this game and seat (no replay)."""
    return {"game": game_id, "seat": seat, "seed": seed.hex()}


@dataclass(frozen=True)
class DeckKeys:
    """One peer's deck seed and the keys derived from it. Secret until the audit."""

    seed: bytes = field(repr=False)

    def __post_init__(self) -> None:
        if len(self.seed) != SEED_BYTES:
            raise ValueError("a deck seed is 32 bytes")

    @classmethod
    def generate(cls) -> DeckKeys:
        return cls(secrets.token_bytes(SEED_BYTES))

    def commitment(self, game_id: str, seat: int) -> tuple[bytes, Opening]:
        """A fresh commitment to this seed for (game, seat), and its opening."""
        return commit(committed_value(game_id, seat, self.seed), DECK_KEYS_DOMAIN)

    def shuffle_key(self, batch: int) -> bytes:
        return hash_to_scalar(SHUFFLE_KEY_TAG, self.seed + batch.to_bytes(4, "big"))

    def permutation(self, batch: int, size: int) -> list[int]:
        """Shuffle output position i takes input position permutation[i]."""
        stream_seed = hashlib.sha256(
            PERMUTATION_TAG + self.seed + batch.to_bytes(4, "big")
        ).digest()
        return RandomStream(stream_seed).permutation(size)

    def blind_key(self, batch: int) -> bytes:
        """The scalar y_b that blinds a reshuffle batch's inputs before its shuffles."""
        return hash_to_scalar(BLIND_KEY_TAG, self.seed + batch.to_bytes(4, "big"))

    def slot_key(self, slot: int) -> bytes:
        return hash_to_scalar(SLOT_KEY_TAG, self.seed + slot.to_bytes(4, "big"))

    def remask_key(self, slot: int) -> bytes:
        """The scalar r of re-masked (fresh) ``slot``: its point is r * (card point)."""
        return hash_to_scalar(REMASK_KEY_TAG, self.seed + slot.to_bytes(4, "big"))

    def remask_order(self, first_slot: int, size: int) -> list[int]:
        """Fresh slot first_slot + i takes the card of old slot position order[i]."""
        stream_seed = hashlib.sha256(
            REMASK_ORDER_TAG + self.seed + first_slot.to_bytes(4, "big")
        ).digest()
        return RandomStream(stream_seed).permutation(size)

    def remask_shuffle_key(self, first_slot: int) -> bytes:
        """The common scalar c of the proof of the re-mask whose fresh slots start at
        ``first_slot``: its intermediate points are c * (old points), S = c * B."""
        return hash_to_scalar(REMASK_SHUFFLE_TAG, self.seed + first_slot.to_bytes(4, "big"))
