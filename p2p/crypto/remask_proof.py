"""The proof a re-mask carries: its fresh points hide exactly the cards of its old slots,
permuted, without saying which is which.

Holder h re-masks old slots whose last public points are X_0 .. X_{m-1} (X_j = K_j * P_j,
P_j the card point, K_j the full opening scalar h learnt when the slot was opened to it) and
publishes fresh points F_i = r_i * P_{rho(i)} and keys R_i = r_i * B. The proof has two parts:

1. a common-exponent shuffle: S = c * B and intermediate points W_i = c * X_{rho(i)} with the
   Terelius-Wikstroem argument (``shuffle_proof``) that W is a permutation of X times the c
   of S;
2. a Schnorr proof of knowledge, at each index i, of a_i with F_i = a_i * W_i: h computes
   a_i = r_i * (c * K_{rho(i)})^-1, so a_i * W_i = r_i * P_{rho(i)}, today's fresh point.
   All m proofs share one Fiat-Shamir challenge:

       statement   u32(m) || S || X_0 .. X_{m-1} || W_0 .. W_{m-1} || F_0 .. || R_0 ..
       nonces      n_i = hash_to_scalar(NONCE_TAG, a_i || u32(i) || SHA-512(header || statement))
       commitments A_i = n_i * W_i
       challenge   e = hash_to_scalar(CHALLENGE_TAG, header || statement || A_0 .. A_{m-1})
       responses   z_i = n_i + e * a_i;  proof [e, z_0, .., z_{m-1}]

   and the verifier recomputes A_i = z_i * W_i - e * F_i.

Soundness: W_i = c * X_pi(i) for a permutation pi (the argument), and h knows the discrete log
of F_i to the base W_i (special soundness, random oracle), so F_i is a multiple of the card
point of W_i's old slot. Hiding another card Q there would need the discrete log between two
card points (hash_to_point outputs), so r_i^-1 * F_i is the right card or no card at all, and
the opening names h for the latter (``RemaskFault``). A duplicated card would need two W equal
(a permutation gives none), another order than the argument's a proof at a mismatched index.

Privacy: W is unlinkable to X under DDH (a common-exponent shuffle, like every deck shuffle).
Each a_i is independent, so opening fresh slot i reveals r_i = a_i * c * K_{rho(i)}, which does
not reveal c even to a peer that knows K_{rho(i)} (e.g. the seat that passed the hand). A
re-mask publishing c * X_{rho(i)} as its fresh points and c * K as their opening scalars
would: one opened slot whose K the peer knows gives c, and c * X_j for every j then links
every fresh slot to its old one.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from nacl import bindings as sodium

from p2p.crypto import shuffle_proof
from p2p.crypto.group import InvalidPoint, hash_to_scalar, mul_base, scalar_mul
from p2p.crypto.parallel import products, sums_of_products

NONCE_TAG = b"solstice/deck/remask-nonce/v1\x00"
CHALLENGE_TAG = b"solstice/deck/remask-challenge/v1\x00"
#: The standard base point B of Ed25519 (the base of S = c * B).
BASE_POINT = bytes.fromhex("5866666666666666666666666666666666666666666666666666666666666666")

#: How many verified re-mask proofs a process remembers (see ``proofs.CACHE_SIZE``).
CACHE_SIZE = 512
_verified: OrderedDict[bytes, None] = OrderedDict()


class RemaskProofInvalid(ValueError):
    """The re-mask proof does not verify (the caller names the re-mask's author)."""


@dataclass(frozen=True)
class RemaskProof:
    """What a ``deck/remask`` carries besides its fresh points and keys."""

    key: bytes                     # S = c * B
    shuffled: tuple[bytes, ...]    # W_i = c * X_{rho(i)}
    argument: tuple[bytes, ...]    # shuffle argument X -> W under S (4m + 5 entries)
    proof: tuple[bytes, ...]       # [e, z_0 .. z_{m-1}]: F_i = a_i * W_i


def header(game_id: str, seat: int, first: int, old: Sequence[int]) -> bytes:
    """Both parts' header: ``shuffle_proof.transcript_header`` of (game, author,
    "deck/remask", {"first": first, "old": old})."""
    return shuffle_proof.transcript_header(game_id, seat, "deck/remask",
                                           {"first": first, "old": list(old)})


def _statement(key: bytes, inputs: Sequence[bytes], shuffled: Sequence[bytes],
               outputs: Sequence[bytes], keys: Sequence[bytes]) -> bytes:
    return (len(inputs).to_bytes(4, "big") + key + b"".join(inputs) + b"".join(shuffled)
            + b"".join(outputs) + b"".join(keys))


def _challenge(head: bytes, statement: bytes, commitments: Sequence[bytes]) -> bytes:
    return hash_to_scalar(CHALLENGE_TAG, head + statement + b"".join(commitments))


def prove(head: bytes, inputs: Sequence[bytes], outputs: Sequence[bytes],
          keys: Sequence[bytes], c: bytes, order: Sequence[int],
          factors: Sequence[bytes]) -> RemaskProof:
    """The proof for fresh points ``outputs`` (with keys r_i * B ``keys``) of old points
    ``inputs``: ``outputs[i] == factors[i] * c * inputs[order[i]]``."""
    m = len(inputs)
    if m == 0 or not len(outputs) == len(keys) == len(factors) == m:
        raise ValueError("a re-mask proof needs m >= 1 inputs, outputs, keys and factors")
    key = mul_base(c)
    shuffled = tuple(products([(c, inputs[j]) for j in order]))
    argument = tuple(shuffle_proof.prove(head, BASE_POINT, key, inputs, shuffled, c, order))
    statement = _statement(key, inputs, shuffled, outputs, keys)
    digest = hashlib.sha512(head + statement).digest()
    nonces = [hash_to_scalar(NONCE_TAG, a + i.to_bytes(4, "big") + digest)
              for i, a in enumerate(factors)]
    commitments = products(list(zip(nonces, shuffled, strict=True)))
    e = _challenge(head, statement, commitments)
    responses = [sodium.crypto_core_ed25519_scalar_add(n, scalar_mul(e, a))
                 for n, a in zip(nonces, factors, strict=True)]
    # A zero response has probability 1/L; the wire refuses it, so say so.
    if not all(any(z) for z in responses):  # pragma: no cover
        raise AssertionError("a re-mask proof response is zero")
    return RemaskProof(key, shuffled, argument, (e, *responses))


def verify(head: bytes, inputs: Sequence[bytes], outputs: Sequence[bytes],
           keys: Sequence[bytes], proof: RemaskProof) -> None:
    """Raise RemaskProofInvalid unless ``proof`` proves that each ``outputs[i]`` hides the
    card of ``inputs[pi(i)]`` for a permutation pi.

    Its points must already pass the encoding checks and its scalars be canonical and non-zero
    (the message parser does both). A point off the prime-order group in ``inputs``,
    ``outputs`` or the proof makes it invalid (libsodium refuses it in a multiplication;
    every one is multiplied); the caller decides whose point it was."""
    m = len(inputs)
    if not len(outputs) == len(keys) == len(proof.shuffled) == m or m == 0:
        raise RemaskProofInvalid(f"a re-mask of {m} slots needs {m} fresh points, keys and "
                                 "shuffled points")
    if len(proof.proof) != m + 1:
        raise RemaskProofInvalid(f"a re-mask proof of {m} slots has {m + 1} scalars, not "
                                 f"{len(proof.proof)}")
    statement = _statement(proof.key, inputs, proof.shuffled, outputs, keys)
    seen = hashlib.sha512(len(head).to_bytes(4, "big") + head + statement
                          + b"".join(proof.argument) + b"".join(proof.proof)).digest()
    if seen in _verified:
        _verified.move_to_end(seen)
        return
    e, responses = proof.proof[0], proof.proof[1:]
    minus_e = sodium.crypto_core_ed25519_scalar_negate(e)
    try:  # R_i = z_i*W_i - e*F_i, every product at once (``parallel``)
        commitments = sums_of_products([
            [(z, w), (minus_e, f)]
            for z, w, f in zip(responses, proof.shuffled, outputs, strict=True)])
    except InvalidPoint as exc:
        raise RemaskProofInvalid(f"a point is not in the group: {exc}") from None
    if _challenge(head, statement, commitments) != e:
        raise RemaskProofInvalid("the challenge does not match: a fresh point is not proven "
                                 "to hide the card of its shuffled old point")
    try:
        shuffle_proof.verify(head, BASE_POINT, proof.key, inputs, proof.shuffled,
                             proof.argument)
    except shuffle_proof.ShuffleProofInvalid as exc:
        raise RemaskProofInvalid(f"shuffle of the old points: {exc}") from None
    if CACHE_SIZE > 0:
        _verified[seen] = None
        while len(_verified) > CACHE_SIZE:
            _verified.popitem(last=False)

