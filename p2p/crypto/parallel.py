"""Many group multiplications at once, spread over the machine's cores.

A proof is mostly independent multiplications: checking a shuffle argument of m points takes
6m + 7 variable-base ones, a DLEQ proof of m instances 4m. libsodium's multiplications and
additions release the GIL (PyNaCl calls them through cffi), so threads run them on every core:
with two cores a proof is checked in a little over half the wall time (the CPU time is the
same). The results do not depend on the number of threads; ``SOLSTICE_CRYPTO_THREADS=1`` runs
everything in the calling thread.

The work is given as sums of products, ``[[(s, P), (t, Q)], [(u, None)]]`` for
``[s*P + t*Q, u*B]``. A product on the base point uses libsodium's fixed-base multiplication
(about a fifth of the cost) and a product that occurs several times is computed once. The
terms are then cut into one contiguous run per thread of about equal cost, each thread adds up
its own part of each sum, and the caller adds the parts.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from nacl import bindings as sodium
from nacl import exceptions as sodium_errors

from p2p.crypto.group import InvalidPoint, mul, mul_base

#: (scalar, point) of one product; the point None is the base point B.
Term = tuple[bytes, bytes | None]

#: A fixed-base multiplication's cost against a variable-base one (libsodium, measured:
#: 18 us against 92 us on the development machine).
BASE_COST = 0.2
#: Below this much work (in variable-base multiplications) handing it to threads costs more
#: than it saves.
MIN_PARALLEL = 6.0


def _threads() -> int:
    configured = os.environ.get("SOLSTICE_CRYPTO_THREADS", "")
    if configured.isdigit() and int(configured) >= 1:
        return min(int(configured), 16)
    return max(1, min(4, os.cpu_count() or 1))


THREADS = _threads()
_pool: tuple[int, ThreadPoolExecutor] | None = None


def _executor() -> ThreadPoolExecutor:
    """The helper threads of this process (made again in a forked child, whose copy of the
    parent's threads does not run)."""
    global _pool
    if _pool is None or _pool[0] != os.getpid():
        _pool = (os.getpid(), ThreadPoolExecutor(max_workers=THREADS - 1,
                                                 thread_name_prefix="solstice-group"))
    return _pool[1]


def _add(a: bytes, b: bytes) -> bytes:
    try:
        return sodium.crypto_core_ed25519_add(a, b)
    except (sodium_errors.RuntimeError, sodium_errors.TypeError) as exc:
        raise InvalidPoint("libsodium refused a point in a sum") from exc


#: The base point's encoding: a term on it is multiplied with the fixed-base tables.
BASE = bytes.fromhex("58" + "66" * 31)
#: The scalar of a term whose point is already the product (a repeated term, computed once).
_DONE = b""


def _product(term: Term) -> bytes:
    scalar, point = term
    if point is None:
        return mul_base(scalar)
    return point if scalar is _DONE else mul(scalar, point)


def _cost(term: Term) -> float:
    return BASE_COST if term[1] is None else 0.15 if term[0] is _DONE else 1.0


def _partial(run: Sequence[tuple[int, Term]]) -> list[tuple[int, bytes]]:
    """Each sum's part in a contiguous run of (sum index, term): [(sum index, part)]."""
    parts: list[tuple[int, bytes]] = []
    for index, term in run:
        product = _product(term)
        if parts and parts[-1][0] == index:
            parts[-1] = (index, _add(parts[-1][1], product))
        else:
            parts.append((index, product))
    return parts


def sums_of_products(sums: Sequence[Sequence[Term]]) -> list[bytes]:
    """``[sum(s * P for s, P in terms) for terms in sums]``, each sum non-empty.

    Raises InvalidPoint when libsodium refuses a point (off the prime-order group) in a
    product or a sum, as ``group.mul`` does."""
    if any(not terms for terms in sums):
        raise ValueError("every sum needs at least one term")
    flat = [(index, (scalar, None if point == BASE else point))
            for index, terms in enumerate(sums) for scalar, point in terms]
    seen: dict[Term, int] = {}
    for _, term in flat:
        seen[term] = seen.get(term, 0) + 1
    repeated = [term for term, count in seen.items() if count > 1 and term[1] is not None]
    if repeated:  # e.g. e*T in every instance of a blinding layer's proof: once is enough
        done = dict(zip(repeated, products(repeated), strict=True))
        flat = [(index, (_DONE, done[term]) if term in done else term)
                for index, term in flat]
    costs = [_cost(term) for _, term in flat]
    total = sum(costs)
    if THREADS == 1 or total < MIN_PARALLEL:
        runs = [flat]
    else:
        share, runs, start, spent = total / THREADS, [], 0, 0.0
        for position, cost in enumerate(costs):
            spent += cost
            if spent >= share * (len(runs) + 1) and len(runs) < THREADS - 1:
                runs.append(flat[start:position + 1])
                start = position + 1
        runs.append(flat[start:])
        runs = [run for run in runs if run]
    if len(runs) == 1:
        parts = _partial(runs[0])
    else:
        futures = [_executor().submit(_partial, run) for run in runs[1:]]
        parts = _partial(runs[0])
        for future in futures:
            parts += future.result()
    results: list[bytes | None] = [None] * len(sums)
    for index, part in parts:
        known = results[index]
        results[index] = part if known is None else _add(known, part)
    return [result for result in results if result is not None]


def products(terms: Sequence[Term]) -> list[bytes]:
    """``[s * P for s, P in terms]`` (P None: the base point), spread over the threads."""
    return sums_of_products([[term] for term in terms])
