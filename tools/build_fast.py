"""Optional compiled engine: build ``engine/`` with mypyc into ``build/fast/engine``.

The engine stays pure Python; this only makes a second, compiled copy of it for bots and
tournaments that want the speed. ``make fast`` runs this script; use the build by putting its
directory first on the path:

    PYTHONPATH=build/fast .venv/bin/solstice simulate --players 4 --bots random --games 600
    make test-compiled     # the engine tests and the seeded-game pins against the build

What is compiled: every engine module except the package ``__init__``, ``actions`` (slots
dataclasses with class attributes, which mypyc does not take), ``config`` and ``cards`` (their
frozen dataclasses, compiled, could not be pickled, and a tournament's worker processes send
``GameConfig`` back in every result) and ``events`` (frozen slots dataclasses that subclass
one another, like ``actions``; they are made only while a log is kept, never in a search);
those stay interpreted, beside the compiled modules.
Compiled, a ``RandomStream``, a ``Decision`` or a state holding one cannot be pickled (nothing
in the project pickles them). The build copies the sources first and writes the hash of the
sources it compiled to ``build/fast/SOURCES`` (``make test-compiled`` refuses a build older
than the sources).

    .venv/bin/python tools/build_fast.py [--out build/fast]
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INTERPRETED = {"__init__.py", "actions.py", "cards.py", "config.py", "events.py"}


def sources_hash(engine: Path) -> str:
    """SHA-256 over the engine's Python sources (names and contents, in name order)."""
    digest = hashlib.sha256()
    for path in sorted(engine.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def build(out: Path) -> float:
    """Copy the engine into ``out`` and compile it there; return the wall seconds it took."""
    source = ROOT / "engine"
    if out.exists():
        shutil.rmtree(out)
    target = out / "engine"
    target.mkdir(parents=True)
    for path in sorted(source.glob("*.py")):
        shutil.copy2(path, target / path.name)
    for path in sorted(source.iterdir()):  # data files (RULINGS.md) travel with the package
        if path.is_file() and path.suffix != ".py":
            shutil.copy2(path, target / path.name)
    modules = [f"engine/{path.name}" for path in sorted(target.glob("*.py"))
               if path.name not in INTERPRETED]
    start = time.time()
    subprocess.run([sys.executable, "-m", "mypyc", *modules], cwd=out, check=True)
    elapsed = time.time() - start
    (out / "SOURCES").write_text(sources_hash(source) + "\n")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "fast")
    args = parser.parse_args()
    elapsed = build(args.out.resolve())
    print(f"compiled engine in {args.out} ({elapsed:.0f} s wall); use it with "
          f"PYTHONPATH={args.out}")


if __name__ == "__main__":
    main()
