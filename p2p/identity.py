"""Long-lived peer identity: an Ed25519 key stored in the user's data directory.

A peer's id is the lowercase hex SHA-256 of its raw 32-byte Ed25519 public key. The id is what
join codes, rosters and TLS pinning refer to, so it must be stable across restarts: the key is
kept in ``HOME/identity.key`` (PKCS#8 PEM, unencrypted, mode 0600) and reused.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from platformdirs.api import PlatformDirsABC

from p2p.durable import fsync_dir, write_synced
from p2p.errors import LocalFileError

IDENTITY_FILE = "identity.key"
PEER_ID_HEX_LEN = 64
SHORT_ID_LEN = 8


def _platform_dirs() -> type[PlatformDirsABC]:
    """The platform's conventions, chosen here (not at platformdirs' import) so tests can
    stand in for each platform."""
    if sys.platform == "win32":
        from platformdirs.windows import Windows

        return Windows
    if sys.platform == "darwin":
        from platformdirs.macos import MacOS

        return MacOS
    from platformdirs.unix import Unix

    return Unix


def default_home() -> Path:
    """The default data directory, the platform's own (platformdirs): ``$XDG_DATA_HOME/solstice``
    or ``~/.local/share/solstice`` on Linux and other Unixes, ``~/Library/Application
    Support/solstice`` on macOS, ``%LOCALAPPDATA%\\solstice`` on Windows."""
    return Path(_platform_dirs()("solstice", appauthor=False, roaming=False).user_data_dir)


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


def check_home(home: Path) -> None:
    """``home`` is (or is created as) a directory we can write in; else a clear error."""
    if home.exists() and not home.is_dir():
        raise LocalFileError(f"{home} is not a directory; choose another --home")
    try:
        home.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise LocalFileError(f"cannot create the directory {home}: {exc.strerror}") from None
    if not os.access(home, os.W_OK | os.X_OK):
        raise LocalFileError(f"{home} is not writable by this user; fix with: chmod u+rwx "
                             f"{home} (or choose another --home)")


def _read_key(path: Path) -> Ed25519PrivateKey:
    try:
        mode = path.stat().st_mode
        data = path.read_bytes()
    except OSError as exc:
        raise LocalFileError(f"cannot read {path}: {exc.strerror}") from None
    if mode & 0o077:
        raise LocalFileError(f"{path} is readable by other users (mode {mode & 0o777:04o}); "
                             f"a private key must not be. Fix with: chmod 600 {path}")
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as exc:
        reason = "it is empty" if not data.strip() else str(exc).split("\n")[0][:80]
        raise LocalFileError(f"{path} is not a usable private key ({reason}). Restore it from "
                             "a backup, or move it away to get a new identity (a new peer id: "
                             "unfinished games of the old one cannot be resumed)") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise LocalFileError(f"{path} holds a {type(key).__name__.lstrip('_')}, not an "
                             "Ed25519 private key")
    return key


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
        """Load ``HOME/identity.key``, creating the key (0600) and directory (0700) if absent.
        A key that is unreadable, not an Ed25519 key, or readable by other users is refused
        (like ssh does) with the command that fixes it."""
        home_path = Path(home) if home is not None else default_home()
        check_home(home_path)
        path = home_path / IDENTITY_FILE
        if not path.exists():
            identity = cls.generate()
            pem = identity.private_key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
            # Written aside, then linked into place: a crash never leaves an empty or half
            # key, and of two processes starting together the second loads the first's key.
            # The mode is given at creation so the key is never readable by others.
            tmp = home_path / f"{IDENTITY_FILE}.{os.getpid()}.tmp"
            try:
                write_synced(tmp, pem, 0o600)
                os.link(tmp, path)
            except FileExistsError:
                pass  # Someone else won the race: load theirs below.
            except OSError as exc:
                raise LocalFileError(f"cannot create {path}: {exc.strerror}") from None
            else:
                fsync_dir(home_path)
                return identity
            finally:
                tmp.unlink(missing_ok=True)
        return cls(_read_key(path))

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

    def derive_secret(self, context: bytes) -> bytes:
        """A 32-byte secret only this identity can compute: HMAC-SHA256 keyed with the raw
        private key of ``context`` (which must name its use; see ``p2p.session.secrets``)."""
        seed = self.private_key.private_bytes(serialization.Encoding.Raw,
                                              serialization.PrivateFormat.Raw,
                                              serialization.NoEncryption())
        return hmac.new(seed, context, hashlib.sha256).digest()

    def __repr__(self) -> str:  # Never print key material.
        return f"Identity({self.short_id})"
