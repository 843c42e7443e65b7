"""Dispatch Cards (rulebook "Dispatch Cards"; rulings 5-7): turns, limits, disclosure, prisoners,
and illegal actions leaving the state unchanged."""

from __future__ import annotations

import pytest
from engine_helpers import (
    CLAIM_EVENTS,
    capture,
    cid,
    config,
    dispatch,
    draft,
    finish_round,
    game,
    hand,
    hand_slot,
    hands_for_draft,
    play_dispatch,
    with_claim,
)

from engine import (
    Capture,
    Choose,
    Discard,
    Dispatch,
    IllegalActionError,
    Phase,
    Pick,
    Shuffle,
    apply_in_place,
    legal_actions,
    to_move,
)
from engine.disclosure import legal_claims
from engine.serialize import state_to_dict
from engine.view import view

TARGETS = {s: [f"{f}:{t}" for t in ("Legions", "Diplomat", "Assassin", "Duchess", "Marshal")]
           for s, f in enumerate(("black", "white", "blue"))}
LEFT = ["black:Elder", "white:Elder", "blue:Elder"]


def dispatch_game(first_player: int = 0, events=None, **kw):
    """3 players, planets Capital, Industrial, Water; every seat holds its own five cards
    (no Elder); the Elders are the leftovers, one per planet."""
    cfg = config(3, first_player=first_player, **({"events": events} if events else {}), **kw)
    s = game(cfg, hands=hands_for_draft(3, TARGETS, LEFT))
    draft(s, TARGETS)
    assert s.phase is Phase.DISPATCH
    return s


def test_dispatch_starts_with_the_first_player_and_goes_left_in_round_one() -> None:
    s = dispatch_game(first_player=1)
    turns = play_dispatch(s, {})
    assert turns == [1, 2, 0] * 5


def test_round_two_turn_order_follows_the_draft_to_the_right() -> None:
    s = dispatch_game(first_player=1)
    finish_round(s)
    assert s.round == 2 and s.direction == -1
    draft(s)
    fp = s.first_player
    turns = play_dispatch(s, {})
    assert turns == [fp, (fp - 1) % 3, (fp - 2) % 3] * 5


def test_a_player_with_no_cards_is_skipped_poison() -> None:
    s = game(n=3, events=CLAIM_EVENTS)
    with_claim(s, "Poison", 1)
    draft(s)
    turns = play_dispatch(s, {})
    assert turns == [0, 1, 2] * 4 + [0, 2]


def test_the_messenger_holder_plays_six_cards_an_extra_turn() -> None:
    s = game(n=3, events=CLAIM_EVENTS)
    with_claim(s, "Messenger", 1)
    draft(s)
    turns = play_dispatch(s, {1: [(hand(s, 1)[0], "prisoner")]})
    assert turns == [0, 1, 2] * 5 + [1]


def test_first_player_with_an_empty_hand_is_skipped() -> None:
    s = game(n=2, events=("Rumor", "Poison", "Quagmire", "Mercenaries"))
    # round 1, seat 0 first; a Poison holder still has 4 cards, so empty hands arise only
    # at the end: check the skip rule directly through next_turn from an empty seat.
    draft(s)
    s.hands[0] = []
    from engine.dispatch import start_dispatch

    start_dispatch(s)
    assert to_move(s) == [1]


def test_a_planet_holds_at_most_six_cards() -> None:
    s = dispatch_game()
    # fill the Capital: leftover + 5 black cards (the others play elsewhere)
    while len(s.planets[0]) < 6:
        seat = to_move(s)[0]
        if seat == 0:
            dispatch(s, 0, hand(s, 0)[0], "Capital")
        else:
            dispatch(s, seat, hand(s, seat)[0], ("Industrial", "Water")[seat - 1])
    seat = to_move(s)[0]
    assert seat == 1
    assert all(a.planet != 0 for a in legal_actions(s, 1) if isinstance(a, Dispatch))
    before = state_to_dict(s)
    slot = s.hands[1][0]
    with pytest.raises(IllegalActionError) as err:
        apply_in_place(s, Dispatch(1, slot, 0, s.card(slot).type))
    assert str(err.value) == "seat 1 cannot dispatch to Capital: planet is full (6/6)"
    assert state_to_dict(s) == before


