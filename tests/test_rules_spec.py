"""rules.md, the engine as a language-neutral specification, checked against the engine the way
protocol.md's stage table is: every step, decision kind, state field, card number, planet and
constant it names must be the engine's, so the two cannot drift apart unnoticed. (Behaviour
is checked by the whole-game vectors, ``tests/vectors/engine.json``.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import engine.game  # registers every step (and is read below)
from engine import cards
from engine.cards import CARDS, PLANETS
from engine.flow import STEPS
from engine.serialize import state_to_dict
from engine.state import GameState

ROOT = Path(__file__).resolve().parent.parent
RULES = (ROOT / "rules.md").read_text(encoding="utf-8")
DECISION_KINDS = ("whispered_secrets", "vision", "prophecy", "sentry", "sacrifice",
                  "mercenaries", "assassin_target", "ambush", "transport", "transport_card",
                  "mimic", "escape", "martyr")


def _section(title: str) -> str:
    return RULES.split(title, 1)[1].split("\n## ", 1)[0]


def _table(text: str, header: str) -> list[list[str]]:
    """The rows of the markdown table whose header row starts with ``header``."""
    lines = text.split(header, 1)[1].splitlines()[2:]
    rows = []
    for line in lines:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def test_every_engine_step_is_specified() -> None:
    named = set(re.findall(r'\["([a-z_]+)"', RULES)) | set(re.findall(r"^([a-z_]+)[(:]", RULES,
                                                                       re.MULTILINE))
    assert set(STEPS) - named == set()
    assert named & {"resolve", "deal", "end_round"} == {"resolve", "deal", "end_round"}


def test_every_decision_kind_is_specified_and_asked_by_the_engine() -> None:
    sources = "".join((ROOT / "engine" / f"{m}.py").read_text(encoding="utf-8")
                      for m in ("draft", "dispatch", "resolution"))
    for kind in DECISION_KINDS:
        assert f'"{kind}"' in RULES, kind
        assert f'"{kind}"' in sources or kind in ("mimic", "escape", "martyr"), kind
    asked = set(re.findall(r'ask\(s, [a-z_\[\]\.]+, "([a-z_]+)"', sources))
    assert asked <= set(DECISION_KINDS)


def test_every_state_field_is_in_the_state_table() -> None:
    listed: set[str] = set()
    for row in _table(_section("## 2. State"), "| field |"):
        listed.update(re.findall(r"`([a-z_]+)`", row[0]))
    fields = set(state_to_dict(GameState(engine.game.GameConfig(
        ("black", "white"), ("Capital", "Water", "Desert"), (), 0))))
    assert fields - listed == set()
    assert {"picks", "step", "decision", "chance"} <= listed


def test_the_event_table_is_the_engines() -> None:
    rows = _table(_section("## 1. Data"), "| event |")
    events = [c for c in CARDS if c.is_event]
    assert [r[0] for r in rows] == [c.name for c in events]
    for row, card in zip(rows, events, strict=True):
        assert int(row[1]) == card.initiative, card.name
        assert row[2] == card.event_kind, card.name
        assert (row[3] == "yes") == card.face_up, card.name
        assert (row[4] == "yes") == card.claim, card.name
        assert int(row[5]) == card.neutral_strength, card.name
    assert [c.id for c in events] == list(range(24, 48))
    assert [c.order for c in events] == list(range(24))


def _value(cell: str, faction: str) -> int:
    """``"2 (black 3)"`` for ``faction``: its exception, else the first number."""
    special = dict(re.findall(r"(black|white|blue|green) (\d+)", cell))
    if faction in special:
        return int(special[faction])
    return int(re.findall(r"\d+", cell)[0])


@pytest.mark.parametrize("faction", ["black", "white", "blue", "green"])
def test_the_action_card_table_is_the_engines(faction: str) -> None:
    rows = {r[0]: r for r in _table(_section("## 1. Data"), "| type |")}
    for card in CARDS:
        if card.faction != faction:
            continue
        row = rows[card.type]
        assert int(row[1]) == card.initiative
        assert (_value(row[2], faction), _value(row[3], faction), _value(row[4], faction),
                _value(row[5], faction)) == (card.strength, card.favor, card.vp, card.vp2), \
            card.label
        assert card.id == 6 * cards.FACTIONS.index(faction) + cards.TYPES.index(card.type)


def test_the_planets_and_constants_are_the_engines() -> None:
    data = " ".join(_section("## 1. Data").split())
    for name, planet in PLANETS.items():
        assert f"{name} {planet.vp} `{planet.disclosure}`" in data, name
    for constant in ("PLANET_LIMIT", "HAND_SIZE", "DRAFT_QUOTA", "WIN_VP", "MAX_CASUALTIES"):
        assert f"`{constant} = {getattr(cards, constant)}`" in data, constant


def test_the_truthful_claims_are_the_pseudocodes() -> None:
    """Section 1's `claims(card, planet, vision)`, written again from rules.md, against the
    engine for every card, planet and Vision mark."""
    from engine.disclosure import legal_claims

    rule = {"Capital": "type", "Industrial": "type", "Water": "faction_or_type",
            "Jungle": "jungle", "Desert": "nothing"}

    def claims(card, planet: str, vision: bool) -> tuple[str, ...]:
        if card.face_up or vision:
            return ("up",)
        if rule[planet] == "jungle":
            return ("up",) if card.is_event else ("none",)
        if rule[planet] == "nothing":
            return ("none",)
        if card.name == "Rumor":
            return ("event", *cards.TYPES,
                    *(cards.FACTIONS if rule[planet] == "faction_or_type" else ()))
        if card.name == "Imposter":
            return ("event", "Duchess")
        if card.is_event:
            return ("event",)
        if rule[planet] == "faction_or_type":
            return (card.faction, card.type)
        return (card.type,)

    for card in CARDS:
        for planet in PLANETS:
            for vision in (False, True):
                assert claims(card, planet, vision) == legal_claims(card.id, planet, vision)


def test_the_order_of_legal_actions_is_section_4s() -> None:
    """Section 4's `legal_actions`, written again from rules.md, against the engine at every
    position of the whole-game vectors (their choices index this order)."""
    import json

    from engine import (
        Capture,
        Choose,
        Discard,
        Dispatch,
        GameConfig,
        Pick,
        action_from_dict,
        apply_in_place,
        legal_actions,
        new_game,
        to_move,
    )
    from engine.disclosure import legal_claims
    from engine.draft import pick_count
    from engine.resolution import decision_options

    def limit(s, p: int) -> int:
        return 5 if any(CARDS[s.card_of[x]].name == "Blockade" and s.face_up[x]
                        for x in s.planets[p]) else 6

    def spec_legal(s, seat: int) -> list:
        if s.awaiting or s.chance is not None or s.phase.value == "over":
            return []
        if s.decision is not None:
            return [Choose(seat, o) for o in decision_options(s, s.decision)] \
                if s.decision.seat == seat else []
        if s.step is not None:
            return []
        hand = s.hands[seat]
        if s.phase.value == "dispatch":
            if s.turn != seat:
                return []
            out: list = [Dispatch(seat, x, p, c) for x in hand
                         for p in range(len(s.planets)) if len(s.planets[p]) < limit(s, p)
                         for c in legal_claims(s.card_of[x], s.config.planets[p],
                                               s.vision_up[p])]
            if not s.captured[seat]:
                out += [Capture(seat, x) for x in hand]
            return out or [Discard(seat, x) for x in hand]
        if s.phase.value != "draft" or s.picks[seat] is not None:
            return []
        c = pick_count(s, seat)
        if c == 1:
            return [Pick(seat, (x,)) for x in hand]
        if c == 2:
            return [Pick(seat, (a, b)) for i, a in enumerate(hand) for b in hand[i + 1:]]
        return []

    vectors = Path(__file__).resolve().parent / "vectors" / "engine.json"
    positions = 0
    for case in json.loads(vectors.read_text(encoding="utf-8"))["cases"]:
        s = new_game(GameConfig.from_dict(case["config"]), case["deck_order"])
        for step in case["steps"]:
            for seat in range(s.n):
                assert spec_legal(s, seat) == legal_actions(s, seat)
            assert to_move(s)  # someone acts at every position of a vector game
            positions += 1
            apply_in_place(s, action_from_dict(step["action"]))
    assert positions > 500


def test_every_decision_prompt_of_the_vector_games_is_section_3s() -> None:
    """Prompts are hashed: every decision met in the whole-game vectors has the kind and the
    exact prompt rules.md gives (its placeholders filled with a planet, a card or an answer)."""
    import json

    from engine import GameConfig, action_from_dict, apply_in_place, new_game

    templates: dict[str, list[re.Pattern[str]]] = {}
    for row in _table(_section("## 3. The step loop"), "| kind | prompt |"):
        kind = row[0].strip("`")
        texts = re.findall(r"`([^`]+)`", row[1])
        templates[kind] = [re.compile(re.escape(text).replace(r"\{planet\}", ".+")
                                      .replace(r"\{card\}", ".+").replace(r"\{dest\}", ".+")
                                      + "$") for text in texts]
    assert set(templates) == set(DECISION_KINDS)
    vectors = Path(__file__).resolve().parent / "vectors" / "engine.json"
    met = set()
    for case in json.loads(vectors.read_text(encoding="utf-8"))["cases"]:
        s = new_game(GameConfig.from_dict(case["config"]), case["deck_order"])
        for step in case["steps"]:
            d = s.decision
            if d is not None:
                assert any(t.match(d.prompt) for t in templates[d.kind]), (d.kind, d.prompt)
                met.add(d.kind)
            apply_in_place(s, action_from_dict(step["action"]))
    assert met == set(DECISION_KINDS)


def test_the_step_left_pending_at_each_decision_is_section_3s() -> None:
    """The hashed `step` at a decision (rules.md, section 3): ["resolve", p] when a card's
    effect or a step that set it first asked, null otherwise, over the vector games."""
    import json

    from engine import GameConfig, action_from_dict, apply_in_place, new_game

    null_kinds = {"whispered_secrets", "vision", "prophecy", "sentry"}
    vectors = Path(__file__).resolve().parent / "vectors" / "engine.json"
    for case in json.loads(vectors.read_text(encoding="utf-8"))["cases"]:
        s = new_game(GameConfig.from_dict(case["config"]), case["deck_order"])
        for step in case["steps"]:
            d = s.decision
            if d is not None:
                # (a kill of assassin_target's, whether it asked or took its one option)
                via_assassin_target = d.kind == "sacrifice" and d.then[5].startswith("assassin:")
                if d.kind in null_kinds or via_assassin_target:
                    assert s.step is None, (d.kind, s.step)
                else:
                    assert s.step is not None and s.step[0] == "resolve", (d.kind, s.step)
            apply_in_place(s, action_from_dict(step["action"]))
