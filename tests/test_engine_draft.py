"""Draft Cards (rulebook "Draft Cards", "Two Player Exceptions"; rulings 1-4 and 8)."""

from __future__ import annotations

import pytest
from engine_helpers import (
    CLAIM_EVENTS,
    config,
    draft,
    finish_round,
    game,
    hand,
    hands_for_draft,
    on_planet,
    pick,
    planet_index,
    shuffle,
    with_claim,
)

from engine import CHANCE, IllegalActionError, Phase, Pick, apply_in_place, legal_actions, to_move
from engine.dispatch import planet_limit
from engine.serialize import public_hash, state_to_dict
from engine.view import redact, view

ALL3 = ["black", "white", "blue"]


def test_picks_are_simultaneous_every_seat_with_cards_picks_at_once() -> None:
    s = game(n=3)
    assert to_move(s) == [0, 1, 2]
    assert all(len(a.slots) == 1 for a in legal_actions(s, 1))


def test_a_pick_leaves_the_hand_at_once_and_the_others_learn_only_that_it_picked() -> None:
    """Ruling 38: the picked card shows among the picker's drafted cards in its own view at
    once; the other seats' views change only in that it has picked."""
    s = game(n=3)
    before = {seat: view(s, seat) for seat in (1, 2)}
    picked = s.hands[0][2]
    label = s.label(picked)
    pick(s, 0, label)
    assert to_move(s) == [1, 2]
    for seat in (1, 2):
        after = view(s, seat)
        assert after["picked"] == [True, False, False]
        changed = {k for k in after if after[k] != before[seat][k]}
        # only that seat 0 has picked (public): not which card
        assert changed == {"picked", "to_move"}, f"seat {seat} learns {changed}"
        assert after["to_move"] == [1, 2]
    own = view(s, 0)
    assert [e["label"] for e in own["drafted"]] == [label]
    assert label not in [e["label"] for e in own["hand"]] and len(own["hand"]) == 5
    assert own["hand_sizes"][0] == 5 and own["drafted_counts"][0] == 1
    assert own["pick_count"] == 0 and own["picked"][0] and own["legal"] == []
    # the hands pass only when everyone has picked (ruling 2)
    assert picked not in s.hands[0] and s.drafted[0] == [picked]
    pick(s, 1, hand(s, 1)[0])
    assert len(s.hands[1]) == 5 and len(s.drafted[1]) == 1, "no hand passes before the last"
    from_2 = s.hands[2][1:]
    pick(s, 2, hand(s, 2)[0])
    assert len(s.drafted[0]) == len(s.drafted[1]) == len(s.drafted[2]) == 1
    assert s.hands[0] == from_2, "then seat 2's hand comes to seat 0 (passing left)"


def test_a_redacted_state_holds_another_seats_pick_still_in_its_hand() -> None:
    """A search from another seat's knowledge sees that seat 0 picked, not what: its pick is
    back in its hand there, still to make."""
    s = game(n=3)
    before = list(s.hands[0])
    pick(s, 0, hand(s, 0)[3])
    for seat in (1, 2):
        r = redact(s, seat)
        assert r.hands[0] == before and r.drafted[0] == [] and r.picks[0] is None
        assert public_hash(r) == public_hash(s)
        assert to_move(r) == [0, 1, 2]
    own = redact(s, 0)
    assert own.hands[0] == s.hands[0] and own.drafted[0] == s.drafted[0]


def test_a_seat_picks_once_per_pick_round() -> None:
    s = game(n=3)
    pick(s, 0, hand(s, 0)[0])
    before = state_to_dict(s)
    with pytest.raises(IllegalActionError, match="already picked"):
        apply_in_place(s, Pick(0, (s.hands[0][1],)))
    assert state_to_dict(s) == before


def test_a_pick_must_come_from_the_pickers_own_hand() -> None:
    s = game(n=3)
    before = state_to_dict(s)
    with pytest.raises(IllegalActionError, match="not in its hand"):
        apply_in_place(s, Pick(0, (s.hands[1][0],)))
    assert state_to_dict(s) == before


