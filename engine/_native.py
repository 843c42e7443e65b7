"""Which engine runs: the mypyc-compiled modules in ``engine/_compiled`` or the Python sources.

This is package plumbing, not game logic: the package's ``__init__`` asks :func:`choose` once
at import, and puts ``_compiled`` first on the package's ``__path__`` when the build there was
made from exactly these sources for this interpreter (``tools/build_fast.py`` writes the build
and its ``SOURCES`` hash: ``make``'s install and a wheel build). It reads the environment and
the package's own files, nothing else, so the engine stays deterministic either way: both builds
play every seeded game move for move alike.

``SOLSTICE_PURE=1`` selects the Python sources (debugging, tracebacks with source lines).
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import os
from pathlib import Path

HERE = Path(__file__).resolve().parent
COMPILED_DIR = HERE / "_compiled"
# Written by the build when it could not compile (no C compiler, no Python headers): its text
# is the reason `solstice --version` shows.
UNAVAILABLE = "UNAVAILABLE"
# The shared library of the compiled modules, a module of this package (mypyc's group name).
SHARED_LIB = "native__mypyc"


def sources_hash(engine_dir: Path) -> str:
    """SHA-256 over the engine's Python sources (names and contents, in name order)."""
    digest = hashlib.sha256()
    for path in sorted(engine_dir.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def choose(compiled_dir: Path = COMPILED_DIR, engine_dir: Path = HERE) -> tuple[str, str]:
    """``("compiled" | "pure", why)`` for the build in ``compiled_dir``."""
    if os.environ.get("SOLSTICE_PURE", "") not in ("", "0"):
        return "pure", "SOLSTICE_PURE is set"
    if not compiled_dir.is_dir():
        return "pure", ("no compiled build here (make builds one; so does a wheel build with a "
                        "C compiler)")
    unavailable = compiled_dir / UNAVAILABLE
    if unavailable.is_file():
        return "pure", unavailable.read_text(encoding="utf-8", errors="replace").strip()[:200]
    stamp = compiled_dir / "SOURCES"
    if not stamp.is_file() or stamp.read_text().strip() != sources_hash(engine_dir):
        return "pure", "the compiled build is older than the sources (run make to rebuild it)"
    suffixes = importlib.machinery.EXTENSION_SUFFIXES
    if not any((compiled_dir / f"{SHARED_LIB}{suffix}").is_file() for suffix in suffixes):
        return "pure", "the compiled build is for another Python version (run make to rebuild it)"
    return "compiled", "mypyc"
