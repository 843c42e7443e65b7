"""Hash commitments: bind a peer to a value now, reveal it later.

Used for shared seeds and simultaneous choices (draft picks): every peer commits first and
reveals only when all commitments are in, so nobody can adapt to what others chose.

commitment = SHA-256(b"solstice/commit/v1\\x00" || canonical_json([domain, value, salt_hex]))

The 32-byte random salt hides low-entropy values (a pick among 8 cards could otherwise be
brute-forced from its hash); the domain string keeps a commitment made for one purpose from
being opened as another; canonical JSON makes the bytes reproducible by any implementation.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Any

from engine.canonical import CanonicalEncodingError, canonical_json
from p2p.errors import CommitmentMismatch, MalformedMessage
from p2p.hexfields import is_lower_hex

COMMIT_PREFIX = b"solstice/commit/v1\x00"
SALT_BYTES = 32
COMMITMENT_BYTES = 32


@dataclass(frozen=True)
class Opening:
    """What a peer reveals to open a commitment: the domain, the value and the salt."""

    domain: str
    value: Any
    salt: bytes

    def to_dict(self) -> dict[str, Any]:
        return {"domain": self.domain, "value": self.value, "salt": self.salt.hex()}

    @classmethod
    def from_dict(cls, seat: int | None, data: Any) -> Opening:
        """Parse a received opening; a malformed one is blamed on ``seat``."""
        if not isinstance(data, dict) or set(data) != {"domain", "value", "salt"}:
            raise MalformedMessage(seat, "opening must have exactly domain, value, salt", data)
        domain, salt = data["domain"], data["salt"]
        if not isinstance(domain, str):
            raise MalformedMessage(seat, "opening domain must be a string", data)
        if not is_lower_hex(salt, SALT_BYTES):
            raise MalformedMessage(seat, "opening salt must be 32 bytes of lowercase hex", data)
        return cls(domain, data["value"], bytes.fromhex(salt))


def commitment_of(opening: Opening) -> bytes:
    """The commitment bytes an opening corresponds to (raises if value is not canonical)."""
    body = canonical_json([opening.domain, opening.value, opening.salt.hex()])
    return hashlib.sha256(COMMIT_PREFIX + body).digest()


def commit(value: Any, domain: str) -> tuple[bytes, Opening]:
    """Commit to ``value`` (anything canonical JSON accepts) under ``domain``.

    Returns the 32-byte commitment to publish and the opening to keep secret until reveal.
    """
    opening = Opening(domain, value, secrets.token_bytes(SALT_BYTES))
    return commitment_of(opening), opening


def verify(commitment: bytes, opening: Opening) -> bool:
    """True when ``opening`` opens ``commitment``; never raises for a bad opening."""
    if len(opening.salt) != SALT_BYTES:
        return False
    try:
        expected = commitment_of(opening)
    except CanonicalEncodingError:
        return False
    return hmac.compare_digest(expected, commitment)


def check_opening(
    seat: int | None, commitment: bytes, opening: Opening, domain: str | None = None
) -> None:
    """Raise CommitmentMismatch blaming ``seat`` unless ``opening`` opens ``commitment``.

    Pass ``domain`` to also insist the commitment was made for this purpose: the domain is
    inside the hash, but only the checker knows which domain it expects.
    """
    evidence = {"commitment": commitment.hex(), "opening": _evidence(opening)}
    if domain is not None and opening.domain != domain:
        raise CommitmentMismatch(
            seat, f"opening is for domain {opening.domain!r}, expected {domain!r}", evidence
        )
    if not verify(commitment, opening):
        raise CommitmentMismatch(seat, "opening does not match the commitment", evidence)


def _evidence(opening: Opening) -> Any:
    try:
        canonical_json(opening.value)
    except CanonicalEncodingError:
        return repr(opening)
    return opening.to_dict()
