"""The re-mask proof (issue 42): a re-mask's fresh points hide exactly the cards of its old
slots, permuted. Each forgery a holder could try is refused by ``verify``: a substituted or
duplicated card, another order than the argument's, a proof made for another slot, stage,
message or game, other inputs, a wrong S, any byte changed, malformed fields."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest
from nacl import bindings as sodium

from p2p.crypto import remask_proof
from p2p.crypto.group import hash_to_point, hash_to_scalar, mul, mul_base, scalar_invert, scalar_mul
from p2p.crypto.remask_proof import RemaskProof, RemaskProofInvalid, header, prove, verify

ORDER_8 = bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05")
HEADER = header("game-a", 1, 16, [0, 1, 2, 3])


def scalar(label: str) -> bytes:
    return hash_to_scalar(b"test/remask\x00", label.encode())


def point(label: str) -> bytes:
    return hash_to_point(b"test/remask\x00", label.encode())


def remask_of(m: int, seed: int = 0, cards: list[bytes] | None = None) -> dict[str, Any]:
    """A holder's honest re-mask of m old slots X_j = K_j * P_j (P_j its card points)."""
    rng = random.Random(seed)
    cards = cards or [point(f"card{seed}-{j}") for j in range(m)]
    opening = [scalar(f"K{seed}-{j}") for j in range(m)]
    inputs = [mul(k, p) for k, p in zip(opening, cards, strict=True)]
    order = list(range(m))
    rng.shuffle(order)
    c = scalar(f"c{seed}")
    r = [scalar(f"r{seed}-{i}") for i in range(m)]
    outputs = [mul(r[i], cards[j]) for i, j in enumerate(order)]
    factors = [scalar_mul(r[i], scalar_invert(scalar_mul(c, opening[j])))
               for i, j in enumerate(order)]
    return {"cards": cards, "opening": opening, "inputs": inputs, "order": order, "c": c,
            "r": r, "outputs": outputs, "keys": [mul_base(x) for x in r], "factors": factors}


def proven(s: dict[str, Any], head: bytes = HEADER) -> RemaskProof:
    return prove(head, s["inputs"], s["outputs"], s["keys"], s["c"], s["order"], s["factors"])


def check(s: dict[str, Any], proof: RemaskProof, head: bytes = HEADER) -> None:
    verify(head, s["inputs"], s["outputs"], s["keys"], proof)


def refused(s: dict[str, Any], proof: RemaskProof, head: bytes = HEADER) -> None:
    remask_proof._verified.clear()  # a cached valid proof must not hide a refusal
    with pytest.raises(RemaskProofInvalid):
        check(s, proof, head)


@pytest.mark.parametrize("m", [1, 2, 5])
def test_an_honest_re_mask_proves_with_todays_fresh_points(m: int) -> None:
    s = remask_of(m, seed=m)
    proof = proven(s)
    check(s, proof)
    assert proof == proven(s)  # derived nonces: the same message gives the same bytes
    assert len(proof.argument) == 4 * m + 5 and len(proof.proof) == m + 1
    for i, j in enumerate(s["order"]):  # a_i * W_i is exactly r_i * P: nothing else moves
        assert proof.shuffled[i] == mul(s["c"], s["inputs"][j])
        assert mul(s["factors"][i], proof.shuffled[i]) == s["outputs"][i]


def test_a_substituted_card_is_refused() -> None:
    s = remask_of(4)
    outside = point("a card the holder saw elsewhere")
    forged = {**s, "outputs": [mul(s["r"][0], outside), *s["outputs"][1:]]}
    refused(forged, proven(forged))  # re-proven with every secret the holder has


def test_a_duplicated_card_is_refused_whatever_factor_the_holder_uses() -> None:
    s = remask_of(4)
    first = s["order"][0]
    outputs = [s["outputs"][0], mul(s["r"][1], s["cards"][first]), *s["outputs"][2:]]
    # the factor that is the true discrete log of the duplicate to W_0, used at index 1
    factors = [s["factors"][0], scalar_mul(s["r"][1], scalar_invert(
        scalar_mul(s["c"], s["opening"][first]))), *s["factors"][2:]]
    forged = {**s, "outputs": outputs, "factors": factors}
    refused(forged, proven(forged))


