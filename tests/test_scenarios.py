"""Independent oracle for planet resolution.

Every file in ``tests/scenarios/`` is ``{"why": ..., "scenario": {...}, "expect": {...}}``.
``scenario`` is the input of ``solstice rules resolve`` (rulings.md "Scenario format");
``expect`` holds only the parts of the output the rules pin down:

* ``scores``: every player's ``{"vp", "casualties"}`` after resolution;
* ``planets``: in resolution order, each with ``name`` and any of ``strongest``,
  ``favored``, ``discarded`` (only the keys present are checked);
* ``claims``: the whole claims mapping.

The expectations were worked out by hand from rulebook.txt and rulings.md, without
looking at the engine.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SCENARIO_DIR = Path(__file__).resolve().parent / "scenarios"
SCENARIO_FILES = sorted(SCENARIO_DIR.glob("*.json"))

FACTIONS = {"black", "white", "blue", "green"}
ACTION_TYPES = {"Legions", "Diplomat", "Assassin", "Duchess", "Marshal", "Elder"}
EVENTS = {
    "Whispered Secrets",
    "Rumor",
    "Vision",
    "Mimic",
    "Escape",
    "Transport",
    "Imposter",
    "Hidden Base",
    "Peace Accords",
    "Prophecy",
    "Honor Guards",
    "Sentry",
    "Messenger",
    "Medical Team",
    "Atmospheric Storm",
    "Blockade",
    "Ambush",
    "Planetary Siege",
    "Orbital Bombardment",
    "Martyr",
    "Famine",
    "Poison",
    "Quagmire",
    "Mercenaries",
}
PLANETS = {"Capital", "Industrial", "Water", "Jungle", "Desert"}


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _valid_label(label: str) -> bool:
    owner, _, name = label.partition(":")
    if owner == "event":
        return name in EVENTS
    return owner in FACTIONS and name in ACTION_TYPES


def _scores(out: dict) -> dict:
    return {
        player: {"vp": value["vp"], "casualties": value["casualties"]}
        for player, value in out["scores"].items()
    }


def _check(out: dict, expect: dict) -> None:
    if "scores" in expect:
        assert _scores(out) == expect["scores"], "scores"
    if "planets" in expect:
        got_names = [planet["name"] for planet in out["planets"]]
        want_names = [planet["name"] for planet in expect["planets"]]
        assert got_names == want_names, "planet resolution order"
        for got, want in zip(out["planets"], expect["planets"], strict=True):
            for key, value in want.items():
                assert got.get(key) == value, f"{want['name']}.{key}"
    if "claims" in expect:
        assert out["claims"] == expect["claims"], "claims"


# --------------------------------------------------------------------------- data sanity
# These run without the engine: they keep the oracle files themselves honest.


def test_there_are_enough_scenarios() -> None:
    assert len(SCENARIO_FILES) >= 60


@pytest.mark.parametrize("path", SCENARIO_FILES, ids=[p.stem for p in SCENARIO_FILES])
def test_scenario_file_is_well_formed(path: Path) -> None:
    data = _load(path)
    assert set(data) == {"why", "scenario", "expect"}
    assert data["why"].strip()
    scenario, expect = data["scenario"], data["expect"]
    players = scenario["players"]
    assert len(set(players)) == len(players) and set(players) <= FACTIONS
    assert set(expect["scores"]) == set(players)
    used = []
    for planet in scenario["planets"]:
        assert planet["name"] in PLANETS
        assert len(planet["cards"]) <= 6
        used.extend(planet["cards"])
    used.extend(scenario.get("prisoners", {}).values())
    assert all(_valid_label(label) for label in used), used
    assert len(used) == len(set(used)), "a card is used twice"
    assert [p["name"] for p in scenario["planets"]] == [p["name"] for p in expect["planets"]]


# --------------------------------------------------------------------------- the oracle


@pytest.mark.parametrize("path", SCENARIO_FILES, ids=[p.stem for p in SCENARIO_FILES])
def test_scenario(path: Path) -> None:
    from engine.scenario import resolve_scenario

    data = _load(path)
    scenario = copy.deepcopy(data["scenario"])
    out = resolve_scenario(scenario)
    assert scenario == data["scenario"], "resolve_scenario must not mutate its input"
    assert isinstance(out.get("log"), list)
    _check(out, data["expect"])


# --------------------------------------------------------------------------- bad input

_GOOD = {
    "players": ["black", "white"],
    "planets": [{"name": "Capital", "cards": ["black:Assassin", "white:Duchess"]}],
}


def _bad(mutate) -> dict:
    data = copy.deepcopy(_GOOD)
    mutate(data)
    return data


BAD_SCENARIOS = {
    "unknown_card": (
        _bad(lambda d: d["planets"][0]["cards"].append("white:Wizard")),
        ("white:Wizard", "cards"),
    ),
    "unknown_event": (
        _bad(lambda d: d["planets"][0]["cards"].append("event:Tsunami")),
        ("event:Tsunami", "cards"),
    ),
    "unknown_planet": (
        _bad(lambda d: d["planets"][0].update(name="Moon")),
        ("Moon", "planets"),
    ),
    "unknown_player": (
        _bad(lambda d: d.update(players=["black", "purple"])),
        ("purple", "players"),
    ),
    "unknown_faction_in_scores": (
        _bad(lambda d: d.update(scores={"purple": {"vp": 1, "casualties": 0}})),
        ("purple", "scores"),
    ),
    "card_used_twice": (
        _bad(lambda d: d["planets"].append({"name": "Water", "cards": ["black:Assassin"]})),
        ("black:Assassin", "twice", "duplicate"),
    ),
    "missing_players": (
        _bad(lambda d: d.pop("players")),
        ("players",),
    ),
    "missing_planets": (
        _bad(lambda d: d.pop("planets")),
        ("planets",),
    ),
    "missing_planet_cards": (
        _bad(lambda d: d["planets"][0].pop("cards")),
        ("cards",),
    ),
}


@pytest.mark.parametrize("name", sorted(BAD_SCENARIOS))
def test_bad_scenario_raises(name: str) -> None:
    from engine.scenario import ScenarioError, resolve_scenario

    data, tokens = BAD_SCENARIOS[name]
    with pytest.raises(ScenarioError) as info:
        resolve_scenario(copy.deepcopy(data))
    assert any(token.lower() in str(info.value).lower() for token in tokens), str(info.value)


# --------------------------------------------------------------------------- CLI


def _cli() -> list[str]:
    script = Path(sys.executable).with_name("solstice")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from ui.cli import main; sys.exit(main())"]


def _run_cli(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*_cli(), "rules", "resolve", str(path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_cli_resolves_a_valid_scenario(tmp_path: Path) -> None:
    data = _load(SCENARIO_DIR / "001_rulebook_capital_two_assassins_duchess_legions.json")
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(data["scenario"]), encoding="utf-8")
    result = _run_cli(path)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    _check(out, data["expect"])


def _assert_clean_failure(result: subprocess.CompletedProcess, tokens: tuple[str, ...]) -> None:
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert result.stderr.strip(), "the error must be explained on stderr"
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout
    if tokens:
        assert any(token.lower() in result.stderr.lower() for token in tokens), result.stderr


def test_cli_refuses_a_deeply_nested_file_without_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 200_000 + "]" * 200_000, encoding="utf-8")
    _assert_clean_failure(_run_cli(path), ("nest", "deep", "level"))


@pytest.mark.parametrize("name", sorted(BAD_SCENARIOS))
def test_cli_rejects_bad_scenario(name: str, tmp_path: Path) -> None:
    data, tokens = BAD_SCENARIOS[name]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    _assert_clean_failure(_run_cli(path), tokens)


def test_cli_rejects_bad_json(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"players": ["black", "white"], "planets": [', encoding="utf-8")
    _assert_clean_failure(_run_cli(path), ())


# --------------------------------------------------------------------------- decision options
# The scenario files pin outcomes; these pin which answers a decision offers (rulings 27, 28).


def _first_decision(data: dict):
    """The first decision resolving ``data``'s planets asks for."""
    from engine.flow import advance
    from engine.scenario import build

    s, _ = build(data)
    advance(s)
    assert s.decision is not None
    return s.decision