def test_blockade_lowers_the_limit_to_five() -> None:
    s = dispatch_game()
    # Make the Capital's leftover a Blockade: swap it in from the deck (identical otherwise).
    blockade = next(x for x in s.deck if s.label(x) == "event:Blockade")
    elder = s.planets[0][0]
    s.deck[s.deck.index(blockade)] = elder
    s.planets[0][0] = blockade
    s.face_up[blockade] = True
    s.known[blockade] = s.all_mask
    for _ in range(4):
        seat = to_move(s)[0]
        dispatch(s, seat, hand(s, seat)[0], "Capital")
    seat = to_move(s)[0]
    slot = s.hands[seat][0]
    with pytest.raises(IllegalActionError) as err:
        apply_in_place(s, Dispatch(seat, slot, 0, s.card(slot).type))
    assert str(err.value) == f"seat {seat} cannot dispatch to Capital: planet is full (5/5)"


@pytest.mark.parametrize(("label", "planet", "claims"), [
    ("white:Duchess", "Capital", ("Duchess",)),
    ("white:Duchess", "Industrial", ("Duchess",)),
    ("white:Duchess", "Water", ("white", "Duchess")),
    ("white:Duchess", "Jungle", ("none",)),
    ("white:Duchess", "Desert", ("none",)),
    ("event:Famine", "Capital", ("event",)),
    ("event:Famine", "Water", ("event",)),
    ("event:Famine", "Jungle", ("up",)),
    ("event:Famine", "Desert", ("none",)),
    ("event:Imposter", "Capital", ("event", "Duchess")),
    ("event:Imposter", "Water", ("event", "Duchess")),
    ("event:Imposter", "Jungle", ("up",)),
    ("event:Imposter", "Desert", ("none",)),
    ("event:Rumor", "Jungle", ("up",)),
    ("event:Rumor", "Desert", ("none",)),
    ("event:Hidden Base", "Capital", ("up",)),
    ("event:Blockade", "Desert", ("up",)),
    ("event:Whispered Secrets", "Water", ("up",)),
    ("event:Vision", "Industrial", ("up",)),
])
def test_disclosure_per_planet(label: str, planet: str, claims: tuple[str, ...]) -> None:
    """Capital/Industrial: type; Water: faction OR type; Jungle: events face up, others face
    down with nothing; Desert: nothing; events say "event"; face-up events are face up."""
    assert legal_claims(cid(label), planet, False) == claims


def test_rumor_may_claim_any_type_in_the_planets_form_and_a_faction_at_the_water() -> None:
    types = {"Legions", "Diplomat", "Assassin", "Duchess", "Marshal", "Elder"}
    capital = set(legal_claims(cid("event:Rumor"), "Capital", False))
    assert capital == {"event"} | types
    water = set(legal_claims(cid("event:Rumor"), "Water", False))
    assert water == {"event"} | types | {"black", "white", "blue", "green"}


def test_a_vision_face_up_planet_ignores_the_disclosure_rule() -> None:
    for planet in ("Capital", "Water", "Jungle", "Desert"):
        assert legal_claims(cid("white:Duchess"), planet, True) == ("up",)


def test_a_face_down_dispatch_shows_others_only_the_claim() -> None:
    s = dispatch_game()
    # black's Legions was picked from its own opening hand: nobody else has seen it
    dispatch(s, 0, "black:Legions", "Water", "black")
    v = view(s, 1)["planets"][2]["cards"][-1]
    assert v == {"slot": s.planets[2][-1], "label": None, "face_up": False, "dispatcher": 0,
                 "claim": "black", "controller": None, "resolved": False}
    own = view(s, 0)["planets"][2]["cards"][-1]
    assert own["label"] == "black:Legions"


def test_a_false_claim_is_illegal_and_changes_nothing() -> None:
    s = dispatch_game()
    before = state_to_dict(s)
    slot = hand_slot(s, 0, "black:Assassin")
    for planet, claim in ((0, "Duchess"), (2, "white"), (2, "event"), (0, "none"), (0, "up")):
        with pytest.raises(IllegalActionError, match="cannot dispatch black:Assassin"):
            apply_in_place(s, Dispatch(0, slot, planet, claim))
        assert state_to_dict(s) == before


