"""The learning agents' table (``bots.rl.table.Table``) plays a seed exactly as
``bots.match.play_match`` plays it: the same deal, chance and relabels, picks chosen on one
state, so each seat is shown the very bytes a bot is shown in a local match, and no view names
an opponent's face-down card. Needs numpy (the rl extra)."""

from __future__ import annotations

import pytest

pytest.importorskip("numpy", reason="the rl extra is not installed (pip install '.[rl]')")

from bot_helpers import Recording, bot_seed

from bots.base import Bot, GameInfo
from bots.greedy import GreedyBot
from bots.match import play_match
from bots.random_bot import RandomBot
from bots.rl.table import Table
from engine.randomness import RandomStream


def make_bot(seat: int) -> Bot:
    return GreedyBot() if seat == 0 else RandomBot()


def play_table(n: int, seed: str) -> tuple[list[Recording], list[int]]:
    """Play ``seed`` on a Table, the bots started with the seeds ``play_match`` gives them
    (the game log kept, as ``play_match`` keeps it by default: it is part of the view)."""
    table = Table(n, seed, keep_log=True)
    bots = [Recording(make_bot(seat)) for seat in range(n)]
    for seat, bot in enumerate(bots):
        bot.start(GameInfo(seat, table.config, bot_seed(seed, seat), game=seed))
    while not table.over:
        acting = table.seat
        assert acting is not None
        table.play(bots[acting].choose(table.turn))
    return bots, table.scores()


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("deal", range(2))
def test_a_table_shows_each_seat_the_views_of_a_local_match(n: int, deal: int) -> None:
    seed = f"rl-table/{n}/{deal}"
    on_table, table_scores = play_table(n, seed)
    in_match = [Recording(make_bot(seat)) for seat in range(n)]
    result = play_match(in_match, seed)
    assert table_scores == list(result.scores)
    for seat in range(n):
        assert len(on_table[seat].views) == len(in_match[seat].views) > 10
        for number, (mine, theirs) in enumerate(zip(on_table[seat].views,
                                                    in_match[seat].views, strict=True)):
            assert mine == theirs, f"seat {seat}, decision {number}: the views differ"


@pytest.mark.parametrize("n", [2, 4])
def test_no_view_of_a_table_names_an_opponents_face_down_card(n: int) -> None:
    """The leak of the old table: a card that passed through a seat's hand in the draft kept
    its slot to the planet, so the seat's view (and observation) named it face down."""
    sightings = named = 0
    for game in range(6):
        table = Table(n, f"rl-leak/{n}/{game}")
        rng = RandomStream(f"rl-leak/{n}/{game}/moves")
        seen: dict[tuple[int, int], bool] = {}
        while not table.over:
            for seat in range(n):
                for planet in table.view(seat)["planets"]:
                    for card in planet["cards"]:
                        if not card["face_up"] and card["dispatcher"] not in (seat, -1):
                            seen.setdefault((seat, card["slot"]), card["label"] is not None)
            legal = table.turn.legal
            table.play(legal[rng.randbelow(len(legal))])
        sightings += len(seen)
        named += sum(seen.values())
    assert sightings > 20
    assert named == 0, f"{named} of {sightings} opponents' face-down cards were named"
