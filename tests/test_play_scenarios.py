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

import contextlib
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
PLAY_AREAS = ("setup", "draft", "claims", "dispatch", "effects", "sentry", "end", "cleanup",
              "refusal")
RULINGS = ("ruling30", "ruling31", "ruling32", "ruling33", "ruling34", "ruling35", "ruling36",
           "ruling37", "ruling38", "ruling39", "ruling40", "ruling41")


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


# --------------------------------------------------------------------------- the checker itself


def test_check_rejects_a_wrong_expectation() -> None:
    data = _load(HERE / "play_scenarios" / "end_02_three_casualties_turn_order_breaks_a_tie.json")
    from engine.scenario_play import play_scenario

    out = play_scenario(data["scenario"])
    check(out, data["expect"])
    wrong = copy.deepcopy(data["expect"])
    wrong["end"]["winner"] = "white"
    with pytest.raises(AssertionError, match="winner"):
        check(out, wrong)
    with pytest.raises(AssertionError, match="log has no line"):
        check(out, {"log_contains": ["white wins the lottery"]})


# --------------------------------------------------------------------------- how a run stops

_DISPATCH = {"players": ["black", "white"], "phase": "dispatch",
             "planets": ["Capital", "Water", "Desert"],
             "hands": {"black": ["black:Duchess"], "white": ["white:Duchess"]}}


def _play(actions: list[Any], tmp_path: Path) -> tuple[int, dict[str, Any], str]:
    file = tmp_path / "s.json"
    file.write_text(json.dumps({**_DISPATCH, "actions": actions}), encoding="utf-8")
    result = CliRunner().invoke(app, ["rules", "play", str(file)])
    return result.exit_code, json.loads(result.stdout), result.stderr


@pytest.mark.parametrize(("actions", "kind"), [
    (["white dispatch white:Duchess Capital Duchess"], "illegal"),
    (["black dispatch black:Duchess Moon Duchess"], "malformed"),
    (["black fly black:Duchess"], "malformed"),
    ([{"action": "black dispatch black:Duchess Capital Duchess", "refused": ""}], "accepted"),
    ([{"action": "black dispatch black:Duchess Capital black", "refused": "planet is full"}],
     "wrong_refusal"),
])
def test_an_action_that_does_not_go_as_written_stops_the_run(actions: list[Any], kind: str,
                                                             tmp_path: Path) -> None:
    code, out, err = _play([*actions, "white dispatch white:Duchess Water Duchess"], tmp_path)
    assert code == 1
    assert out["stopped"]["index"] == 0 and out["stopped"]["kind"] == kind
    assert "stopped at actions[0]" in err
    assert out["state"]["turn"] == ("white" if kind == "accepted" else "black")


def test_an_expected_refusal_leaves_the_state_and_the_run_goes_on(tmp_path: Path) -> None:
    code, out, _ = _play([{"action": "white dispatch white:Duchess Capital Duchess",
                           "refused": "not its dispatch turn"},
                          "black dispatch black:Duchess Capital Duchess"], tmp_path)
    assert code == 0 and out["stopped"] is None
    assert out["steps"][1]["refused"]["kind"] == "illegal"
    assert out["to_move"] == ["white"]
    assert out["legal_actions"]["white"][0] == "white dispatch white:Duchess Capital Duchess"


def test_actions_in_the_projects_own_text_work_too(tmp_path: Path) -> None:
    from engine.cards import CARD_BY_LABEL
    from engine.scenario_play import build_play

    s, _, _ = build_play(_DISPATCH)
    slot = next(x for x in s.hands[0] if s.card_of[x] == CARD_BY_LABEL["black:Duchess"].id)
    code, out, _ = _play([f"0 dispatch {slot} 0 Duchess"], tmp_path)
    assert code == 0
    assert out["steps"][1]["named"] == "black dispatch black:Duchess Capital Duchess"


# --------------------------------------------------------------------------- bad scenarios

