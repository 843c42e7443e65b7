"""Identity: persistence under a home directory, file permissions, ids and signatures."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from p2p.errors import LocalFileError
from p2p.identity import (
    IDENTITY_FILE,
    Identity,
    default_home,
    is_peer_id,
    peer_id_of,
    short_id,
    verify_signature,
)


def test_load_or_create_persists_the_same_identity(tmp_path: Path) -> None:
    home = tmp_path / "home"
    first = Identity.load_or_create(home)
    second = Identity.load_or_create(home)
    assert first.peer_id == second.peer_id
    assert first.public_bytes == second.public_bytes
    assert Identity.load_or_create(tmp_path / "other").peer_id != first.peer_id


def test_key_file_is_private(tmp_path: Path) -> None:
    Identity.load_or_create(tmp_path)
    mode = stat.S_IMODE((tmp_path / IDENTITY_FILE).stat().st_mode)
    assert mode == 0o600


def test_default_home_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_home() == tmp_path / "solstice"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert default_home() == Path.home() / ".local" / "share" / "solstice"


def test_peer_id_is_sha256_of_raw_public_key() -> None:
    ident = Identity.from_private_bytes(bytes(range(32)))
    assert is_peer_id(ident.peer_id)
    assert ident.peer_id == peer_id_of(ident.public_key) == peer_id_of(ident.public_bytes)
    assert ident.short_id == short_id(ident.peer_id) == ident.peer_id[:8]
    assert ident.short_id in repr(ident)
    with pytest.raises(ValueError):
        peer_id_of(b"short")


def test_sign_and_verify() -> None:
    a, b = Identity.generate(), Identity.generate()
    sig = a.sign(b"data")
    assert verify_signature(a.public_bytes, sig, b"data")
    assert not verify_signature(a.public_bytes, sig, b"other data")
    assert not verify_signature(b.public_bytes, sig, b"data")
    assert not verify_signature(a.public_bytes, b"\0" * 64, b"data")
    assert not verify_signature(b"bad key", sig, b"data")


def test_creating_the_key_leaves_no_temporary_file_and_a_second_load_agrees(
        tmp_path: Path) -> None:
    first = Identity.load_or_create(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["identity.key"]
    assert Identity.load_or_create(tmp_path).peer_id == first.peer_id


@pytest.mark.parametrize("mode", [0o640, 0o604, 0o644])
def test_a_key_group_or_world_can_read_is_refused(tmp_path: Path, mode: int) -> None:
    Identity.load_or_create(tmp_path)
    (tmp_path / "identity.key").chmod(mode)
    with pytest.raises(LocalFileError, match=f"mode {mode:04o}.*chmod 600"):
        Identity.load_or_create(tmp_path)
