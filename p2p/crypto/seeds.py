"""Shared public randomness by commit-reveal (sans-IO).

Every seat commits to a fresh 32-byte seed, and reveals it only once every commitment is in;
the joint seed is SHA-256(b"solstice/joint-seed/v1\\x00" || seed_0 || ... || seed_{n-1}) in
seat order and feeds ``engine.randomness.RandomStream``. As long as one seat is honest the
joint seed is uniform, and nobody could choose their seed after seeing the others'.

Messages (plain dicts, canonical-JSON-able):
  {"type": "seed/commit", "seat": s, "label": L, "commitment": hex32}
  {"type": "seed/reveal", "seat": s, "label": L, "seed": hex32, "salt": hex32}
The committed value is {"game": game_id, "label": L, "seat": s, "seed": hex32} under the
commitment domain "solstice/seed/v1", so a commitment cannot be replayed for another game,
label or seat.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.randomness import RandomStream
from p2p.crypto.commitments import Opening, check_opening, commit
from p2p.errors import LocalProtocolError, MalformedMessage, OutOfOrder
from p2p.hexfields import parse_lower_hex

SEED_DOMAIN = "solstice/seed/v1"
JOINT_SEED_PREFIX = b"solstice/joint-seed/v1\x00"
SEED_BYTES = 32


def joint_seed(seeds: list[bytes]) -> bytes:
    """Combine the seats' seeds (in seat order) into the joint seed."""
    if any(len(seed) != SEED_BYTES for seed in seeds):
        raise ValueError("every seed must be 32 bytes")
    return hashlib.sha256(JOINT_SEED_PREFIX + b"".join(seeds)).digest()


@dataclass(frozen=True)
class LocalSeed:
    """This seat's contribution: publish ``commit_message`` now, ``reveal_message`` later."""

    commit_message: dict[str, Any]
    reveal_message: dict[str, Any]


def new_local_seed(game_id: str, label: str, seat: int) -> LocalSeed:
    """Draw a fresh seed from ``secrets`` and build this seat's two messages."""
    seed = secrets.token_bytes(SEED_BYTES)
    value = {"game": game_id, "label": label, "seat": seat, "seed": seed.hex()}
    commitment, opening = commit(value, SEED_DOMAIN)
    return LocalSeed(
        commit_message={
            "type": "seed/commit",
            "seat": seat,
            "label": label,
            "commitment": commitment.hex(),
        },
        reveal_message={
            "type": "seed/reveal",
            "seat": seat,
            "label": label,
            "seed": seed.hex(),
            "salt": opening.salt.hex(),
        },
    )


class SeedExchange:
    """Collects n commitments, then n reveals, and yields the joint seed.

    Feed every message (this seat's own included) to ``receive(sender, message)`` where
    ``sender`` is the authenticated author. Blame always goes to ``sender``.
    """

    def __init__(self, game_id: str, label: str, n_seats: int) -> None:
        if not 2 <= n_seats <= 4:
            raise LocalProtocolError(f"a game has 2 to 4 seats, not {n_seats}")
        self.game_id = game_id
        self.label = label
        self.n_seats = n_seats
        self._commitments: dict[int, bytes] = {}
        self._seeds: dict[int, bytes] = {}

    @property
    def all_committed(self) -> bool:
        return len(self._commitments) == self.n_seats

    @property
    def complete(self) -> bool:
        return len(self._seeds) == self.n_seats

    def commitment(self, seat: int) -> bytes | None:
        """The seed commitment ``seat`` published, if it has."""
        return self._commitments.get(seat)

    def joint_seed(self) -> bytes:
        if not self.complete:
            raise LocalProtocolError("joint seed asked before every seat revealed")
        return joint_seed([self._seeds[seat] for seat in range(self.n_seats)])

    def stream(self) -> RandomStream:
        """The public random stream every peer draws identically from."""
        return RandomStream(self.joint_seed())

    def receive(self, sender: int, message: Mapping[str, Any]) -> None:
        kind = message.get("type") if isinstance(message, Mapping) else None
        if kind == "seed/commit":
            self._receive_commit(sender, message)
        elif kind == "seed/reveal":
            self._receive_reveal(sender, message)
        else:
            raise MalformedMessage(sender, f"not a seed message: {kind!r}", message)

    def _check_header(self, sender: int, message: Mapping[str, Any], keys: set[str]) -> None:
        if not (0 <= sender < self.n_seats):
            raise LocalProtocolError(f"sender {sender} is not a seat of this game")
        if set(message) != keys:
            raise MalformedMessage(sender, f"seed message needs exactly {sorted(keys)}", message)
        if type(message["seat"]) is not int or message["seat"] != sender:
            raise MalformedMessage(sender, "seat field does not name the sender", message)
        if message["label"] != self.label:
            raise OutOfOrder(sender, f"seed message for label {message['label']!r}")

    def _receive_commit(self, sender: int, message: Mapping[str, Any]) -> None:
        self._check_header(sender, message, {"type", "seat", "label", "commitment"})
        commitment = parse_lower_hex(message["commitment"], 32)
        if commitment is None:
            raise MalformedMessage(sender, "commitment must be 32 bytes of hex", message)
        if sender in self._commitments:
            raise OutOfOrder(sender, "second seed commitment")
        self._commitments[sender] = commitment

    def _receive_reveal(self, sender: int, message: Mapping[str, Any]) -> None:
        self._check_header(sender, message, {"type", "seat", "label", "seed", "salt"})
        if not self.all_committed:
            # Revealing early lets the last committer choose its seed knowing this one.
            raise OutOfOrder(sender, "seed revealed before every seat committed")
        if sender in self._seeds:
            raise OutOfOrder(sender, "second seed reveal")
        seed = parse_lower_hex(message["seed"], SEED_BYTES)
        salt = parse_lower_hex(message["salt"], 32)
        if seed is None or salt is None:
            raise MalformedMessage(sender, "seed and salt must be 32 bytes of hex", message)
        value = {"game": self.game_id, "label": self.label, "seat": sender, "seed": seed.hex()}
        check_opening(
            sender, self._commitments[sender], Opening(SEED_DOMAIN, value, salt), SEED_DOMAIN
        )
        self._seeds[sender] = seed
