"""The compiled engine: build ``engine/`` with mypyc into ``engine/_compiled``.

``make``'s install runs this (and again whenever an engine source changes); a wheel build runs it
too (``hatch_build.py``), into the wheel's ``engine/_compiled``. The package puts that directory
first on its ``__path__`` when the build there matches its sources (``engine/_native.py``), so
``import engine.game`` is the compiled module; ``SOLSTICE_PURE=1`` keeps the Python sources.
When the build cannot compile (no C compiler, no Python headers) it prints one notice line and
writes the reason to ``_compiled/UNAVAILABLE``: the engine then runs from its sources and
``solstice --version`` says why.

What is compiled: every engine module except the package ``__init__``, ``_native`` (which
chooses the build), ``config`` and ``cards`` (their frozen dataclasses, compiled, could not be
pickled, and a tournament's worker processes send ``GameConfig`` back in every result) and
``events`` (frozen slots dataclasses that subclass one another; they are made only while a log
is kept, never in a search); those stay interpreted, beside the compiled modules. The actions
are compiled: plain slots classes (a dataclass's ``verb`` class variable broke the compiled
build), each rebuilt by its constructor for copy and pickle. Compiled, a ``RandomStream``, a
``Decision`` or a state holding one cannot be pickled (nothing in the project pickles them).
The modules share one library, ``engine.native__mypyc`` (mypyc's group name), so the build
lives inside the package.

    .venv/bin/python tools/build_fast.py [--out engine/_compiled] [--strict]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "engine"
INTERPRETED = {"__init__.py", "_native.py", "cards.py", "config.py", "events.py"}
GROUP = "engine.native"

SETUP = """\
import sys
from setuptools import setup
from mypyc.build import mypycify
setup(name="engine-compiled", ext_modules=mypycify(sys.argv.pop(1).split(","), opt_level="3",
      group_name={group!r}))
"""


class BuildFailed(Exception):
    """mypyc or the C compiler failed; the message is the reason, on one line."""


def native() -> ModuleType:
    """``engine/_native.py`` loaded on its own: importing ``engine`` would choose a build."""
    spec = importlib.util.spec_from_file_location("_solstice_native", ENGINE / "_native.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def up_to_date(out: Path) -> bool:
    """Whether ``out`` holds a compiled build of the current sources for this interpreter."""
    return bool(native().choose(out, ENGINE)[0] == "compiled")


def compile_into(out: Path) -> float:
    """Compile the engine into ``out`` (replacing what is there); return the wall seconds taken.

    Raises :class:`BuildFailed` when it cannot.
    """
    sources_hash = native().sources_hash(ENGINE)
    start = time.time()
    with tempfile.TemporaryDirectory(prefix="solstice-mypyc-") as work:
        target = Path(work) / "engine"
        target.mkdir()
        for path in sorted(ENGINE.glob("*.py")):
            shutil.copy2(path, target / path.name)
        modules = [f"engine/{path.name}" for path in sorted(target.glob("*.py"))
                   if path.name not in INTERPRETED]
        (Path(work) / "setup.py").write_text(SETUP.format(group=GROUP))
        try:
            done = subprocess.run(
                [sys.executable, "setup.py", ",".join(modules), "build_ext", "--inplace"],
                cwd=work, capture_output=True, text=True, check=False)
        except OSError as error:
            raise BuildFailed(f"could not run the build: {error}") from error
        if done.returncode != 0:
            raise BuildFailed(f"mypyc could not compile the engine: {_why(done)[:160]}")
        built = sorted(target.glob("*.so")) + sorted(target.glob("*.pyd"))
        if not built:
            raise BuildFailed("mypyc produced no extension modules")
        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)
        for path in built:
            shutil.copy2(path, out / path.name)
    (out / "SOURCES").write_text(sources_hash + "\n")
    return time.time() - start


def _why(done: subprocess.CompletedProcess[str]) -> str:
    """The line of a failed build that says why: its last ``error:`` line (setuptools says
    ``error: command 'gcc' failed: No such file or directory``), else its last line."""
    lines = [line.strip() for line in (done.stdout + "\n" + done.stderr).splitlines()
             if line.strip()]
    errors = [line for line in lines if line.lower().startswith("error:")]
    if errors:
        return errors[-1].removeprefix("error:").strip()
    return lines[-1] if lines else f"exit status {done.returncode}"


def mark_unavailable(out: Path, reason: str) -> None:
    """Leave ``out`` holding only the reason the engine runs from its sources."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    (out / "UNAVAILABLE").write_text(reason + "\n", encoding="utf-8")


def build(out: Path, strict: bool = False) -> bool:
    """Compile into ``out`` or, failing, print one notice line and mark it unavailable (raise
    instead with ``strict``). Return whether a compiled build is there."""
    if os.environ.get("SOLSTICE_PURE", "") not in ("", "0"):
        print("solstice: SOLSTICE_PURE is set: the engine is not compiled")
        return False
    if up_to_date(out):
        return True
    try:
        elapsed = compile_into(out)
    except BuildFailed as error:
        if strict:
            raise
        mark_unavailable(out, f"not compiled when installed: {error}")
        print(f"solstice: {error}; the engine runs as pure Python (slower)")
        return False
    print(f"solstice: compiled the engine with mypyc in {elapsed:.0f} s ({out})")
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ENGINE / "_compiled")
    parser.add_argument("--strict", action="store_true",
                        help="fail (exit status 1) instead of falling back to pure Python")
    args = parser.parse_args()
    try:
        build(args.out.resolve(), strict=args.strict)
    except BuildFailed as error:
        sys.exit(f"solstice: {error}")


if __name__ == "__main__":
    main()
