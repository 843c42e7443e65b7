"""Local files are checked before a game starts and refused with one line that names the path
and the fix (like ssh refuses a private key others can read); ``solstice transcript``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from p2p.identity import Identity
from ui.cli import app

HOST = ["host", "--players", "2", "--bot", "random", "--bind", "127.0.0.1"]


def _host(home: Path, *extra: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, [*HOST, "--home", str(home), *extra])
    assert "Traceback" not in result.output and "join code" not in result.output
    return result.exit_code, result.output


def test_a_key_readable_by_others_is_refused_with_the_chmod_that_fixes_it(
        tmp_path: Path) -> None:
    Identity.load_or_create(tmp_path)
    key = tmp_path / "identity.key"
    key.chmod(0o644)
    code, output = _host(tmp_path)
    assert code == 1
    assert f"{key} is readable by other users (mode 0644)" in output
    assert f"chmod 600 {key}" in output


@pytest.mark.parametrize("content", [b"", b"garbage\n"])
def test_an_empty_or_garbage_key_is_refused_without_a_traceback(tmp_path: Path,
                                                                content: bytes) -> None:
    key = tmp_path / "identity.key"
    key.write_bytes(content)
    key.chmod(0o600)
    code, output = _host(tmp_path)
    assert code == 1
    assert f"{key} is not a usable private key" in output


def test_a_key_of_another_kind_is_refused(tmp_path: Path) -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    pem = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption())
    key = tmp_path / "identity.key"
    key.write_bytes(pem)
    key.chmod(0o600)
    code, output = _host(tmp_path)
    assert code == 1 and "not an Ed25519 private key" in output


def test_a_home_that_is_a_file_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.write_text("")
    code, output = _host(home)
    assert code == 1 and f"{home} is not a directory" in output


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_a_read_only_home_is_refused_with_its_path(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o500)
    code, output = _host(home)
    assert code == 1 and f"{home} is not writable" in output


@pytest.mark.parametrize("target", ["a-file/transcript.json", "a-dir"])
def test_a_transcript_path_that_cannot_be_written_is_refused_before_the_game(
        tmp_path: Path, target: str) -> None:
    (tmp_path / "a-file").write_text("")
    (tmp_path / "a-dir").mkdir()
    code, output = _host(tmp_path / "home", "--transcript", str(tmp_path / target))
    assert code == 1 and "transcript" in output


def test_the_default_name_is_unique_per_peer(tmp_path: Path) -> None:
    from p2p.net.games import PeerOptions

    one, two = Identity.generate(), Identity.generate()
    options = PeerOptions(home=tmp_path)
    assert options.name_for(one) == f"player-{one.peer_id[:4]}"
    assert options.name_for(one) != options.name_for(two)
    assert PeerOptions(name="ann").name_for(one) == "ann"


def test_transcript_of_a_game_this_home_does_not_hold_is_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["transcript", "ab" * 16, "--home", str(tmp_path)])
    assert result.exit_code == 1
    assert "error: no stored roster for game" in result.output
    assert "Traceback" not in result.output


def test_resume_names_the_home_when_there_is_nothing_to_resume(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["resume", "--bot", "random", "--home", str(tmp_path)])
    assert result.exit_code == 2
    assert f"unfinished games in {tmp_path}: none" in result.output
