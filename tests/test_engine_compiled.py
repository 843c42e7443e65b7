"""The optional compiled engine (``make fast``, ``tools/build_fast.py``) is what runs when it
is asked for, and is built from the current sources.

``make test-compiled`` runs the engine tests with ``PYTHONPATH=build/fast`` and
``SOLSTICE_EXPECT_COMPILED=1``; this test then fails unless the engine imported is the
compiled one and the build's source hash matches ``engine/``, so a stale or missing build cannot
pass as tested. Without that variable (``make test``) it checks the default: pure Python.
"""

from __future__ import annotations

import importlib
import os
import pickle
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
COMPILED = ("cleanup", "dispatch", "draft", "flow", "game", "resolution", "state", "strength",
            "view")


def _sources_hash() -> str:
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        from build_fast import sources_hash
    finally:
        sys.path.pop(0)
    return sources_hash(ROOT / "engine")


@pytest.mark.parametrize("name", COMPILED)
def test_the_engine_imported_is_the_one_asked_for(name: str) -> None:
    module = importlib.import_module(f"engine.{name}")
    compiled = not str(module.__file__).endswith(".py")
    if os.environ.get("SOLSTICE_EXPECT_COMPILED"):
        assert compiled, f"engine.{name} is not compiled: {module.__file__} (run make fast)"
    else:
        assert not compiled, f"engine.{name} is compiled: {module.__file__}; the default " \
                             "(make test) is pure Python"


def test_a_compiled_build_matches_the_sources() -> None:
    if not os.environ.get("SOLSTICE_EXPECT_COMPILED"):
        pytest.skip("pure-Python run: no build to check")
    build = Path(importlib.import_module("engine").__file__ or "").parent.parent
    stamp = (build / "SOURCES").read_text().strip()
    assert stamp == _sources_hash(), f"{build} was built from other sources: run make fast"


def test_a_match_result_survives_pickling() -> None:
    """What a tournament's worker process sends back (``GameConfig`` inside) pickles in either
    build: ``config`` stays interpreted in the compiled one for this."""
    from bots.match import play_match
    from bots.random_bot import RandomBot

    result = play_match([RandomBot(), RandomBot()], "pickled", keep_log=False)
    again = pickle.loads(pickle.dumps(result))
    assert again == result
    assert again.config == result.config
