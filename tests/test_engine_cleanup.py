"""Clean Up (rulebook "Clean Up"; rulings 21 and 23)."""

from __future__ import annotations

from engine_helpers import (
    CLAIM_EVENTS,
    config,
    draft,
    finish_round,
    game,
    hand,
    next_action,
    play_dispatch,
    shuffle,
)

from engine import apply_in_place, is_over
from engine.cleanup import next_first_player
from engine.serialize import state_to_dict


def to_cleanup(s):
    """Play first legal actions until the Clean Up reshuffle is pending."""
    while not (s.chance is not None and s.chance[0] == "reshuffle"):
        assert not is_over(s)
        apply_in_place(s, next_action(s))


def ids(s, slots):
    return [s.card_of[x] for x in slots]


def test_played_and_discarded_cards_go_shuffled_under_the_deck_undealt_cards_on_top() -> None:
    s = game(n=3)
    draft(s)
    to_cleanup(s)
    undealt = ids(s, s.deck)
    played = ids(s, s.discard)
    assert all(not p for p in s.planets) and len(played) == 18
    perm = tuple(reversed(range(len(played))))
    deck_then = undealt + [played[i] for i in perm]
    fp = s.first_player
    shuffle(s, perm)
    dealt: list[int] = []
    for i in range(3):  # dealt from the top, seat by seat from the first player
        seat = (fp + i) % 3
        dealt += ids(s, s.hands[seat])
    assert dealt == deck_then[:18]
    assert ids(s, s.deck) == deck_then[18:]


def test_the_reshuffle_is_hidden_new_deck_slots_are_unseen() -> None:
    s = game(n=3)
    draft(s)
    to_cleanup(s)
    old = set(s.discard)
    shuffle(s)
    assert not old & set(s.live_slots()), "reshuffled cards get fresh slots"
    assert all(s.known[x] == 0 for x in s.deck)
    for seat in range(3):
        assert all(s.known[x] & (1 << seat) for x in s.hands[seat])


def test_prisoners_return_to_their_captors_hands() -> None:
    s = game(n=3)
    draft(s)
    prisoner = hand(s, 0)[0]
    play_dispatch(s, {0: [(prisoner, "prisoner")]})
    to_cleanup(s)
    assert s.label(s.prisoner[0]) == prisoner
    shuffle(s)
    assert prisoner in hand(s, 0)
    assert s.prisoner == [-1, -1, -1]


def test_hands_are_refilled_to_six_a_prisoner_counts_as_one() -> None:
    s = game(n=4)
    draft(s)
    play_dispatch(s, {2: [(hand(s, 2)[0], "prisoner")]})
    finish_round(s)
    assert s.round == 2
    assert [len(h) for h in s.hands] == [6, 6, 6, 6]
    assert sorted(ids(s, s.live_slots())) == sorted(s.config.card_ids())


def test_first_player_is_the_player_with_most_vp() -> None:
    s = game(n=4, first_player=0)
    s.vp = [3, 1, 7, 2]
    assert next_first_player(s) == 2


def test_first_player_ties_go_to_the_nearest_tied_player_to_the_left() -> None:
    s = game(n=4, first_player=1)
    s.vp = [5, 0, 2, 5]
    assert next_first_player(s) == 3
    s.vp = [5, 0, 5, 2]
    assert next_first_player(s) == 2


def test_first_player_ties_with_the_current_first_player_go_to_another_tied_player() -> None:
    """The current first player comes last among the tied players."""
    s = game(n=4, first_player=2)
    s.vp = [4, 0, 4, 1]
    assert next_first_player(s) == 0
    s.vp = [0, 0, 0, 0]
    assert next_first_player(s) == 3
    s.vp = [1, 0, 6, 1]
    assert next_first_player(s) == 2, "the current first player keeps it with most VP"


def test_first_player_ties_look_left_even_when_the_draft_went_right() -> None:
    s = game(n=3, first_player=1)
    s.direction = -1
    s.vp = [2, 0, 2]
    assert next_first_player(s) == 2


def test_clean_up_passes_the_first_player_token() -> None:
    s = game(n=3, first_player=0)
    draft(s)
    to_cleanup(s)
    s.vp = [0, 4, 4]
    shuffle(s)
    assert s.first_player == 1 and s.round == 2


def test_claims_act_in_the_next_round_then_are_discarded() -> None:
    s = game(config(3, events=CLAIM_EVENTS))
    draft(s)
    # Seat 2 claims Messenger during round 1 (as if resolved on a planet).
    slot = next(x for x in s.deck if s.label(x) == "event:Messenger")
    s.deck.remove(slot)
    s.face_up[slot] = True
    s.known[slot] = s.all_mask
    s.claims.append((slot, 2, 1))
    to_cleanup(s)
    assert (slot, 2, 1) in s.claims, "a claim stays in front of its holder over Clean Up"
    assert slot not in s.discard
    shuffle(s)
    assert s.round == 2 and s.quota[2] == 6, "it acts in the next round"
    draft(s)
    to_cleanup(s)
    assert (slot, 2, 1) not in s.claims, "then it is discarded"
    assert slot in s.discard
    shuffle(s)
    assert s.quota == [5, 5, 5]


def test_a_claim_made_this_round_does_not_act_this_round() -> None:
    s = game(config(3, events=CLAIM_EVENTS))
    slot = next(x for x in s.deck if s.label(x) == "event:Messenger")
    s.deck.remove(slot)
    s.claims.append((slot, 0, 1))
    from engine.draft import active_claim

    assert active_claim(s, "Messenger") == -1


def test_clean_up_only_happens_if_the_game_did_not_end() -> None:
    s = game(n=3)
    draft(s)
    s.vp[1] = 30
    while not is_over(s):
        assert s.chance is None or s.chance[0] != "reshuffle"
        apply_in_place(s, next_action(s))
    assert s.chance is None and any(s.planets), "no clean up after the last round"
    assert state_to_dict(s)["phase"] == "over"


def test_the_rounds_cards_go_under_the_deck_without_being_shown() -> None:
    """Ruling 23: gathering the round's cards shows none of them (a card discarded face down
    stays seen only by whoever saw it)."""
    from engine.cleanup import gather_discards

    s = game(n=3)
    draft(s)
    to_cleanup(s)
    hidden = s.discard[0]
    s.known[hidden] = 1  # as if seat 0 had discarded it face down
    s.chance = None
    gather_discards(s)
    assert s.known[hidden] == 1
    assert s.chance == ("reshuffle", len(s.discard)) and not s.awaiting
