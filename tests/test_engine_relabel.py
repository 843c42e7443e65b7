"""Relabel: a seat's hand moves to fresh slots in an order only its holder knows."""

from __future__ import annotations

import pytest

from engine import IllegalActionError, legal_actions
from engine.relabel import Relabel, relabel_in_place
from engine.serialize import public_hash
from engine.view import redact, view
from tests.engine_helpers import game


def test_the_holder_keeps_its_cards_in_fresh_slots_in_the_given_order() -> None:
    s = game()
    old = list(s.hands[1])
    cards = [s.card_of[slot] for slot in old]
    order = tuple(reversed(range(len(old))))
    fresh = relabel_in_place(s, Relabel(1, tuple(old), order))
    assert fresh == list(range(len(s.card_of) - len(old), len(s.card_of)))
    assert s.hands[1] == fresh
    assert [s.card_of[slot] for slot in fresh] == [cards[i] for i in order]
    assert all(s.known[slot] == 1 << 1 for slot in fresh)


def test_another_seats_state_knows_no_fresh_card_but_agrees_on_the_public_state() -> None:
    holder = game()
    other = redact(holder, 0)  # what seat 0's engine knows
    old = tuple(holder.hands[1])
    relabel_in_place(holder, Relabel(1, old, tuple(range(len(old)))))
    relabel_in_place(other, Relabel(1, old, None))
    assert all(other.card_of[slot] < 0 for slot in other.hands[1])
    assert public_hash(holder) == public_hash(other)
    assert not other.omniscient


def test_the_old_slots_leave_every_zone_and_the_views() -> None:
    s = game()
    old = tuple(s.hands[2])
    relabel_in_place(s, Relabel(2, old, tuple(range(len(old)))))
    assert not set(old) & set(s.live_slots())
    seen = view(s, 2)
    assert {card["slot"] for card in seen["hand"]} == set(s.hands[2])
    assert not {str(slot) for slot in old} & set(seen["known"])
    assert all(not set(old) & set(getattr(a, "slots", ())) for a in legal_actions(s, 2))


@pytest.mark.parametrize(("old", "order", "reason"), [
    ("part", None, "whole hand"),
    ("twice", None, "whole hand"),
    ("hand", (0, 0, 1, 2, 3, 4), "permutation"),
])
def test_a_relabel_of_anything_but_the_whole_hand_in_some_order_is_illegal(
        old: str, order: tuple[int, ...] | None, reason: str) -> None:
    s = game()
    hand = tuple(s.hands[0])
    slots = {"part": hand[1:], "twice": (hand[0], *hand[:-1]), "hand": hand}[old]
    before = public_hash(s)
    with pytest.raises(IllegalActionError, match=reason):
        relabel_in_place(s, Relabel(0, slots, order))
    assert public_hash(s) == before
