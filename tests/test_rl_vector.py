"""The single-agent Gymnasium environment (``bots.rl.gym_env``): Gymnasium's own checker, the
project's bots in the other seats, and N games stepped together by Gymnasium's vector API.
Skipped without the rl extra."""

from __future__ import annotations

import pytest

pytest.importorskip("numpy", reason="the rl extra is not installed (pip install '.[rl]')")
pytest.importorskip("gymnasium", reason="the rl extra is not installed (pip install '.[rl]')")

import numpy as np
from gymnasium.utils.env_checker import check_env

from bots.rl.gym_env import SolsticeEnv, make_vector_env
from bots.rl.recall import INFO_STATE_SIZE


def test_gymnasiums_checker_passes_with_greedy_in_the_other_seat() -> None:
    check_env(SolsticeEnv(opponents=["greedy"], info_state=True), skip_render_check=True)


def test_the_agent_plays_every_seat_in_turn_and_is_rewarded_at_the_end() -> None:
    e = SolsticeEnv(players=3, opponents=["greedy", "random"])
    rng = np.random.default_rng(0)
    seats = []
    for game in range(3):
        obs, info = e.reset(seed=9) if game == 0 else e.reset()
        seats.append(info["seat"])
        assert info["game"] == f"9/{game}"
        terminated, reward = False, 0.0
        while not terminated:
            assert obs["action_mask"].any()
            obs, reward, terminated, truncated, info = e.step(
                int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            assert not truncated
        assert reward in (1.0, -0.5) and info["winner"] in range(3)
        assert (reward == 1.0) == (info["winner"] == info["seat"])
    assert seats == [0, 1, 2]


def test_an_illegal_action_ends_the_game_for_the_agent_with_reward_minus_one() -> None:
    e = SolsticeEnv(opponents=["random"])
    obs, _ = e.reset(seed=1)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    obs, reward, terminated, _, info = e.step(illegal)
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, illegal)
    assert not obs["action_mask"].any()
    with pytest.raises(RuntimeError, match="reset"):
        e.step(illegal)


def test_a_vector_of_games_steps_together_and_starts_each_finished_game_again() -> None:
    envs = make_vector_env(4, opponents=["random"], info_state=True)
    obs, infos = envs.reset(seed=0)
    assert obs["observation"].shape[0] == 4
    assert obs["information_state"].shape == (4, INFO_STATE_SIZE)
    assert list(infos["game"]) == ["0/0", "1/0", "2/0", "3/0"]
    rng = np.random.default_rng(1)
    finished = 0
    for _ in range(200):
        actions = np.array([int(rng.choice(np.flatnonzero(m))) if m.any() else 0
                            for m in obs["action_mask"]])
        obs, rewards, terminations, _, _ = envs.step(actions)
        finished += int(terminations.sum())
        assert set(rewards[terminations].tolist()) <= {1.0, -1.0}
        assert not rewards[~terminations].any()
    envs.close()
    assert finished >= 4


def test_the_readme_example_runs() -> None:
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    section = readme[readme.index("### Gymnasium, one seat"):]
    code = section[section.index("```python\n") + len("```python\n"):section.index("```\n")]
    scope: dict[str, object] = {}
    exec(code, scope)  # the README's own example
    assert scope["rewards"].shape == (16,)  # type: ignore[attr-defined]
    scope["envs"].close()  # type: ignore[attr-defined]