def test_round_one_passes_left() -> None:
    s = game(n=3)
    hands = [list(h) for h in s.hands]
    for seat in range(3):
        pick(s, seat, hand(s, seat)[0])
    for seat in range(3):
        assert s.hands[(seat + 1) % 3] == hands[seat][1:]
        assert s.drafted[seat] == [hands[seat][0]]
        for x in s.hands[(seat + 1) % 3]:
            assert s.known[x] & (1 << ((seat + 1) % 3)), "the receiver sees the passed hand"


def test_direction_alternates_round_two_passes_right() -> None:
    s = game(n=3)
    draft(s)
    finish_round(s)
    assert s.round == 2 and s.phase is Phase.DRAFT and s.direction == -1
    hands = [list(h) for h in s.hands]
    for seat in range(3):
        pick(s, seat, hand(s, seat)[0])
    for seat in range(3):
        assert s.hands[(seat - 1) % 3] == hands[seat][1:]
    finish_round(s)
    assert s.round == 3 and s.direction == 1


def test_each_player_drafts_five_cards() -> None:
    s = game(n=4)
    draft(s)
    assert s.phase is Phase.DISPATCH
    assert [len(h) for h in s.hands] == [5, 5, 5, 5]


def test_two_players_pick_two_cards_on_the_first_pick_only() -> None:
    s = game(n=2)
    assert all(len(a.slots) == 2 for a in legal_actions(s, 0))
    assert len(legal_actions(s, 0)) == 15  # 6 choose 2
    pick(s, 0, *hand(s, 0)[:2])
    pick(s, 1, *hand(s, 1)[:2])
    assert [len(h) for h in s.hands] == [4, 4]
    assert all(len(a.slots) == 1 for a in legal_actions(s, 0))
    with pytest.raises(IllegalActionError, match="exactly 1"):
        apply_in_place(s, Pick(0, tuple(s.hands[0][:2])))
    draft(s)
    assert [len(h) for h in s.hands] == [5, 5]


def test_two_player_second_round_again_starts_with_a_double_pick() -> None:
    s = game(n=2)
    draft(s)
    finish_round(s)
    assert s.round == 2
    assert all(len(a.slots) == 2 for a in legal_actions(s, 0))


def test_messenger_holder_drafts_six_cards_with_an_extra_pick_round() -> None:
    s = game(n=3, events=CLAIM_EVENTS)
    with_claim(s, "Messenger", 1)
    assert s.quota == [5, 6, 5]
    for _ in range(5):
        for seat in to_move(s):
            pick(s, seat, hand(s, seat)[0])
    assert to_move(s) == [1], "pick rounds continue while anyone needs cards and has some"
    assert [len(h) for h in s.hands] == [1, 1, 1]
    pick(s, 1, hand(s, 1)[0])
    assert to_move(s) == [CHANCE]
    assert [len(d) for d in s.hands] == [5, 6, 5]


def test_poison_holder_drafts_four_cards_and_passes_without_picking() -> None:
    s = game(n=3, events=CLAIM_EVENTS)
    with_claim(s, "Poison", 2)
    assert s.quota == [5, 5, 4]
    for _ in range(4):
        for seat in to_move(s):
            pick(s, seat, hand(s, seat)[0])
    assert to_move(s) == [0, 1], "the Poison holder has its quota and only passes"
    held = list(s.hands[2])
    pick(s, 0, hand(s, 0)[0])
    pick(s, 1, hand(s, 1)[0])
    assert to_move(s) == [CHANCE]
    assert s.leftovers[:2] == held, "its hand was still passed on (to seat 0)"
    assert len(s.leftovers) == 4
    assert [len(h) for h in s.hands] == [5, 5, 4]


def test_messenger_and_poison_on_the_same_player_cancel() -> None:
    s = game(n=3, events=CLAIM_EVENTS)
    with_claim(s, "Messenger", 0)
    with_claim(s, "Poison", 0)
    assert s.quota == [5, 5, 5]
    draft(s)
    assert [len(h) for h in s.hands] == [5, 5, 5]


def test_messenger_and_poison_on_different_players() -> None:
    s = game(n=4, events=CLAIM_EVENTS)
    with_claim(s, "Messenger", 0)
    with_claim(s, "Poison", 3)
    draft(s)
    assert [len(h) for h in s.hands] == [6, 5, 5, 4]


