"""Chaum-Pedersen (DLEQ) proofs, non-interactive by Fiat-Shamir, on the Ed25519 group.

A statement is a list of instances (G_i, H_i, P_i, Q_i); the prover knows scalars u_i with
P_i = u_i * G_i and Q_i = u_i * H_i for every i ("the same secret links G_i to P_i and H_i
to Q_i"). All instances share one challenge (the AND of Chaum-Pedersen proofs, Cramer,
Damgard and Schoenmakers 1994), so a proof of m instances is m + 1 scalars:

    nonces      a_i = hash_to_scalar(NONCE_TAG, u_i || u32(i) || SHA-512(header || statement))
    commitments A_i = a_i * G_i,  B_i = a_i * H_i
    challenge   e   = hash_to_scalar(CHALLENGE_TAG, header || statement || A_0 || B_0 || ...)
    responses   s_i = a_i + e * u_i  (mod L)
    proof       [e, s_0, s_1, ...]

and the verifier recomputes A_i = s_i * G_i - e * P_i, B_i = s_i * H_i - e * Q_i and the
challenge. ``header`` binds the game, the author, the kind of step and its context (see
``transcript_header``); ``statement`` is every instance's four points in order. A proof is
therefore valid for one message of one author in one game only. The nonces are derived, not
drawn (as EdDSA does), so producing a message twice gives the same bytes; each nonce hashes
the whole statement, so two different statements never share a nonce.

Soundness: a proof that verifies for an instance that is not a DLEQ tuple needs the one
challenge that fits it, probability 1 / L per hash query (random oracle; special soundness
of each Chaum-Pedersen proof). Zero knowledge:
the responses are simulatable (honest-verifier ZK in the random-oracle model), so a proof
reveals nothing about u_i beyond the statement.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from nacl import bindings as sodium
from nacl import exceptions as sodium_errors

from engine.canonical import canonical_json
from p2p.crypto.group import InvalidPoint, hash_to_scalar, scalar_mul
from p2p.crypto.parallel import products, sums_of_products

NONCE_TAG = b"solstice/deck/dleq-nonce/v1\x00"
CHALLENGE_TAG = b"solstice/deck/dleq-challenge/v1\x00"
HEADER_DOMAIN = "solstice/deck/dleq/v1"

#: How many verified proofs a process remembers (0: none). Several peers of one process (a
#: loopback table, the tests) and a verifier replaying transcripts in the process that played
#: them check the same proofs again; checking is a pure function of (header, statement,
#: proof), so a proof found valid once is not recomputed. Benchmarks set 0 to price what one
#: peer of a LAN game, alone in its process, pays.
CACHE_SIZE = 4096
_verified: OrderedDict[bytes, None] = OrderedDict()


class ProofInvalid(ValueError):
    """The proof does not verify (the caller names the author of the message)."""


@dataclass(frozen=True)
class Instance:
    """One DLEQ tuple: P = u*G and Q = u*H for the prover's secret u."""

    g: bytes
    h: bytes
    p: bytes
    q: bytes


def transcript_header(game_id: str, seat: int, kind: str, context: object) -> bytes:
    """What every proof hashes first: canonical JSON of
    ``["solstice/deck/dleq/v1", game_id, seat, kind, context]``, prefixed by its length as 4
    bytes big-endian."""
    body = canonical_json([HEADER_DOMAIN, game_id, seat, kind, context])
    return len(body).to_bytes(4, "big") + body


def _statement(instances: Sequence[Instance]) -> bytes:
    return len(instances).to_bytes(4, "big") + b"".join(
        i.g + i.h + i.p + i.q for i in instances)


def _challenge(header: bytes, statement: bytes, commitments: Sequence[bytes]) -> bytes:
    return hash_to_scalar(CHALLENGE_TAG, header + statement + b"".join(commitments))


def prove(header: bytes, instances: Sequence[Instance], secrets: Sequence[bytes]) -> list[bytes]:
    """The proof [e, s_0, ...] that each instance i is a DLEQ tuple under ``secrets[i]``."""
    if len(instances) != len(secrets) or not instances:
        raise ValueError("one secret per instance, at least one instance")
    statement = _statement(instances)
    digest = hashlib.sha512(header + statement).digest()
    nonces = [hash_to_scalar(NONCE_TAG, u + index.to_bytes(4, "big") + digest)
              for index, u in enumerate(secrets)]
    commitments = products([term for a, instance in zip(nonces, instances, strict=True)
                            for term in ((a, instance.g), (a, instance.h))])
    e = _challenge(header, statement, commitments)
    responses = [sodium.crypto_core_ed25519_scalar_add(a, scalar_mul(e, u))
                 for a, u in zip(nonces, secrets, strict=True)]
    # s = 0 would need a nonce equal to -e*u: probability 1/L; refused by verify, so say so.
    if not all(any(s) for s in responses):  # pragma: no cover
        raise AssertionError("a DLEQ response is zero")
    return [e, *responses]


def verify(header: bytes, instances: Sequence[Instance], proof: Sequence[bytes]) -> None:
    """Raise ProofInvalid unless ``proof`` proves every instance under ``header``.

    The proof's scalars must already be canonical and non-zero (``group.check_scalar``; the
    message parser does it). A point off the prime-order group in an instance makes the proof
    invalid too (libsodium refuses it inside the multiplication); the caller decides whose
    point it was.
    """
    if len(proof) != len(instances) + 1:
        raise ProofInvalid(f"a proof of {len(instances)} instances has "
                           f"{len(instances) + 1} scalars, not {len(proof)}")
    statement = _statement(instances)
    seen = hashlib.sha512(len(header).to_bytes(4, "big") + header + statement
                          + b"".join(proof)).digest()
    if seen in _verified:
        _verified.move_to_end(seen)
        return
    e, responses = proof[0], proof[1:]
    minus_e = sodium.crypto_core_ed25519_scalar_negate(e)
    try:  # A_i = s_i*G_i - e*P_i and B_i = s_i*H_i - e*Q_i
        commitments = sums_of_products([
            sum_ for s, instance in zip(responses, instances, strict=True)
            for sum_ in (((s, instance.g), (minus_e, instance.p)),
                         ((s, instance.h), (minus_e, instance.q)))])
    except InvalidPoint as exc:
        raise ProofInvalid(f"a point of the statement is not in the group: {exc}") from None
    if _challenge(header, statement, commitments) != e:
        raise ProofInvalid("the challenge does not match: the proof is not for this statement")
    if CACHE_SIZE > 0:
        _verified[seen] = None
        while len(_verified) > CACHE_SIZE:
            _verified.popitem(last=False)


def point_sum(points: Sequence[bytes]) -> bytes:
    """P_0 + P_1 + ... (libsodium's point addition; refuses a point not on the curve).

    A shuffle's outputs sum to its key times the inputs' sum whatever the permutation, which
    is what the shuffle's DLEQ proves."""
    total = points[0]
    try:
        for point in points[1:]:
            total = sodium.crypto_core_ed25519_add(total, point)
    except (sodium_errors.RuntimeError, sodium_errors.TypeError) as exc:
        raise InvalidPoint("libsodium refused a point in a sum") from exc
    return total