def test_ruling_27_mercenaries_cannot_target_itself() -> None:
    from engine.scenario import ScenarioError, resolve_scenario

    data = {"players": ["black", "white"],
            "planets": [{"name": "Desert", "cards": ["event:Mercenaries", "black:Assassin",
                                                     "black:Marshal", "white:Duchess"]}]}
    decision = _first_decision(copy.deepcopy(data))
    assert decision.kind == "mercenaries"
    assert decision.options == ("no", "white:Duchess", "black:Marshal")
    with pytest.raises(ScenarioError, match="not an option"):
        resolve_scenario({**data, "choices": ["event:Mercenaries"]})


def test_ruling_28_an_enemy_duchess_forces_the_assassin_to_kill() -> None:
    data = {"players": ["black", "white"],
            "planets": [{"name": "Capital", "cards": ["event:Imposter", "white:Duchess",
                                                     "black:Assassin"]}]}
    decision = _first_decision(data)
    assert decision.kind == "assassin_target"
    assert decision.options == ("white:Duchess", "event:Imposter")
    assert decision.default == "white:Duchess"


def test_ruling_28_without_an_enemy_duchess_the_assassin_may_kill_nothing() -> None:
    data = {"players": ["black", "white"],
            "planets": [{"name": "Capital", "cards": ["event:Imposter", "black:Duchess",
                                                     "black:Assassin"]}]}
    decision = _first_decision(data)
    assert decision.kind == "assassin_target"
    assert decision.options == ("no", "event:Imposter")
    assert decision.default == "no"


def test_resolve_reports_every_planet(tmp_path: Path) -> None:
    data = {"players": ["black", "white"],
            "planets": [{"name": "Capital", "cards": ["black:Legions"]},
                        {"name": "Water", "cards": ["white:Assassin", "black:Duchess"]},
                        {"name": "Desert", "cards": ["black:Elder", "white:Elder"]}]}
    path = tmp_path / "three.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    result = _run_cli(path)
    assert result.returncode == 0, result.stderr
    planets = json.loads(result.stdout)["planets"]
    assert planets == [
        {"name": "Capital", "strongest": "black", "favored": "black", "discarded": []},
        {"name": "Water", "strongest": "white", "favored": "black",
         "discarded": ["black:Duchess"]},
        {"name": "Desert", "strongest": None, "favored": None, "discarded": []}]


def test_a_misspelt_field_is_refused_not_ignored() -> None:
    from engine.scenario import ScenarioError, resolve_scenario

    with pytest.raises(ScenarioError, match="choise"):
        resolve_scenario({**_GOOD, "choise": ["no"]})
    with pytest.raises(ScenarioError, match=r"planets\[0\]\.card"):
        resolve_scenario({"players": ["black", "white"],
                          "planets": [{"name": "Capital", "cards": [], "card": ["x"]}]})
