"""Re-masked slots: a holder moves cards it knows to fresh slots only it can open.

Honest behaviour first, then one test per dishonest re-mask, each naming its author: on
arrival where its proof fails (a substituted, duplicated or no card, another order than the
proof's), when its slot opens for a false r*B, and at the audit for a valid re-mask off the
committed seed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from deck_helpers import REFUSED_REMASKS, forged_remask
from nacl import bindings as sodium

from p2p.crypto.group import card_points, scalar_mul
from p2p.deck.deck import Deck
from p2p.deck.loopback import LoopbackTable
from p2p.errors import (
    LocalProtocolError,
    MalformedMessage,
    OutOfOrder,
    ProofFailed,
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


def test_every_kind_of_known_slot_is_re_masked_with_a_proof_that_checks() -> None:
    """The proof needs each old slot's opening scalar K: a deck slot opened to the holder
    (every seat's key), a public slot (the revealed keys), one of its own fresh slots (its
    r), and a fresh slot opened to it by another holder (that r)."""
    table, hand = dealt_table()
    public = table.reveal(4).slot
    fresh = table.remask(HOLDER, [*hand[:2], public])  # checked by seats 0 and 2
    again = table.remask(HOLDER, [fresh[0], fresh[1], hand[2]])
    table.open_remasked_to(again[0], 2)
    passed = table.remask(2, [again[0]])
    cards = table.audit().slot_cards
    assert cards[passed[0]] == table.decks[2].card_of(passed[0]) is not None
    assert sorted(cards[s] for s in again) == sorted(
        table.decks[HOLDER].card_of(s) for s in again)


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


def forging(kind: str) -> tuple[LoopbackTable, list[int]]:
    """A table whose holder sends its re-mask forged as ``kind`` (``forged_remask``)."""
    holder: dict[str, Deck] = {}

    def tamper(sender: int, message: dict[str, Any]) -> dict[str, Any]:
        if sender == HOLDER and message["type"] == "deck/remask":
            return forged_remask(holder["deck"], message, kind)
        return message

    table, hand = dealt_table(tamper)
    holder["deck"] = table.decks[HOLDER]
    return table, hand


def audit_blames_holder(table: LoopbackTable) -> None:
    with pytest.raises(StepMismatch) as caught:
        table.audit()
    assert caught.value.seat == HOLDER
    assert caught.value.evidence["message"]["type"] == "deck/remask"


@pytest.mark.parametrize("kind", REFUSED_REMASKS)
def test_a_forged_re_mask_is_refused_on_arrival_naming_its_holder(kind: str) -> None:
    """A substituted, duplicated or no card, or fresh points in another order than the
    proof's: every other peer and a keyless replay (``solstice verify``) refuse the signed
    re-mask at once, naming its holder; nothing is opened, no seed."""
    table, hand = forging(kind)
    forged = table._send(HOLDER, table.decks[HOLDER].remask(hand))
    replay = Deck(GAME, 3, CARDS, seat=None)
    for sender, message in table.decks[0].public_transcript:
        replay.receive(sender, message)
    for deck in (table.decks[0], table.decks[2], replay):
        with pytest.raises(ProofFailed, match="re-mask") as caught:
            deck.receive(HOLDER, forged)
        assert caught.value.seat == HOLDER
        assert caught.value.evidence["message"] == forged
        assert deck.slot_count == CARDS  # nothing applied


@pytest.mark.parametrize("kind", ["other-order", "other-scalar"])
def test_a_consistent_re_mask_off_the_committed_seed_is_named_by_the_audit(kind: str) -> None:
    """Another order or scalar than the seed gives, proven: every card opens as the proof
    says (nobody is harmed), but the holder broke its commitment, and the end-of-game audit
    names it."""
    table, hand = forging(kind)
    fresh = table.remask(HOLDER, hand)
    cards = sorted(table.decks[HOLDER].card_of(slot) for slot in hand)  # type: ignore
    if kind == "other-order":  # the holder's scalars open them, to the cards it held
        opened = [table.open_remasked_to(slot, 2).card for slot in fresh]
        assert sorted(opened) == cards
    audit_blames_holder(table)


def test_a_false_r_b_names_the_holder_when_its_slot_opens() -> None:
    """keys[0] = r'*B for an r' that does not open the proven point: the opener, given r',
    decrypts no card and names the holder at once (it chose both)."""
    r_prime: dict[str, bytes] = {}

    def opened_with_r_prime(sender: int, message: dict[str, Any]) -> dict[str, Any]:
        if sender == HOLDER and message["type"] == "deck/remask":
            r_prime["key"] = scalar_mul(*[table.keys[HOLDER].remask_key(message["first"])] * 2)
            return forged_remask(table.decks[HOLDER], message, "false-key")
        if sender == HOLDER and message["type"] == "deck/remask-key":
            return message | {"key": r_prime["key"].hex()}
        return message

    table, hand = dealt_table(opened_with_r_prime)
    fresh = table.remask(HOLDER, hand)
    with pytest.raises(RemaskFault, match="opens to no card") as caught:
        table.open_remasked_to(fresh[0], 2)
    assert caught.value.seat == HOLDER
    audit_blames_holder(table)


def test_a_re_mask_proof_malformed_on_the_wire_names_its_holder() -> None:
    table, hand = dealt_table()
    message = table.decks[HOLDER].remask(hand)
    not_reduced = (2**255 - 1).to_bytes(32, "little").hex()  # >= L
    torsion = "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"
    for bad, why in ((message | {"proof": message["proof"][:-1]}, "scalars"),
                     (message | {"proof": [not_reduced, *message["proof"][1:]]}, "reduced"),
                     (message | {"shuffled": message["shuffled"][:-1]}, "shuffled point"),
                     (message | {"shuffled": [message["shuffled"][0]] * 4}, "equal"),
                     (message | {"shuffle_key": torsion}, "small-order"),
                     (message | {"argument": message["argument"][:-1]}, "4k \\+ 5"),
                     ({k: v for k, v in message.items() if k != "proof"}, "fields")):
        with pytest.raises(MalformedMessage, match=why) as caught:
            table.decks[0].receive(HOLDER, bad)
        assert caught.value.seat == HOLDER
    short = message | {"argument": message["argument"][:-4]}  # read as over 3 points
    with pytest.raises(MalformedMessage, match="argument") as caught:
        table.decks[0].receive(HOLDER, short)
    assert caught.value.seat == HOLDER


def test_an_off_group_shuffled_point_names_the_holder() -> None:
    table, hand = dealt_table()
    message = table.decks[HOLDER].remask(hand)
    mixed = sodium.crypto_core_ed25519_add(  # a canonical encoding off the subgroup
        bytes.fromhex(message["shuffled"][0]),
        bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"))
    with pytest.raises(MalformedMessage, match="prime-order") as caught:
        table.decks[0].receive(HOLDER, message | {"shuffled": [mixed.hex(),
                                                               *message["shuffled"][1:]]})
    assert caught.value.seat == HOLDER


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
