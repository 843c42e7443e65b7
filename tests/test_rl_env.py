"""The PettingZoo environment (``bots.rl``): PettingZoo's own API and seed tests, and thousands
of random masked steps per player count with the engine's invariants, the action mask and the
honest view checked after every step. Skipped without the rl extra."""

from __future__ import annotations

import pytest

pytest.importorskip("numpy", reason="the rl extra is not installed (pip install '.[rl]')")
pytest.importorskip("pettingzoo", reason="the rl extra is not installed (pip install '.[rl]')")

import numpy as np
from pettingzoo.test import api_test, seed_test

from bots.base import Turn
from bots.rl import encoding as enc
from bots.rl import env, raw_env
from bots.rl.worlds import sample_world
from engine import legal_actions
from engine.randomness import RandomStream
from engine.view import view

STEPS_PER_PLAYER_COUNT = 3000


@pytest.mark.parametrize("players", [2, 3, 4])
def test_pettingzoo_api_test_passes(players: int) -> None:
    api_test(env(players=players), num_cycles=300)


@pytest.mark.parametrize("players", [2, 4])
def test_pettingzoo_seed_test_passes(players: int) -> None:
    seed_test(lambda: env(players=players), num_cycles=100)


def _check_engine_invariants(e: raw_env) -> None:
    s = e.table.state
    live = s.live_slots()
    assert len(live) == len(set(live)), "a slot is in two zones"
    assert sorted(s.card_of[x] for x in live) == sorted(s.config.card_ids()), \
        "cards lost or doubled"
    assert min(s.vp) >= 0 and min(s.casualties) >= 0


@pytest.mark.parametrize("players", [2, 3, 4])
def test_thousands_of_random_masked_steps_keep_the_invariants(players: int) -> None:
    e = raw_env(players=players)
    rng = np.random.default_rng(players)
    e.reset(seed=100 + players)
    steps = games = 0
    while steps < STEPS_PER_PLAYER_COUNT:
        agent = e.agent_selection
        obs, _, termination, truncation, info = e.last()
        if termination or truncation:
            e.step(None)
            if not e.agents:  # every agent has been stepped out: the game is over
                table = e.table
                rewards = table.rewards()
                assert abs(sum(rewards)) < 1e-9 and rewards[table.winner()] == 1.0
                games += 1
                e.reset()
            continue
        seat = int(agent.split("_")[1])
        s = e.table.state
        legal = legal_actions(s, seat)
        mask = obs["action_mask"]
        # the mask is exactly the legal actions, each on an index of its own
        indices = enc.legal_indices(legal, view(s, seat))
        assert sorted(indices) == sorted(set(indices)) == np.flatnonzero(mask).tolist()
        # the observation is the encoding of the seat's view, the very dict bots get
        assert info["view"] == Turn(s, seat, legal).view
        assert np.array_equal(obs["observation"], enc.encode_view(info["view"]))
        assert obs["observation"].min() >= 0.0 and obs["observation"].max() <= 1.0
        if steps % 50 == 0:
            # nothing hidden from the seat shows: any world it cannot tell apart looks the same
            world = sample_world(s, seat, RandomStream(f"world{steps}"))
            assert np.array_equal(enc.encode_view(view(world, seat)), obs["observation"])
        choice = int(rng.choice(np.flatnonzero(mask)))
        e.step(choice)
        steps += 1
        if e.agents:
            _check_engine_invariants(e)
    assert games >= 10


def test_the_reward_kinds_sum_to_zero_and_rank_the_winner_first() -> None:
    from bots.rl.table import game_rewards

    assert game_rewards([10, 4, 7], 0, "win") == [1.0, -0.5, -0.5]
    margin = game_rewards([10, 4, 7], 0, "margin")
    assert abs(sum(margin)) < 1e-9 and margin[0] == pytest.approx(0.45)
    with pytest.raises(ValueError, match="reward must be one of"):
        raw_env(players=2, reward="score")


def test_render_shows_the_table_as_text_and_a_bad_player_count_is_refused() -> None:
    e = raw_env(players=3, render_mode="ansi")
    e.reset(seed=1)
    text = e.render()
    assert "round 1" in text and "to act" in text and "last: -" in text
    # the last action's text, made when rendered, and kept by a snapshot as text
    index = int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0])
    played = e.table.turn.legal[e.table.legal_indices().index(index)]
    e.step(index)
    assert f"last: {played.text()}" in e.render()
    snap = e.snapshot()
    assert snap["_last_action"] == played.text()
    e.reset(seed=2)
    e.restore(snap)
    assert f"last: {played.text()}" in e.render()
    with pytest.raises(ValueError, match="2-4 players"):
        raw_env(players=5)


