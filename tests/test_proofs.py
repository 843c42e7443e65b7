"""Deck proofs (issue 42): every forged proof is refused and names its author, at once.

Two levels: the Chaum-Pedersen proofs themselves (``p2p.crypto.proofs``), and each deck layer
message carrying one (``p2p.deck.proving``), received by a peer and by a keyless observer
(what ``solstice verify`` replays). No test here opens a deck seed.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

import pytest

from p2p.crypto.group import L, hash_to_point, hash_to_scalar, mul, mul_base
from p2p.crypto.proofs import Instance, ProofInvalid, prove, transcript_header, verify
from p2p.deck.audit import audit_deck
from p2p.deck.deck import Deck
from p2p.deck.loopback import LoopbackTable
from p2p.errors import CheatDetected, MalformedMessage, ProofFailed

# ---- the proofs themselves -----------------------------------------------------------------


def scalar(label: str) -> bytes:
    return hash_to_scalar(b"test/proofs\x00", label.encode())


def point(label: str) -> bytes:
    return hash_to_point(b"test/proofs\x00", label.encode())


def statement(m: int) -> tuple[list[Instance], list[bytes]]:
    secrets = [scalar(f"u{i}") for i in range(m)]
    instances = []
    for i, u in enumerate(secrets):
        g, h = (mul_base(b"\x01" + bytes(31)) if i == 0 else point(f"g{i}")), point(f"h{i}")
        instances.append(Instance(g, h, mul(u, g), mul(u, h)))
    return instances, secrets


HEADER = transcript_header("game-a", 1, "deck/rekey", {"batch": 0, "first_slot": 0})


def test_an_honest_proof_checks_and_is_reproducible() -> None:
    instances, secrets = statement(4)
    proof = prove(HEADER, instances, secrets)
    assert len(proof) == 5
    verify(HEADER, instances, proof)
    assert prove(HEADER, instances, secrets) == proof  # derived nonces: same bytes twice


@pytest.mark.parametrize("other", [
    transcript_header("game-b", 1, "deck/rekey", {"batch": 0, "first_slot": 0}),  # game
    transcript_header("game-a", 2, "deck/rekey", {"batch": 0, "first_slot": 0}),  # author
    transcript_header("game-a", 1, "deck/blind", {"batch": 0, "first_slot": 0}),  # stage
    transcript_header("game-a", 1, "deck/rekey", {"batch": 1, "first_slot": 0}),  # message
    transcript_header("game-a", 1, "deck/rekey", {"batch": 0, "first_slot": 16}),  # slots
], ids=["game", "author", "stage", "batch", "slots"])
def test_a_proof_does_not_check_under_another_header(other: bytes) -> None:
    instances, secrets = statement(3)
    with pytest.raises(ProofInvalid):
        verify(other, instances, prove(HEADER, instances, secrets))


def test_a_wrong_secret_cannot_prove() -> None:
    # Q_1 made with another scalar than P_1: no proof made with either scalar checks.
    instances, secrets = statement(3)
    bad = Instance(instances[1].g, instances[1].h, instances[1].p,
                   mul(scalar("other"), instances[1].h))
    forged = [instances[0], bad, instances[2]]
    for guess in (secrets, [secrets[0], scalar("other"), secrets[2]]):
        with pytest.raises(ProofInvalid):
            verify(HEADER, forged, prove(HEADER, forged, guess))


def test_a_proof_copied_from_other_instances_or_slots_does_not_check() -> None:
    instances, secrets = statement(3)
    proof = prove(HEADER, instances, secrets)
    swapped = [proof[0], proof[2], proof[1], proof[3]]  # responses of two slots exchanged
    with pytest.raises(ProofInvalid):
        verify(HEADER, instances, swapped)
    reordered = [instances[1], instances[0], instances[2]]  # the statement in another order
    with pytest.raises(ProofInvalid):
        verify(HEADER, reordered, proof)
    with pytest.raises(ProofInvalid, match="scalars"):
        verify(HEADER, instances, proof[:-1])


def test_flipping_any_bit_of_a_proof_breaks_it() -> None:
    instances, secrets = statement(2)
    proof = prove(HEADER, instances, secrets)
    rng = random.Random(42)
    for index in range(len(proof)):
        for _ in range(4):
            raw = bytearray(proof[index])
            raw[rng.randrange(32)] ^= 1 << rng.randrange(8)
            forged = [*proof[:index], bytes(raw), *proof[index + 1:]]
            if int.from_bytes(raw, "little") >= L:
                continue  # not a scalar: the parser refuses it (tested below)
            with pytest.raises(ProofInvalid):
                verify(HEADER, instances, forged)


def test_a_remembered_valid_proof_makes_no_other_proof_valid(monkeypatch) -> None:
    from p2p.crypto import proofs
    monkeypatch.setattr(proofs, "CACHE_SIZE", 2)
    monkeypatch.setattr(proofs, "_verified", proofs.OrderedDict())
    instances, secrets = statement(2)
    proof = prove(HEADER, instances, secrets)
    verify(HEADER, instances, proof)
    verify(HEADER, instances, proof)  # remembered
    other = transcript_header("game-b", 1, "deck/rekey", {"batch": 0, "first_slot": 0})
    with pytest.raises(ProofInvalid):
        verify(other, instances, proof)
    with pytest.raises(ProofInvalid):
        verify(HEADER, instances, [proof[0], proof[2], proof[1]])
    for m in (1, 3, 4):
        more, secret = statement(m)
        verify(HEADER, more, prove(HEADER, more, secret))
    assert len(proofs._verified) == 2  # bounded


# ---- deck layers: refused on arrival, naming the author -----------------------------------

Forge = Callable[[list[str]], list[str]]


def challenge_index(proof: list[str]) -> int:
    """Where the challenge is: first in a DLEQ proof; after the 2m points of a shuffle
    argument (4m + 5 entries), which a DLEQ proof's length (m + 1 >= 2) never equals
    for the batch sizes used here."""
    return (len(proof) - 5) // 2 if len(proof) >= 9 and (len(proof) - 5) % 4 == 0 else 0


def flip_response(proof: list[str]) -> list[str]:
    value = (int.from_bytes(bytes.fromhex(proof[-1]), "little") + 1) % L or 1
    return [*proof[:-1], value.to_bytes(32, "little").hex()]


def swap_first_responses(proof: list[str]) -> list[str]:
    return [proof[0], proof[2], proof[1], *proof[3:]] if len(proof) > 2 else proof[::-1]


FORGERIES: dict[str, Forge] = {
    "wrong response": flip_response,
    "copied from another slot": swap_first_responses,
    "challenge of another proof": lambda p: [
        *p[:challenge_index(p)], scalar("another challenge").hex(), *p[challenge_index(p) + 1:]],
}


def build_to(table: LoopbackTable, kind: str, seat: int) -> dict[str, Any]:
    """Drive the table up to ``seat``'s ``kind`` layer and return it, unsent."""
    while True:
        turn = next(deck.turn for deck in table.decks)
        assert turn is not None, f"no {kind} of seat {seat}"
        message = getattr(table.decks[turn.seat], turn.step)()
        if (turn.step, turn.seat) == (kind, seat):
            return message
        table.broadcast(turn.seat, message)


