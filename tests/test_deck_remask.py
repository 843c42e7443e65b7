"""Re-masked slots: a holder moves cards it knows to fresh slots only it can open.

Honest behaviour first, then one test per dishonest re-mask, each naming its author: live
where the opened card proves it, and always at the audit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from p2p.crypto.group import card_points, mul, scalar_mul
from p2p.deck.keys import DeckKeys
from p2p.deck.loopback import LoopbackTable
from p2p.errors import (
    LocalProtocolError,
    MalformedMessage,
    OutOfOrder,
    RemaskFault,
    SlotKeyMismatch,
    StepMismatch,
)

GAME = "remask"
CARDS = 16
HOLDER = 1  # the seat that re-masks in every test


def dealt_table(tamper: Callable[[int, dict[str, Any]], dict[str, Any]] | None = None,
                n_seats: int = 3) -> tuple[LoopbackTable, list[int]]:
    """A ready deck whose slots 0-3 were opened to the holder (its hand)."""
    table = LoopbackTable(GAME, n_seats, CARDS, tamper)
    table.setup()
    hand = [0, 1, 2, 3]
    for slot in hand:
        table.open_to(slot, HOLDER)
    return table, hand


def cards_of(table: LoopbackTable, seat: int, slots) -> list[int | None]:
    return [table.decks[seat].card_of(slot) for slot in slots]


# ---- honest ----------------------------------------------------------------------------------


def test_a_re_mask_moves_the_holders_cards_to_fresh_slots_in_a_secret_order() -> None:
    table, hand = dealt_table()
    before = cards_of(table, HOLDER, hand)
    fresh = table.remask(HOLDER, hand)
    assert list(fresh) == [CARDS, CARDS + 1, CARDS + 2, CARDS + 3]
    order = table.keys[HOLDER].remask_order(fresh.start, len(hand))
    assert cards_of(table, HOLDER, fresh) == [before[i] for i in order]
    for seat in (0, 2):  # nobody else knows a fresh card
        assert cards_of(table, seat, fresh) == [None] * 4


def test_fresh_points_share_nothing_with_the_old_slots_or_the_card_table() -> None:
    table, hand = dealt_table()
    old_points = {table.decks[0].published_point(slot) for slot in hand}
    fresh = table.remask(HOLDER, hand)
    fresh_points = {table.decks[0].published_point(slot) for slot in fresh}
    assert not fresh_points & old_points
    assert not fresh_points & set(card_points(GAME, CARDS))


def test_only_the_holder_opens_a_fresh_slot_privately_or_publicly() -> None:
    table, hand = dealt_table()
    fresh = table.remask(HOLDER, hand)
    seen = table.open_remasked_to(fresh[0], 2)
    assert seen.card == table.decks[HOLDER].card_of(fresh[0]) and not seen.public
    assert table.decks[0].card_of(fresh[0]) is None
    public = table.unmask(fresh[1])
    assert public.public and all(d.card_of(fresh[1]) == public.card for d in table.decks)
    with pytest.raises(LocalProtocolError, match="only its holder"):
        table.decks[0].disclose(fresh[2], 2)
    with pytest.raises(LocalProtocolError, match="not a slot this seat re-masked"):
        table.decks[0].unmask(fresh[2])
    with pytest.raises(LocalProtocolError, match="re-masked"):
        table.decks[0].disclose(hand[0], 2)  # the old slot is retired


def test_a_received_hand_is_re_masked_again_by_its_new_holder() -> None:
    table, hand = dealt_table()
    fresh = table.remask(HOLDER, hand)
    for slot in fresh:
        table.open_remasked_to(slot, 2)
    again = table.remask(2, list(fresh))
    assert sorted(cards_of(table, 2, again)) == sorted(cards_of(table, HOLDER, fresh))
    assert cards_of(table, HOLDER, again) == [None] * 4
    assert table.audit().slot_cards[again[0]] == table.decks[2].card_of(again[0])


def test_the_audit_gives_every_fresh_slot_its_card() -> None:
    table, hand = dealt_table()
    fresh = table.remask(HOLDER, hand)
    cards = table.audit().slot_cards
    assert [cards[slot] for slot in fresh] == cards_of(table, HOLDER, fresh)


def test_a_publicly_opened_fresh_card_can_go_back_under_the_deck() -> None:
    table, hand = dealt_table()
    fresh = table.remask(HOLDER, hand)
    card = table.unmask(fresh[0]).card
    slots = table.add_batch([fresh[0]])
    assert table.reveal(slots[0]).card == card


# ---- dishonest re-masks ----------------------------------------------------------------------


def rewrite_remask(build: Callable[[DeckKeys, int, list[bytes]], list[bytes]]):
    """Tamper: the holder publishes the points ``build(keys, first, honest points)``."""
    keys: dict[str, DeckKeys] = {}

    def tamper(sender: int, message: dict[str, Any]) -> dict[str, Any]:
        if sender == HOLDER and message["type"] == "deck/remask":
            points = [bytes.fromhex(p) for p in message["points"]]
            new = build(keys["holder"], message["first"], points)
            return message | {"points": [p.hex() for p in new]}
        return message

    return tamper, keys


def honest_cards(table: LoopbackTable, hand: list[int]) -> list[int]:
    return [table.decks[HOLDER].card_of(slot) for slot in hand]  # type: ignore[misc]


def remasked_with(cards_in_order: Callable[[list[int], list[int]], list[int]],
                  scalar: Callable[[DeckKeys, int], bytes] | None = None):
    """Build a dishonest re-mask of the holder's hand: fresh slot i gets card
    ``cards_in_order(hand cards, honest order)[i]`` under scalar ``scalar(keys, slot)``."""
    table_cards: dict[str, list[int]] = {}

    def build(keys: DeckKeys, first: int, points: list[bytes]) -> list[bytes]:
        order = keys.remask_order(first, len(points))
        cards = cards_in_order(table_cards["hand"], order)
        table_ = card_points(GAME, CARDS)
        key = scalar or (lambda k, slot: k.remask_key(slot))
        return [mul(key(keys, first + i), table_[card]) for i, card in enumerate(cards)]

    tamper, keys = rewrite_remask(build)
    table, hand = dealt_table(tamper)
    keys["holder"] = table.keys[HOLDER]
    table_cards["hand"] = honest_cards(table, hand)
    return table, hand


def audit_blames_holder(table: LoopbackTable) -> None:
    with pytest.raises(StepMismatch) as caught:
        table.audit()
    assert caught.value.seat == HOLDER
    assert caught.value.evidence["message"]["type"] == "deck/remask"


def test_a_substituted_card_is_proven_against_the_holder_by_the_audit() -> None:
    def substitute(cards: list[int], order: list[int]) -> list[int]:
        outside = next(c for c in range(CARDS) if c not in cards)
        return [outside] + [cards[i] for i in order[1:]]

    table, hand = remasked_with(substitute)
    table.remask(HOLDER, hand)
    audit_blames_holder(table)


def test_a_duplicated_card_is_caught_when_both_slots_open_and_by_the_audit() -> None:
    def duplicate(cards: list[int], order: list[int]) -> list[int]:
        honest = [cards[i] for i in order]
        return [honest[0], honest[0], *honest[2:]]

    table, hand = remasked_with(duplicate)
    fresh = table.remask(HOLDER, hand)
    audit_blames_holder(table)
    table.open_remasked_to(fresh[0], 2)
    with pytest.raises(RemaskFault) as caught:
        table.open_remasked_to(fresh[1], 2)
    assert caught.value.seat == HOLDER
    assert caught.value.evidence["remask"]["seat"] == HOLDER


def test_a_permutation_other_than_the_committed_one_is_proven_by_the_audit() -> None:
    def reversed_order(cards: list[int], order: list[int]) -> list[int]:
        honest = [cards[i] for i in order]
        return honest[::-1]

    table, hand = remasked_with(reversed_order)
    fresh = table.remask(HOLDER, hand)
    for slot in fresh:  # every card opens fine: only the audit can see it
        table.open_remasked_to(slot, 2)
    audit_blames_holder(table)


def test_a_scalar_other_than_the_derived_one_is_proven_by_the_audit() -> None:
    def same_cards(cards: list[int], order: list[int]) -> list[int]:
        return [cards[i] for i in order]

    def other_scalar(keys: DeckKeys, slot: int) -> bytes:
        return scalar_mul(keys.remask_key(slot), keys.remask_key(slot))

    table, hand = remasked_with(same_cards, other_scalar)
    table.remask(HOLDER, hand)
    audit_blames_holder(table)


def test_a_fresh_point_that_is_no_card_stops_its_opener_and_names_the_holder() -> None:
    def garbage(keys: DeckKeys, first: int, points: list[bytes]) -> list[bytes]:
        return [mul(keys.remask_key(first), points[0]), *points[1:]]

    tamper, keys = rewrite_remask(garbage)
    table, hand = dealt_table(tamper)
    keys["holder"] = table.keys[HOLDER]
    fresh = table.remask(HOLDER, hand)
    with pytest.raises(RemaskFault, match="opens to no card") as caught:
        table.open_remasked_to(fresh[0], 2)
    assert caught.value.seat == HOLDER
    audit_blames_holder(table)


def test_a_false_scalar_sent_to_the_recipient_names_the_holder_at_once() -> None:
    def false_key(sender: int, message: dict[str, Any]) -> dict[str, Any]:
        if sender == HOLDER and message["type"] in ("deck/remask-key", "deck/unmask"):
            return message | {"key": table.keys[HOLDER].remask_key(message["slot"] + 1).hex()}
        return message

    table, hand = dealt_table(false_key)
    fresh = table.remask(HOLDER, hand)
    with pytest.raises(SlotKeyMismatch, match="r\\*B") as caught:  # checked against r*B
        table.open_remasked_to(fresh[0], 2)
    assert caught.value.seat == HOLDER
    with pytest.raises(SlotKeyMismatch) as public:
        table.unmask(fresh[1])
    assert public.value.seat == HOLDER


def test_a_re_mask_of_a_retired_slot_or_at_the_wrong_slot_number_is_refused() -> None:
    table, hand = dealt_table()
    message = table.decks[HOLDER].remask(hand)
    table.broadcast(HOLDER, message)
    with pytest.raises(OutOfOrder, match="re-masked"):  # its old slots are retired now
        table.decks[0].receive(HOLDER, message | {"first": table.decks[0].slot_count})
    table.open_to(4, HOLDER)
    with pytest.raises(OutOfOrder, match="fresh slots start"):
        table.decks[0].receive(HOLDER, table.decks[HOLDER].remask([4]) | {"first": 99})


def test_a_re_mask_with_too_few_points_or_a_slot_twice_is_malformed() -> None:
    table, hand = dealt_table()
    message = table.decks[HOLDER].remask(hand)
    with pytest.raises(MalformedMessage, match="one point per old slot"):
        table.decks[0].receive(HOLDER, message | {"points": message["points"][:2]})
    with pytest.raises(MalformedMessage, match="twice"):
        table.decks[0].receive(HOLDER, message | {"old": [0, 0, 1, 2]})


def test_only_the_holder_may_open_a_fresh_slot() -> None:
    table, hand = dealt_table()
    fresh = table.remask(HOLDER, hand)
    forged = {"type": "deck/unmask", "seat": 0, "slot": fresh[0],
              "key": table.keys[0].remask_key(fresh[0]).hex()}
    with pytest.raises(OutOfOrder, match="not a slot it re-masked"):
        table.decks[2].receive(0, forged)


def test_a_hidden_fresh_card_goes_under_the_deck_without_being_shown() -> None:
    table, hand = dealt_table()
    fresh = table.remask(HOLDER, hand)
    card = table.decks[HOLDER].card_of(fresh[1])
    slots = table.add_batch([fresh[1]])  # its holder strips its scalar while blinding
    assert [d.card_of(fresh[1]) for d in table.decks] == [None, card, None]
    assert table.open_to(slots[0], 2).card == card
    assert table.audit().slot_cards[slots[0]] == card
