"""Check the End of Game and End of the Game (rulebook; ruling 22)."""

from __future__ import annotations

import pytest
from engine_helpers import config, draft, game, next_action

from engine import IllegalActionError, Phase, Pick, apply_in_place, final_scores, is_over, ranking
from engine import winner as winner_of
from engine.flow import advance


def at_end_of_round(n=4, **scores):
    """A game whose Resolve phase is over: ``scores`` maps a faction to (vp, casualties)."""
    s = game(config(n))
    for faction, (vp, cas) in scores.items():
        seat = s.config.factions.index(faction)
        s.vp[seat], s.casualties[seat] = vp, cas
    s.phase = Phase.RESOLVE
    s.step = ("end_round",)
    advance(s)
    return s


def test_rulebook_example_green_17_vp_2_casualties_game_over() -> None:
    """"The green player has 17 VP and 2 casualties. As they have earned at least 16 VP, the
    game is over.\""""
    s = at_end_of_round(green=(17, 2))
    assert is_over(s)


def test_rulebook_example_blue_8_vp_3_casualties_game_over() -> None:
    """"The blue player has eight VP and three Casualties. As they have three casualties, the
    game is over.\""""
    s = at_end_of_round(blue=(8, 3))
    assert is_over(s)


def test_casualties_do_not_count_against_vp_when_checking_the_end() -> None:
    s = at_end_of_round(white=(16, 2))
    assert is_over(s)
    assert final_scores(s)[1] == 14


def test_the_game_goes_on_below_16_vp_and_3_casualties() -> None:
    s = at_end_of_round(white=(15, 2), black=(3, 2), blue=(0, 0), green=(12, 1))
    assert not is_over(s)
    assert s.chance is not None and s.chance[0] == "reshuffle"


@pytest.mark.parametrize("n", [2, 3])
def test_end_conditions_hold_for_any_player_count(n: int) -> None:
    assert is_over(at_end_of_round(n, black=(16, 0)))
    assert is_over(at_end_of_round(n, white=(0, 3)))


def test_the_game_ends_only_at_the_end_of_the_round() -> None:
    s = game(n=3)
    draft(s)
    s.vp[0] = 20
    s.casualties[1] = 3
    while s.phase is not Phase.OVER:
        assert s.round == 1
        apply_in_place(s, next_action(s))
    assert s.round == 1


def test_no_action_is_legal_after_the_game_ends() -> None:
    s = at_end_of_round(green=(17, 2))
    with pytest.raises(IllegalActionError, match="game is over"):
        apply_in_place(s, Pick(0, (0,)))


def test_final_score_is_vp_minus_casualties() -> None:
    s = at_end_of_round(black=(16, 1), white=(10, 3), blue=(7, 0), green=(2, 2))
    assert final_scores(s) == [15, 7, 7, 0]


def test_final_scores_have_no_floor() -> None:
    """Ruling 29: VP minus casualties can be negative, and ranks below zero."""
    s = at_end_of_round(black=(16, 0), white=(0, 3), blue=(1, 2), green=(0, 0))
    assert final_scores(s) == [16, -3, -1, 0]
    assert ranking(s) == [0, 3, 2, 1]


def test_most_victory_points_wins() -> None:
    s = at_end_of_round(black=(16, 1), white=(10, 3), blue=(17, 0), green=(2, 2))
    assert winner_of(s) == 2
    assert ranking(s)[0] == 2


def test_ties_go_to_the_player_with_fewer_casualties() -> None:
    s = at_end_of_round(black=(16, 2), white=(15, 1), blue=(3, 0), green=(2, 2))
    assert final_scores(s)[:2] == [14, 14]
    assert ranking(s)[:2] == [1, 0]


def test_then_to_the_player_earliest_in_turn_order_from_the_first_player() -> None:
    """Round 1 (draft and turns to the left): turn order from first player 2 is 2, 3, 0, 1."""
    s = game(config(4, first_player=2))
    s.vp = [16, 16, 16, 16]
    s.phase = Phase.RESOLVE
    s.step = ("end_round",)
    advance(s)
    assert ranking(s) == [2, 3, 0, 1]


def test_turn_order_tie_break_follows_the_last_rounds_direction() -> None:
    """Ruling 5: turn order starts at the first player and follows the direction of the
    preceding draft. In an even round it goes right: from first player 2 it is 2, 1, 0, 3."""
    s = game(config(4, first_player=2))
    s.round = 2
    s.direction = -1
    s.vp = [16, 16, 16, 16]
    s.phase = Phase.RESOLVE
    s.step = ("end_round",)
    advance(s)
    assert ranking(s) == [2, 1, 0, 3]
    assert winner_of(s) == 2


def test_turn_order_tie_break_after_casualties() -> None:
    s = game(config(3, first_player=0))
    s.direction = -1
    s.vp = [10, 17, 10]
    s.casualties = [1, 3, 1]  # scores 9, 14, 9
    s.phase = Phase.RESOLVE
    s.step = ("end_round",)
    advance(s)
    assert ranking(s) == [1, 0, 2]
    s.vp = [10, 16, 10]
    s.casualties = [1, 2, 1]  # scores 9, 14, 9; tied 0 and 2: from seat 0 going right, 0 first
    assert ranking(s)[1:] == [0, 2]
    s.first_player = 1  # from 1 going right: 1, 0, 2
    s.vp = [10, 10, 10]
    s.casualties = [1, 1, 1]
    assert ranking(s) == [1, 0, 2]