def test_shuffled_points_with_a_duplicate_are_refused() -> None:
    s = remask_of(3)
    proof = proven(s)
    refused(s, replace(proof, shuffled=(proof.shuffled[0], proof.shuffled[0],
                                        proof.shuffled[2])))


def test_fresh_points_in_another_order_than_the_arguments_are_refused() -> None:
    s = remask_of(4)
    other = {**s, "order": s["order"][1:] + s["order"][:1]}
    proof = proven(other)  # the argument and W for another order
    forged = {**other, "outputs": s["outputs"], "factors": s["factors"]}
    refused(forged, prove(HEADER, forged["inputs"], forged["outputs"], forged["keys"],
                          forged["c"], forged["order"], forged["factors"]))
    refused(s, proof)  # or that argument sent with today's points
    swapped = {**s, "outputs": [s["outputs"][1], s["outputs"][0], *s["outputs"][2:]]}
    refused(swapped, proven(s))  # or two fresh points exchanged after proving


@pytest.mark.parametrize("head", [
    header("game-a", 1, 17, [0, 1, 2, 3]),      # another first slot
    header("game-a", 1, 16, [0, 1, 2, 4]),      # other old slots
    header("game-a", 1, 16, [1, 0, 2, 3]),      # the old slots in another order
    header("game-a", 2, 16, [0, 1, 2, 3]),      # another author
    header("game-b", 1, 16, [0, 1, 2, 3]),      # another game
    remask_proof.shuffle_proof.transcript_header("game-a", 1, "deck/shuffle", {"batch": 0}),
])
def test_a_proof_copied_to_another_slot_stage_author_or_game_is_refused(head: bytes) -> None:
    s = remask_of(4)
    refused(s, proven(s), head)


def test_a_proof_of_another_message_or_other_inputs_is_refused() -> None:
    s, t = remask_of(4, seed=1), remask_of(4, seed=2)
    refused(s, proven(t))
    refused({**s, "inputs": t["inputs"]}, proven(s))
    refused({**s, "keys": t["keys"]}, proven(s))  # the keys r*B are bound too


def test_a_wrong_shuffle_key_is_refused() -> None:
    s = remask_of(3)
    proof = proven(s)
    refused(s, replace(proof, key=mul_base(scalar("another c"))))
    refused(s, replace(proof, key=point("no known c")))


def flip(value: bytes, at: int) -> bytes:
    return value[:at] + bytes([value[at] ^ 0x01]) + value[at + 1:]


def test_flipping_any_byte_of_any_proof_field_is_refused() -> None:
    s = remask_of(2)
    proof = proven(s)
    rng = random.Random(7)
    fields = {"key": [proof.key], "shuffled": list(proof.shuffled),
              "argument": list(proof.argument), "proof": list(proof.proof)}
    for name, values in fields.items():
        for index in range(len(values)):
            for at in (0, 31, rng.randrange(1, 31)):
                changed = list(values)
                changed[index] = flip(values[index], at)
                value: Any = changed[0] if name == "key" else tuple(changed)
                refused(s, replace(proof, **{name: value}))


def test_malformed_lengths_and_off_group_points_are_refused() -> None:
    s = remask_of(3)
    proof = proven(s)
    refused(s, replace(proof, proof=proof.proof[:-1]))
    refused(s, replace(proof, proof=(*proof.proof, proof.proof[1])))
    refused(s, replace(proof, shuffled=proof.shuffled[:-1]))
    refused(s, replace(proof, argument=proof.argument[:-4]))
    torsion = sodium.crypto_core_ed25519_add(proof.shuffled[0], ORDER_8)  # off the subgroup
    refused(s, replace(proof, shuffled=(torsion, *proof.shuffled[1:])))
    refused({**s, "outputs": [sodium.crypto_core_ed25519_add(s["outputs"][0], ORDER_8),
                              *s["outputs"][1:]]}, proof)
    with pytest.raises(ValueError):
        prove(HEADER, s["inputs"], s["outputs"][:-1], s["keys"], s["c"], s["order"],
              s["factors"])
