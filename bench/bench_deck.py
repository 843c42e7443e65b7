"""Benchmark: a full 4-peer shuffle + re-key of 32 cards against the bare libsodium cost.

Run: .venv/bin/python bench/bench_deck.py [--runs N]

"Total" is the compute of all four peers in one process: every shuffle and re-key layer,
and every peer receiving (parsing, checking) every one of the 8 messages. The key
commitments and the card-point table are set up before the clock starts (reported apart).

"Bare" is what the protocol cannot avoid: 2*n*D variable-base multiplications (n shuffle
layers and n re-key layers over D points; each also validates its input point inside
libsodium) plus n*D fixed-base multiplications (the slot-key commitments k*B), plus the deck
proofs (protocol.md, "Deck proofs"): each shuffle's argument proves with 4*D + 1
variable-base and 3*D + 3 fixed-base multiplications (plus one fixed-base for its key W) and
is checked with 6*D + 7 and D + 3 by each of the n-1 other peers; each re-key proves with
2*D and is checked with 4*D by each other peer. Each multiplication is priced at
its median cost measured in this same run; the figure without the proofs (the protocol
before them) is printed too.

Then a draft hand's journey through re-masks (issue 10), on a ready deck whose slots 0-7 were
opened to seat 1: seat 1 re-masks its 8 cards, opens 7 of them to seat 2 (the pass), seat 2
re-masks those 7, then opens them to everyone. Its minimum is 8 + 7 + 7 + 4*7 = 50
variable-base multiplications and as many fixed-base ones (each re-mask publishes r*B for
every fresh slot, and every opener checks the scalar against it); the multiplications
libsodium actually performs are counted, and the time is compared with that minimum priced as
above.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nacl import bindings as sodium

import p2p.crypto.proofs as proofs
import p2p.crypto.shuffle_proof as shuffle_proof
from p2p.crypto.group import card_points
from p2p.deck.loopback import LoopbackTable

proofs.CACHE_SIZE = 0  # each peer checks every proof itself, as alone in its process
shuffle_proof.CACHE_SIZE = 0
N_SEATS = 4
N_CARDS = 32


def median_cost(operation: Callable[[], object], repeat: int = 7, number: int = 200) -> float:
    """Median seconds per call over ``repeat`` batches of ``number`` calls."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            operation()
        samples.append((time.perf_counter() - start) / number)
    return statistics.median(samples)


def one_deck_build(run: int) -> tuple[float, float]:
    """Return (setup seconds, shuffle + re-key seconds) for a fresh game."""
    game_id = f"bench-{os.getpid()}-{run}"
    start = time.perf_counter()
    card_points(game_id, N_CARDS)  # hash-to-curve table, shared by the 4 peer objects
    table = LoopbackTable(game_id, N_SEATS, N_CARDS)
    table.commit_all()
    setup = time.perf_counter() - start
    start = time.perf_counter()
    table.build()
    build = time.perf_counter() - start
    if any(deck.turn is not None for deck in table.decks):
        raise SystemExit("deck not ready after build")
    return setup, build


REMASK_MIN_MUL = 8 + 7 + 7 + N_SEATS * 7
REMASK_MIN_BASE = REMASK_MIN_MUL  # r*B published for each fresh slot, checked by each opener


class MulCounter:
    """Counts libsodium's scalar multiplications (variable-base, fixed-base) while active."""

    def __init__(self) -> None:
        self.mul = self.base = 0
        self._saved = (sodium.crypto_scalarmult_ed25519_noclamp,
                       sodium.crypto_scalarmult_ed25519_base_noclamp)

    def __enter__(self) -> MulCounter:
        mul, base = self._saved

        def counted_mul(scalar: bytes, point: bytes) -> bytes:
            self.mul += 1
            return mul(scalar, point)

        def counted_base(scalar: bytes) -> bytes:
            self.base += 1
            return base(scalar)

        sodium.crypto_scalarmult_ed25519_noclamp = counted_mul
        sodium.crypto_scalarmult_ed25519_base_noclamp = counted_base
        return self

    def __exit__(self, *exc: object) -> None:
        (sodium.crypto_scalarmult_ed25519_noclamp,
         sodium.crypto_scalarmult_ed25519_base_noclamp) = self._saved


