"""Tournament statistics: seat rotation, Wilson intervals, the JSON shape, worker independence."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from typer.testing import CliRunner

from bots.registry import BotSpecError
from bots.tournament import lineup, run_tournament, seating, wilson_interval
from ui.cli import app


def test_two_bots_two_players_alternate_seats() -> None:
    assert [seating(["a", "b"], 2, g) for g in range(4)] == [
        ["a", "b"], ["b", "a"], ["a", "b"], ["b", "a"]]


def test_fewer_bots_than_players_fill_with_the_last_and_rotate() -> None:
    assert lineup(["ismcts", "greedy"], 4) == ["ismcts", "greedy", "greedy", "greedy"]
    seat_of_ismcts = Counter()
    for game in range(12):
        seats = seating(["ismcts", "greedy"], 4, game)
        assert Counter(seats) == {"ismcts": 1, "greedy": 3}
        seat_of_ismcts[seats.index("ismcts")] += 1
    assert seat_of_ismcts == {0: 3, 1: 3, 2: 3, 3: 3}


def test_bad_lineups_are_rejected() -> None:
    with pytest.raises(BotSpecError):
        lineup(["a", "b", "c"], 2)
    with pytest.raises(BotSpecError):
        lineup(["a", "a"], 2)


@pytest.mark.parametrize("wins, games, expected", [
    (0, 10, (0.0, 0.2775)),
    (5, 10, (0.2366, 0.7634)),
    (70, 100, (0.60415, 0.78105)),  # worked by hand: centre 0.69260, half 0.08845
    (10, 10, (0.7225, 1.0)),
])
def test_wilson_interval(wins, games, expected) -> None:
    lo, hi = wilson_interval(wins, games)
    assert lo == pytest.approx(expected[0], abs=1e-4)
    assert hi == pytest.approx(expected[1], abs=1e-4)


def test_results_count_seats_wins_and_scores() -> None:
    result = run_tournament(["random", "greedy"], games=8, players=4, seed="t")
    stats = result.stats()
    assert stats["random"].seats == [2, 2, 2, 2]
    assert stats["greedy"].seats == [6, 6, 6, 6]
    assert stats["random"].wins + stats["greedy"].wins == 8
    assert stats["greedy"].seat_games == 24
    total = sum(r.scores[s] for r in result.records for s, b in enumerate(r.seats)
                if b == "greedy")
    assert stats["greedy"].score_total == total


def test_json_output_has_exactly_the_specified_shape() -> None:
    result = CliRunner().invoke(app, ["tournament", "--bots", "greedy,random", "--games", "6",
                                      "--seed", "shape", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)  # nothing else (no progress bar) on the output
    assert list(data) == ["games", "bots", "results"]
    assert data["games"] == 6 and data["bots"] == ["greedy", "random"]
    assert list(data["results"]) == ["greedy", "random"]
    for entry in data["results"].values():
        assert list(entry) == ["wins", "win_rate", "ci95", "mean_score", "faults"]
        assert entry["faults"] == 0
        assert isinstance(entry["wins"], int)
        assert entry["win_rate"] == round(entry["wins"] / 6, 4)
        lo, hi = entry["ci95"]
        assert 0 <= lo <= entry["win_rate"] <= hi <= 1
        assert isinstance(entry["mean_score"], float | int)
    assert sum(e["wins"] for e in data["results"].values()) == 6


def test_text_output_and_bad_spec_exit_code() -> None:
    runner = CliRunner()
    ok = runner.invoke(app, ["tournament", "--bots", "ismcts:iterations=5,random",
                             "--games", "2"])
    assert ok.exit_code == 0, ok.output
    assert "ismcts:iterations=5" in ok.output and "95% CI" in ok.output
    bad = runner.invoke(app, ["tournament", "--bots", "nosuch,random", "--games", "2"])
    assert bad.exit_code == 2 and "unknown bot 'nosuch'" in bad.output


def test_same_results_with_one_and_two_workers() -> None:
    bots = ["greedy", "ismcts:iterations=8"]
    one = run_tournament(bots, games=4, players=2, seed="workers", workers=1)
    two = run_tournament(bots, games=4, players=2, seed="workers", workers=2)
    assert one.records == two.records
    assert one.to_json() == two.to_json()
