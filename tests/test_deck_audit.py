"""End-of-game audit: full slot -> card mapping, or the first proven fault with blame."""

from __future__ import annotations

from typing import Any

import pytest
from deck_helpers import other_permutation

from p2p.crypto.group import card_points, mul, mul_base, scalar_invert, scalar_mul
from p2p.deck.audit import audit_deck
from p2p.deck.keys import DeckKeys
from p2p.deck.loopback import LoopbackTable
from p2p.errors import (
    CommitmentMismatch,
    MalformedMessage,
    MissingOpening,
    ProofFailed,
    StepMismatch,
)


def openings(table: LoopbackTable) -> dict[int, dict[str, Any]]:
    return {seat: deck.opening_message() for seat, deck in enumerate(table.decks)}


def run_audit(table: LoopbackTable, opened: dict[int, Any], viewer: int = 0):
    return audit_deck(
        table.game_id, table.n_seats, table.n_cards, table.decks[viewer].public_transcript, opened
    )


@pytest.mark.parametrize("n_seats", [2, 3, 4])
def test_audit_reconstructs_every_slot_including_hidden_ones(n_seats):
    table = LoopbackTable("audit", n_seats, 26)
    table.setup()
    private = {slot: table.open_to(slot, slot % n_seats).card for slot in range(10)}
    public = {slot: table.reveal(slot).card for slot in range(10, 14)}
    # the public cards and two hidden ones (one seen by a seat, one by nobody) go back
    batch = table.add_batch([*sorted(public), 0, 20])
    result = table.audit(viewer=n_seats - 1).slot_cards
    assert sorted(result) == list(range(26 + len(batch)))
    assert {slot: result[slot] for slot in private} == private
    assert {slot: result[slot] for slot in public} == public
    assert sorted(result[slot] for slot in range(26)) == list(range(26))
    assert sorted(result[slot] for slot in batch) == sorted(
        [*public.values(), private[0], result[20]])
    # Every peer's transcript gives the same answer.
    assert run_audit(table, openings(table), viewer=0).slot_cards == result


def test_refusing_to_open_is_blamed():
    table = LoopbackTable("audit", 3, 16)
    table.setup()
    opened = openings(table)
    del opened[1]
    with pytest.raises(MissingOpening) as info:
        run_audit(table, opened)
    assert info.value.seat == 1


def test_opening_another_seed_is_blamed():
    table = LoopbackTable("audit", 3, 16)
    table.setup()
    opened = openings(table)
    opened[2] = opened[2] | {"seed": "11" * 32}
    with pytest.raises(CommitmentMismatch) as info:
        run_audit(table, opened)
    assert info.value.seat == 2


def test_malformed_opening_is_blamed():
    table = LoopbackTable("audit", 2, 16)
    table.setup()
    opened = openings(table)
    opened[0] = opened[0] | {"salt": "xyz"}
    with pytest.raises(MalformedMessage) as info:
        run_audit(table, opened)
    assert info.value.seat == 0


def test_uncommitted_permutation_caught_only_by_the_audit():
    # Seat 1 applies another permutation than its committed seed gives, and proves it: a
    # sound shuffle, which every receiver accepts. The audit, following the committed
    # permutations, proves the breach of commitment.
    keys = [DeckKeys.generate() for _ in range(3)]
    table = LoopbackTable("audit", 3, 16, other_permutation(keys, "audit", {1: 0}), keys=keys)
    table.setup()
    cards = [table.reveal(slot).card for slot in range(16)]
    assert sorted(cards) == list(range(16))  # nothing visible during play
    with pytest.raises(StepMismatch) as info:
        table.audit()
    assert info.value.seat == 1
    assert info.value.evidence["position"] == 0


def test_wrong_rekey_factor_named_on_arrival_without_opening_a_seed():
    def scramble(seat, message):
        if seat == 2 and message["type"] == "deck/rekey":
            points = list(message["points"])
            points[5] = mul((3).to_bytes(32, "little"), bytes.fromhex(points[5])).hex()
            return message | {"points": points}
        return message

    table = LoopbackTable("audit", 3, 16, scramble)
    with pytest.raises(ProofFailed) as info:
        table.setup()  # every receiver of the re-key checks its proof: no slot, no seed
    assert info.value.seat == 2
    transcript = table.decks[0].public_transcript
    with pytest.raises(ProofFailed) as offline:  # what ``solstice verify`` replays
        audit_deck("audit", 3, 16, [*transcript, (2, info.value.evidence["message"])], {})
    assert offline.value.seat == 2


