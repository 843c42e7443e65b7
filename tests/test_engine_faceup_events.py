"""Face-up events and lying events at dispatch (rulings 7 and 8): Whispered Secrets, Vision,
Blockade and Hidden Base act as they are dispatched; Rumor and Imposter may claim falsely."""

from __future__ import annotations

import pytest
from engine_helpers import (
    choose,
    config,
    dispatch,
    draft,
    game,
    hand_slot,
    hands_for_draft,
    on_planet,
)

from engine import Dispatch, IllegalActionError, apply_in_place, legal_actions, to_move
from engine.dispatch import planet_limit
from engine.view import view

EVENTS = ("Whispered Secrets", "Rumor", "Vision", "Imposter", "Hidden Base", "Blockade",
          "Famine", "Poison")
TARGETS = {
    0: ["event:Whispered Secrets", "event:Vision", "event:Blockade", "event:Hidden Base",
        "black:Duchess"],
    1: ["white:Legions", "white:Diplomat", "white:Assassin", "white:Duchess", "white:Marshal"],
    2: ["blue:Legions", "event:Rumor", "event:Imposter", "blue:Duchess", "blue:Marshal"],
}
LEFT = ["black:Elder", "white:Elder", "blue:Elder"]


def faceup_game():
    """3 players (Capital, Industrial, Water), seat 0 first; seat 0 holds the face-up events."""
    s = game(config(3, events=EVENTS), hands=hands_for_draft(3, TARGETS, LEFT))
    draft(s, TARGETS)
    return s


def test_whispered_secrets_reveals_a_face_down_card_and_scores_1_vp_for_the_dispatcher() -> None:
    s = faceup_game()
    dispatch(s, 0, "black:Duchess", "Water", "Duchess")
    dispatch(s, 1, "white:Legions", "Capital")
    dispatch(s, 2, "blue:Legions", "Capital")
    hidden = s.planets[0][-2]  # white Legions
    assert not s.face_up[hidden]
    dispatch(s, 0, "event:Whispered Secrets", "Capital")
    ws = s.planets[0][-1]
    assert s.face_up[ws] and s.known[ws] == s.all_mask
    assert s.vp == [1, 0, 0]
    d = s.decision
    assert d is not None and d.seat == 0 and d.kind == "whispered_secrets"
    assert set(d.options) == {str(x) for x in s.planets[0] if not s.face_up[x]}
    choose(s, str(hidden))
    assert s.face_up[hidden] and s.known[hidden] == s.all_mask
    assert view(s, 2)["planets"][0]["cards"][1]["label"] == "white:Legions"
    assert to_move(s) == [1], "the turn passes on after the effect"


def test_whispered_secrets_with_nothing_to_reveal_still_scores_1_vp() -> None:
    s = faceup_game()
    dispatch(s, 0, "event:Whispered Secrets", "Industrial")
    assert s.vp == [1, 0, 0]
    assert s.decision is None and to_move(s) == [1]


def test_whispered_secrets_dispatched_to_the_jungle_is_face_up_too() -> None:
    cfg = config(3, planets=("Jungle", "Capital", "Water"), events=EVENTS)
    s = game(cfg, hands=hands_for_draft(3, TARGETS, LEFT))
    draft(s, TARGETS)
    dispatch(s, 0, "event:Whispered Secrets", "Jungle")
    assert s.vp == [1, 0, 0]


def test_vision_reveal_turns_every_card_there_face_up() -> None:
    s = faceup_game()
    dispatch(s, 0, "black:Duchess", "Capital")
    dispatch(s, 1, "white:Duchess", "Capital")
    dispatch(s, 2, "blue:Duchess", "Capital")
    dispatch(s, 0, "event:Vision", "Capital")
    assert s.decision is not None and s.decision.options == ("reveal", "face_up")
    choose(s, "reveal")
    assert all(s.face_up[x] and s.known[x] == s.all_mask for x in s.planets[0])
    assert not s.vision_up[0]
    claims = {a.claim for a in legal_actions(s, 1) if isinstance(a, Dispatch) and a.planet == 0}
    assert "up" not in claims, "later cards there are disclosed as usual"


