"""Long-lived peer identity: an Ed25519 key stored in the user's data directory.

A peer's id is the lowercase hex SHA-256 of its raw 32-byte Ed25519 public key. The id is what
join codes, rosters and TLS pinning refer to, so it must be stable across restarts: the key is
kept in ``HOME/identity.key`` (PKCS#8 PEM, unencrypted, mode 0600) and reused.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

from p2p.errors import LocalProtocolError

IDENTITY_FILE = "identity.key"
PEER_ID_HEX_LEN = 64
SHORT_ID_LEN = 8


def default_home() -> Path:
    """The default data directory: ``$XDG_DATA_HOME/solstice`` or ``~/.local/share/solstice``."""
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg) if xdg else Path.home() / ".local" / "share"
    return base / "solstice"


def peer_id_of(public_key: Ed25519PublicKey | bytes) -> str:
    """The peer id (hex SHA-256 of the raw public key) of ``public_key``."""
    raw = public_key if isinstance(public_key, bytes) else _raw_public(public_key)
    if len(raw) != 32:
        raise ValueError(f"an Ed25519 public key is 32 bytes, not {len(raw)}")
    return hashlib.sha256(raw).hexdigest()


def short_id(peer_id: str) -> str:
    """A short display form of a peer id (first 8 hex digits); not for authentication."""
    return peer_id[:SHORT_ID_LEN]


def is_peer_id(value: object) -> bool:
    """True if ``value`` is a well-formed peer id (64 lowercase hex digits)."""
    return (
        isinstance(value, str)
        and len(value) == PEER_ID_HEX_LEN
        and all(c in "0123456789abcdef" for c in value)
    )


def verify_signature(public_key: bytes, signature: bytes, data: bytes) -> bool:
    """Check an Ed25519 ``signature`` of ``data`` by the raw 32-byte ``public_key``."""
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(signature, data)
    except (InvalidSignature, ValueError):
        return False
    return True


def _raw_public(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


@dataclass(frozen=True)
class Identity:
    """An Ed25519 key pair and the peer id derived from it."""

    private_key: Ed25519PrivateKey

    @classmethod
    def generate(cls) -> Identity:
        return cls(Ed25519PrivateKey.generate())

    @classmethod
    def from_private_bytes(cls, raw: bytes) -> Identity:
        """Re-create an identity from its raw 32-byte seed (tests, fixtures)."""
        return cls(Ed25519PrivateKey.from_private_bytes(raw))

    @classmethod
    def load_or_create(cls, home: Path | str | None = None) -> Identity:
        """Load ``HOME/identity.key``, creating the key (0600) and directory (0700) if absent."""
        home_path = Path(home) if home is not None else default_home()
        home_path.mkdir(mode=0o700, parents=True, exist_ok=True)
        path = home_path / IDENTITY_FILE
        if not path.exists():
            identity = cls.generate()
            pem = identity.private_key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
            try:
                # O_EXCL so two processes starting together never overwrite each other's key;
                # the mode is given at creation so the key is never world-readable, not even
                # for an instant.
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                pass  # Someone else won the race: load theirs below.
            else:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(pem)
                return identity
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
        if not isinstance(key, Ed25519PrivateKey):
            raise LocalProtocolError(f"{path} does not hold an Ed25519 private key")
        return cls(key)

    @property
    def public_key(self) -> Ed25519PublicKey:
        return self.private_key.public_key()

    @property
    def public_bytes(self) -> bytes:
        """The raw 32-byte public key."""
        return _raw_public(self.public_key)

    @property
    def peer_id(self) -> str:
        return peer_id_of(self.public_bytes)

    @property
    def short_id(self) -> str:
        return short_id(self.peer_id)

    def sign(self, data: bytes) -> bytes:
        """An Ed25519 signature (64 bytes) of ``data``."""
        return self.private_key.sign(data)

    def __repr__(self) -> str:  # Never print key material.
        return f"Identity({self.short_id})"
