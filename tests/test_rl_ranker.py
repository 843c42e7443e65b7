"""The ``learned`` bot's ranker (``bots.rl.ranker``): untrained it plays greedy's choice, its
fit learns a teacher's choices, and the weights shipped with the package play as ``--bot
learned`` (at a local table and through the registry). Skipped without the rl extra."""

from __future__ import annotations

from pathlib import Path

import pytest

np = pytest.importorskip("numpy", reason="the rl extra is not installed (pip install '.[rl]')")

from bots.base import GameInfo  # noqa: E402
from bots.learned import SHIPPED, LearnedBot  # noqa: E402
from bots.match import play_match  # noqa: E402
from bots.registry import make_bot  # noqa: E402
from bots.rl.ranker import N_FEATURES, Ranker, features, fit, is_ranker_file  # noqa: E402
from bots.rl.table import Table  # noqa: E402
from engine.randomness import RandomStream  # noqa: E402


def _decisions(games: int) -> list[tuple[np.ndarray, int]]:
    """Feature rows of seat 0's decisions with a choice in a few random games."""
    out = []
    rng = RandomStream("ranker-test")
    for game in range(games):
        table = Table(2, f"ranker-test/{game}")
        while not table.over:
            turn = table.turn
            if turn.seat == 0 and len(turn.legal) > 1:
                out.append((features(turn, rng)[1], 0))
            table.play(turn.legal[rng.randbelow(len(turn.legal))])
    return out


def test_an_untrained_ranker_plays_greedys_best_estimate() -> None:
    ranker = Ranker()
    for X, _ in _decisions(1):
        assert X.shape[1] == N_FEATURES
        best = int(np.argmax(ranker.scores(X)))
        assert X[best, 0] == X[:, 0].max()  # greedy's estimate, relative to the best


def test_fit_learns_a_teachers_choices() -> None:
    # a teacher that weighs the features its own way: the fit finds its choices again
    decisions = _decisions(2)
    teacher = np.random.default_rng(0).standard_normal(N_FEATURES).astype(np.float32)
    data = [(X, int(np.argmax(X @ teacher))) for X, _ in decisions]
    before = np.mean([int(np.argmax(Ranker().scores(X))) == c for X, c in data])
    ranker = fit(data, epochs=150, lr=0.05)
    after = np.mean([int(np.argmax(ranker.scores(X))) == c for X, c in data])
    assert len(data) > 30 and after >= 0.8 and after > before + 0.3


def test_a_ranker_file_round_trips_and_the_learned_bot_plays_it(tmp_path: Path) -> None:
    path = tmp_path / "r.npz"
    Ranker(np.arange(N_FEATURES, dtype=np.float32)).save(path)
    assert is_ranker_file(path)
    assert np.array_equal(Ranker.load(path).w, np.arange(N_FEATURES, dtype=np.float32))
    result = play_match([make_bot(f"learned:{path}"), make_bot("random")], "ranker-game")
    assert not result.faults


def test_the_shipped_weights_play_as_learned() -> None:
    assert SHIPPED.is_file() and is_ranker_file(SHIPPED)
    assert SHIPPED.stat().st_size < 64 * 1024  # small enough for the repository
    bot = make_bot("learned")
    assert isinstance(bot, LearnedBot) and bot.ranker is not None
    table = Table(2, "shipped")
    bot.start(GameInfo(0, table.config, b"shipped"))
    decided = 0
    while not table.over:
        turn = table.turn
        if turn.seat == 0:
            action = bot.choose(turn)
            assert action in turn.legal
            decided += 1
        else:
            action = turn.legal[0]
        table.play(action)
    assert decided > 10


def test_the_training_command_runs_end_to_end_on_a_tiny_budget(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]
                                                              ) -> None:
    from bots.rl.train_ranker import main

    out = tmp_path / "tiny.npz"
    assert main(["--games", "2", "--teacher", "ismcts:iterations=10", "--epochs", "5",
                 "--out", str(out), "--eval", "2", "--curve", "0,1"]) == 0
    printed = capsys.readouterr().out
    assert "teacher decisions from 2 games" in printed and "against greedy:" in printed
    assert printed.count("curve:") == 2
    assert is_ranker_file(out) and not np.array_equal(Ranker.load(out).w, Ranker().w)