def test_leftovers_are_shuffled_and_dealt_face_up_one_per_planet_top_to_bottom() -> None:
    s = game(n=4)
    for _ in range(5):
        for seat in to_move(s):
            pick(s, seat, hand(s, seat)[0])
    assert to_move(s) == [CHANCE]
    leftovers = list(s.leftovers)
    assert len(leftovers) == 4
    shuffle(s, (2, 0, 3, 1))
    for p, i in enumerate((2, 0, 3, 1)):
        assert s.planets[p] == [leftovers[i]]
        assert s.face_up[leftovers[i]]
        assert s.known[leftovers[i]] == s.all_mask, "leftovers are dealt face up"
        assert s.dispatcher[leftovers[i]] == -1
    assert s.phase is Phase.DISPATCH


def test_the_leftover_shuffle_is_public_it_must_be_a_permutation() -> None:
    s = game(n=3)
    for _ in range(5):
        for seat in to_move(s):
            pick(s, seat, hand(s, seat)[0])
    from engine import Shuffle

    before = state_to_dict(s)
    for bad in (Shuffle(None), Shuffle((0, 0, 1)), Shuffle((0, 1))):
        with pytest.raises(IllegalActionError):
            apply_in_place(s, bad)
        assert state_to_dict(s) == before


def test_two_players_deal_no_leftover_to_the_desert() -> None:
    s = game(n=2)
    draft(s)
    assert [len(p) for p in s.planets] == [1, 1, 0]
    assert s.config.planets[2] == "Desert"


def test_missing_leftovers_come_from_the_top_of_the_deck() -> None:
    """Messenger: one card fewer is left over; the deck's top card fills the last planet."""
    s = game(n=3, events=CLAIM_EVENTS, deck_top=["event:Rumor"])
    with_claim(s, "Messenger", 0)
    draft(s)
    assert on_planet(s, "Water") == ["event:Rumor"]
    assert s.known[s.planets[2][0]] == s.all_mask


def test_extra_leftovers_are_discarded() -> None:
    s = game(n=3, events=CLAIM_EVENTS)
    with_claim(s, "Poison", 0)
    for _ in range(5):
        for seat in to_move(s):
            pick(s, seat, hand(s, seat)[0])
    leftovers = list(s.leftovers)
    assert len(leftovers) == 4
    shuffle(s)
    assert [s.planets[p] for p in range(3)] == [[x] for x in leftovers[:3]]
    assert s.discard == [leftovers[3]]


def test_prophecy_holder_places_the_leftovers_on_any_planets() -> None:
    s = game(n=3, events=CLAIM_EVENTS)
    with_claim(s, "Prophecy", 1)
    for _ in range(5):
        for seat in to_move(s):
            pick(s, seat, hand(s, seat)[0])
    shuffle(s)
    d = s.decision
    assert d is not None and d.seat == 1 and d.kind == "prophecy"
    assert d.options == ("Capital", "Industrial", "Water")
    for _ in range(3):
        from engine_helpers import choose

        choose(s, "Industrial")
    assert [len(p) for p in s.planets] == [0, 3, 0], "the one-card limit is ignored"
    assert s.phase is Phase.DISPATCH


def test_prophecy_never_places_on_the_desert() -> None:
    s = game(n=2, events=CLAIM_EVENTS)
    with_claim(s, "Prophecy", 0)
    draft(s)  # defaults
    assert len(s.planets[2]) == 0
    s2 = game(n=2, events=CLAIM_EVENTS)
    with_claim(s2, "Prophecy", 0)
    for _ in range(4):
        for seat in to_move(s2):
            pick(s2, seat, *hand(s2, seat)[: len(legal_actions(s2, seat)[0].slots)])
    shuffle(s2)
    assert "Desert" not in s2.decision.options


def _leftover_game(leftover: str):
    """3 players; the given card is the leftover dealt to the top planet (Capital)."""
    targets = {0: ["black:Legions", "black:Diplomat", "black:Assassin", "black:Duchess",
                   "black:Marshal"],
               1: ["white:Legions", "white:Diplomat", "white:Assassin", "white:Duchess",
                   "white:Marshal"],
               2: ["blue:Legions", "blue:Diplomat", "blue:Assassin", "blue:Duchess",
                   "blue:Marshal"]}
    others = [x for x in ("black:Elder", "white:Elder", "blue:Elder", "event:Famine")
              if x != leftover][:2]
    left = [leftover, *others]
    s = game(n=3, hands=hands_for_draft(3, targets, left))
    draft(s, targets)
    assert s.config.planets[0] == "Capital"
    assert on_planet(s, "Capital") == [leftover]
    return s


