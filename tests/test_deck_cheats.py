"""One test per cheat and per malformed input; each asserts the blamed seat.

A cheater is played by rewriting its messages in flight (the same rewritten message reaches
every peer, as a signed broadcast would).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from nacl import bindings as sodium

from p2p.crypto.group import FIELD_P, L, card_points, mul, scalar_invert, scalar_mul
from p2p.deck.audit import audit_deck
from p2p.deck.deck import Deck
from p2p.deck.loopback import LoopbackTable
from p2p.errors import (
    MalformedMessage,
    OutOfOrder,
    ProofFailed,
    SlotKeyMismatch,
)

ORDER_8 = bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05")

Edit = Callable[[dict[str, Any]], dict[str, Any]]


def cheat(kind: str, seat: int, edit: Edit):
    """A tamper hook rewriting ``seat``'s messages of type ``kind`` with ``edit``."""

    def tamper(sender: int, message: dict[str, Any]) -> dict[str, Any]:
        if sender == seat and message["type"] == kind:
            return edit(dict(message))
        return message

    return tamper


def with_point(index: int, value: str) -> Edit:
    def edit(message: dict[str, Any]) -> dict[str, Any]:
        points = list(message["points"])
        points[index] = value
        return message | {"points": points}

    return edit


def ready_table(n_seats: int = 3, n_cards: int = 16, tamper=None) -> LoopbackTable:
    table = LoopbackTable("cheats", n_seats, n_cards, tamper)
    table.setup()
    return table


# ---- malformed points in a shuffle: every receiver refuses at once ------------------


@pytest.mark.parametrize(
    "bad, reason",
    [
        ("ab" * 31, "hex"),  # wrong length
        ("AB" * 32, "hex"),  # not lowercase: not the canonical encoding
        ("zz" * 32, "hex"),  # not hex at all
        ((FIELD_P + 5).to_bytes(32, "little").hex(), "non-canonical"),
        ((1).to_bytes(32, "little").hex(), "small-order"),  # the identity
        (ORDER_8.hex(), "small-order"),
    ],
)
def test_malformed_point_in_shuffle_blames_author(bad, reason):
    table = LoopbackTable("cheats", 3, 16, cheat("deck/shuffle", 1, with_point(4, bad)))
    table.commit_all()
    with pytest.raises(MalformedMessage, match=reason) as info:
        table.build()
    assert info.value.seat == 1
    assert info.value.evidence["points"][4] == bad


def test_point_outside_subgroup_refused_by_the_next_layer():
    # A mixed-order point passes the cheap checks; libsodium refuses it in the next
    # peer's multiplication, so its author is blamed before any secret is exposed.
    def add_torsion(message):
        point = bytes.fromhex(message["points"][2])
        return with_point(2, sodium.crypto_core_ed25519_add(point, ORDER_8).hex())(message)

    table = LoopbackTable("cheats", 3, 16, cheat("deck/shuffle", 0, add_torsion))
    table.commit_all()
    with pytest.raises(MalformedMessage, match="prime-order") as info:
        table.build()
    assert info.value.seat == 0


def test_point_outside_subgroup_in_last_rekey_refused_on_arrival():
    # Its proof multiplies every point of the re-key, so every receiver refuses it at once.
    def add_torsion(message):
        point = bytes.fromhex(message["points"][0])
        return with_point(0, sodium.crypto_core_ed25519_add(point, ORDER_8).hex())(message)

    with pytest.raises(MalformedMessage, match="prime-order") as info:
        ready_table(2, 16, cheat("deck/rekey", 1, add_torsion))
    assert info.value.seat == 1


def test_duplicate_point_in_shuffle_blames_author():
    def duplicate(message):
        return with_point(1, message["points"][0])(message)

    table = LoopbackTable("cheats", 2, 16, cheat("deck/shuffle", 1, duplicate))
    table.commit_all()
    with pytest.raises(MalformedMessage, match="equal or negations") as info:
        table.build()
    assert info.value.seat == 1


def test_negated_point_in_rekey_blames_author():
    def negate(message):
        negated = mul((L - 1).to_bytes(32, "little"), bytes.fromhex(message["points"][0]))
        return with_point(3, negated.hex())(message)

    table = LoopbackTable("cheats", 2, 16, cheat("deck/rekey", 0, negate))
    table.commit_all()
    with pytest.raises(MalformedMessage, match="equal or negations") as info:
        table.build()
    assert info.value.seat == 0


def test_wrong_number_of_points_blames_author():
    table = LoopbackTable(
        "cheats", 3, 16, cheat("deck/shuffle", 2, lambda m: m | {"points": m["points"][:-1]})
    )
    table.commit_all()
    with pytest.raises(MalformedMessage, match="16 points") as info:
        table.build()
    assert info.value.seat == 2


