"""The shuffle argument (issue 42): a deck shuffle proves on arrival that its points are a
permutation of its inputs under the author's committed key, so a substitution that keeps the
points' sum, another permutation than the proven one or a proof made for other inputs is
refused at once, naming the author, live and in a keyless replay (``solstice verify``). No
test here opens a deck seed.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from nacl import bindings as sodium

from p2p.crypto import shuffle_proof
from p2p.crypto.group import L, hash_to_point, hash_to_scalar, mul, mul_base
from p2p.crypto.shuffle_proof import ShuffleProofInvalid, proof_length, prove, verify
from p2p.deck.audit import audit_deck
from p2p.deck.loopback import LoopbackTable
from p2p.deck.proving import shuffle_header
from p2p.errors import MalformedMessage, ProofFailed

ORDER_8 = bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05")


def scalar(label: str) -> bytes:
    return hash_to_scalar(b"test/shuffle\x00", label.encode())


def point(label: str) -> bytes:
    return hash_to_point(b"test/shuffle\x00", label.encode())


HEADER = shuffle_header("game-a", 1, 0)


def shuffle_of(m: int, seed: int = 0) -> dict[str, Any]:
    rng = random.Random(seed)
    inputs = [point(f"in{seed}-{i}") for i in range(m)]
    x = scalar(f"x{seed}")
    base = mul_base(scalar(f"y{seed}"))
    permutation = list(range(m))
    rng.shuffle(permutation)
    outputs = [mul(x, inputs[j]) for j in permutation]
    return {"base": base, "key": mul(x, base), "inputs": inputs, "outputs": outputs, "x": x,
            "permutation": permutation}


def argued(s: dict[str, Any], header: bytes = HEADER) -> list[bytes]:
    return prove(header, s["base"], s["key"], s["inputs"], s["outputs"], s["x"],
                 s["permutation"])


def check(s: dict[str, Any], proof: list[bytes], header: bytes = HEADER) -> None:
    verify(header, s["base"], s["key"], s["inputs"], s["outputs"], proof)


@pytest.mark.parametrize("m", [1, 2, 5])
def test_an_honest_shuffle_proves_and_the_proof_is_reproducible(m: int) -> None:
    s = shuffle_of(m)
    proof = argued(s)
    assert len(proof) == proof_length(m)
    check(s, proof)
    assert argued(s) == proof


@pytest.mark.parametrize("other", [
    shuffle_header("game-b", 1, 0), shuffle_header("game-a", 2, 0),
    shuffle_header("game-a", 1, 1),
    shuffle_proof.transcript_header("game-a", 1, "deck/rekey", {"batch": 0}),
], ids=["game", "author", "batch", "stage"])
def test_an_argument_does_not_check_under_another_header(other: bytes) -> None:
    s = shuffle_of(4)
    with pytest.raises(ShuffleProofInvalid):
        check(s, argued(s), other)


def test_a_substitution_that_keeps_the_sum_cannot_be_proven() -> None:
    s = shuffle_of(4)
    d = point("shift")
    outputs = list(s["outputs"])
    outputs[0] = sodium.crypto_core_ed25519_add(outputs[0], d)
    outputs[1] = sodium.crypto_core_ed25519_sub(outputs[1], d)
    forged = {**s, "outputs": outputs}
    for proof in (argued(s), argued(forged)):  # the honest proof, or one made over them
        with pytest.raises(ShuffleProofInvalid):
            check(forged, proof)


def test_another_permutation_than_the_proven_one_fails() -> None:
    s = shuffle_of(4)
    proof = argued(s)
    swapped = list(s["outputs"])
    swapped[0], swapped[3] = swapped[3], swapped[0]
    with pytest.raises(ShuffleProofInvalid):  # the outputs in another order
        check({**s, "outputs": swapped}, proof)
    wrong = list(reversed(s["permutation"]))
    with pytest.raises(ShuffleProofInvalid):  # a proof made claiming another permutation
        check(s, argued({**s, "permutation": wrong}))


def test_outputs_under_another_scalar_than_the_key_fail() -> None:
    s = shuffle_of(3)
    other = scalar("other x")
    outputs = [mul(other, s["inputs"][j]) for j in s["permutation"]]
    forged = {**s, "outputs": outputs}
    for x in (s["x"], other):
        with pytest.raises(ShuffleProofInvalid):
            check(forged, argued({**forged, "x": x}))


def test_a_card_swapped_for_another_under_the_right_key_fails() -> None:
    s = shuffle_of(3)
    outputs = list(s["outputs"])
    outputs[1] = mul(s["x"], point("a card not in the batch"))
    forged = {**s, "outputs": outputs}
    with pytest.raises(ShuffleProofInvalid):
        check(forged, argued(forged))


def test_a_proof_over_other_inputs_or_another_key_fails() -> None:
    s = shuffle_of(3)
    proof = argued(s)
    with pytest.raises(ShuffleProofInvalid):
        check({**s, "inputs": [point("other"), *s["inputs"][1:]]}, proof)
    with pytest.raises(ShuffleProofInvalid):
        check({**s, "key": mul_base(scalar("other key"))}, proof)
    with pytest.raises(ShuffleProofInvalid):
        check({**s, "base": mul_base(scalar("other base"))}, proof)


def test_every_entry_of_the_argument_is_bound() -> None:
    s = shuffle_of(3)
    proof = argued(s)
    m = 3
    for index in range(len(proof)):
        forged = list(proof)
        if index < 2 * m:  # a point: another group element
            forged[index] = point(f"replacement {index}")
        else:
            value = (int.from_bytes(proof[index], "little") + 1) % L
            forged[index] = value.to_bytes(32, "little")
        with pytest.raises(ShuffleProofInvalid):
            check(s, forged)
    for i, j in ((0, 1), (m, m + 1), (2 * m + 5, 2 * m + 6)):  # c, C^, s^ exchanged
        forged = list(proof)
        forged[i], forged[j] = forged[j], forged[i]
        with pytest.raises(ShuffleProofInvalid):
            check(s, forged)


def test_an_argument_of_another_size_or_with_a_point_off_the_group_fails() -> None:
    s = shuffle_of(3)
    proof = argued(s)
    with pytest.raises(ShuffleProofInvalid):
        check(s, proof[:-1])
    with pytest.raises(ShuffleProofInvalid):
        check(s, argued(shuffle_of(2)))
    # c_0 plus a point of order 8: canonical, not small order, not in the prime-order group.
    off = sodium.crypto_core_ed25519_add(proof[0], ORDER_8)
    with pytest.raises(ShuffleProofInvalid):
        check(s, [off, *proof[1:]])


def test_a_remembered_valid_argument_makes_no_other_valid(monkeypatch) -> None:
    monkeypatch.setattr(shuffle_proof, "_verified", type(shuffle_proof._verified)())
    s = shuffle_of(3)
    proof = argued(s)
    check(s, proof)
    check(s, proof)
    swapped = list(s["outputs"])
    swapped[0], swapped[1] = swapped[1], swapped[0]
    with pytest.raises(ShuffleProofInvalid):
        check({**s, "outputs": swapped}, proof)


# ---- a deck's shuffle: refused on arrival, naming its author -------------------------------


def build_to_shuffle(table: LoopbackTable, seat: int) -> dict[str, Any]:
    while True:
        turn = next(deck.turn for deck in table.decks)
        assert turn is not None
        message = getattr(table.decks[turn.seat], turn.step)()
        if (turn.step, turn.seat) == ("shuffle", seat):
            return message
        table.broadcast(turn.seat, message)


def refused_everywhere(table: LoopbackTable, forged: dict[str, Any], error: type) -> None:
    """Every other seat refuses ``forged`` from seat 1, and so does a keyless replay."""
    for receiver in (0, 2):
        with pytest.raises(error) as live:
            table.decks[receiver].receive(1, forged)
        assert live.value.seat == 1
    with pytest.raises(error) as offline:
        audit_deck(table.game_id, 3, 16, [*table.decks[0].public_transcript, (1, forged)], {})
    assert offline.value.seat == 1


def fresh() -> tuple[LoopbackTable, dict[str, Any]]:
    table = LoopbackTable("argue", 3, 16)
    table.commit_all()
    return table, build_to_shuffle(table, 1)


def test_a_same_sum_substitution_in_a_deck_shuffle_is_named_at_once() -> None:
    table, message = fresh()
    points = [bytes.fromhex(p) for p in message["points"]]
    d = point("deck shift")
    points[2] = sodium.crypto_core_ed25519_add(points[2], d)
    points[5] = sodium.crypto_core_ed25519_sub(points[5], d)
    refused_everywhere(table, message | {"points": [p.hex() for p in points]}, ProofFailed)


def test_a_deck_shuffle_with_outputs_exchanged_is_named_at_once() -> None:
    table, message = fresh()
    points = list(message["points"])
    points[0], points[1] = points[1], points[0]
    refused_everywhere(table, message | {"points": points}, ProofFailed)


def test_a_shuffle_proven_over_other_inputs_is_named_at_once() -> None:
    # Seat 1 shuffles the bare card points (skipping seat 0's layer) and proves that honestly:
    # a valid argument, but over other inputs than the layer before it.
    table, message = fresh()
    keys = table.keys[1]
    x, permutation = keys.shuffle_key(0), keys.permutation(0, 16)
    cards = table.decks[0]._card_points
    outputs = [mul(x, cards[j]) for j in permutation]
    key = bytes.fromhex(message["key"])
    base = bytes.fromhex("58" + "66" * 31)
    proof = prove(shuffle_header("argue", 1, 0), base, key, list(cards), outputs, x,
                  permutation)
    refused_everywhere(table, message | {"points": [p.hex() for p in outputs],
                                         "proof": [p.hex() for p in proof]}, ProofFailed)


def test_a_shuffle_argument_copied_from_another_stage_or_game_is_named() -> None:
    table, message = fresh()
    # The same seat's argument for batch 0 of another game (same seed, same layer shape).
    other = LoopbackTable("argue-other", 3, 16, keys=table.keys)
    other.commit_all()
    theirs = build_to_shuffle(other, 1)
    refused_everywhere(table, message | {"proof": theirs["proof"]}, ProofFailed)
    # Seat 0's argument of this batch (another author, another stage of the batch).
    table2 = LoopbackTable("argue", 3, 16, keys=table.keys)
    table2.commit_all()
    first = table2.decks[0].shuffle()
    refused_everywhere(table, message | {"proof": first["proof"]}, ProofFailed)


def smaller(proof: list[str], m: int) -> list[str]:
    """A well-formed argument of m - 1 points: each of its per-point lists one shorter."""
    c, chain, head = proof[:m - 1], proof[m:2 * m - 1], proof[2 * m:2 * m + 5]
    s_hat, s_out = proof[2 * m + 5:3 * m + 4], proof[3 * m + 5:4 * m + 4]
    return [*c, *chain, *head, *s_hat, *s_out]


@pytest.mark.parametrize("what, edit, error", [
    ("a point not canonical", lambda p: [(b"\xff" * 31 + b"\x7f").hex(), *p[1:]],
     MalformedMessage),
    ("a point of order 8", lambda p: [ORDER_8.hex(), *p[1:]], MalformedMessage),
    ("a point off the group", lambda p: [
        sodium.crypto_core_ed25519_add(bytes.fromhex(p[0]), ORDER_8).hex(), *p[1:]],
     ProofFailed),
    ("the argument of a smaller batch", lambda p: smaller(p, 16), ProofFailed),
    ("a length no argument has", lambda p: p[:-1], MalformedMessage),
    ("a zero scalar", lambda p: [*p[:-1], bytes(32).hex()], MalformedMessage),
    ("an unreduced scalar", lambda p: [*p[:-1], L.to_bytes(32, "little").hex()],
     MalformedMessage),
    ("a scalar where a point goes", lambda p: [p[-1], *p[1:]], ProofFailed),
], ids=lambda v: v if isinstance(v, str) else "")
def test_a_malformed_shuffle_argument_names_its_author(what: str, edit: Any,
                                                       error: type) -> None:
    table, message = fresh()
    refused_everywhere(table, message | {"proof": edit(list(message["proof"]))}, error)
