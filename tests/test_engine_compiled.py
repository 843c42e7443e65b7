"""The compiled engine (mypyc, ``engine/_compiled``: built by ``make`` and by a wheel build) runs
when it was built from the current sources for this Python, the sources run otherwise or when
``SOLSTICE_PURE=1`` asks for them, and ``engine.ENGINE_BUILD`` / ``ENGINE_REASON`` say which
and why.

``make test-compiled`` runs the engine tests with ``SOLSTICE_EXPECT_COMPILED=1``: this test then
fails unless the engine imported is the compiled one of the current sources, so a stale or
missing build cannot pass as tested; ``make test-pure`` runs them with ``SOLSTICE_PURE=1``.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

import engine
from engine import _native

ROOT = Path(__file__).resolve().parent.parent
COMPILED = ("actions", "cleanup", "dispatch", "draft", "features", "flow", "game", "resolution",
            "rollout", "sight", "state", "stepper", "strength", "view")
INTERPRETED = ("cards", "config", "_native")


def _build_fast():  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import build_fast
    finally:
        sys.path.pop(0)
    return build_fast


def _asked_for() -> str | None:
    if os.environ.get("SOLSTICE_EXPECT_COMPILED"):
        return "compiled"
    if os.environ.get("SOLSTICE_PURE", "") not in ("", "0"):
        return "pure"
    return None  # the default: whatever this install has


@pytest.mark.parametrize("name", COMPILED)
def test_the_engine_imported_is_the_build_the_package_chose(name: str) -> None:
    module = importlib.import_module(f"engine.{name}")
    compiled = not str(module.__file__).endswith(".py")
    assert compiled == (engine.ENGINE_BUILD == "compiled"), (module.__file__, engine.ENGINE_REASON)
    asked = _asked_for()
    if asked is not None:
        assert asked == engine.ENGINE_BUILD, f"{engine.ENGINE_REASON} (run make engine)"


@pytest.mark.parametrize("name", INTERPRETED)
def test_the_modules_left_interpreted_run_from_their_sources(name: str) -> None:
    assert str(importlib.import_module(f"engine.{name}").__file__).endswith(".py")


def test_a_compiled_build_matches_the_sources() -> None:
    if engine.ENGINE_BUILD != "compiled":
        pytest.skip(f"pure-Python run: {engine.ENGINE_REASON}")
    stamp = (_native.COMPILED_DIR / "SOURCES").read_text().strip()
    assert stamp == _native.sources_hash(ROOT / "engine")


def _fake_build(tmp_path: Path, sources: Path, suffix: str | None = None) -> Path:
    """A directory that looks like a build of ``sources`` (the chooser looks, it does not load)."""
    out = tmp_path / "_compiled"
    out.mkdir()
    (out / "SOURCES").write_text(_native.sources_hash(sources) + "\n")
    suffix = suffix or importlib.machinery.EXTENSION_SUFFIXES[0]
    (out / f"{_native.SHARED_LIB}{suffix}").write_bytes(b"")
    return out


@pytest.fixture
def sources(tmp_path: Path) -> Path:
    engine_dir = tmp_path / "engine"
    engine_dir.mkdir()
    (engine_dir / "game.py").write_text("X = 1\n")
    return engine_dir


def test_a_current_build_is_chosen(tmp_path: Path, sources: Path, monkeypatch) -> None:
    monkeypatch.delenv("SOLSTICE_PURE", raising=False)
    assert _native.choose(_fake_build(tmp_path, sources), sources) == ("compiled", "mypyc")


def test_solstice_pure_keeps_the_sources(tmp_path: Path, sources: Path, monkeypatch) -> None:
    monkeypatch.setenv("SOLSTICE_PURE", "1")
    assert _native.choose(_fake_build(tmp_path, sources), sources) == \
        ("pure", "SOLSTICE_PURE is set")


def test_a_build_of_older_sources_is_not_used(tmp_path: Path, sources: Path, monkeypatch) -> None:
    monkeypatch.delenv("SOLSTICE_PURE", raising=False)
    build = _fake_build(tmp_path, sources)
    (sources / "game.py").write_text("X = 2\n")
    build_kind, why = _native.choose(build, sources)
    assert build_kind == "pure" and "older than the sources" in why


def test_a_build_for_another_python_is_not_used(tmp_path: Path, sources: Path,
                                                monkeypatch) -> None:
    monkeypatch.delenv("SOLSTICE_PURE", raising=False)
    build = _fake_build(tmp_path, sources, suffix=".cpython-29-elsewhere.so")
    build_kind, why = _native.choose(build, sources)
    assert build_kind == "pure" and "another Python" in why


def test_no_build_at_all_runs_the_sources(tmp_path: Path, sources: Path, monkeypatch) -> None:
    monkeypatch.delenv("SOLSTICE_PURE", raising=False)
    build_kind, why = _native.choose(tmp_path / "missing", sources)
    assert build_kind == "pure" and "no compiled build" in why


def test_without_a_compiler_the_build_leaves_one_notice_and_the_reason(
        tmp_path: Path, sources: Path, monkeypatch, capsys) -> None:
    build_fast = _build_fast()
    monkeypatch.delenv("SOLSTICE_PURE", raising=False)

    def no_compiler(*args: object, **kwargs: object) -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess(args, 1, "", "error: command 'gcc' failed: "
                                           "No such file or directory\n")

    monkeypatch.setattr(build_fast.subprocess, "run", no_compiler)
    out = tmp_path / "_compiled"
    assert build_fast.build(out) is False
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 and "pure Python" in lines[0] and "gcc" in lines[0]
    build_kind, why = _native.choose(out, ROOT / "engine")
    assert build_kind == "pure" and why.startswith("not compiled when installed") and "gcc" in why
    with pytest.raises(build_fast.BuildFailed):
        build_fast.build(out, strict=True)


def test_a_match_result_survives_pickling() -> None:
    """What a tournament's worker process sends back (``GameConfig`` inside) pickles in either
    build: ``config`` stays interpreted in the compiled one for this."""
    from bots.match import play_match
    from bots.random_bot import RandomBot

    result = play_match([RandomBot(), RandomBot()], "pickled", keep_log=False)
    again = pickle.loads(pickle.dumps(result))
    assert again == result
    assert again.config == result.config


# One value of each dataclass the compiled build compiles, and of each action (compiled slots
# classes). A compiled class cannot be rebuilt field by field (as copy, deepcopy and pickle
# rebuild one), so each says how to rebuild it; a new dataclass must be listed here to be
# checked.
def _compiled_dataclass_samples() -> dict[str, object]:
    from engine.actions import Capture, Choose, Discard, Dispatch, Pick, Shuffle
    from engine.canonical import JSONLimits
    from engine.relabel import Relabel
    from engine.state import Decision

    return {"Pick": Pick(1, (4, 5)), "Dispatch": Dispatch(2, 7, 1, "Duchess"),
            "Capture": Capture(0, 3), "Discard": Discard(3, 9), "Choose": Choose(1, "yes"),
            "Shuffle": Shuffle((2, 0, 1)), "hidden Shuffle": Shuffle(None),
            "Relabel": Relabel(1, (4, 5), (1, 0)),
            "Decision": Decision(0, "pick", ("1", "2"), "1", "Pick a card", ("draft", 3)),
            "JSONLimits": JSONLimits(100, max_depth=4)}


def _compiled_dataclasses() -> set[str]:
    import dataclasses
    import inspect

    build_fast = _build_fast()
    found = set()
    for path in (ROOT / "engine").glob("*.py"):
        if path.name in build_fast.INTERPRETED:
            continue
        module = importlib.import_module(f"engine.{path.stem}")
        found |= {name for name, value in vars(module).items()
                  if inspect.isclass(value) and value.__module__ == module.__name__
                  and dataclasses.is_dataclass(value)}
    return found


def test_every_compiled_dataclass_has_a_sample_below() -> None:
    assert _compiled_dataclasses() <= set(_compiled_dataclass_samples())


@pytest.mark.parametrize("name", sorted(_compiled_dataclass_samples()))
def test_a_compiled_value_survives_copy_deepcopy_and_pickling(name: str) -> None:
    """The network fuzzers deep-copy whole sessions (relabels and decisions inside); a
    tournament worker pickles what it sends back."""
    import copy

    value = _compiled_dataclass_samples()[name]
    for again in (copy.copy(value), copy.deepcopy(value), pickle.loads(pickle.dumps(value))):
        assert again == value
        assert type(again) is type(value)
