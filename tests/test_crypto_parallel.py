"""Proof arithmetic spread over threads (``p2p.crypto.parallel``) gives exactly the points the
serial arithmetic gives, whatever the number of threads, and refuses what it refuses."""

from __future__ import annotations

import random

import pytest
from nacl import bindings as sodium

from p2p.crypto import parallel
from p2p.crypto.group import InvalidPoint, hash_to_point, mul, mul_base

B = parallel.BASE


def _scalar(rng: random.Random) -> bytes:
    return sodium.crypto_core_ed25519_scalar_reduce(rng.randbytes(64))


def _serial(sums: list[list[parallel.Term]]) -> list[bytes]:
    out = []
    for terms in sums:
        total = None
        for scalar, point in terms:
            product = mul_base(scalar) if point is None else mul(scalar, point)
            total = product if total is None else sodium.crypto_core_ed25519_add(total, product)
        assert total is not None
        out.append(total)
    return out


def _workload(seed: int) -> list[list[parallel.Term]]:
    rng = random.Random(seed)
    points = [hash_to_point(b"test/parallel\x00", bytes([i])) for i in range(12)]
    common = (_scalar(rng), points[0])  # a term in many sums: computed once
    sums: list[list[parallel.Term]] = []
    for _ in range(rng.randrange(1, 30)):
        terms: list[parallel.Term] = []
        for _ in range(rng.randrange(1, 5)):
            kind = rng.randrange(4)
            if kind == 0:
                terms.append((_scalar(rng), None))
            elif kind == 1:
                terms.append((_scalar(rng), B))  # the base point's bytes: fixed-base
            elif kind == 2:
                terms.append(common)
            else:
                terms.append((_scalar(rng), rng.choice(points)))
        sums.append(terms)
    return sums


@pytest.mark.parametrize("threads", [1, 2, 3, 4])
def test_sums_of_products_are_the_serial_sums_for_any_number_of_threads(
        threads: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "THREADS", threads)
    for seed in range(25):
        sums = _workload(seed)
        assert parallel.sums_of_products(sums) == _serial(sums), seed
        flat = [term for terms in sums for term in terms]
        assert parallel.products(flat) == _serial([[term] for term in flat])


def test_enough_work_is_shared_with_other_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "THREADS", 2)
    submitted: list[int] = []
    real = parallel._executor()

    class Counting:
        def submit(self, function, run):  # type: ignore[no-untyped-def]
            submitted.append(len(run))
            return real.submit(function, run)

    monkeypatch.setattr(parallel, "_executor", lambda: Counting())
    rng = random.Random(7)
    point = hash_to_point(b"test/parallel\x00", b"p")
    parallel.products([(_scalar(rng), point) for _ in range(3)])
    assert submitted == []  # too little work to be worth a thread
    parallel.products([(_scalar(rng), point) for _ in range(40)])
    assert submitted == [20]  # half of 40 equal products to the other thread


def test_a_point_outside_the_group_is_refused_as_by_mul(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(3)
    point = hash_to_point(b"test/parallel\x00", b"q")
    torsion = bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05")
    for threads in (1, 2):
        monkeypatch.setattr(parallel, "THREADS", threads)
        terms = [(_scalar(rng), point) for _ in range(20)]
        for where in (0, 19):  # in the calling thread's run and in the other's
            bad = terms.copy()
            bad[where] = (_scalar(rng), torsion)
            with pytest.raises(InvalidPoint):
                parallel.sums_of_products([bad])


def test_a_sum_needs_a_term() -> None:
    with pytest.raises(ValueError, match="at least one term"):
        parallel.sums_of_products([[(b"\x01" + bytes(31), None)], []])


def test_the_thread_count_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOLSTICE_CRYPTO_THREADS", "1")
    assert parallel._threads() == 1
    monkeypatch.setenv("SOLSTICE_CRYPTO_THREADS", "3")
    assert parallel._threads() == 3
    monkeypatch.setenv("SOLSTICE_CRYPTO_THREADS", "zero")
    assert 1 <= parallel._threads() <= 4