def fresh_table(kind: str, n_seats: int = 3) -> LoopbackTable:
    if kind == "blind":
        table = LoopbackTable("forge", n_seats, 16)
        table.setup()
        for deck in table.decks:
            deck.begin_batch([0, 1, 2, 3])
        return table
    table = LoopbackTable("forge", n_seats, 16)
    table.commit_all()
    return table


@pytest.mark.parametrize("kind", ["blind", "shuffle", "rekey"])
@pytest.mark.parametrize("forgery", sorted(FORGERIES))
def test_a_forged_layer_proof_names_its_author_live_and_offline(kind: str, forgery: str) -> None:
    table = fresh_table(kind)
    message = build_to(table, kind, 1)
    forged = message | {"proof": FORGERIES[forgery](list(message["proof"]))}
    for receiver in (0, 2):
        with pytest.raises(ProofFailed) as live:
            table.decks[receiver].receive(1, forged)
        assert live.value.seat == 1
        assert live.value.evidence["message"] == forged  # the signed message is the proof
    observer_transcript = [*table.decks[0].public_transcript, (1, forged)]
    with pytest.raises(ProofFailed) as offline:  # a keyless replay, as `solstice verify`
        audit_deck("forge", 3, 16, observer_transcript, {})
    assert offline.value.seat == 1


@pytest.mark.parametrize("kind", ["shuffle", "rekey"])
def test_a_proof_copied_from_another_seats_layer_names_the_copier(kind: str) -> None:
    table = fresh_table(kind)
    honest = build_to(table, kind, 0)
    table.broadcast(0, honest)
    message = build_to(table, kind, 1)
    with pytest.raises(ProofFailed) as info:
        table.decks[2].receive(1, message | {"proof": honest["proof"]})
    assert info.value.seat == 1


def test_a_proof_from_another_game_names_its_author() -> None:
    # The same seeds in two games: the proof of game "forge" for game "other" fails.
    table = fresh_table("rekey")
    other = LoopbackTable("other", 3, 16, keys=table.keys)
    other.commit_all()
    theirs = build_to(other, "shuffle", 1)
    ours = build_to(table, "shuffle", 1)
    with pytest.raises(ProofFailed):
        table.decks[0].receive(1, ours | {"proof": theirs["proof"]})


def test_a_proof_over_other_inputs_names_its_author() -> None:
    # Seat 1's proof is for its true key W; it publishes another W (so that a later re-key
    # would strip a layer other than the one applied): the proof does not check.
    table = fresh_table("shuffle")
    message = build_to(table, "shuffle", 1)
    other_key = mul_base(scalar("not the shuffle key")).hex()
    with pytest.raises(ProofFailed):
        table.decks[0].receive(1, message | {"key": other_key})