def test_vision_face_up_makes_every_later_card_there_face_up() -> None:
    s = faceup_game()
    dispatch(s, 0, "black:Duchess", "Capital")
    dispatch(s, 1, "white:Duchess", "Capital")
    dispatch(s, 2, "blue:Duchess", "Capital")
    dispatch(s, 0, "event:Vision", "Capital")
    choose(s, "face_up")
    assert s.vision_up[0]
    assert not s.face_up[s.planets[0][1]], "cards already there stay face down"
    claims = {a.claim for a in legal_actions(s, 1) if isinstance(a, Dispatch) and a.planet == 0}
    assert claims == {"up"}
    with pytest.raises(IllegalActionError):
        apply_in_place(s, Dispatch(1, hand_slot(s, 1, "white:Marshal"), 0, "Marshal"))
    dispatch(s, 1, "white:Marshal", "Capital", "up")
    assert view(s, 2)["planets"][0]["cards"][-1]["label"] == "white:Marshal"
    assert {a.claim for a in legal_actions(s, 2) if isinstance(a, Dispatch)
            and a.planet == 1 and a.slot == hand_slot(s, 2, "blue:Marshal")} == {"Marshal"}


def test_blockade_dispatched_face_up_lowers_the_limit_at_once() -> None:
    s = faceup_game()
    assert planet_limit(s, 1) == 6
    dispatch(s, 0, "event:Blockade", "Industrial")
    assert planet_limit(s, 1) == 5
    assert s.face_up[s.planets[1][-1]] and s.decision is None
    assert view(s, 1)["planets"][1]["limit"] == 5


def test_hidden_base_dispatched_face_up_is_public_at_once() -> None:
    s = faceup_game()
    dispatch(s, 0, "event:Hidden Base", "Capital")
    hb = s.planets[0][-1]
    assert s.face_up[hb] and s.known[hb] == s.all_mask and s.decision is None
    assert view(s, 2)["planets"][0]["cards"][-1]["label"] == "event:Hidden Base"
    assert to_move(s) == [1]


def test_a_face_up_event_cannot_be_played_face_down() -> None:
    s = faceup_game()
    slot = hand_slot(s, 0, "event:Hidden Base")
    for claim in ("event", "none", "Duchess"):
        with pytest.raises(IllegalActionError):
            apply_in_place(s, Dispatch(0, slot, 0, claim))


def test_rumor_may_claim_a_type_it_is_not_and_is_not_caught() -> None:
    s = faceup_game()
    dispatch(s, 0, "black:Duchess", "Industrial")
    dispatch(s, 1, "white:Duchess", "Industrial")
    dispatch(s, 2, "event:Rumor", "Capital", "Assassin")
    assert s.claim[s.planets[0][-1]] == "Assassin"
    assert view(s, 1)["planets"][0]["cards"][-1]["claim"] == "Assassin"


def test_rumor_may_claim_a_faction_at_the_water() -> None:
    s = faceup_game()
    dispatch(s, 0, "black:Duchess", "Industrial")
    dispatch(s, 1, "white:Duchess", "Industrial")
    dispatch(s, 2, "event:Rumor", "Water", "white")
    assert view(s, 0)["planets"][2]["cards"][-1]["claim"] == "white"


def test_rumor_cannot_claim_a_faction_where_the_type_is_disclosed() -> None:
    s = faceup_game()
    dispatch(s, 0, "black:Duchess", "Industrial")
    dispatch(s, 1, "white:Duchess", "Industrial")
    with pytest.raises(IllegalActionError):
        dispatch(s, 2, "event:Rumor", "Capital", "white")


@pytest.mark.parametrize("claim", ["Duchess", "event"])
def test_imposter_may_claim_duchess_or_event(claim: str) -> None:
    s = faceup_game()
    dispatch(s, 0, "black:Duchess", "Industrial")
    dispatch(s, 1, "white:Duchess", "Industrial")
    dispatch(s, 2, "event:Imposter", "Capital", claim)
    assert on_planet(s, "Capital")[-1] == "event:Imposter"


def test_imposter_may_not_claim_another_type() -> None:
    s = faceup_game()
    dispatch(s, 0, "black:Duchess", "Industrial")
    dispatch(s, 1, "white:Duchess", "Industrial")
    for claim in ("Assassin", "blue", "none"):
        with pytest.raises(IllegalActionError):
            dispatch(s, 2, "event:Imposter", "Water", claim)