def test_an_illegal_action_ends_the_game_for_its_agent_with_reward_minus_one() -> None:
    e = env(players=2)
    e.reset(seed=3)
    obs, *_ = e.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    agent = e.agent_selection
    e.step(illegal)  # PettingZoo logs a warning
    assert e.rewards[agent] == -1
    assert all(e.terminations.values())


def test_the_wrappers_read_the_bookkeeping_without_their_getattr_chain(monkeypatch) -> None:
    """``env()``'s wrappers are PettingZoo's own, but the per-agent bookkeeping they read
    several times a step comes from the unwrapped environment directly: a step and ``last``
    go through no wrapper's ``__getattr__``; before reset it is refused as PettingZoo
    refuses it, and writes reach the environment."""
    from pettingzoo.utils.wrappers import (
        AssertOutOfBoundsWrapper,
        BaseWrapper,
        OrderEnforcingWrapper,
        TerminateIllegalWrapper,
    )

    e = env(players=2)
    assert isinstance(e, OrderEnforcingWrapper)
    assert isinstance(e.env, AssertOutOfBoundsWrapper)
    assert isinstance(e.env.env, TerminateIllegalWrapper)
    with pytest.raises(AttributeError, match="cannot be accessed before reset"):
        _ = e.agents
    e.reset(seed=1)
    asked: list[str] = []
    original = BaseWrapper.__getattr__

    def counting(self, name: str):  # type: ignore[no-untyped-def]
        asked.append(name)
        return original(self, name)

    monkeypatch.setattr(BaseWrapper, "__getattr__", counting)
    for _ in range(20):
        obs = e.last()[0]
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(legal[0]))
    assert asked == []
    assert isinstance(e, OrderEnforcingWrapper)  # still, once reset (its reads unchecked)
    assert e.agent_selection == e.unwrapped.agent_selection
    assert e.rewards is e.unwrapped.rewards
    with pytest.raises(AssertionError, match="action space"):
        e.step(enc.ACTION_SIZE)  # out of range: the wrapper's own check


def test_a_view_read_after_its_step_is_still_the_view_of_its_step() -> None:
    """``info["view"]`` is built when first read: read before the environment steps on, from
    the table's state; read later (the last first, then in order, across a reset and in an
    ``env()``), from its step replayed, and from the first late read on the environment keeps
    a copy of each step's state. Every read is the view of the info's own step."""
    e = env(players=2, opponents=["random"])
    e.reset(seed=11)
    raw = e.unwrapped
    rng = np.random.default_rng(11)
    kept = []  # (an info, the view of its step, read without the info)
    games = 0
    while games < 2:
        obs, _, termination, truncation, info = e.last()
        if termination or truncation:
            e.step(None)
            if not e.agents:
                games += 1
                e.reset()
            continue
        kept.append((info, view(raw.table.state, raw.table.seat)))
        if len(kept) % 7 == 0:  # some read at once, before the step
            assert info["view"] == kept[-1][1]
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert len(kept) > 40 and not raw._shown.copy  # no late read yet: nothing copied
    assert kept[-1][0]["view"] == kept[-1][1]  # a replay of the second game
    assert raw._shown.copy
    for info, seen in kept:  # the first game again (a replay from its seed), then in order
        assert info["view"] == seen
    # from then on each info holds a copy of its step's state
    obs, _, _, _, info = e.last()
    seen = view(raw.table.state, raw.table.seat)
    e.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert info["view"] == seen


def test_an_observation_changed_by_its_caller_is_not_handed_out_again() -> None:
    """The first observation of a state is handed out uncopied; asked again, each caller
    still gets the observation as it was made, whatever earlier callers did to theirs."""
    e = raw_env(players=3)
    e.reset(seed=3)
    agent = e.agent_selection
    first = e.observe(agent)
    obs, mask = first["observation"].copy(), first["action_mask"].copy()
    assert mask.any() and obs.any()
    first["observation"][:] = 7.0
    first["action_mask"][:] = 0
    for _ in range(3):
        again = e.observe(agent)
        assert np.array_equal(again["observation"], obs)
        assert np.array_equal(again["action_mask"], mask)
        again["observation"][:] = 5.0
        again["action_mask"][:] = 1
    other = e.possible_agents[(e.possible_agents.index(agent) + 1) % 3]
    assert not e.observe(other)["action_mask"].any()  # not to act: an empty mask