def test_fake_key_commitment_named_on_arrival():
    # Seat 0 publishes k'*B for slot 4 while re-keying with its committed k: the re-key's
    # proof ties each point to its commitment, so every receiver refuses it at once.
    table = LoopbackTable("audit", 2, 16)
    fake = scalar_mul(table.keys[0].slot_key(4), (7).to_bytes(32, "little"))

    def fake_commitment(seat, message):
        if seat == 0 and message["type"] == "deck/rekey":
            commitments = list(message["key_commitments"])
            commitments[4] = mul_base(fake).hex()
            return message | {"key_commitments": commitments}
        return message

    table.tamper = fake_commitment
    with pytest.raises(ProofFailed) as live:
        table.setup()
    assert live.value.seat == 0


def test_tampered_transcript_is_refused():
    table = LoopbackTable("audit", 2, 16)
    table.setup()
    transcript = list(table.decks[0].public_transcript)
    sender, message = transcript[3]
    transcript[3] = (sender, message | {"points": message["points"][:-1]})
    with pytest.raises(MalformedMessage) as info:
        audit_deck("audit", 2, 16, transcript, openings(table))
    assert info.value.seat == sender


def test_keys_used_in_live_play_are_the_committed_ones():
    table = LoopbackTable("audit", 2, 16)
    table.setup()
    disclosed = bytes.fromhex(table.decks[1].disclose(3, 0)["key"])
    assert disclosed == table.keys[1].slot_key(3)
    x = table.keys[0].shuffle_key(0)
    first_point = table.decks[0].batch_records()[0].steps[0].points[0]
    assert mul(scalar_invert(x), first_point) in set(card_points("audit", 16))


@pytest.mark.parametrize("own", [0, 1, 2])
def test_a_player_auditing_its_own_game_follows_its_layers_to_the_same_cards(own):
    table = LoopbackTable("audit", 3, 20)
    table.setup()
    for slot in range(6):
        table.open_to(slot, slot % 3)
    fresh = table.remask(1, [1, 4])  # seat 1 moves its two cards to fresh slots
    table.open_remasked_to(fresh[0], 2)
    table.add_batch([0, 2, 3, fresh[1]])  # a hidden reshuffle: blinding layers too
    full = run_audit(table, openings(table)).slot_cards
    followed = audit_deck(table.game_id, 3, 20, table.decks[own].public_transcript,
                          openings(table), own=own).slot_cards
    assert followed == full


@pytest.mark.parametrize("own", [0, 2])
def test_a_player_following_its_own_layers_still_names_another_seats_bad_shuffle(own):
    keys = [DeckKeys.generate() for _ in range(3)]
    table = LoopbackTable("audit", 3, 16, other_permutation(keys, "audit", {1: 0}), keys=keys)
    table.setup()
    with pytest.raises(StepMismatch) as info:
        audit_deck(table.game_id, 3, 16, table.decks[own].public_transcript, openings(table),
                   own=own)
    assert info.value.seat == 1


def test_the_audit_relying_on_the_proofs_finds_what_recomputing_every_layer_finds() -> None:
    table = LoopbackTable("audit", 3, 20)
    table.setup()
    for slot in range(6):
        table.open_to(slot, slot % 3)
    fresh = table.remask(1, [1, 4])
    table.add_batch([0, 2, 3, fresh[1]])  # blinding layers over deck and re-masked slots
    relying = run_audit(table, openings(table)).slot_cards
    recomputing = audit_deck(table.game_id, 3, 20, table.decks[0].public_transcript,
                             openings(table), recompute_proven=True).slot_cards
    assert relying == recomputing


@pytest.mark.parametrize("recompute_proven", [False, True])
def test_layers_played_with_other_keys_than_the_committed_seed_are_named_by_the_audit(
        recompute_proven: bool) -> None:
    # Seat 1 commits to one seed and plays another, consistently: every proof checks and
    # every slot opens to its card; the audit, with the committed seed opened, names it.
    from p2p.deck.keys import DeckKeys
    from p2p.deck.messages import KeyOpening

    table = LoopbackTable("audit", 3, 16)
    table.commit_all()
    committed = table.keys[1]
    table.decks[1]._keys = DeckKeys.generate()
    table.build()
    assert sorted(table.reveal(slot).card for slot in range(16)) == list(range(16))
    opened = openings(table)
    salt = table.decks[1]._own_commitment[1].salt  # type: ignore[index]
    opened[1] = KeyOpening(1, committed.seed, salt).to_dict()
    with pytest.raises(StepMismatch) as info:
        audit_deck("audit", 3, 16, table.decks[0].public_transcript, opened,
                   recompute_proven=recompute_proven)
    assert info.value.seat == 1
