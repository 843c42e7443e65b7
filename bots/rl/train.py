"""Train a ``bots.rl.policy.Policy`` on the PettingZoo environment with REINFORCE (numpy only).

Each game, one seat (rotating) is the learner and the others play uniformly random masked
actions (``opponents="random"``), or every seat plays the policy and every seat learns from
its own game (``"self"``). The learner's decisions are scored with the game's reward (``win``
by default) minus a running mean of that reward (the baseline). Decisions with one legal
action are not learned from (there is nothing to choose).

``teacher="greedy"`` (any bot spec) trains by imitation instead: the teacher plays the
learner's seat and every decision raises the policy's probability of the teacher's choice
(behaviour cloning, the same gradient with advantage 1). A cloned policy can then go on with
REINFORCE (``policy=``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from bots.rl.policy import Policy, TraceStep

OPPONENTS = ("random", "self")


@dataclass
class TrainResult:
    policy: Policy
    games: int
    learner_wins: int       # games the learner seat won (with random opponents: vs random)
    seconds: float
    steps: int


def train(games: int, *, players: int | Sequence[int] = 2, seed: int = 0, hidden: int = 32,
          lr: float = 0.05, opponents: str = "random", reward: str = "win",
          policy: Policy | None = None, teacher: str | None = None,
          progress: Callable[[int, float], None] | None = None) -> TrainResult:
    """Play ``games`` training games (with several player counts: in turn);
    ``progress(game, learner win rate so far)`` every 100 games."""
    from bots.base import GameInfo
    from bots.registry import make_bot
    from bots.rl.encoding import state_legal_indices
    from bots.rl.pettingzoo_env import raw_env

    if opponents not in OPPONENTS:
        raise ValueError(f"opponents must be one of {', '.join(OPPONENTS)}")
    policy = policy or Policy(hidden=hidden, seed=seed)
    counts = [players] if isinstance(players, int) else list(players)
    envs = [raw_env(players=n, reward=reward) for n in counts]
    rng = np.random.default_rng(seed)
    baseline = 0.0
    tutor = make_bot(teacher) if teacher else None
    wins = steps = 0
    started = time.process_time()
    for game in range(games):
        env = envs[game % len(envs)]
        env.reset(seed=seed * 1_000_003 + game)
        learner = f"player_{(game // len(envs)) % env.players}"
        trace: dict[str, list[TraceStep]] = {agent: [] for agent in env.possible_agents}
        returns: dict[str, float] = {}
        if tutor is not None:
            table = env.table
            assert table is not None
            seat = int(learner.split("_")[1])
            tutor.start(GameInfo(seat, table.config, f"teacher{seed}/{game}".encode()))
        for agent in env.agent_iter():
            obs, reward, termination, truncation, _ = env.last()
            if termination or truncation:
                returns[agent] = float(reward)  # the rewards come at the end only
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"]).tolist()
            steps += 1
            if len(legal) == 1:
                env.step(legal[0])
            elif tutor is not None and agent == learner:
                table = env.table
                assert table is not None
                choice = tutor.choose(table.turn)
                index = state_legal_indices(table.state, table.turn.seat, [choice])[0]
                p, cache = policy.probabilities(obs["observation"], legal)
                trace[agent].append((p, cache, legal.index(index)))
                env.step(index)
            elif agent == learner or opponents == "self":
                p, cache = policy.probabilities(obs["observation"], legal)
                row = int(rng.choice(len(legal), p=p))
                trace[agent].append((p, cache, row))
                env.step(legal[row])
            else:
                env.step(legal[int(rng.integers(len(legal)))])
        learners = env.possible_agents if opponents == "self" else [learner]
        if tutor is not None:
            # imitation: every one of the teacher's choices counts in full
            policy.update(trace[learner], 1.0, lr, mean=False)
            learners = []
        for agent in learners:
            ret = returns[agent]
            policy.update(trace[agent], ret - baseline, lr)
            baseline += 0.01 * (ret - baseline)
        wins += int(env.table.winner() == int(learner.split("_")[1]))  # type: ignore[union-attr]
        if progress is not None and (game + 1) % 100 == 0:
            progress(game + 1, wins / (game + 1))
    return TrainResult(policy, games, wins, time.process_time() - started, steps)
