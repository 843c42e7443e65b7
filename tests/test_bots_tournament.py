"""Tournament statistics: seat rotation, Wilson intervals, the JSON shape, worker independence."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace

import pytest
from typer.testing import CliRunner

from bots.faults import Fault
from bots.registry import BotSpecError
from bots.tournament import (
    GameRecord,
    ScheduleError,
    Settings,
    Shard,
    TournamentResult,
    lineup,
    run_tournament,
    seating,
    wilson_interval,
)
from bots.tournament.report import text_report
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
    assert list(data) == ["games", "players", "seed", "bots", "results", "paired", "records"]
    assert data["games"] == 6 and data["bots"] == ["greedy", "random"]
    assert list(data["results"]) == ["greedy", "random"]
    for entry in data["results"].values():
        assert list(entry) == ["wins", "win_rate", "ci95", "mean_score", "by_seat",
                               "by_faction", "replaced", "rating", "faults"]
        assert entry["faults"] == 0
        assert isinstance(entry["wins"], int)
        assert entry["win_rate"] == round(entry["wins"] / 6, 4)
        lo, hi = entry["ci95"]
        assert 0 <= lo <= entry["win_rate"] <= hi <= 1
        assert isinstance(entry["mean_score"], float | int)
        assert [s["games"] for s in entry["by_seat"]] == [3, 3]
        assert sum(f["games"] for f in entry["by_faction"].values()) == 6
    assert sum(e["wins"] for e in data["results"].values()) == 6
    assert [g["game"] for g in data["records"]] == list(range(6))
    assert list(data["records"][0]) == ["game", "deal", "seats", "factions", "scores",
                                        "winner", "rounds", "decisions", "faults"]
    assert data["paired"][0]["deals"] == 3


def test_text_output_and_bad_spec_exit_code() -> None:
    runner = CliRunner()
    ok = runner.invoke(app, ["tournament", "--bots", "ismcts:iterations=5,random",
                             "--games", "2"])
    assert ok.exit_code == 0, ok.output
    assert "ismcts:iterations=5" in ok.output and "95% CI" in ok.output
    # not a terminal: no progress bar; the seating comes before the first game
    assert ok.output.startswith("seating (rotated every game): seat 0 ismcts:iterations=5, "
                                "seat 1 random\n2 games, 2 players")
    assert "by seat:" in ok.output and "by faction:" in ok.output
    assert "paired by deal (1 deals played from every seat)" in ok.output
    bad = runner.invoke(app, ["tournament", "--bots", "nosuch,random", "--games", "2"])
    assert bad.exit_code == 2 and "unknown bot 'nosuch'" in bad.output


def test_same_results_with_one_and_two_workers() -> None:
    bots = ["greedy", "ismcts:iterations=8"]
    one = run_tournament(bots, games=4, players=2, seed="workers", workers=1)
    two = run_tournament(bots, games=4, players=2, seed="workers", workers=2)
    assert one.records == two.records
    assert one.to_json() == two.to_json()


def _game(game: int, seats: list[str], scores: list[int], winner: int,
          factions: tuple[str, ...] = ("black", "white")) -> GameRecord:
    return GameRecord(game, f"s/{game // 2}", tuple(seats), factions, tuple(scores), winner,
                      3, (10, 10), (0.001, 0.002))


def _result(records: list[GameRecord], games: int = 6) -> TournamentResult:
    return TournamentResult(Settings(("a", "b"), 2, "s", games, "0"), records)


def test_win_rates_per_seat_and_per_faction_count_each_seat_played() -> None:
    result = _result([
        _game(0, ["a", "b"], [10, 5], 0),
        _game(1, ["b", "a"], [10, 5], 0),
        _game(2, ["a", "b"], [10, 5], 0, factions=("blue", "green")),
        _game(3, ["b", "a"], [5, 10], 1, factions=("blue", "green")),
    ])
    a = result.stats()["a"]
    assert [(t.wins, t.games) for t in a.by_seat] == [(2, 2), (1, 2)]
    assert {f: (t.wins, t.games) for f, t in a.by_faction.items()} == {
        "black": (1, 1), "white": (0, 1), "blue": (1, 1), "green": (1, 1)}
    entry = result.to_json()["results"]["a"]
    assert entry["by_seat"][1] == {"games": 2, "wins": 1, "win_rate": 0.5,
                                   "ci95": [0.0945, 0.9055]}


def test_paired_comparison_uses_only_deals_played_from_every_seat() -> None:
    result = _result([
        _game(0, ["a", "b"], [12, 4], 0),   # deal 0: a wins from both seats
        _game(1, ["b", "a"], [6, 10], 1),
        _game(2, ["a", "b"], [9, 7], 0),    # deal 1: each wins once
        _game(3, ["b", "a"], [11, 5], 0),
        _game(4, ["a", "b"], [20, 0], 0),   # deal 2: one rotation only, not paired
    ])
    (pair,) = result.paired()
    assert (pair.a, pair.b, pair.deals) == ("a", "b", 2)
    assert (pair.a_better, pair.b_better, pair.even) == (1, 0, 1)
    # per-seat score difference a - b: deal 0 (12+10)/2 - (4+6)/2 = 6, deal 1 (9+5)/2 -
    # (7+11)/2 = -2; mean 2, sd 5.657, half-width 1.96 * 5.657 / sqrt(2) = 7.84
    assert pair.score_diff == pytest.approx(2.0)
    assert pair.score_diff_ci95 == pytest.approx((2 - 7.8399, 2 + 7.8399), abs=1e-3)


def test_mean_time_per_decision_is_weighted_by_decisions() -> None:
    records = [GameRecord(0, "s/0", ("a", "b"), ("black", "white"), (1, 0), 0, 2, (10, 30),
                          (0.001, 0.003)),
               GameRecord(1, "s/0", ("b", "a"), ("black", "white"), (1, 0), 0, 2, (10, 30),
                          (0.001, 0.003))]
    stats = _result(records).stats()
    assert stats["a"].seconds_per_decision == pytest.approx((0.01 + 0.09) / 40)


def test_cpu_time_per_decision_is_weighted_and_shown_for_in_process_bots_only() -> None:
    records = [GameRecord(0, "s/0", ("a", "cmd:b"), ("black", "white"), (1, 0), 0, 2, (10, 30),
                          (0.5, 0.003), cpu_per_decision=(0.2, 0.0001)),
               GameRecord(1, "s/0", ("cmd:b", "a"), ("black", "white"), (1, 0), 0, 2,
                          (10, 30), (0.001, 0.6), cpu_per_decision=(0.0001, 0.4))]
    result = TournamentResult(Settings(("a", "cmd:b"), 2, "s", 2, "0"), records)
    stats = result.stats()
    assert stats["a"].cpu_per_decision == pytest.approx((10 * 0.2 + 30 * 0.4) / 40)
    rows = text_report(result)
    a_row = next(r for r in rows if r.lstrip().startswith("a "))
    b_row = next(r for r in rows if r.lstrip().startswith("cmd:b"))
    assert a_row.endswith("ms/decision, 350.0 ms CPU")
    assert "CPU" not in b_row  # a program thinks in its own process: its CPU is not ours


def test_records_without_cpu_time_leave_it_unknown() -> None:
    old = GameRecord(0, "s/0", ("a", "b"), ("black", "white"), (1, 0), 0, 2, (10, 30),
                     (0.001, 0.003))
    new = replace(old, game=1, seats=("b", "a"), cpu_per_decision=(0.001, 0.002))
    assert GameRecord.from_json(json.loads(json.dumps(old.to_json()))) == old
    assert _result([new]).stats()["a"].cpu_per_decision == pytest.approx(0.002)
    assert _result([old, new]).stats()["a"].cpu_per_decision is None


def test_shards_split_by_deal_cover_every_game_once() -> None:
    settings = Settings(("a", "b", "c"), 3, "s", 20, "0")
    parts = [settings.games_of(Shard(k, 3)) for k in (1, 2, 3)]
    assert sorted(g for part in parts for g in part) == list(range(20))
    assert parts[0][:6] == [0, 1, 2, 9, 10, 11]   # deals 0 and 3, each from every seat
    assert Shard.parse(" 2/3 ") == Shard(2, 3)
    for bad in ("0/3", "4/3", "1", "a/b"):
        with pytest.raises(ScheduleError):
            Shard.parse(bad)


def test_live_progress_shows_rate_time_left_and_every_bots_running_win_rate() -> None:
    from ui.cli.tournament import _LiveProgress

    progress = _LiveProgress()
    progress.start(4, [_game(0, ["a", "b"], [9, 3], 0)])
    try:
        progress.game(_game(1, ["b", "a"], [9, 3], 0))
        status = progress._status()
    finally:
        progress.stop()
    assert "games/s" in status and "left" in status
    assert "a 50%" in status and "b 50%" in status


def test_fault_text_from_a_bot_cannot_drive_the_terminal() -> None:
    record = GameRecord(0, "s/0", ("a", "b"), ("black", "white"), (1, 0), 0, 2, (1, 1),
                        (0.0, 0.0), (Fault("raised", "raised ValueError: \x1b[2Jgone",
                                           bot="a", seat=0),))
    lines = text_report(_result([record]))
    assert "\x1b" not in lines[-1]
    assert lines[-1].endswith("raised ValueError: ?[2Jgone")


def test_the_seating_is_printed_before_the_first_game_with_the_lineup_trap_named() -> None:
    """Issue 46: ``--bots 'greedy,cmd:X' --players 4`` puts X in three seats; the run says so
    before it plays (here, before the program fails to start)."""
    result = CliRunner().invoke(app, ["tournament", "--bots", "greedy,cmd:/nonexistent/bot",
                                      "--players", "4", "--games", "4"])
    assert result.exit_code == 1
    first = result.output.splitlines()[0]
    assert first == ("seating (rotated every game): seat 0 greedy, seats 1-3 "
                     "cmd:/nonexistent/bot; 2 free seat(s) filled by the last bot of --bots "
                     "(--fill names another); cmd:/nonexistent/bot plays 3 seats, one process "
                     "each"), result.output
    filled = CliRunner().invoke(app, ["tournament", "--bots", "cmd:/nonexistent/bot", "--fill",
                                      "greedy", "--players", "4", "--games", "4"])
    assert filled.output.splitlines()[0] == ("seating (rotated every game): seat 0 "
                                             "cmd:/nonexistent/bot, seats 1-3 greedy; 3 free "
                                             "seat(s) filled by --fill")


def test_a_bot_in_several_seats_is_reported_once() -> None:
    """Issue 46: ``--fill greedy`` printed "mybot vs greedy" three times and "greedy vs greedy
    even" lines."""
    result = CliRunner().invoke(app, ["tournament", "--bots", "random", "--fill", "greedy",
                                      "--players", "4", "--games", "4"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert [line.split()[0] for line in lines if " wins " in line] == ["random", "greedy"]
    assert [line.split(":")[0].strip() for line in lines if " vs " in line] == \
        ["random vs greedy"]


def test_the_decisions_a_fault_cost_are_counted_beside_the_time(tmp_path) -> None:
    """Issue 46: a bot that timed out on every decision was reported at 516 ms per decision,
    like any bot."""
    path = tmp_path / "sleepy.py"
    path.write_text("import time\nfrom bots.base import Bot\n\n\nclass Sleepy(Bot):\n"
                    "    def choose(self, turn):\n        time.sleep(0.003)\n"
                    "        return turn.legal[0]\n")
    spec = f"{path}:Sleepy:timeout=0.001"
    result = CliRunner().invoke(app, ["tournament", "--bots", f"{spec},random", "--games", "2",
                                      "--json"])
    data = json.loads(result.stdout)
    decisions = sum(r["decisions"][r["seats"].index(spec)] for r in data["records"])
    assert data["results"][spec]["replaced"] == decisions > 0
    assert data["results"]["random"]["replaced"] == 0
    text = CliRunner().invoke(app, ["tournament", "--bots", f"{spec},random", "--games", "2"])
    [row] = [line for line in text.stdout.splitlines() if line.startswith(f"  {spec} ")]
    # an in-process bot: its CPU time per decision comes before what its faults cost it
    assert row.endswith(f" ms CPU ({decisions} of {decisions} decisions played for it by "
                        f"random moves: slow {decisions})")
