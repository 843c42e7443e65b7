"""Ratings (issue 46): openskill's Plackett-Luce model over the finishing order of each game;
``solstice tournament`` reports one per bot, ``solstice ratings --home DIR`` rates the players
of a home's finished LAN games (by peer id, bots marked where the home knows it), counting
only games whose transcript verifies as fair."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from bots.netseat import bot_chooser
from bots.ratings import finishing_ranks, rate
from bots.registry import make_bot
from p2p.identity import Identity
from p2p.net.games import PeerOptions, host_game, join_game
from tests.lan_helpers import CONFIG, LOOPBACK, two_peers
from ui.cli import app
from ui.cli.net import _bot_game


def test_the_winner_places_first_and_the_others_by_score_with_ties_shared() -> None:
    assert finishing_ranks([10, 12, 12, 5], winner=1) == [3, 1, 2, 4]
    assert finishing_ranks([9, 9, 4], winner=1) == [2, 1, 3]  # it won the tie on the score
    assert finishing_ranks([7, 3, 7, 7], winner=0) == [1, 4, 2, 2]


def test_a_player_that_keeps_winning_rates_above_and_grows_surer() -> None:
    few = rate([[("a", 1), ("b", 2)]] * 3)
    many = rate([[("a", 1), ("b", 2)]] * 30)
    assert many["a"].mu > few["a"].mu > 25 > few["b"].mu > many["b"].mu
    assert many["a"].sigma < few["a"].sigma and many["a"].games == 30
    assert many["a"].ordinal > many["b"].ordinal


def test_a_bot_in_several_seats_is_one_player_and_its_places_among_its_seats_do_not_matter(
        ) -> None:
    one = rate([[("a", 1), ("b", 2), ("b", 3), ("b", 4)]] * 5)
    other = rate([[("b", 4), ("a", 1), ("b", 2), ("b", 3)]] * 5)
    for player in ("a", "b"):
        assert (one[player].mu, one[player].sigma) == \
            pytest.approx((other[player].mu, other[player].sigma))
    assert one["b"].games == 5
    assert one["a"].mu > 25 > one["b"].mu


def test_a_tournament_reports_a_rating_per_bot() -> None:
    runner = CliRunner()
    data = json.loads(runner.invoke(app, ["tournament", "--bots", "greedy,random", "--games",
                                          "6", "--seed", "rate", "--json"]).output)
    greedy, random = (data["results"][bot]["rating"] for bot in ("greedy", "random"))
    assert list(greedy) == ["mu", "sigma", "ordinal", "games"] and greedy["games"] == 6
    assert greedy["mu"] > random["mu"]  # greedy wins nearly every game against random
    assert greedy["ordinal"] == pytest.approx(greedy["mu"] - 3 * greedy["sigma"], abs=2e-3)
    text = runner.invoke(app, ["tournament", "--bots", "greedy,random", "--games", "6",
                               "--seed", "rate"]).output
    assert f"      rating:     {greedy['mu']:.2f} +- {greedy['sigma']:.2f}" in text
    assert "ratings: openskill Plackett-Luce, from each game's finishing order" in text


def _lan_game(homes: list[Path], leave_after_round: int | None = None) -> None:
    """One two-player LAN game over loopback, both seats random bots; the host plays it as
    ``solstice host --bot random`` does (its game folder notes the bot); the joiner leaves
    after ``leave_after_round`` if given."""
    options = [PeerOptions(home=home, bind=LOOPBACK, net=CONFIG, name=home.name)
               for home in homes]
    options[1].leave_after_round = leave_after_round

    async def host(on_lobby: Any) -> None:
        seat = bot_chooser(make_bot("random"), io.StringIO())
        await _bot_game(seat, host_game(2, seat, lambda _e: None, options[0], on_lobby),
                        options[0].home_dir, "random")

    async def join(code: Any) -> None:
        seat = bot_chooser(make_bot("random"), io.StringIO())
        await join_game(code, seat, lambda _e: None, options[1])

    two_peers(host, join)


@pytest.fixture(scope="module")
def homes(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    root = tmp_path_factory.mktemp("lan")
    homes = [root / "hal", root / "ann"]
    for _ in range(2):
        _lan_game(homes)
    return homes


def test_ratings_rate_a_homes_finished_games_by_peer_with_its_own_bot_marked(
        homes: list[Path]) -> None:
    hal, ann = (Identity.load_or_create(home) for home in homes)
    result = CliRunner().invoke(app, ["ratings", "--home", str(homes[0]), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert len(data["games"]) == 2 and data["skipped"] == []
    players = {p["peer"]: p for p in data["players"]}
    assert set(players) == {hal.peer_id, ann.peer_id}
    assert players[hal.peer_id]["name"] == "hal" and players[ann.peer_id]["name"] == "ann"
    assert players[hal.peer_id]["bots"] == ["random"]  # this home played with --bot random
    assert players[ann.peer_id]["bots"] == []          # not known here
    assert all(p["games"] == 2 for p in players.values())
    assert sum(p["wins"] for p in players.values()) == 2
    first, second = data["players"]
    assert first["rating"]["ordinal"] >= second["rating"]["ordinal"]
    if first["wins"] != second["wins"]:  # (with one win each, the later winner is above)
        assert first["wins"] > second["wins"]
    text = CliRunner().invoke(app, ["ratings", "--home", str(homes[0])]).output
    assert text.startswith(f"2 finished game(s) in {homes[0]}, rated with openskill "
                           "Plackett-Luce")
    assert f"hal ({hal.short_id}) [bot: random]" in text and f"ann ({ann.short_id})" in text


def test_a_game_whose_transcript_does_not_verify_or_that_did_not_finish_is_not_rated(
        homes: list[Path], tmp_path: Path) -> None:
    import shutil

    home = tmp_path / "ann"
    shutil.copytree(homes[1], home)
    games = sorted((home / "games").iterdir())
    transcript = games[0] / "transcript.json"
    data = json.loads(transcript.read_text())
    winner = data["outcome"]["winner"]
    data["outcome"]["scores"][winner] += 10  # a claim the signed moves do not make
    transcript.write_text(json.dumps(data))
    (games[1] / "finished.json").unlink()
    result = json.loads(CliRunner().invoke(app, ["ratings", "--home", str(home),
                                                 "--json"]).output)
    assert result["games"] == [] and result["players"] == []
    why = {entry["game"]: entry["why"] for entry in result["skipped"]}
    assert why[games[0].name].startswith("its transcript does not verify as fair")
    assert why[games[1].name] == "not finished"
    text = CliRunner().invoke(app, ["ratings", "--home", str(home)]).output
    assert text.startswith(f"no finished game in {home} can be rated:")
    assert f"  {games[1].name}: not finished" in text


def test_a_seat_the_ghost_bot_played_on_is_marked(tmp_path: Path) -> None:
    homes = [tmp_path / "hal", tmp_path / "ann"]
    _lan_game(homes, leave_after_round=1)
    ann = Identity.load_or_create(homes[1])
    data = json.loads(CliRunner().invoke(app, ["ratings", "--home", str(homes[0]),
                                               "--json"]).output)
    players = {p["peer"]: p for p in data["players"]}
    assert players[ann.peer_id]["bots"] == ["ghost"] and len(data["games"]) == 1
    text = CliRunner().invoke(app, ["ratings", "--home", str(homes[0])]).output
    assert f"ann ({ann.short_id}) [ghost bot after leaving]" in text
    # the leaver's own home has no result for it
    left = json.loads(CliRunner().invoke(app, ["ratings", "--home", str(homes[1]),
                                               "--json"]).output)
    assert left["games"] == [] and "did not end with a result" in left["skipped"][0]["why"]