BAD_PLAYS: dict[str, tuple[dict[str, Any], str]] = {
    "unknown_field": ({**_DISPATCH, "hand": {}}, "hand"),
    "unknown_phase": ({**_DISPATCH, "phase": "lunch"}, "phase"),
    "card_twice": ({**_DISPATCH, "deck": ["black:Duchess"]}, "already used"),
    "unknown_label": ({**_DISPATCH, "deck": ["black:Wizard"]}, "black:Wizard"),
    "not_a_player": ({**_DISPATCH, "deck": ["green:Duchess"]}, "not a player"),
    "unknown_planet": ({**_DISPATCH, "planets": ["Moon"]}, "Moon"),
    "unknown_claim": ({**_DISPATCH, "planets": [{"name": "Capital", "cards": [
        {"card": "black:Elder", "by": "black", "claim": "maybe"}]}]}, "claim"),
    "event_not_in_play": ({**_DISPATCH, "events": ["Famine"], "deck": ["event:Rumor"]},
                          "not in play"),
    "drafted_outside_a_draft": ({**_DISPATCH, "drafted": {"black": ["black:Elder"]}},
                                "drafted"),
    "turn_outside_dispatch": ({**_DISPATCH, "phase": "resolve"}, "turn"),
    "bad_round": ({**_DISPATCH, "round": 0}, "round"),
    "bad_scores": ({**_DISPATCH, "scores": {"black": {"vp": -1}}}, "scores.black.vp"),
    "action_not_text": ({**_DISPATCH, "actions": [3]}, "actions[0]"),
    "not_an_object": ([], "$"),
    # malformed set-ups (issue 43): the Desert with 3 players or not last, wrong hand sizes
    "desert_with_three_players": ({**_DISPATCH, "players": ["black", "white", "green"],
                                   "planets": ["Capital", "Water", "Jungle", "Desert"]},
                                  "'planets[3]': the Desert is for 2 players, not 3"),
    "desert_not_last": ({**_DISPATCH, "planets": ["Desert", "Capital", "Water"]},
                        "'planets[0]': the Desert is always placed last"),
    "new_game_with_five_cards": ({"players": ["black", "white"], "new_game": True,
                                  "planets": ["Capital", "Water", "Desert"],
                                  "events": ["Rumor", "Prophecy", "Quagmire", "Mercenaries"],
                                  "hands": {"black": ["black:Duchess"]}},
                                 "'hands.black': a new game deals 6 cards"),
    "new_game_with_scores": ({"players": ["black", "white"], "new_game": True,
                              "planets": ["Capital", "Water", "Desert"],
                              "scores": {"black": {"vp": 2}}}, "'scores'"),
    "new_game_events_by_type": ({"players": ["black", "white", "green"], "new_game": True,
                                 "planets": ["Capital", "Water", "Jungle"],
                                 "events": ["Rumor"], "hands": {
                                     f: [f"{f}:{k}" for k in ("Legions", "Diplomat", "Assassin",
                                                              "Duchess", "Marshal", "Elder")]
                                     for f in ("black", "white", "green")}},
                                "'events': 3-4 players play"),
    "seeded_game_states_a_position": ({"players": ["black", "white"], "new_game": "t",
                                       "hands": {"black": ["black:Duchess"]}},
                                      "'hands': a new game drawn from a seed"),
    "seven_cards_in_hand": ({**_DISPATCH, "hands": {"black": [
        f"black:{k}" for k in ("Legions", "Diplomat", "Assassin", "Duchess", "Marshal",
                               "Elder")] + ["white:Elder"]}}, "at most 6 cards"),
    "unknown_stop": ({**_DISPATCH, "until": "lunch"}, "until"),
    "claim_made_outside_resolve": ({**_DISPATCH, "claimed_this_round": {
        "event:Poison": "black"}}, "claimed_this_round"),
}
BAD_PLAYS["turn_outside_dispatch"][0]["turn"] = "black"


@pytest.mark.parametrize("name", sorted(BAD_PLAYS))
def test_bad_play_scenario_is_refused_cleanly(name: str, tmp_path: Path) -> None:
    data, token = BAD_PLAYS[name]
    file = tmp_path / "bad.json"
    file.write_text(json.dumps(data), encoding="utf-8")
    result = CliRunner().invoke(app, ["rules", "play", str(file)])
    assert result.exit_code == 2, result.output
    assert token in result.stderr and "Traceback" not in result.output


def test_the_schema_and_the_loader_agree_on_bad_scenarios() -> None:
    validator = _validator()
    # The loader reads a few things the schema cannot (a card used twice, an event not in
    # play, fields of the wrong phase); every other bad scenario the schema refuses too.
    loader_only = {"card_twice", "event_not_in_play", "drafted_outside_a_draft",
                   "turn_outside_dispatch", "not_a_player", "desert_with_three_players",
                   "desert_not_last", "new_game_with_five_cards", "new_game_with_scores",
                   "new_game_events_by_type", "seven_cards_in_hand",
                   "claim_made_outside_resolve"}
    for name, (data, _) in BAD_PLAYS.items():
        if name not in loader_only:
            assert not validator.is_valid(data), name


