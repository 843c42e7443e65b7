"""The mental-poker deck with 2, 3 and 4 simulated peers in one process."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.randomness import RandomStream
from p2p.crypto.group import card_points, hash_to_scalar, mul, mul_base, scalar_invert, scalar_mul
from p2p.deck.batches import CardSeen, Turn
from p2p.deck.deck import Deck
from p2p.deck.loopback import LoopbackTable
from p2p.errors import LocalProtocolError

SIZES = [(n, d) for n in (2, 3, 4) for d in (16, 26, 32)]


@pytest.mark.parametrize("n_seats, n_cards", SIZES)
def test_every_slot_opens_to_its_card_exactly_once(n_seats, n_cards):
    table = LoopbackTable(f"game-{n_seats}-{n_cards}", n_seats, n_cards)
    table.setup()
    assert all(deck.turn is None for deck in table.decks)
    assert table.decks[0].slot_count == n_cards

    # Deal: slot s goes privately to seat s % n for the first half, the rest is revealed.
    private = range(n_cards // 2)
    for slot in private:
        seat = slot % n_seats
        event = table.open_to(slot, seat)
        assert event == CardSeen(slot, event.card, public=False)
        for other, deck in enumerate(table.decks):
            assert (deck.card_of(slot) is not None) == (other == seat)
    for slot in range(n_cards // 2, n_cards):
        event = table.reveal(slot)
        assert event.public
        assert {deck.card_of(slot) for deck in table.decks} == {event.card}

    seen = {}
    for deck in table.decks:
        seen.update(deck.known_cards())
    assert sorted(seen) == list(range(n_cards))
    assert sorted(seen.values()) == list(range(n_cards))  # every card exactly once

    assert table.audit().slot_cards == seen


def test_open_to_one_reveals_nothing_to_the_others():
    table = LoopbackTable("hidden", 3, 16)
    table.setup()
    event = table.open_to(5, 1)
    points = card_points("hidden", 16)
    encrypted = table.decks[0].slot_point(5)
    assert encrypted not in points  # the published point is no card in the clear
    for seat in (0, 2):
        deck = table.decks[seat]
        assert deck.card_of(5) is None and deck.known_cards() == {}
        # Stripping only its own layer still leaves the other seats' layers on.
        own_key = table.keys[seat].slot_key(5)
        assert mul(scalar_invert(own_key), encrypted) not in points
    assert table.decks[1].card_of(5) == event.card


def test_reveal_after_private_open_agrees():
    table = LoopbackTable("agree", 2, 16)
    table.setup()
    private = table.open_to(3, 0)
    public = table.reveal(3)
    assert public.card == private.card and table.decks[0].is_public(3)


@pytest.mark.parametrize("n_seats", [2, 3, 4])
def test_reshuffle_batch_under_the_deck(n_seats):
    table = LoopbackTable("batch", n_seats, 16)
    table.setup()
    revealed = [table.reveal(slot).card for slot in range(4)]
    slots = table.add_batch(range(4))
    assert slots == range(16, 20)  # fresh numbers after the existing slots
    assert table.decks[0].turn is None
    for deck in table.decks:
        with pytest.raises(LocalProtocolError, match="put back"):
            deck.reveal(0)  # the old slot is retired
    cards = {table.reveal(slot).card for slot in slots}
    assert cards == set(revealed)
    second = table.add_batch(list(slots))
    assert second == range(20, 24)
    hidden = table.open_to(20, n_seats - 1)
    assert hidden.card in cards
    for slot in range(4, 16):
        table.reveal(slot)
    result = table.audit().slot_cards
    assert sorted(result) == list(range(24))
    assert sorted(result[s] for s in range(4, 16)) == sorted(set(range(16)) - cards)
    assert result[20] == hidden.card


def test_hidden_cards_go_under_the_deck_unseen():
    """Ruling 23: the round's cards are shuffled under the deck hidden. A card only seat 0
    saw and a card nobody saw go back without being shown, and come out right."""
    table = LoopbackTable("batch-hidden", 3, 16)
    table.setup()
    seen = table.open_to(0, 0).card
    slots = table.add_batch([0, 1])
    assert [d.card_of(0) for d in table.decks] == [seen, None, None]
    for slot in slots:
        table.open_to(slot, 2)
    dealt = {table.decks[2].card_of(slot) for slot in slots}
    assert seen in dealt and len(dealt) == 2
    cards = table.audit().slot_cards
    assert {cards[slot] for slot in slots} == {cards[0], cards[1]} == dealt
    with pytest.raises(LocalProtocolError, match="put back"):
        table.decks[0].begin_batch([0])  # a retired slot


def test_a_peer_that_does_not_begin_the_batch_follows_seat_0():
    table = LoopbackTable("implicit", 2, 16)
    table.setup()
    cards = [table.reveal(slot).card for slot in range(3)]
    table.decks[0].begin_batch([0, 1, 2])  # seat 1's engine has not called begin_batch
    table.build()
    assert table.decks[1].batch_slots(1) == range(16, 19)
    assert table.reveal(17).card in cards


def test_turns_and_local_misuse():
    deck = Deck("turns", 2, 16, 0)
    assert deck.turn == Turn("commit", None, 0)
    with pytest.raises(LocalProtocolError):
        deck.shuffle()
    other = Deck("turns", 2, 16, 1)
    for d in (deck, other):
        d.receive(0, deck.commit_message())
        d.receive(1, other.commit_message())
    assert deck.turn == Turn("shuffle", 0, 0)
    with pytest.raises(LocalProtocolError):
        other.shuffle()
    with pytest.raises(LocalProtocolError):
        deck.reveal(0)  # not shuffled yet
    assert deck.shuffle() == deck.shuffle()  # producing is pure
    with pytest.raises(LocalProtocolError):
        deck.disclose(0, 0)
    with pytest.raises(LocalProtocolError):
        Deck("turns", 5, 16, 0)


@settings(max_examples=15, deadline=None)
@given(
    n_seats=st.integers(min_value=2, max_value=4),
    n_cards=st.integers(min_value=2, max_value=8),
    game=st.text(min_size=1, max_size=8),
)
def test_shuffled_deck_is_always_a_permutation(n_seats, n_cards, game):
    table = LoopbackTable(game, n_seats, n_cards)
    table.setup()
    final = [table.decks[0].slot_point(slot) for slot in range(n_cards)]
    assert len(set(final)) == n_cards
    cards = [table.reveal(slot).card for slot in range(n_cards)]
    assert sorted(cards) == list(range(n_cards))


def test_layers_follow_the_documented_derivations():
    # What a second implementation must reproduce, computed from protocol.md by hand.
    table = LoopbackTable("kat", 2, 16)
    table.setup()
    seed = table.keys[0].seed
    x = hash_to_scalar(b"solstice/deck/shuffle-key/v1\x00", seed + (0).to_bytes(4, "big"))
    perm_seed = hashlib.sha256(
        b"solstice/deck/permutation/v1\x00" + seed + (0).to_bytes(4, "big")
    ).digest()
    permutation = RandomStream(perm_seed).permutation(16)
    cards = card_points("kat", 16)
    shuffle, _, rekey, _ = table.decks[1].batch_records()[0].steps
    assert list(shuffle.points) == [mul(x, cards[source]) for source in permutation]
    k5 = hash_to_scalar(b"solstice/deck/slot-key/v1\x00", seed + (5).to_bytes(4, "big"))
    assert rekey.key_commitments[5] == mul_base(k5)
    previous = table.decks[1].batch_records()[0].steps[1].points[5]
    assert rekey.points[5] == mul(scalar_mul(k5, scalar_invert(x)), previous)
