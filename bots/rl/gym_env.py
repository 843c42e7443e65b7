"""Solstice as a single-agent Gymnasium environment, the other seats played by the project's
bots, and vectors of them (``pip install 'solstice[rl]'``)::

    from bots.rl.gym_env import make_vector_env
    envs = make_vector_env(8, opponents=["greedy"])     # 8 two-player games against greedy
    obs, infos = envs.reset(seed=0)
    actions = envs.action_space.sample(mask=tuple(m.astype(np.int8) for m in obs["action_mask"]))
    obs, rewards, terminations, truncations, infos = envs.step(actions)

One ``SolsticeEnv`` is one seat of a game (``seat``; ``None``: seat ``k % players`` in the
``k``-th game, so the agent plays every seat in turn); the bots named in ``opponents`` (one
per other seat, any spec ``solstice simulate`` takes) play the rest inside ``step``. The
observation is the PettingZoo environment's (``observation``, ``action_mask`` and with
``info_state=True`` the perfect-recall ``information_state``); the reward comes at the end
(``reward="win"`` or ``"margin"``); an illegal action ends the game for the agent with
reward -1, as in PettingZoo's classic games. Game ``k`` after ``reset(seed=S)`` is ``S/k``, as in
``solstice simulate --seed S``. ``make_vector_env`` steps N of them together with
Gymnasium's vector API: in this process (``SyncVectorEnv``) or one process each
(``processes=True``, ``AsyncVectorEnv``), each game seeded ``seed + i``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from bots.rl.encoding import ACTION_SIZE, EncodingError
from bots.rl.opponents import Opponents
from bots.rl.pettingzoo_env import observation_space
from bots.rl.record import save_game
from bots.rl.table import REWARDS, Table


class SolsticeEnv(gymnasium.Env[dict[str, np.ndarray], int]):
    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012 - Gymnasium's convention

    def __init__(self, players: int = 2, opponents: Sequence[str] | None = None,
                 seat: int | None = None, reward: str = "win",
                 info_state: bool = False) -> None:
        if not 2 <= players <= 4:
            raise ValueError(f"Solstice is for 2-4 players, not {players}")
        opponents = list(opponents) if opponents is not None else ["random"] * (players - 1)
        if len(opponents) != players - 1:
            raise ValueError(f"{players} players need {players - 1} opponent bots, "
                             f"not {len(opponents)}")
        if seat is not None and not 0 <= seat < players:
            raise ValueError(f"seat {seat} is not a seat of {players} players")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        self.players, self.seat, self.reward_kind = players, seat, reward
        self.info_state = info_state
        self.opponents = Opponents(opponents)
        # Gymnasium's Env types its spaces by the values they hold; these hold those values
        self.observation_space = observation_space(info_state)  # type: ignore[assignment]
        self.action_space = spaces.Discrete(ACTION_SIZE)  # type: ignore[assignment]
        self.table: Table | None = None
        self._seed_name = "0"
        self._games = 0
        self._me = 0
        self._ended = False  # by an illegal action: the game is over for the agent

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._seed_name, self._games = str(seed), 0
        game = f"{self._seed_name}/{self._games}"
        self._me = self._games % self.players if self.seat is None else self.seat
        self._games += 1
        self._ended = False
        self.table = Table(self.players, game, config=(options or {}).get("config"),
                           recall=[self._me] if self.info_state else False)
        self.opponents.start(self.table, [s for s in range(self.players) if s != self._me],
                             game)
        self.opponents.play(self.table)
        return self._observe(), {"seat": self._me, "game": game}

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool,
                                          dict[str, Any]]:
        table = self.table
        if table is None or table.over or self._ended:
            raise RuntimeError("the game is over: reset() the environment")
        if int(action) not in table.legal_indices():
            # as PettingZoo's classic games do: the game ends for the agent, reward -1
            self._ended = True
            return self._observe(), -1.0, True, False, {"seat": self._me,
                                                        "illegal_action": int(action)}
        table.step(int(action))
        self.opponents.play(table)
        if table.over:
            reward = table.rewards(self.reward_kind)[self._me]
            info = {"seat": self._me, "scores": table.scores(), "winner": table.winner()}
            return self._observe(), reward, True, False, info
        return self._observe(), 0.0, False, False, {"seat": self._me}

    def _observe(self) -> dict[str, np.ndarray]:
        table = self.table
        assert table is not None
        if table.over or self._ended:
            mask = np.zeros(ACTION_SIZE, dtype=np.int8)
        else:
            if table.seat != self._me:
                raise EncodingError(f"seat {table.seat} is to act, not the agent's {self._me}")
            mask = table.action_mask()
        out = {"observation": table.observe(self._me), "action_mask": mask}
        if self.info_state:
            assert table.recall is not None
            out["information_state"] = table.recall[self._me].tensor()
        return out

    def save_game(self, path: str) -> None:
        """Write the game so far as a record ``solstice replay`` shows (``bots.rl.record``)."""
        if self.table is None:
            raise RuntimeError("reset() the environment before saving its game")
        bots = iter(self.opponents.specs)
        save_game(self.table, path, ["agent" if seat == self._me else next(bots)
                                     for seat in range(self.players)])

    def close(self) -> None:
        self.opponents.close()


def make_vector_env(num_envs: int, *, processes: bool = False,
                    **kwargs: Any) -> gymnasium.vector.VectorEnv:
    """``num_envs`` games stepped together (``SolsticeEnv``'s arguments in ``kwargs``)."""
    if num_envs < 1:
        raise ValueError("num_envs must be at least 1")
    makers = [lambda: SolsticeEnv(**kwargs) for _ in range(num_envs)]
    if processes:
        return gymnasium.vector.AsyncVectorEnv(makers)
    return gymnasium.vector.SyncVectorEnv(makers)
