"""A verifiable exponentiation shuffle: Y_i = x * X_pi(i) for a secret permutation pi and a
secret scalar x with W = x * T public, proven without revealing pi or x.

This is the proof of a shuffle of Terelius and Wikstroem ("Proofs of restricted shuffles",
AFRICACRYPT 2010; Wikstroem, "A commitment-consistent proof of a shuffle", ACISP 2009), in
the form of Haenni, Locher, Koenig and Dubuis ("Pseudo-code algorithms for verifiable
re-encryption mix-nets", FC 2017 workshops, algorithms 8.4 and 8.5), with its re-encryption
relation replaced by the common exponent of an SRA-style shuffle. Additive notation, B the
base point, H and H_0 .. H_{m-1} independent generators (``generators``; hash_to_point, so
nobody knows a discrete log between them):

prover, for m inputs X_j and outputs Y_i = x * X_pi(i):

1. permutation commitment: c_j = r_j*B + H_{pi^-1(j)} for each input j (column j of the
   permutation matrix, committed);
2. weights u_j = hash_to_scalar(WEIGHT_TAG, D || u32(j)), D = SHA-512(header || statement ||
   c_0 || ... || c_{m-1}); the permuted weights u'_i = u_pi(i);
3. a commitment chain to the product of the u'_i: C^_{-1} = H, C^_i = r^_i*B + u'_i*C^_{i-1};
4. nonces w_1 .. w_4, w^_i, w'_i; t_1 = w_1*B, t_2 = w_2*B, t_3 = w_3*B + sum w'_i*H_i,
   t_4 = sum w'_i*Y_i - w_4*Xbar (Xbar = sum u_j*X_j), t_5 = w_4*T,
   t^_i = w^_i*B + w'_i*C^_{i-1};
5. challenge e = hash_to_scalar(CHALLENGE_TAG, header || statement || c's || C^'s || t_1
   .. t_5 || t^_0 .. t^_{m-1});
6. responses s_1 = w_1 + e*sum r_j, s_2 = w_2 + e*R^ (C^_{m-1} = R^*B + prod(u)*H),
   s_3 = w_3 + e*sum u_j*r_j, s_4 = w_4 + e*x, s^_i = w^_i + e*r^_i, s'_i = w'_i + e*u'_i.

The verifier recomputes every t from the responses and checks the challenge:
t_1 = s_1*B - e*(sum c_j - sum H_i), t_2 = s_2*B - e*(C^_{m-1} - prod(u)*H),
t_3 = s_3*B + sum s'_i*H_i - e*sum u_j*c_j, t_4 = sum s'_i*Y_i - s_4*Xbar,
t_5 = s_4*T - e*W, t^_i = s^_i*B + s'_i*C^_{i-1} - e*C^_i.

Why it is sound (the argument of Terelius and Wikstroem): t_1 proves the committed matrix has
column sums 1 (its commitments add up to sum H_i); t_3 proves the prover knows the vector
u' the matrix makes of u, and t_2 with the chain that prod u'_i = prod u_j; a matrix with
both properties that is not a permutation matrix passes for a random u with probability at
most m/L (Schwartz-Zippel), unless the prover knows a discrete-log relation between B, H,
H_i. Then t_4 and t_5 prove sum u_pi(i)*Y_i = x*sum u_j*X_j for the x of W = x*T, which
for a random u means Y_i = x*X_pi(i) for every i, except with probability about 1/L. With
Fiat-Shamir (random oracle) a cheating prover needs about L/(m*q) hash queries q. The
protocol is honest-verifier zero knowledge: it reveals nothing about pi or x.

Cost: to prove 3m + 3 fixed-base and 4m + 1 variable-base multiplications (t_4 from the
outputs: the prover knows Xbar = x^-1 * sum u'_i*Y_i); to check m + 3 fixed-base and
6m + 7 variable-base, against 1 variable-base per card for the shuffle itself. All but a
handful of them are independent of each other and run on every core (``parallel``).
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Sequence
from functools import lru_cache

from nacl import bindings as sodium
from nacl import exceptions as sodium_errors

from engine.canonical import canonical_json
from p2p.crypto.group import InvalidPoint, hash_to_point, hash_to_scalar, mul, mul_base
from p2p.crypto.parallel import products, sums_of_products

HEADER_DOMAIN = "solstice/deck/shuffle-argument/v1"
GENERATOR_TAG = b"solstice/deck/shuffle-generator/v1\x00"
WEIGHT_TAG = b"solstice/deck/shuffle-weight/v1\x00"
CHALLENGE_TAG = b"solstice/deck/shuffle-challenge/v1\x00"
NONCE_TAG = b"solstice/deck/shuffle-nonce/v1\x00"

#: How many verified arguments a process remembers (see ``proofs.CACHE_SIZE``).
CACHE_SIZE = 512
_verified: OrderedDict[bytes, None] = OrderedDict()


class ShuffleProofInvalid(ValueError):
    """The argument does not verify (the caller names the author of the shuffle)."""


def proof_length(m: int) -> int:
    """2m points (c_j, C^_i) then 2m + 5 scalars (e, s_1 .. s_4, s^_i, s'_i)."""
    return 4 * m + 5


def points_in_proof(m: int) -> int:
    return 2 * m


def transcript_header(game_id: str, seat: int, kind: str, context: object) -> bytes:
    """``u32(len(J)) || J``, J the canonical JSON of
    ``["solstice/deck/shuffle-argument/v1", game_id, seat, kind, context]``."""
    body = canonical_json([HEADER_DOMAIN, game_id, seat, kind, context])
    return len(body).to_bytes(4, "big") + body


@lru_cache(maxsize=8)
def generators(m: int) -> tuple[bytes, tuple[bytes, ...], bytes]:
    """(H, (H_0 .. H_{m-1}), H_0 + ... + H_{m-1}): H = hash_to_point(GENERATOR_TAG, b"h"),
    H_i = hash_to_point(GENERATOR_TAG, b"g" || u32(i))."""
    h = hash_to_point(GENERATOR_TAG, b"h")
    hs = tuple(hash_to_point(GENERATOR_TAG, b"g" + i.to_bytes(4, "big")) for i in range(m))
    return h, hs, _sum(hs)


def _statement(base: bytes, key: bytes, inputs: Sequence[bytes],
               outputs: Sequence[bytes]) -> bytes:
    return (len(inputs).to_bytes(4, "big") + base + key + b"".join(inputs)
            + b"".join(outputs))


def _add(a: bytes, b: bytes) -> bytes:
    try:
        return sodium.crypto_core_ed25519_add(a, b)
    except (sodium_errors.RuntimeError, sodium_errors.TypeError) as exc:
        raise InvalidPoint("libsodium refused a point in a sum") from exc


def _sub(a: bytes, b: bytes) -> bytes:
    try:
        return sodium.crypto_core_ed25519_sub(a, b)
    except (sodium_errors.RuntimeError, sodium_errors.TypeError) as exc:
        raise InvalidPoint("libsodium refused a point in a difference") from exc


def _sum(points: Sequence[bytes]) -> bytes:
    total = points[0]
    for point in points[1:]:
        total = _add(total, point)
    return total


def _sadd(a: bytes, b: bytes) -> bytes:
    return sodium.crypto_core_ed25519_scalar_add(a, b)


def _smul(a: bytes, b: bytes) -> bytes:
    return sodium.crypto_core_ed25519_scalar_mul(a, b)


def _weights(header: bytes, statement: bytes, commitments: Sequence[bytes]) -> list[bytes]:
    digest = hashlib.sha512(header + statement + b"".join(commitments)).digest()
    return [hash_to_scalar(WEIGHT_TAG, digest + j.to_bytes(4, "big"))
            for j in range(len(commitments))]


def _challenge(header: bytes, statement: bytes, commitments: Sequence[bytes],
               chain: Sequence[bytes], ts: Sequence[bytes], t_hats: Sequence[bytes]) -> bytes:
    return hash_to_scalar(CHALLENGE_TAG, header + statement + b"".join(commitments)
                          + b"".join(chain) + b"".join(ts) + b"".join(t_hats))


def prove(header: bytes, base: bytes, key: bytes, inputs: Sequence[bytes],
          outputs: Sequence[bytes], x: bytes, permutation: Sequence[int]) -> list[bytes]:
    """The argument that ``outputs[i] == x * inputs[permutation[i]]`` and ``key == x * base``.

    Nonces and commitment randomness are derived from the secrets and the statement (as
    EdDSA's), so the same shuffle gives the same bytes and two statements share nothing."""
    m = len(inputs)
    if m == 0 or len(outputs) != m or sorted(permutation) != list(range(m)):
        raise ValueError("a shuffle argument needs m >= 1 outputs and a permutation of m")
    h, hs, _ = generators(m)
    statement = _statement(base, key, inputs, outputs)
    secret = hashlib.sha512(
        NONCE_TAG + x + b"".join(p.to_bytes(4, "big") for p in permutation)
        + hashlib.sha512(header + statement).digest()).digest()

    def nonce(label: bytes, i: int = 0) -> bytes:
        return hash_to_scalar(NONCE_TAG, secret + label + i.to_bytes(4, "big"))

    inverse = [0] * m
    for i, j in enumerate(permutation):
        inverse[j] = i
    r = [nonce(b"r", j) for j in range(m)]
    commitments = [_add(point, hs[inverse[j]])
                   for j, point in enumerate(products([(r_j, None) for r_j in r]))]
    u = _weights(header, statement, commitments)
    u_out = [u[permutation[i]] for i in range(m)]
    r_hat = [nonce(b"r^", i) for i in range(m)]
    # C^_i = r^_i*B + u'_i*C^_{i-1} = R_i*B + U_i*H with the scalars R_i = r^_i + u'_i*R_{i-1}
    # and U_i = u'_0*...*u'_i: the same points, from 2m independent products instead of a
    # chain of m multiplications each waiting for the one before.
    r_parts: list[bytes] = []
    h_parts: list[bytes] = []
    r_part, h_part = bytes(32), b"\x01" + bytes(31)
    for i in range(m):
        r_part = _sadd(r_hat[i], _smul(u_out[i], r_part))
        h_part = _smul(u_out[i], h_part)
        r_parts.append(r_part)
        h_parts.append(h_part)
    chain = sums_of_products([[(r_parts[i], None), (h_parts[i], h)] for i in range(m)])
    w = [nonce(b"w", k) for k in range(4)]
    w_hat = [nonce(b"w^", i) for i in range(m)]
    w_out = [nonce(b"w'", i) for i in range(m)]
    # t_4 = sum w'_i*Y_i - w_4*Xbar, with Xbar = x^-1 * sum u'_i*Y_i (the prover knows x):
    # m multiplications instead of 2m + 1, and the same point.
    w4_over_x = _smul(w[3], sodium.crypto_core_ed25519_scalar_invert(x))
    t1, t2, t3, t4, t5, *t_hats = sums_of_products([
        [(w[0], None)],
        [(w[1], None)],
        [(w[2], None), *zip(w_out, hs, strict=True)],
        [(sodium.crypto_core_ed25519_scalar_sub(w_out[i], _smul(w4_over_x, u_out[i])),
          outputs[i]) for i in range(m)],
        [(w[3], base)],
        *[[(w_hat[i], None), (w_out[i], h if i == 0 else chain[i - 1])] for i in range(m)]])
    ts = [t1, t2, t3, t4, t5]
    e = _challenge(header, statement, commitments, chain, ts, t_hats)
    r_hat_total = r_parts[-1]  # R^: the B part of C^_{m-1}
    r_sum, r_weighted = bytes(32), bytes(32)
    for j in range(m):
        r_sum = _sadd(r_sum, r[j])
        r_weighted = _sadd(r_weighted, _smul(u[j], r[j]))
    responses = [_sadd(w[0], _smul(e, r_sum)), _sadd(w[1], _smul(e, r_hat_total)),
                 _sadd(w[2], _smul(e, r_weighted)), _sadd(w[3], _smul(e, x))]
    responses += [_sadd(w_hat[i], _smul(e, r_hat[i])) for i in range(m)]
    responses += [_sadd(w_out[i], _smul(e, u_out[i])) for i in range(m)]
    # A zero scalar has probability about (2m + 5)/L; the wire refuses it, so say so.
    if not all(any(s) for s in [e, *responses]):  # pragma: no cover
        raise AssertionError("a shuffle-argument scalar is zero")
    return [*commitments, *chain, e, *responses]


def verify(header: bytes, base: bytes, key: bytes, inputs: Sequence[bytes],
           outputs: Sequence[bytes], proof: Sequence[bytes]) -> None:
    """Raise ShuffleProofInvalid unless ``proof`` proves that ``outputs`` is a permutation of
    ``inputs`` times the x of ``key = x * base``.

    The proof's points must already pass the encoding checks and its scalars be canonical and
    non-zero (the message parser does both); a point off the prime-order group anywhere
    (statement or proof) makes the proof invalid: libsodium refuses it in a multiplication,
    and every point is multiplied at least once."""
    m = len(inputs)
    if len(outputs) != m or len(proof) != proof_length(m) or m == 0:
        raise ShuffleProofInvalid(f"a shuffle argument over {m} points has "
                                  f"{proof_length(m)} entries, not {len(proof)}")
    statement = _statement(base, key, inputs, outputs)
    seen = hashlib.sha512(len(header).to_bytes(4, "big") + header + statement
                          + b"".join(proof)).digest()
    if seen in _verified:
        _verified.move_to_end(seen)
        return
    commitments, chain = list(proof[:m]), list(proof[m:2 * m])
    e, s = proof[2 * m], list(proof[2 * m + 1:])
    s_hat, s_out = s[4:4 + m], s[4 + m:]
    h, hs, h_sum = generators(m)
    u = _weights(header, statement, commitments)
    minus_e = sodium.crypto_core_ed25519_scalar_negate(e)
    try:
        u_product = u[0]
        for weight in u[1:]:
            u_product = _smul(u_product, weight)
        # Every independent product at once (``parallel``): c_weighted checks every c_j is in
        # the group, x_bar every input, the t_4 part every output, the t^ every chain point.
        c_weighted, x_bar, t3_part, t4_part, h_product, t5, *t_hats = sums_of_products([
            [(weight, c) for weight, c in zip(u, commitments, strict=True)],
            [(weight, x) for weight, x in zip(u, inputs, strict=True)],
            [(s[2], None), *zip(s_out, hs, strict=True)],
            list(zip(s_out, outputs, strict=True)),
            [(u_product, h)],
            [(s[3], base), (minus_e, key)],
            *[[(s_hat[i], None), (s_out[i], h if i == 0 else chain[i - 1]),
               (minus_e, chain[i])] for i in range(m)]])
        ts = [
            _add(mul_base(s[0]), _scalar_times(minus_e, _sub(_sum(commitments), h_sum))),
            _add(mul_base(s[1]), _scalar_times(minus_e, _sub(chain[-1], h_product))),
            _sub(t3_part, mul(e, c_weighted)),
            _sub(t4_part, mul(s[3], x_bar)),
            t5,
        ]
    except InvalidPoint as exc:
        raise ShuffleProofInvalid(f"a point is not in the group: {exc}") from None
    if _challenge(header, statement, commitments, chain, ts, t_hats) != e:
        raise ShuffleProofInvalid("the challenge does not match: the outputs are not proven "
                                  "a permutation of the inputs under the key")
    if CACHE_SIZE > 0:
        _verified[seen] = None
        while len(_verified) > CACHE_SIZE:
            _verified.popitem(last=False)


def _scalar_times(scalar: bytes, point: bytes) -> bytes:
    """scalar * point where the point may be the identity (a sum that cancels): then the
    product is the identity too, which libsodium's multiplication refuses to output."""
    if point == IDENTITY:
        return IDENTITY
    return mul(scalar, point)


#: The encoding of the neutral element (y = 1), what ``crypto_core_ed25519_sub`` gives for
#: P - P.
IDENTITY = b"\x01" + bytes(31)
