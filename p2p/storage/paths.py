"""Checks of local paths made before a game starts, so that it never fails at its end."""

from __future__ import annotations

import os
from pathlib import Path

from p2p.errors import LocalFileError


def check_transcript_target(path: Path) -> None:
    """The transcript can be written at ``path``: not a directory, and the nearest existing
    parent is a directory we may write in (missing ones are created at the end)."""
    path = Path(path)
    if path.is_dir():
        raise LocalFileError(f"--transcript {path} is a directory; give a file name")
    if path.exists() and not os.access(path, os.W_OK):
        raise LocalFileError(f"--transcript {path} is not writable by this user")
    parent = path.parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise LocalFileError(f"cannot write the transcript {path}: {parent} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise LocalFileError(f"cannot write the transcript {path}: the directory {parent} is "
                             "not writable by this user")
