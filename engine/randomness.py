"""A deterministic random stream that any implementation can reproduce.

The engine has no randomness of its own: callers hand it shuffles and choices drawn from this
stream. Local games seed it from a user seed; network games seed it with the joint seed of the
commit-reveal exchange (see protocol.md, "Random stream"), so every peer draws the same values.

Stream: block i is SHA-256(DOMAIN || seed || i as 8-byte big-endian); blocks are concatenated
and read 8 bytes at a time as big-endian unsigned 64-bit words. ``randbelow(n)`` uses rejection
sampling on the smallest power of two >= n, so ranges are exactly uniform. ``shuffle`` is the
Fisher-Yates shuffle from the last index down, j = randbelow(i + 1).
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

DOMAIN = b"solstice/stream/v1\x00"
_BLOCKS = 4  # blocks computed per refill: fewer calls for searches that draw thousands
_WORDS = struct.Struct(f">{4 * _BLOCKS}Q")


class RandomStream:
    """SHA-256 counter-mode stream with unbiased integer ranges and shuffles."""

    __slots__ = ("_counter", "_prefix", "_seed", "_words")

    def __init__(self, seed: bytes | str | int) -> None:
        if isinstance(seed, int):
            seed = str(seed)
        if isinstance(seed, str):
            seed = seed.encode("utf-8")
        self._seed = bytes(seed)
        self._prefix = DOMAIN + self._seed
        self._counter = 0
        # Every read is one 8-byte word and a block holds exactly four, so the next few blocks
        # are split into their words at once (kept reversed: the next word is popped off the
        # end). Which words come out does not depend on how many blocks are made at a time.
        self._words: list[int] = []

    def word(self) -> int:
        """Next unsigned 64-bit word."""
        words = self._words
        if not words:
            prefix, counter, sha256 = self._prefix, self._counter, hashlib.sha256
            blocks = b"".join([sha256(prefix + (counter + i).to_bytes(8, "big")).digest()
                               for i in range(_BLOCKS)])
            self._counter = counter + _BLOCKS
            words.extend(reversed(_WORDS.unpack(blocks)))
        return words.pop()

    def randbelow(self, n: int) -> int:
        """Uniform integer in [0, n)."""
        if n <= 1:
            if n == 1:
                return 0
            raise ValueError(f"randbelow needs n > 0, got {n}")
        bits = (n - 1).bit_length()
        if bits > 64:
            raise ValueError("randbelow supports n <= 2**64")
        mask = (1 << bits) - 1
        words = self._words
        while True:
            value = (words.pop() if words else self.word()) & mask
            if value < n:
                return value

    def choice(self, items: Sequence[T]) -> T:
        return items[self.randbelow(len(items))]

    def permutation(self, n: int) -> list[int]:
        """A uniformly random permutation of range(n) (Fisher-Yates, last index first)."""
        perm = list(range(n))
        self.shuffle(perm)
        return perm

    def shuffle(self, items: list[T]) -> None:
        """Shuffle in place with the same draws as ``permutation``."""
        words = self._words  # randbelow(i + 1) inline: search bots shuffle a deck per world
        for i in range(len(items) - 1, 0, -1):
            mask = (1 << i.bit_length()) - 1
            while True:
                j = (words.pop() if words else self.word()) & mask
                if j <= i:
                    break
            items[i], items[j] = items[j], items[i]

    def sample(self, items: Sequence[T], k: int) -> list[T]:
        """k distinct items in random order: the first k of a shuffled copy."""
        pool = list(items)
        self.shuffle(pool)
        return pool[:k]

    def fork(self, label: str) -> RandomStream:
        """An independent stream derived from this one's seed and a label."""
        return RandomStream(hashlib.sha256(self._seed + b"/" + label.encode()).digest())
