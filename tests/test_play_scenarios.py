"""Whole-game scenarios through ``solstice rules play`` (README, "Rules scenarios").

Every file in ``tests/play_scenarios/`` is ``{"why": ..., "scenario": {...}, "expect": {...}}``.
``scenario`` is the input of ``solstice rules play``; ``expect`` holds the parts of its output
that the rulebook and the rulings pin down, worked out by hand from them (the ``why`` says how):
an object is checked key by key (keys it leaves out are not checked), a list item by item
(same length), anything else must be equal. ``stopped`` is expected to be null (every action
went as the scenario said: an action it marks ``refused`` was refused for that reason) unless
``expect`` says otherwise, and ``log_contains`` lists lines some action's log must hold.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from typer.testing import CliRunner

from ui.cli import app
from ui.cli.rules import schema_text

HERE = Path(__file__).resolve().parent
PLAY_FILES = sorted((HERE / "play_scenarios").glob("*.json"))
RESOLVE_FILES = sorted((HERE / "scenarios").glob("*.json"))
# The areas of a whole game (issue 27), by file name prefix: each needs a play scenario; and
# the rulings each need a scenario of either kind (their number in the file name).
PLAY_AREAS = ("draft", "claims", "dispatch", "effects", "sentry", "end", "cleanup", "refusal")
RULINGS = ("ruling30", "ruling31", "ruling32", "ruling33", "ruling34", "ruling35")


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def _validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(schema_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _match(got: Any, want: Any, where: str = "$") -> None:
    if isinstance(want, dict):
        assert isinstance(got, dict), f"{where}: expected an object, got {got!r}"
        for key, value in want.items():
            assert key in got, f"{where}.{key} is missing"
            _match(got[key], value, f"{where}.{key}")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), \
            f"{where}: expected {len(want)} items, got {got!r}"
        for i, (item, wanted) in enumerate(zip(got, want, strict=True)):
            _match(item, wanted, f"{where}[{i}]")
    else:
        assert got == want, f"{where}: expected {want!r}, got {got!r}"


def check(out: dict[str, Any], expect: dict[str, Any]) -> None:
    expect = dict(expect)
    expect.setdefault("stopped", None)
    lines = expect.pop("log_contains", [])
    _match(out, expect)
    logged = [line for step in out["steps"] for line in step["log"]]
    for line in lines:
        assert line in logged, f"log has no line {line!r}"


def test_every_area_has_a_scenario() -> None:
    plays = [p.stem for p in PLAY_FILES]
    names = plays + [p.stem for p in RESOLVE_FILES]
    assert [a for a in PLAY_AREAS if not any(name.startswith(a) for name in plays)] == []
    assert [r for r in RULINGS if not any(r in name for name in names)] == []


@pytest.mark.parametrize("path", PLAY_FILES + RESOLVE_FILES,
                         ids=[p.parent.name + "/" + p.stem for p in PLAY_FILES + RESOLVE_FILES])
def test_the_shipped_schema_validates_every_shipped_scenario(path: Path) -> None:
    _validator().validate(_load(path)["scenario"])


@pytest.mark.parametrize("path", PLAY_FILES, ids=[p.stem for p in PLAY_FILES])
def test_play_scenario(path: Path, tmp_path: Path) -> None:
    data = _load(path)
    assert set(data) == {"why", "scenario", "expect"} and data["why"].strip()
    file = tmp_path / "scenario.json"
    file.write_text(json.dumps(data["scenario"]), encoding="utf-8")
    result = CliRunner().invoke(app, ["rules", "play", str(file)])
    stopped = data["expect"].get("stopped")
    assert result.exit_code == (0 if stopped is None else 1), result.output
    out = json.loads(result.stdout)
    check(out, data["expect"])


def test_play_does_not_mutate_its_input() -> None:
    from engine.scenario_play import play_scenario

    data = _load(PLAY_FILES[0])["scenario"]
    kept = copy.deepcopy(data)
    play_scenario(data)
    assert data == kept