def one_hand_journey(run: int) -> tuple[float, MulCounter]:
    """Return (seconds, multiplication counts) of the re-mask journey described above."""
    table = LoopbackTable(f"bench-remask-{os.getpid()}-{run}", N_SEATS, N_CARDS)
    table.setup()
    hand = list(range(8))
    for slot in hand:
        table.open_to(slot, 1)
    start = time.perf_counter()
    with MulCounter() as counter:
        fresh = table.remask(1, hand)
        passed = list(fresh)[:7]
        for slot in passed:
            table.open_remasked_to(slot, 2)
        again = table.remask(2, passed)
        for slot in again:
            table.unmask(slot)
    return time.perf_counter() - start, counter


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()

    scalar = sodium.crypto_core_ed25519_scalar_reduce(os.urandom(64))
    point = sodium.crypto_core_ed25519_from_uniform(os.urandom(32))
    t_mul = median_cost(lambda: sodium.crypto_scalarmult_ed25519_noclamp(scalar, point))
    t_base = median_cost(lambda: sodium.crypto_scalarmult_ed25519_base_noclamp(scalar))

    one_deck_build(-1)  # warm-up: imports, caches
    results = [one_deck_build(run) for run in range(args.runs)]
    setups = [setup for setup, _ in results]
    builds = [build for _, build in results]

    # Re-measure the unit costs after the runs too: the machine is shared, so take the
    # lower of the two medians as the fair price of one operation.
    t_mul = min(t_mul, median_cost(lambda: sodium.crypto_scalarmult_ed25519_noclamp(scalar, point)))
    t_base = min(t_base, median_cost(lambda: sodium.crypto_scalarmult_ed25519_base_noclamp(scalar)))

    checkers = N_SEATS - 1
    n_mul_before = 2 * N_SEATS * N_CARDS
    shuffle_mul = 4 * N_CARDS + 1 + checkers * (6 * N_CARDS + 7)
    shuffle_base = 3 * N_CARDS + 3 + checkers * (N_CARDS + 3)
    n_mul = n_mul_before + N_SEATS * (shuffle_mul + 2 * N_CARDS + 4 * checkers * N_CARDS)
    n_base = N_SEATS * N_CARDS + N_SEATS * (1 + shuffle_base)
    bare = n_mul * t_mul + n_base * t_base
    bare_before = n_mul_before * t_mul + N_SEATS * N_CARDS * t_base
    total = statistics.median(builds)

    print(f"{N_SEATS} peers, {N_CARDS} cards, {args.runs} runs")
    print(f"one scalarmult_ed25519_noclamp: {t_mul * 1e6:8.1f} us  x {n_mul}")
    print(f"one scalarmult_ed25519_base:    {t_base * 1e6:8.1f} us  x {n_base}")
    print(f"bare libsodium cost:            {bare * 1e3:8.2f} ms")
    print(
        f"shuffle + re-key, all peers:    {total * 1e3:8.2f} ms median "
        f"(min {min(builds) * 1e3:.2f}, max {max(builds) * 1e3:.2f})"
    )
    print(f"ratio total / bare:             {total / bare:8.2f}")
    print(f"bare cost without the proofs:   {bare_before * 1e3:8.2f} ms "
          f"(the proofs multiply the bare build by {bare / bare_before:.2f})")
    print(f"setup (card points + commits):  {statistics.median(setups) * 1e3:8.2f} ms median")
    goal = total / bare <= 1.5
    print("goal (<= 1.5x bare):", "met" if goal else "NOT met")

    journeys = [one_hand_journey(run) for run in range(args.runs)]
    counter = journeys[0][1]
    remask_time = statistics.median(seconds for seconds, _ in journeys)
    remask_bare = REMASK_MIN_MUL * t_mul + REMASK_MIN_BASE * t_base
    print(f"hand journey (re-mask 8, pass 7, re-mask 7, open 7 to all), {args.runs} runs:")
    print(f"  multiplications performed:    {counter.mul} variable-base + {counter.base} "
          f"fixed-base; minimum {REMASK_MIN_MUL} + {REMASK_MIN_BASE} "
          f"(ratio {(counter.mul + counter.base) / (REMASK_MIN_MUL + REMASK_MIN_BASE):.2f})")
    print(f"  time, all peers:              {remask_time * 1e3:8.2f} ms median; minimum "
          f"priced {remask_bare * 1e3:.2f} ms (ratio {remask_time / remask_bare:.2f})")


if __name__ == "__main__":
    main()