def test_malformed_key_commitment_blames_author():
    def small_order(message):
        commitments = list(message["key_commitments"])
        commitments[0] = ORDER_8.hex()
        return message | {"key_commitments": commitments}

    table = LoopbackTable("cheats", 2, 16, cheat("deck/rekey", 1, small_order))
    table.commit_all()
    with pytest.raises(MalformedMessage) as info:
        table.build()
    assert info.value.seat == 1


# ---- slot keys ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "key, reason",
    [
        (bytes(32).hex(), "zero"),
        (L.to_bytes(32, "little").hex(), ">= L"),
        ((2**256 - 1).to_bytes(32, "little").hex(), ">= L"),
        ("01" * 31, "hex"),
    ],
)
def test_bad_scalar_in_private_slot_key_blames_sender(key, reason):
    table = ready_table(3, 16, cheat("deck/slot-key", 2, lambda m: m | {"key": key}))
    with pytest.raises(MalformedMessage, match=reason) as info:
        table.open_to(0, 1)
    assert info.value.seat == 2


def test_bad_scalar_in_reveal_blames_sender():
    zero = bytes(32).hex()
    table = ready_table(3, 16, cheat("deck/reveal", 1, lambda m: m | {"key": zero}))
    with pytest.raises(MalformedMessage, match="zero") as info:
        table.reveal(0)
    assert info.value.seat == 1


def other_valid_key(message: dict[str, Any]) -> dict[str, Any]:
    key = bytes.fromhex(message["key"])
    return message | {"key": scalar_mul(key, (2).to_bytes(32, "little")).hex()}


def test_private_key_not_matching_commitment_blames_sender():
    table = ready_table(4, 16, cheat("deck/slot-key", 3, other_valid_key))
    with pytest.raises(SlotKeyMismatch) as info:
        table.open_to(7, 0)
    assert info.value.seat == 3
    assert info.value.evidence["message"]["slot"] == 7


def test_public_key_not_matching_commitment_blames_sender():
    table = ready_table(2, 16, cheat("deck/reveal", 0, other_valid_key))
    with pytest.raises(SlotKeyMismatch) as info:
        table.reveal(2)
    assert info.value.seat == 0


def test_key_for_another_slot_blames_sender():
    # A genuine key, but of another slot: it cannot match this slot's commitment.
    table = ready_table(2, 16)
    message = table.decks[1].disclose(6, 0)
    with pytest.raises(SlotKeyMismatch) as info:
        table.decks[0].receive(1, message | {"slot": 5})
    assert info.value.seat == 1


# ---- layers that do not prove: named on arrival, no slot opened ---------------------------


def test_a_rekey_with_a_factor_it_did_not_commit_to_is_named_on_arrival():
    # Seat 1 re-keys slot 3 with 5 times its factor: the slot would open to no card.
    def scramble(message):
        point = bytes.fromhex(message["points"][3])
        return with_point(3, mul((5).to_bytes(32, "little"), point).hex())(message)

    with pytest.raises(ProofFailed, match="deck/rekey") as info:
        ready_table(3, 16, cheat("deck/rekey", 1, scramble))
    assert info.value.seat == 1
    assert info.value.evidence["message"]["type"] == "deck/rekey"


def test_a_rekey_that_copies_a_card_is_named_on_arrival():
    # Seat 0 re-keys position 2 from position 1's input: slots 1 and 2 would hold one card.
    table = LoopbackTable("twice", 2, 16)
    keys = table.keys[0]

    def copy_card(message):
        deck = table.decks[0]
        input_point = deck.batch_records()[0].steps[-1].points[1]
        factor = scalar_mul(keys.slot_key(2), scalar_invert(keys.shuffle_key(0)))
        return with_point(2, mul(factor, input_point).hex())(message)

    table.tamper = cheat("deck/rekey", 0, copy_card)
    with pytest.raises(ProofFailed) as info:
        table.setup()
    assert info.value.seat == 0


