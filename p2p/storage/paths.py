"""Checks of local paths made before a game starts, so that it never fails at its end."""

from __future__ import annotations

import os
from pathlib import Path

from p2p.errors import LocalFileError
from p2p.storage.transcript import TranscriptUnreadable, load_transcript


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


def transcript_destination(path: Path, game_id: str) -> Path:
    """Where ``--transcript PATH`` puts the transcript of ``game_id``: PATH itself, unless PATH
    holds anything but this game's transcript (the last game's, with ``--rematch``): that is
    never overwritten, and this one goes beside it with the game's short id before the suffix
    (``game.json`` -> ``game-1a2b3c4d.json``), or its whole id if that name is taken too."""
    path = Path(path)
    beside = [path.with_name(f"{path.stem}-{tag}{path.suffix}")
              for tag in (game_id[:8], game_id)]
    for candidate in (path, *beside):
        if not candidate.exists() or _transcript_game(candidate) == game_id:
            return candidate
    number = 2
    while (candidate := path.with_name(f"{path.stem}-{game_id}-{number}{path.suffix}")).exists():
        number += 1
    return candidate


def _transcript_game(path: Path) -> str | None:
    """The game id of the transcript at ``path`` (None: not a readable transcript)."""
    try:
        return load_transcript(path)[0].game_id
    except TranscriptUnreadable:
        return None