def test_prisoner_capture_is_allowed_once_per_dispatch_phase() -> None:
    s = dispatch_game()
    assert any(isinstance(a, Capture) for a in legal_actions(s, 0))
    capture(s, 0, "black:Duchess")
    assert s.prisoner[0] == next(x for x in range(len(s.card_of))
                                 if s.label(x) == "black:Duchess")
    assert view(s, 1)["has_prisoner"] == [True, False, False]
    assert view(s, 1)["prisoner"] is None
    dispatch(s, 1, "white:Duchess", "Capital")
    dispatch(s, 2, "blue:Duchess", "Capital")
    assert not any(isinstance(a, Capture) for a in legal_actions(s, 0))
    before = state_to_dict(s)
    with pytest.raises(IllegalActionError, match="already captured"):
        apply_in_place(s, Capture(0, s.hands[0][0]))
    assert state_to_dict(s) == before


def _messenger_blockade_game():
    """3 players; seat 0 holds Messenger (6 cards); the Capital's leftover is a Blockade.
    Capacity 5 + 6 + 6 = 17 for 3 leftovers + 16 drafted cards."""
    s = game(n=3, events=CLAIM_EVENTS)
    with_claim(s, "Messenger", 0)
    draft(s)
    blockade = next(x for x in s.deck if s.label(x) == "event:Blockade")
    old = s.planets[0][0]
    s.deck[s.deck.index(blockade)] = old
    s.planets[0][0] = blockade
    s.face_up[blockade] = True
    s.known[blockade] = s.all_mask
    return s


def test_discard_only_when_every_planet_is_full_and_a_prisoner_was_captured() -> None:
    s = _messenger_blockade_game()
    slot = s.hands[0][0]
    before = state_to_dict(s)
    with pytest.raises(IllegalActionError, match="every planet is full"):
        apply_in_place(s, Discard(0, slot))
    assert state_to_dict(s) == before
    capture(s, 0, s.label(slot))
    while len(s.hands[0]) > 1 or any(s.hands[1:]):
        seat = to_move(s)[0]
        assert not any(isinstance(a, Discard) for a in legal_actions(s, seat))
        apply_in_place(s, next(a for a in legal_actions(s, seat) if isinstance(a, Dispatch)))
    assert to_move(s) == [0]
    legal = legal_actions(s, 0)
    assert legal == [Discard(0, s.hands[0][0])]
    last = s.hands[0][0]
    apply_in_place(s, legal[0])
    assert last in s.discard
    assert s.phase is not Phase.DISPATCH


def test_with_every_planet_full_a_player_who_has_not_captured_must_capture() -> None:
    s = _messenger_blockade_game()
    turns = 0
    while all(len(p) < (5 if i == 0 else 6) for i, p in enumerate(s.planets)) or \
            sum(len(p) for p in s.planets) < 17:
        seat = to_move(s)[0]
        apply_in_place(s, next(a for a in legal_actions(s, seat) if isinstance(a, Dispatch)))
        turns += 1
    assert turns == 14
    seat = to_move(s)[0]
    legal = legal_actions(s, seat)
    assert legal and all(isinstance(a, Capture) for a in legal)
    with pytest.raises(IllegalActionError):
        apply_in_place(s, Discard(seat, s.hands[seat][0]))


def test_illegal_actions_raise_and_leave_the_state_unchanged() -> None:
    s = dispatch_game()
    mine = s.hands[0][0]
    theirs = s.hands[1][0]
    claim = s.card(mine).type
    bad = [
        Dispatch(1, theirs, 0, s.card(theirs).type),        # not its turn
        Dispatch(0, theirs, 0, s.card(theirs).type),        # not its card
        Dispatch(0, mine, 7, claim),                        # no such planet
        Dispatch(0, mine, 0, "Elder"),                      # false claim
        Pick(0, (mine,)),                                   # not drafting
        Choose(0, "yes"),                                   # no decision
        Shuffle((0,)),                                      # no shuffle pending
        Discard(0, mine),                                   # planets not full
        Capture(1, theirs),                                 # not its turn
    ]
    before = state_to_dict(s)
    for action in bad:
        with pytest.raises(IllegalActionError):
            apply_in_place(s, action)
        assert state_to_dict(s) == before, action


def test_dispatched_cards_go_face_down_and_the_dispatcher_knows_them() -> None:
    s = dispatch_game()
    dispatch(s, 0, "black:Legions", "Capital")
    slot = s.planets[0][-1]
    assert s.label(slot) == "black:Legions"
    assert not s.face_up[slot]
    assert s.known[slot] == 1, "picked from its own opening hand: only seat 0 has seen it"
    assert s.dispatcher[slot] == 0 and s.claim[slot] == "Legions"

