"""An environment's game saved as a record that ``solstice replay`` shows (``bots.rl.record``):
the replay plays the same game (the same moves, the same final scores), and a record whose
actions do not replay is refused. Skipped without the rl extra."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("numpy", reason="the rl extra is not installed (pip install '.[rl]')")
pytest.importorskip("pettingzoo", reason="the rl extra is not installed (pip install '.[rl]')")

import numpy as np
from typer.testing import CliRunner

from bots.rl import env
from bots.rl.gym_env import SolsticeEnv
from ui.cli.commands import app


def _played(tmp_path: Path) -> tuple[Path, list[int]]:
    e = env(players=2, opponents=["greedy"])
    e.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in e.agent_iter():
        obs, _, termination, truncation, _ = e.last()
        e.step(None if termination or truncation
               else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    path = tmp_path / "game.json"
    e.unwrapped.save_game(str(path))
    return path, e.unwrapped.table.scores()


def test_solstice_replay_shows_an_environments_game_move_by_move(tmp_path: Path) -> None:
    path, scores = _played(tmp_path)
    record = json.loads(path.read_text())
    assert record["names"] == ["player_0", "greedy"] and record["result"]["scores"] == scores
    result = CliRunner().invoke(app, ["replay", "--text", str(path)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "Game seed 4/0: black (player_0), white (greedy)"
    moves = [line for line in lines if line.startswith("* ")]
    assert len(moves) == len(record["actions"])
    assert f"Final scores: black (player_0) {scores[0]}, white (greedy) {scores[1]}" in lines
    assert "nothing was verified" in lines[-1]


def test_a_record_whose_actions_do_not_replay_is_refused(tmp_path: Path) -> None:
    path, _ = _played(tmp_path)
    record = json.loads(path.read_text())
    record["actions"][5] = 4415  # an option no decision of the draft has
    path.write_text(json.dumps(record))
    result = CliRunner().invoke(app, ["replay", "--text", str(path)])
    assert result.exit_code == 1 and "action 5" in result.output


def test_the_gymnasium_env_names_the_agent_and_its_opponents(tmp_path: Path) -> None:
    e = SolsticeEnv(players=3, opponents=["greedy", "random"])
    e.reset(seed=2)
    e.reset()  # the second game: the agent sits in seat 1
    e.save_game(str(tmp_path / "g.json"))
    record = json.loads((tmp_path / "g.json").read_text())
    assert record["names"] == ["greedy", "agent", "random"] and record["seed"] == "2/1"
    assert "result" not in record  # not finished
