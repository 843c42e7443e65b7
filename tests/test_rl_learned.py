"""The learned bot, end to end: the example trains a policy on the PettingZoo environment with a
tiny budget, saves it, and ``--bot learned:PATH`` plays it in a tournament game and in a
networked game (the full protocol, sessions wired back to back). Skipped without the rl
extra."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from bots.registry import BotSpecError, make_bot

np = pytest.importorskip("numpy", reason="the rl extra is not installed (pip install '.[rl]')")

ROOT = Path(__file__).resolve().parent.parent


def _example():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("train_learned",
                                                  ROOT / "bots/examples/train_learned.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("pettingzoo", reason="the rl extra is not installed (pip install '.[rl]')")
    out = tmp_path_factory.mktemp("learned") / "policy.npz"
    assert _example().main(["--games", "30", "--players", "2,3", "--out", str(out)]) == 0
    return out


def test_the_example_trains_and_saves_a_policy_that_learning_changed(trained: Path) -> None:
    from bots.rl.policy import Policy

    policy = Policy.load(trained)
    untrained = Policy(hidden=policy.hidden, seed=0)
    assert not np.array_equal(policy.b, untrained.b), "30 games of REINFORCE changed nothing"


def test_the_learned_bot_plays_a_tournament_game(trained: Path) -> None:
    from bots.tournament.run import run_tournament

    result = run_tournament([f"learned:{trained}", "random"], games=2, players=2, seed="t")
    assert result.games == 2
    assert all(not record.faults for record in result.records), "the learned bot faulted"
    assert all(sum(record.decisions) > 20 for record in result.records)


def test_the_learned_bot_plays_a_networked_game(trained: Path) -> None:
    from bots.base import GameInfo, Turn
    from p2p.session.loopback import LoopbackGame

    bot = make_bot(f"learned:path={trained}")
    game = LoopbackGame(2)
    asked = 0

    def choose(view):  # type: ignore[no-untyped-def]
        nonlocal asked
        if asked == 0:
            bot.start(GameInfo(view.seat, view.config, b"seed"))
        asked += 1
        action = bot.choose(Turn(view.state, view.seat, list(view.legal)))
        assert action in view.legal
        return action

    game.play(choose)
    assert all(session.finished for session in game.sessions)
    assert asked > 20


def test_a_missing_or_foreign_policy_file_is_a_clear_spec_error(tmp_path: Path) -> None:
    with pytest.raises(BotSpecError, match="no policy file"):
        make_bot(f"learned:{tmp_path / 'none.npz'}")
    other = tmp_path / "other.npz"
    np.savez(other, weights=np.zeros(3))
    with pytest.raises(BotSpecError, match="cannot read the policy"):
        make_bot(f"learned:{other}")


def test_imitation_makes_the_teachers_choices_more_likely_on_games_it_never_saw() -> None:
    pytest.importorskip("pettingzoo", reason="the rl extra is not installed (pip install '.[rl]')")
    from bots.base import GameInfo
    from bots.greedy import GreedyBot
    from bots.rl import encoding as enc
    from bots.rl.policy import Policy
    from bots.rl.table import Table
    from bots.rl.train import train

    # greedy's decisions in three held-out games (seeds the training does not play)
    decisions = []
    for game in range(3):
        table = Table(2, f"held-out/{game}")
        teacher = GreedyBot()
        teacher.start(GameInfo(0, table.config, b"held-out"))
        while not table.over:
            legal = table.legal_indices()
            if table.seat == 0 and len(legal) > 1:
                choice = enc.state_legal_indices(table.state, 0, [teacher.choose(table.turn)])[0]
                decisions.append((enc.encode_view(table.turn.view), sorted(legal), choice))
                table.step(choice)
            else:
                table.step(legal[0])

    def mean_log_p(policy: Policy) -> float:
        total = 0.0
        for obs, legal, chosen in decisions:
            p, _ = policy.probabilities(obs, legal)
            total += float(np.log(p[legal.index(chosen)]))
        return total / len(decisions)

    before = mean_log_p(Policy(seed=4))
    cloned = train(20, players=2, seed=4, teacher="greedy", lr=0.01).policy
    after = mean_log_p(cloned)
    print(f"mean log-probability of greedy's choices: {before:.3f} -> {after:.3f}")
    assert after > before + 0.1
