"""What researchers scale the PettingZoo environment with: independent copies (deepcopy,
pickle, snapshot), seeds that name the games of ``solstice simulate``, the project's bots as
opponents inside the environment, and a name for every index of the observation. Skipped
without the rl extra."""

from __future__ import annotations

import copy
import pickle

import pytest

pytest.importorskip("numpy", reason="the rl extra is not installed (pip install '.[rl]')")
pytest.importorskip("pettingzoo", reason="the rl extra is not installed (pip install '.[rl]')")

import numpy as np
from pettingzoo.test import api_test

from bots.base import GameInfo
from bots.greedy import GreedyBot
from bots.match import play_match
from bots.rl import encoding as enc
from bots.rl import env, raw_env
from bots.rl.recall import INFO_STATE_SIZE, info_state_names
from engine.randomness import RandomStream


def _play(e, rng: np.random.Generator, steps: int) -> list[int]:  # type: ignore[no-untyped-def]
    """Random masked steps (at most ``steps``, fewer if the game ends); the actions taken."""
    taken = []
    for _ in range(steps):
        obs, _, termination, truncation, _ = e.last()
        if termination or truncation:
            break
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        e.step(action)
        taken.append(action)
    return taken


def _finish(e, rng: np.random.Generator) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """Random masked play to the end; each agent's final reward."""
    final = {}
    for agent in e.agent_iter():
        obs, reward, termination, truncation, _ = e.last()
        if termination or truncation:
            final[agent] = reward
        e.step(None if termination or truncation
               else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return final


@pytest.mark.parametrize("make", [copy.deepcopy, lambda e: pickle.loads(pickle.dumps(e))],
                         ids=["deepcopy", "pickle"])
def test_a_copy_plays_on_without_touching_the_original(make) -> None:  # type: ignore[no-untyped-def]
    e = env(players=3)
    e.reset(seed=11)
    _play(e, np.random.default_rng(0), 40)
    before = e.observe(e.agent_selection)
    twin = make(e)
    assert twin.agent_selection == e.agent_selection
    assert np.array_equal(twin.observe(twin.agent_selection)["observation"],
                          before["observation"])
    _finish(twin, np.random.default_rng(1))  # the copy plays to the end
    after = e.observe(e.agent_selection)
    assert np.array_equal(after["observation"], before["observation"])
    assert np.array_equal(after["action_mask"], before["action_mask"])
    # and the original goes on exactly as a second copy does with the same moves
    other = make(e)
    assert _finish(e, np.random.default_rng(2)) == _finish(other, np.random.default_rng(2))


def test_a_snapshot_restores_the_game_here_or_in_another_env() -> None:
    e = raw_env(players=2, info_state=True)
    e.reset(seed=5)
    rng = np.random.default_rng(3)
    _play(e, rng, 30)
    snap = pickle.loads(pickle.dumps(e.snapshot()))
    at = e.observe(e.agent_selection)
    moves = _play(e, rng, 25)
    end = e.observe(e.agent_selection)
    e.restore(snap)
    again = e.observe(e.agent_selection)
    for key in at:
        assert np.array_equal(again[key], at[key])
    elsewhere = raw_env(players=2, info_state=True)
    elsewhere.restore(snap)
    for target in (e, elsewhere):
        for action in moves:
            target.step(action)
        assert np.array_equal(target.observe(target.agent_selection)["information_state"],
                              end["information_state"])


def test_reset_with_a_seed_deals_the_games_of_simulate_with_that_seed() -> None:
    """``solstice simulate --seed 7`` plays ``play_match(bots, "7/0")``, ``"7/1"``, ...: the
    environment's first two games after ``reset(seed=7)``, played by greedy, end the same."""
    e = raw_env(players=2)
    for game in range(2):
        if game == 0:
            e.reset(seed=7)
        else:
            e.reset()
        table = e.table
        bots = [GreedyBot(), GreedyBot()]
        stream = RandomStream(f"7/{game}")
        for seat, bot in enumerate(bots):
            bot.start(GameInfo(seat, table.config,
                               stream.fork(f"bot{seat}").word().to_bytes(8, "big")))
        while not table.over:
            turn = table.turn
            e.step(table.legal_indices()[turn.legal.index(bots[turn.seat].choose(turn))])
        result = play_match([GreedyBot(), GreedyBot()], f"7/{game}", game=str(game))
        assert table.scores() == list(result.scores)
        assert table.config == result.config


def test_the_projects_bots_play_the_other_seats_inside_the_env() -> None:
    api_test(env(players=3, opponents=["greedy", "random"]), num_cycles=60)
    e = raw_env(players=2, opponents=["greedy"])
    assert e.possible_agents == ["player_0"]
    wins = 0
    for game in range(4):
        e.reset(seed=game) if game == 0 else e.reset()
        rewards = _finish(e, np.random.default_rng(game))
        assert e.table.over and set(rewards) == {"player_0"}
        wins += rewards["player_0"] > 0
    assert wins <= 2  # random moves rarely beat greedy
    with pytest.raises(ValueError, match="no seat"):
        raw_env(players=2, opponents=["greedy", "greedy"])


def test_every_index_of_the_observation_has_a_name_that_says_what_it_holds() -> None:
    names = enc.observation_names()
    assert len(names) == len(set(names)) == enc.OBS_SIZE
    full = info_state_names()
    assert len(full) == len(set(full)) == INFO_STATE_SIZE and full[:enc.OBS_SIZE] == names
    e = raw_env(players=2, info_state=True)
    e.reset(seed=2)
    agent = e.agent_selection
    obs = e.observe(agent)
    view = e.table.view(0)
    for entry in view["hand"]:
        assert obs["observation"][names.index(f"card:{entry['label']}:my_hand")] == 1.0
        assert obs["information_state"][full.index(f"recall:{entry['label']}:seen")] == 1.0
    assert obs["observation"][names.index("table:players2")] == 1.0
    assert obs["observation"][names.index("table:players3")] == 0.0


def test_the_readme_loop_runs_and_plays_the_same_game_every_time() -> None:
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    section = readme[readme.index("### PettingZoo"):]
    code = section[section.index("```python\n") + len("```python\n"):section.index("```\n")]
    runs = []
    for _ in range(2):
        scope: dict[str, object] = {}
        exec(code, scope)  # the README's own example
        table = scope["e"].unwrapped.table  # type: ignore[attr-defined]
        runs.append((table.played, table.scores()))
    assert runs[0] == runs[1] and len(runs[0][0]) > 20