def test_vision_dealt_as_a_leftover_makes_later_cards_there_face_up() -> None:
    """Vision is not a first-game event: a custom event set."""
    cfg = config(3, events=("Vision", "Rumor", "Hidden Base", "Orbital Bombardment",
                            "Blockade", "Honor Guards", "Planetary Siege", "Famine"))
    targets = {0: ["black:Legions", "black:Diplomat", "black:Assassin", "black:Duchess",
                   "black:Marshal"],
               1: ["white:Legions", "white:Diplomat", "white:Assassin", "white:Duchess",
                   "white:Marshal"],
               2: ["blue:Legions", "blue:Diplomat", "blue:Assassin", "blue:Duchess",
                   "blue:Marshal"]}
    s = game(cfg, hands=hands_for_draft(3, targets, ["event:Vision", "black:Elder",
                                                     "white:Elder"]))
    draft(s, targets)
    assert on_planet(s, "Capital") == ["event:Vision"]
    assert s.decision is None, "a dealt Vision asks nothing"
    capital = planet_index(s, "Capital")
    assert s.vision_up[capital]
    claims = {a.claim for a in legal_actions(s, 0) if getattr(a, "planet", None) == capital}
    assert claims == {"up"}
    from engine_helpers import dispatch

    dispatch(s, 0, "black:Duchess", "Capital")
    slot = s.planets[capital][-1]
    assert s.face_up[slot] and s.known[slot] == s.all_mask
    assert view(s, 1)["planets"][capital]["cards"][-1]["label"] == "black:Duchess"


def test_whispered_secrets_dealt_as_a_leftover_does_nothing() -> None:
    s = _leftover_game("event:Whispered Secrets")
    assert s.vp == [0, 0, 0]
    assert s.decision is None
    assert to_move(s) == [0]


def test_rumor_dealt_as_a_leftover_does_nothing() -> None:
    s = _leftover_game("event:Rumor")
    assert s.vp == [0, 0, 0] and s.decision is None
    assert s.face_up[s.planets[0][0]]


def test_blockade_dealt_as_a_leftover_still_lowers_the_limit() -> None:
    s = _leftover_game("event:Blockade")
    assert planet_limit(s, 0) == 5
    assert planet_limit(s, 1) == 6


def test_hidden_base_dealt_as_a_leftover_still_gives_the_duchess_two_more_vp() -> None:
    s = _leftover_game("event:Hidden Base")
    s.keep_log = True
    from engine_helpers import play_dispatch

    play_dispatch(s, {1: [("white:Duchess", "Capital"), ("white:Legions", "Industrial"),
                          ("white:Diplomat", "Industrial"), ("white:Assassin", "Industrial"),
                          ("white:Marshal", "Industrial")],
                      0: [("black:Duchess", "Water")] + [(c, "Water") for c in (
                          "black:Legions", "black:Diplomat", "black:Assassin", "black:Marshal")],
                      2: [("blue:Legions", "Capital"), ("blue:Diplomat", "Capital"),
                          ("blue:Assassin", "prisoner"), ("blue:Duchess", "Capital"),
                          ("blue:Marshal", "Capital")]})
    # Capital: Hidden Base, white Duchess, blue Legions/Diplomat/Duchess/Marshal: blue is
    # favored (3 favor vs 1), so the blue Duchess (the favored one) scores 3 + 2 + 1 bonus.
    assert "blue scores 6 VP (Duchess scores Capital)" in s.log


@pytest.mark.parametrize("n", [2, 3, 4])
def test_players_take_their_drafted_cards_into_hand(n: int) -> None:
    s = game(n=n)
    picked: list[list[int]] = [[] for _ in range(n)]
    while s.phase is Phase.DRAFT and to_move(s) != [CHANCE]:
        for seat in to_move(s):
            action = legal_actions(s, seat)[0]
            picked[seat] += action.slots
            apply_in_place(s, action)
    shuffle(s)
    assert [sorted(h) for h in s.hands] == [sorted(p) for p in picked]
    assert all(not d for d in s.drafted)
