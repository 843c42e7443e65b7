"""Writing files so that a crash or a power loss leaves either the old or the new content:
fsync the data before it is relied on, and the directory when an entry is created or renamed.
Imports nothing from the rest of p2p/ (the identity uses it too)."""

from __future__ import annotations

import os
from pathlib import Path


def fsync_dir(path: Path) -> None:
    """Make the creation, removal or renaming of entries of ``path`` durable."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_synced(path: Path, data: bytes, mode: int = 0o644) -> None:
    """Create or truncate ``path`` (with ``mode`` from the start) and write ``data`` to the
    disk before returning."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def write_durably(path: Path, data: bytes, mode: int = 0o644) -> None:
    """Replace ``path`` with ``data`` atomically: a temporary file, fsync, rename, dir fsync.
    A crash leaves either the old file or the new one, never half of one."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        write_synced(tmp, data, mode)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


def make_dirs(path: Path) -> None:
    """``mkdir -p`` (0700) that also makes every directory it creates durable."""
    missing = []
    current = Path(path)
    while not current.exists():
        missing.append(current)
        current = current.parent
    for directory in reversed(missing):
        directory.mkdir(mode=0o700, exist_ok=True)
        fsync_dir(directory.parent)