def test_a_shuffle_substitution_that_keeps_the_sum_is_named_on_arrival():
    # Once the gap of a sum-only shuffle proof: seat 1 moves a point's worth D from output 0
    # to output 1. The shuffle argument refuses it at every receiver and in a keyless replay,
    # naming seat 1, before any slot is opened.
    d = card_points("sum", 16)[0]

    def shift(message):
        points = [bytes.fromhex(p) for p in message["points"]]
        points[0] = sodium.crypto_core_ed25519_add(points[0], d)
        points[1] = sodium.crypto_core_ed25519_sub(points[1], d)
        return message | {"points": [p.hex() for p in points]}

    table = LoopbackTable("sum", 3, 16, cheat("deck/shuffle", 1, shift))
    with pytest.raises(ProofFailed) as live:
        table.setup()
    assert live.value.seat == 1
    forged = live.value.evidence["message"]
    assert forged["type"] == "deck/shuffle" and forged["seat"] == 1
    transcript = [*table.decks[0].public_transcript, (1, forged)]
    with pytest.raises(ProofFailed) as offline:
        audit_deck("sum", 3, 16, transcript, {})
    assert offline.value.seat == 1


# ---- order -----------------------------------------------------------------------------


def test_shuffle_before_every_commitment_blames_sender():
    decks = [Deck("order", 2, 16, seat) for seat in range(2)]
    decks[1].receive(0, decks[0].commit_message())
    decks[0].receive(0, decks[0].commit_message())
    decks[0].receive(1, decks[1].commit_message())
    with pytest.raises(OutOfOrder) as info:
        decks[1].receive(0, decks[0].shuffle())
    assert info.value.seat == 0


def test_shuffle_out_of_turn_blames_sender():
    table = LoopbackTable("order", 3, 16)
    table.commit_all()
    table.broadcast(0, table.decks[0].shuffle())
    forged = table.decks[1].shuffle() | {"seat": 2}  # seat 2 jumps the queue
    with pytest.raises(OutOfOrder) as info:
        table.decks[0].receive(2, forged)
    assert info.value.seat == 2


def test_seat_field_must_name_the_sender():
    table = ready_table(2, 16)
    with pytest.raises(MalformedMessage) as info:
        table.decks[0].receive(1, table.decks[0].reveal(0))  # seat 1 relays seat 0's
    assert info.value.seat == 1


def test_second_reveal_and_misrouted_key_blame_sender():
    table = ready_table(3, 16)
    table.broadcast(2, table.decks[2].reveal(0))
    with pytest.raises(OutOfOrder) as info:
        table.decks[0].receive(2, table.decks[2].reveal(0))
    assert info.value.seat == 2
    with pytest.raises(OutOfOrder) as info:
        table.decks[1].receive(2, table.decks[2].disclose(0, 0))  # meant for seat 0
    assert info.value.seat == 2


def test_batch_with_other_slots_blames_sender():
    table = ready_table(2, 16)
    table.decks[1].begin_batch([0, 1, 2])
    table.decks[0].begin_batch([0, 1, 2])
    message = table.decks[0].blind() | {"sources": [2, 1, 0]}
    with pytest.raises(OutOfOrder, match="other slots") as info:
        table.decks[1].receive(0, message)
    assert info.value.seat == 0


def test_batch_of_a_retired_slot_blames_sender():
    table = ready_table(2, 16)
    table.add_batch([0])
    table.decks[0].begin_batch([1])
    message = table.decks[0].blind() | {"sources": [0]}  # slot 0 is under the deck already
    with pytest.raises(OutOfOrder, match="put back") as info:
        table.decks[1].receive(0, message)
    assert info.value.seat == 0


def test_a_blinding_layer_that_swaps_a_card_is_named_on_arrival():
    table = ready_table(2, 16)
    y = table.keys[1].blind_key(1)

    def swap(sender, message):
        if sender == 1 and message["type"] == "deck/blind":
            points = list(message["points"])
            points[0] = mul(y, card_points("cheats", 16)[15]).hex()  # seat 1's own pick
            return message | {"points": points}
        return message

    table.tamper = swap
    with pytest.raises(ProofFailed, match="deck/blind") as blame:
        table.add_batch([0, 1])
    assert blame.value.seat == 1


def test_a_shuffle_smuggling_a_card_into_a_batch_is_named_on_arrival():
    # In the reshuffle, seat 0 swaps one public card for a hidden card of the main deck:
    # the sum of its outputs is no longer x times the sum of its inputs.
    table = LoopbackTable("outside", 2, 16)
    table.setup()
    batch_cards = [table.reveal(slot).card for slot in range(3)]
    outsider = next(card for card in range(16) if card not in batch_cards)
    x = table.keys[0].shuffle_key(1)

    def smuggle(sender, message):
        if sender == 0 and message["type"] == "deck/shuffle" and message["batch"] == 1:
            points = list(message["points"])
            points[0] = mul(x, card_points("outside", 16)[outsider]).hex()
            return message | {"points": points}
        return message

    table.tamper = smuggle
    with pytest.raises(ProofFailed, match="deck/shuffle") as blame:
        table.add_batch([0, 1, 2])
    assert blame.value.seat == 0
