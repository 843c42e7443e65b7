"""Where solstice keeps its data (identity key, games, transcripts): the platform's own data
directory through platformdirs, XDG on Linux as before, ``Library/Application Support`` on
macOS, ``%LOCALAPPDATA%`` on Windows, and homes whose names have spaces and non-ASCII letters
work like any other."""

from __future__ import annotations

import stat
import sys
from pathlib import Path, PureWindowsPath

import platformdirs.windows
import pytest

from p2p.identity import IDENTITY_FILE, Identity, default_home

ODD = "Zoë Ä Łukasz 日本"  # a user name with spaces and letters outside ASCII


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    user = tmp_path / ODD
    user.mkdir()
    monkeypatch.setenv("HOME", str(user))
    for name in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
        monkeypatch.delenv(name, raising=False)
    return user


def test_on_linux_the_data_dir_is_xdg_as_before(home: Path, monkeypatch) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    assert default_home() == home / ".local" / "share" / "solstice"
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "my data"))
    assert default_home() == home / "my data" / "solstice"


def test_on_macos_the_data_dir_is_application_support(home: Path, monkeypatch) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")
    assert default_home() == home / "Library" / "Application Support" / "solstice"


def test_on_windows_the_data_dir_is_local_appdata(home: Path, monkeypatch) -> None:
    monkeypatch.setattr(sys, "platform", "win32")
    local = f"C:\\Users\\{ODD}\\AppData\\Local"
    folders = {"CSIDL_LOCAL_APPDATA": local, "CSIDL_APPDATA": f"C:\\Users\\{ODD}\\AppData\\Roaming"}
    # the Windows shell's answer (SHGetKnownFolderPath), which this machine does not have
    monkeypatch.setattr(platformdirs.windows, "get_win_folder", folders.__getitem__)
    got = PureWindowsPath(str(default_home()).replace("/", "\\"))
    assert got == PureWindowsPath(local) / "solstice"  # not roaming: keys stay on the machine


def test_the_identity_is_created_in_a_default_home_with_spaces_and_accents(home: Path,
                                                                           monkeypatch) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    first = Identity.load_or_create()
    key = home / ".local" / "share" / "solstice" / IDENTITY_FILE
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert Identity.load_or_create().peer_id == first.peer_id
