"""The bot protocol's JSON Schema (shipped in bots/schema/) is true to what the engine sends:
real views of many seeded games of 2, 3 and 4 players, every decision kind, the hello and end
messages of a recorded game, and the shipped decide examples. protocol.md names every kind."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import jsonschema
import pytest

from bots import bot_output
from bots.base import Bot, Turn
from bots.conformance import DECISION_KINDS, decisions_of_game, scripted_decisions
from bots.match import play_match
from bots.random_bot import RandomBot
from bots.registry import make_bot
from bots.trace import read_trace
from engine.view import view

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((ROOT / "bots" / "schema" / "protocol.schema.json").read_text())
EXAMPLES = json.loads((ROOT / "bots" / "schema" / "decide-examples.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def _errors(message: dict) -> list[str]:
    return [f"{list(e.absolute_path)}: {e.message[:200]}" for e in VALIDATOR.iter_errors(message)]


def _decide(view_: dict, legal: list[str]) -> dict:
    return {"type": "decide", "id": 1, "view": view_, "legal": legal}


def test_the_schema_is_a_valid_json_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_every_decision_kind_is_in_the_schema_and_in_protocol_md() -> None:
    pending = {kind for _, kind in DECISION_KINDS} - {"pick", "dispatch", "capture", "discard"}
    assert set(SCHEMA["$defs"]["decision_kind"]["enum"]) == pending
    text = (ROOT / "protocol.md").read_text()
    section = text[text.index("## Bot protocol"):]
    for _, kind in DECISION_KINDS:
        assert f"`{kind}`" in section, kind


def test_views_of_every_decision_kind_match_the_schema() -> None:
    for item in scripted_decisions():
        turn = item.turn()
        assert not _errors(_decide(turn.view, turn.legal_texts)), (item.kind, item.seed)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_views_of_every_seat_in_seeded_games_match_the_schema(players: int) -> None:
    checked = 0
    for number in range(6):
        game = decisions_of_game(players, f"schema/{players}/{number}")
        for index, (state, _, legal) in enumerate(game):
            if index % 4:
                continue
            for who in range(players):  # the mover's view and everyone else's
                message = _decide(view(state, who), [a.text() for a in legal] or ["-"])
                errors = _errors(message)
                assert not errors, (players, number, index, who, errors[:3])
                checked += 1
    assert checked > 100


def test_the_messages_of_a_recorded_game_match_the_schema(tmp_path) -> None:
    bot_output.configure(record_dir=tmp_path)
    bot = make_bot(f"cmd:{sys.executable} {ROOT / 'bots' / 'examples' / 'example_bot.py'}")
    try:
        play_match([RandomBot(), RandomBot(), bot], "schema-trace", game="trace")
    finally:
        bot.close()
        bot_output.configure()
    game = read_trace(tmp_path / "trace-seat2.jsonl")
    assert game.end is not None
    for message in (game.hello, game.end, *(d.message for d in game.decisions)):
        assert not _errors(message), message.get("type")
    for message in ({"type": "quit"}, {"type": "ready", "name": "x"},
                    {"type": "action", "id": 3, "action": "0 pick 4"},
                    {"type": "log", "message": "hi"}):
        assert not _errors(message)


def test_the_shipped_decide_examples_cover_every_kind_and_match_the_schema() -> None:
    assert set(EXAMPLES) == {f"{phase}/{kind}" for phase, kind in DECISION_KINDS}
    for key, message in EXAMPLES.items():
        assert not _errors(message), key
        pending = message["view"]["decision"]
        if pending is not None:  # answers to a decision choose one of its options
            assert key.endswith("/" + pending["kind"])
            prefix = f"{message['view']['seat']} choose "
            assert all(text.startswith(prefix) and text[len(prefix):] in pending["options"]
                       for text in message["legal"])


class LogWatcher(Bot):
    """Plays the first legal action and keeps the log of every view it gets."""

    name = "log-watcher"

    def __init__(self) -> None:
        self.logs: list[list[str]] = []

    def choose(self, turn: Turn):
        self.logs.append(turn.view["log"])
        return turn.legal[0]


def test_view_log_is_filled_in_local_games_and_tournaments() -> None:
    bots = [LogWatcher(), LogWatcher(), LogWatcher()]
    play_match(bots, "log-filled")  # the tournament's way of playing a game
    later = [log for bot in bots for log in bot.logs[10:]]
    assert later and all(later)  # past the first decisions every view has a log
    assert any("Resolve planets" in line for log in later for line in log)
    assert all(len(log) <= 30 for log in later)


# The decisions about a planet, and those about a card, by kind (the rest are about neither:
# the Sentry is placed on a planet of the seat's choosing).
ABOUT_A_PLANET = {"vision", "whispered_secrets", "sacrifice", "mercenaries", "assassin_target",
                  "ambush", "transport", "transport_card", "mimic", "escape", "martyr"}
ABOUT_A_CARD = {"prophecy", "sacrifice", "mercenaries", "assassin_target", "mimic", "escape",
                "martyr"}


def test_every_decision_about_a_card_or_a_planet_names_it_in_structured_fields() -> None:
    """A bot need not parse the prompt: ``decision.planet`` is the planet's index and
    ``decision.card`` the card (slot and label, known to the seat) the decision is about."""
    seen = set()
    for players in (2, 3, 4):
        for number in range(8):
            for state, seat, _legal in decisions_of_game(players, f"subject/{players}/{number}"):
                pending = view(state, seat)["decision"]
                if pending is None:
                    continue
                kind, planet, card = pending["kind"], pending["planet"], pending["card"]
                seen.add(kind)
                names = [p["name"] for p in view(state, seat)["planets"]]
                assert (planet is not None) == (kind in ABOUT_A_PLANET), pending
                assert (card is not None) == (kind in ABOUT_A_CARD), pending
                if card is not None:
                    assert card["label"] is not None  # the seat knows the card in question
                if kind in ("prophecy", "sacrifice"):
                    assert card["label"] in pending["prompt"]
                if kind in ("vision", "whispered_secrets"):
                    assert names[planet] in pending["prompt"]
                if kind in ("assassin_target", "mercenaries"):
                    assert card["label"].endswith(":Assassin")
                if kind in ("mimic", "escape", "martyr"):
                    assert card == view(state, seat)["prisoner"]
    assert len(seen) >= 8, seen
