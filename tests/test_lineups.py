"""Lineups as a user writes them: ``SPEC*K``, ``--fill``, at least two different bots, and a
bot program that cannot play its first game is an error (exit 1), not a run of random moves."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bots.lineup import expand, seats_of
from bots.registry import BotSpecError
from ui.cli import app

EXAMPLES = Path(__file__).resolve().parent.parent / "bots" / "examples"
EXAMPLE = f"cmd:{sys.executable} {EXAMPLES / 'example_bot.py'}"

# Answers the handshake, then exits at its first decision.
DIES = """
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "decide":
        sys.exit(3)
"""


def test_a_count_stands_for_that_many_seats_and_fill_takes_the_free_ones() -> None:
    assert expand(["greedy*3", "random"]) == ["greedy", "greedy", "greedy", "random"]
    assert seats_of(["ismcts", "greedy*3"], 4) == ["ismcts", "greedy", "greedy", "greedy"]
    assert seats_of(["cmd:./mybot"], 4, fill="greedy") == ["cmd:./mybot"] + ["greedy"] * 3
    assert seats_of(["ismcts", "greedy"], 4) == ["ismcts", "greedy", "greedy", "greedy"]
    # a cmd: spec's command line is never read as a count
    assert expand(["cmd:python3 bot.py *2"]) == ["cmd:python3 bot.py *2"]


@pytest.mark.parametrize("specs", [["greedy"], ["greedy*2"], ["random", "random"]])
def test_a_lineup_of_one_bot_is_refused(specs: list[str]) -> None:
    with pytest.raises(BotSpecError, match="at least two different bots"):
        seats_of(specs, 2)


def test_more_bots_than_seats_and_a_fill_with_no_seat_left_are_refused() -> None:
    with pytest.raises(BotSpecError, match="cannot share"):
        seats_of(["greedy*3", "random"], 3)
    with pytest.raises(BotSpecError, match="all taken"):
        seats_of(["greedy", "random"], 2, fill="ismcts")


def test_one_bot_on_the_command_line_is_refused_with_a_hint() -> None:
    result = CliRunner().invoke(app, ["tournament", "--bots", "greedy", "--games", "2"])
    assert result.exit_code == 2
    assert "at least two different bots" in result.output and "--fill" in result.output


def test_a_program_against_three_greedy_bots(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["tournament", "--bots", EXAMPLE, "--fill", "greedy",
                                      "--players", "4", "--games", "4", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output.splitlines()[-1])
    for record in data["records"]:
        assert sorted(record["seats"]) == sorted([EXAMPLE] + ["greedy"] * 3)
    assert data["results"][EXAMPLE]["faults"] == 0


def test_a_program_that_cannot_start_is_an_error(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-bot"
    result = CliRunner().invoke(app, ["tournament", "--bots", f"cmd:{missing}", "--fill",
                                      "greedy", "--games", "2"])
    assert result.exit_code == 1, result.output
    assert "cannot play" in result.output and "failed to start" in result.output


def test_a_comma_after_a_cmd_spec_is_explained(tmp_path: Path) -> None:
    """``cmd:./gobot,greedy`` is one command line, './gobot,greedy', which cannot start."""
    result = CliRunner().invoke(app, ["tournament", "--bots",
                                      f"cmd:{tmp_path / 'gobot'},greedy", "--games", "2"])
    # one bot (the cmd: took the rest): refused before anything is started, saying why
    assert result.exit_code == 2 and "commas included" in result.output
    result = CliRunner().invoke(app, ["tournament", "--bots",
                                      f"random,cmd:{tmp_path / 'gobot'},greedy", "--games", "2"])
    assert result.exit_code == 1, result.output
    assert "commas included" in result.output and "--fill" in result.output


def test_a_program_that_dies_in_its_first_game_is_an_error(tmp_path: Path) -> None:
    bot = tmp_path / "dies.py"
    bot.write_text(DIES)
    spec = f"cmd:{sys.executable} {bot}"
    for command in (["tournament", "--bots", f"random,{spec}", "--games", "2"],
                    ["simulate", "--players", "2", "--bots", f"random,{spec}", "--games", "2"]):
        result = CliRunner().invoke(app, command)
        assert result.exit_code == 1, (command, result.output)
        assert "cannot play" in result.output and "exit" in result.output, result.output


def test_simulate_refuses_a_program_that_cannot_start(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["simulate", "--players", "2", "--bots",
                                      f"random,cmd:{tmp_path / 'nothing'}", "--games", "3"])
    assert result.exit_code == 1, result.output
    assert "cannot play" in result.output