@pytest.mark.parametrize("kind", ["blind", "shuffle", "rekey"])
@pytest.mark.parametrize("bad", [
    lambda p: p[:-1],                                  # one scalar short
    lambda p: [*p, p[-1]],                             # one too many
    lambda p: [bytes(32).hex(), *p[1:]],               # a zero scalar
    lambda p: [L.to_bytes(32, "little").hex(), *p[1:]],  # not reduced
    lambda p: [p[0].upper(), *p[1:]],                  # not lowercase hex
    lambda p: [p[0][:-2], *p[1:]],                     # 31 bytes
    lambda p: [7, *p[1:]],                             # not a string
    lambda p: "".join(p),                              # not a list
    lambda p: [],                                      # empty
], ids=["short", "long", "zero", "unreduced", "upper", "31-bytes", "int", "string", "empty"])
def test_a_malformed_proof_names_its_author(kind: str, bad: Callable[[Any], Any]) -> None:
    table = fresh_table(kind)
    message = build_to(table, kind, 2)
    proof = list(message["proof"])
    # A shuffle argument starts with points: put the damage on its first scalar.
    head = proof[:challenge_index(proof)] if kind == "shuffle" else []
    forged = bad(proof[len(head):])
    if isinstance(forged, list):
        forged = [*head, *forged]
    with pytest.raises(MalformedMessage) as info:
        table.decks[0].receive(2, message | {"proof": forged})
    assert info.value.seat == 2


# ---- property: honest games prove; any flipped byte of any proof names its author ----------


def honest_game(n_seats: int, seed: int) -> LoopbackTable:
    """A deck with openings, a re-mask and a hidden reshuffle (blinding layers)."""
    rng = random.Random(seed)
    table = LoopbackTable(f"prop-{seed}", n_seats, 16)
    table.setup()
    for slot in range(2 * n_seats):
        table.open_to(slot, slot % n_seats)
    holder = rng.randrange(n_seats)
    held = [slot for slot in range(2 * n_seats) if slot % n_seats == holder]
    fresh = table.remask(holder, held)
    table.reveal(2 * n_seats)
    table.add_batch([fresh[0], 2 * n_seats, 2 * n_seats + 1])
    return table


@pytest.mark.parametrize("n_seats, seed", [(2, 1), (3, 2), (4, 3)])
def test_every_proof_of_an_honest_game_checks_and_any_flipped_byte_names_its_author(
        n_seats: int, seed: int) -> None:
    table = honest_game(n_seats, seed)
    transcript = table.decks[0].public_transcript
    rng = random.Random(seed)
    observer = Deck(table.game_id, n_seats, 16, seat=None)
    forged_count = 0
    for sender, message in transcript:
        if "proof" in message:
            index = rng.randrange(len(message["proof"]))
            text = message["proof"][index]
            at = rng.randrange(64)
            flipped = text[:at] + format(int(text[at], 16) ^ (1 + rng.randrange(15)), "x") + \
                text[at + 1:]
            proof = [*message["proof"][:index], flipped, *message["proof"][index + 1:]]
            before = copy.deepcopy(observer.public_transcript)
            with pytest.raises(CheatDetected) as info:
                observer.receive(sender, message | {"proof": proof})
            assert info.value.seat == sender
            assert isinstance(info.value, ProofFailed | MalformedMessage)
            assert observer.public_transcript == before  # refused: nothing applied
            forged_count += 1
        observer.receive(sender, message)  # every honest proof checks
    # batch 0: n shuffles, n re-keys; the re-mask; then 3n layers
    assert forged_count == 5 * n_seats + 1


@pytest.mark.slow
@pytest.mark.soak
@pytest.mark.timeout(1800)  # a shuffle argument is 4m + 5 entries, each byte flipped
@pytest.mark.parametrize("n_seats, seed", [(2, 11), (3, 12)])
def test_flipping_each_byte_of_each_proof_names_its_author(n_seats: int, seed: int) -> None:
    """The exhaustive form of the property above (``make soak``): every byte of every proof
    of an honest game, one at a time."""
    table = honest_game(n_seats, seed)
    observer = Deck(table.game_id, n_seats, 16, seat=None)
    for sender, message in table.decks[0].public_transcript:
        for index, text in enumerate(message.get("proof", [])):
            for at in range(0, 64, 2):
                flipped = text[:at] + format(int(text[at:at + 2], 16) ^ 0x5A, "02x") + \
                    text[at + 2:]
                proof = [*message["proof"][:index], flipped, *message["proof"][index + 1:]]
                with pytest.raises((ProofFailed, MalformedMessage)) as info:
                    observer.receive(sender, message | {"proof": proof})
                assert info.value.seat == sender
        observer.receive(sender, message)