def test_the_schema_names_every_card_the_engine_knows() -> None:
    from engine.cards import CARDS

    schema = json.loads(schema_text())
    assert schema["$defs"]["label"]["enum"] == [card.label for card in CARDS]


def test_mangled_scenarios_never_crash_the_loader() -> None:
    """Seeded: replace one value anywhere in each shipped scenario with junk; playing it either
    works or raises ScenarioError naming a field, never anything else."""
    import random

    from engine.scenario import ScenarioError
    from engine.scenario_play import play_scenario

    junk: list[Any] = [None, 0, -1, True, "", "x", "black", "event:Rumor", [], {}, ["x"],
                       {"x": 1}, "Capital", 7.5]
    rng = random.Random(27)

    def paths(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        found = [path]
        if isinstance(node, dict):
            for key, value in node.items():
                found += paths(value, (*path, key))
        elif isinstance(node, list):
            for i, value in enumerate(node):
                found += paths(value, (*path, i))
        return found

    for path in PLAY_FILES:
        scenario = _load(path)["scenario"]
        spots = paths(scenario)[1:]
        for _ in range(8):
            data = copy.deepcopy(scenario)
            where = rng.choice(spots)
            node = data
            for key in where[:-1]:
                node = node[key]
            node[where[-1]] = rng.choice(junk)
            with contextlib.suppress(ScenarioError):
                play_scenario(data)


def test_random_actions_are_refused_never_crash() -> None:
    """Seeded: a random action text anywhere in a shipped scenario is played or refused (the
    run reports it); nothing raises."""
    import random

    from engine.scenario_play import play_scenario

    words = ["black", "white", "green", "0", "1", "-", "pick", "dispatch", "capture",
             "discard", "choose", "shuffle", "black:Elder", "event:Whispered", "Secrets",
             "Capital", "Desert", "99", "-1", "up", "none", "Duchess", "yes", "0,1", "hidden",
             "reveal", "done", "3"]
    rng = random.Random(2027)
    for path in PLAY_FILES:
        scenario = _load(path)["scenario"]
        for _ in range(6):
            data = copy.deepcopy(scenario)
            actions = data.setdefault("actions", [])
            text = " ".join(rng.choice(words) for _ in range(rng.randint(1, 5)))
            actions.insert(rng.randint(0, len(actions)), text)
            out = play_scenario(data)
            assert out["stopped"] is None or out["stopped"]["kind"] in (
                "illegal", "malformed", "violation", "accepted")


def test_a_card_dispatched_after_a_dealt_vision_defaults_to_face_up() -> None:
    """Ruling 8: a Vision dealt face up makes every later card there face up, so a card
    stated as dispatched there without a claim was played face up; elsewhere face down."""
    from engine.scenario_play import play_scenario

    out = play_scenario({"players": ["black", "white"], "phase": "dispatch", "planets": [
        {"name": "Capital", "cards": ["event:Vision", {"card": "black:Duchess", "by": "black"}]},
        {"name": "Water", "cards": [{"card": "white:Duchess", "by": "white"}]}],
        "hands": {"black": ["black:Elder"]}})
    capital, water = out["state"]["planets"]
    assert capital["vision_face_up"] and not water["vision_face_up"]
    assert capital["cards"][1] == {"card": "black:Duchess", "face_up": True, "by": "black",
                                   "claim": None}
    assert water["cards"][0] == {"card": None, "face_up": False, "by": "white",
                                 "claim": "white"}


def test_the_readme_examples_play_as_the_readme_says() -> None:
    """The complete scenarios quoted in README's "Rules scenarios" run cleanly, and the end
    example ends as README says."""
    import re

    from engine.scenario_play import play_scenario

    readme = (HERE.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Rules scenarios", 1)[1].split("\n## ", 1)[0]
    examples = []
    for span in re.findall(r"`(\{\"players\".*?\})`", section):
        try:
            examples.append(json.loads(span))
        except json.JSONDecodeError:
            continue  # an abbreviated one ("[six black cards]")
    assert len(examples) >= 2
    for data in examples:
        _validator().validate(data)
        out = play_scenario(data)
        assert out["stopped"] is None
    ended = [play_scenario(d) for d in examples if d.get("phase") == "resolve"]
    assert ended[0]["end"] == {"reason": "3 casualties", "winner": "green",
                               "ranking": ["green", "white", "black"]}


# --------------------------------------------------------------------------- real games' positions


def _scenario_of(s: Any) -> dict[str, Any]:
    """A play scenario stating ``s`` (an omniscient state at a draft pick or a dispatch turn)."""
    from engine.cards import CARDS

    factions = s.config.factions

    def labels(slots: list[int]) -> list[str]:
        return [CARDS[s.card_of[x]].label for x in slots]

    def card(x: int) -> Any:
        label = CARDS[s.card_of[x]].label
        if s.dispatcher[x] < 0:
            return label
        return {"card": label, "by": factions[s.dispatcher[x]],
                "claim": "up" if s.face_up[x] else s.claim[x]}

    data: dict[str, Any] = {
        "players": list(factions), "first_player": factions[s.first_player],
        "round": s.round, "phase": s.phase.value, "events": list(s.config.events),
        "planets": [{"name": name, "cards": [card(x) for x in s.planets[p]],
                     "vision_face_up": s.vision_up[p]}
                    for p, name in enumerate(s.config.planets)],
        "hands": {f: labels(s.hands[i]) for i, f in enumerate(factions)},
        "prisoners": {f: CARDS[s.card_of[s.prisoner[i]]].label
                      for i, f in enumerate(factions) if s.prisoner[i] >= 0},
        "claims": {CARDS[s.card_of[x]].label: factions[who] for x, who, _ in s.claims},
        "scores": {f: {"vp": s.vp[i], "casualties": s.casualties[i]}
                   for i, f in enumerate(factions)},
        "deck": labels(s.deck), "discard": labels(s.discard),
    }
    if s.phase.value == "draft":
        data.update(drafted={f: labels(s.drafted[i]) for i, f in enumerate(factions)},
                    first_pick=s.first_pick)
    else:
        data.update(turn=factions[s.turn],
                    captured=[f for i, f in enumerate(factions) if s.captured[i]])
    return data


def _comparable(out: dict[str, Any]) -> dict[str, Any]:
    # Views differ in what a seat saw pass through its hand during the draft; the rest of the
    # report is the position itself.
    skip = ("steps", "stopped", "views")
    return {key: value for key, value in out.items() if key not in skip} | {
        "hands": {f: (v["hand"], v["drafted"], v["prisoner"]) for f, v in out["views"].items()}}


@pytest.mark.parametrize("n", [2, 3, 4])
def test_positions_of_seeded_games_play_on_the_same(n: int) -> None:
    """Seeded property: a draft pick or dispatch turn of a random game, stated as a scenario,
    gives the same report, and the game's next moves (in the scenario's form) lead to the
    same position, as the game itself."""
    from engine_helpers import random_game

    from engine.actions import Shuffle
    from engine.game import (
        CHANCE,
        apply_in_place,
        legal_actions,
        random_chance,
        to_move,
        unasked_answer,
    )
    from engine.randomness import RandomStream
    from engine.scenario_play import named, play_scenario, report

    checked = 0
    for seed in range(3):
        s = random_game(f"roundtrip/{n}/{seed}", n)
        stream = RandomStream(f"roundtrip-play/{n}/{seed}")
        while s.phase.value != "over":
            movers = to_move(s)
            at_position = movers != [CHANCE] and s.decision is None and s.step is None \
                and s.phase.value in ("draft", "dispatch") and not any(
                    p is not None for p in s.picks)
            if at_position and stream.randbelow(4) == 0:
                scenario = _scenario_of(s)
                _validator().validate(scenario)
                game, moves = s.clone(), []
                for _ in range(12):  # the game's next moves, chance included
                    if game.phase.value == "over":
                        break
                    who = to_move(game)
                    if who == [CHANCE]:
                        action = random_chance(game, stream)
                    elif (forced := unasked_answer(game)) is not None:
                        apply_in_place(game, forced)  # the run answers it unasked (ruling 41)
                        continue
                    else:
                        options = legal_actions(game, who[0])
                        action = options[stream.randbelow(len(options))]
                    moves.append(named(game, action))
                    apply_in_place(game, action)
                while game.chance is not None:  # as the run does once its actions end
                    apply_in_place(game, Shuffle(tuple(range(game.chance[1]))))
                    while (forced := unasked_answer(game)) is not None:
                        apply_in_place(game, forced)
                out = play_scenario({**scenario, "actions": moves})
                assert out["stopped"] is None, out["stopped"]
                got, want = _comparable(out), _comparable(report(game))
                for key in want:
                    assert got[key] == want[key], (seed, key, json.dumps(scenario), moves)
                checked += 1
            if movers == [CHANCE]:
                action = random_chance(s, stream)
            else:
                options = legal_actions(s, movers[0])
                action = options[stream.randbelow(len(options))]
            apply_in_place(s, action)
    assert checked >= 3


def test_a_face_down_card_under_a_vision_kept_its_planets_disclosure() -> None:
    """A card face down where Vision made every card face up was played before the Vision,
    under the planet's own rule: its claim is checked against that rule when revealed."""
    from engine.scenario_play import play_scenario

    out = play_scenario({"players": ["black", "white"], "phase": "resolve", "planets": [
        {"name": "Capital", "vision_face_up": True, "cards": [
            {"card": "black:Duchess", "by": "black", "claim": "Duchess"},
            {"card": "event:Vision", "by": "white", "claim": "up"}]}]})
    assert out["scores"]["black"]["vp"] == 4  # Capital 3 + bonus 1 (favored)


def test_a_long_action_costs_linear_time() -> None:
    """Issue 40: a 4,000-word action once took over a minute of CPU (every span of words was
    tried as a card label). Only spans up to the longest label are tried now: it takes
    milliseconds (the bound, in CPU seconds, leaves a loaded machine a wide margin)."""
    import time

    import engine.scenario_play as play

    state, *_ = play.build_play(_load(PLAY_FILES[0])["scenario"])
    words = "x " * 4000
    started = time.process_time()
    play.canonical(state, f"{state.config.factions[0]} pick {words}", "action")
    play.canonical(state, f"{state.config.factions[0]} dispatch {words} 0 up", "action")
    assert time.process_time() - started < 5.0
    assert max(len(label.split()) for label in play.CARD_BY_LABEL) == play.LABEL_WORDS


def test_the_set_up_rules_are_checked_not_assumed() -> None:
    """The check of a seeded set-up finds a broken one (a Desert with 3 players)."""
    from engine import GameConfig, new_game
    from engine.scenario_setup import new_game_problems

    config = GameConfig(("black", "white", "blue"), ("Capital", "Water", "Jungle"),
                        ("Whispered Secrets", "Rumor", "Hidden Base", "Orbital Bombardment",
                         "Blockade", "Honor Guards", "Planetary Siege", "Famine"), 1)
    good = new_game(config, list(config.card_ids()))
    assert all(new_game_problems(good).values())
    bad = good.clone()
    bad.config = GameConfig(good.config.factions, (*good.config.planets, "Desert"),
                            good.config.events, 1)
    bad.hands[0].pop()
    kept = new_game_problems(bad)
    assert not kept["a planet per player, the Desert last and only with 2 players"]
    assert not kept["6 cards dealt to each player"]


def test_until_resolved_stops_after_resolve_planets_before_clean_up() -> None:
    """``until: resolved``: the end is checked, and Clean Up done, only after it (here 17 VP
    brought to 15 by Famine, ruling 36, and a claim made earlier this round, stated)."""
    from engine.scenario_play import play_scenario

    out = play_scenario({
        "players": ["black", "white", "green"], "round": 2, "phase": "resolve",
        "until": "resolved",
        "planets": [{"name": "Capital", "cards": ["black:Duchess", "event:Famine"]}, "Water",
                    "Jungle"],
        "claimed_this_round": {"event:Messenger": "white"},
        "scores": {"black": {"vp": 13}}})
    assert out["stopped"] is None and not out["over"]
    state = out["state"]
    assert (state["round"], state["phase"]) == (2, "resolve")
    assert [c["card"] for c in state["planets"][0]["cards"]] == ["black:Duchess",
                                                                  "event:Famine"]
    assert state["claims"] == [{"card": "event:Messenger", "player": "white",
                                "acts_this_round": False}]
    assert out["scores"]["black"]["vp"] == 15
    # without the stop, Clean Up runs: the claim stays for next round, where it acts
    out = play_scenario({
        "players": ["black", "white", "green"], "round": 2, "phase": "resolve",
        "planets": ["Capital", "Water", "Jungle"],
        "claimed_this_round": {"event:Messenger": "white"}})
    assert out["state"]["round"] == 3
    assert out["state"]["quotas"] == {"black": 5, "white": 6, "green": 5}
