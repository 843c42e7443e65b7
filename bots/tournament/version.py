"""Which solstice is running: the installed version and a digest of the game and bot code, so
records from different code are not mixed and a cluster's workers are known to play the same
games as this process."""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
from pathlib import Path

_PACKAGES = ("engine", "bots")  # the code that decides what happens in a game


@functools.cache
def installed_version() -> str:
    try:
        return importlib.metadata.version("solstice-table")
    except importlib.metadata.PackageNotFoundError:  # run from a source tree, not installed
        return "unknown"


@functools.cache
def code_digest() -> str:
    """SHA-256 (first 16 hex digits) over the Python sources of the engine and the bots, so an
    edited checkout with an unchanged version number is still told apart."""
    root = Path(__file__).resolve().parents[2]
    digest = hashlib.sha256()
    for package in _PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def identity() -> tuple[str, str]:
    return installed_version(), code_digest()
