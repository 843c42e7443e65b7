"""Benchmark: what the deck proofs cost in a whole 4-peer game (issue 42).

Run: .venv/bin/python bench/bench_proofs.py [--games 2] [--players 4]

Each game is a seeded ``LoopbackGame`` (as in bench_session.py: every peer's session in one
process, frames handed over in memory, seeded keys and choices), played twice in this run:

- **with proofs**: the code as it ships;
- **without proofs** ("today"): the same game with the proof work stubbed out (every DLEQ
  proof is a list of the scalar 1, every shuffle argument a list of that length of B and 1,
  every re-mask proof its S = c*B, the fresh points for its shuffled points and such lists
  for the rest,
  and none is checked) and
  the end-of-game audit recomputing every layer (``recompute_proven``: without proofs it
  cannot rely on them), which is the deck as it was before the proofs, give or take the
  re-mask keys r*B (fixed-base multiplications, kept in both runs).

"Deck CPU" is ``time.process_time`` spent inside the deck (``Deck.receive`` and every
producing method, ``audit_deck``, counted once when they nest) summed over every peer;
"proving" and "checking" are the parts of it inside ``proofs.prove`` and ``proofs.verify``
(the DLEQ proofs of blinding layers and re-keys) and ``shuffle_proof.prove`` and
``shuffle_proof.verify`` (the shuffle arguments, also given apart as "shuffle") and
``remask_proof.prove`` and ``remask_proof.verify`` (the re-mask proofs, given apart as
"re-mask proofs"; their own shuffle argument counts there, not under "shuffle"). "Wall" is
``time.perf_counter`` around the whole game (signatures, state hashes, engine and deck of
every peer), "game CPU" ``time.process_time`` around it (the same work, without the waits a
loaded machine adds). Ratios are with / without, per game, from the same run on the same
load, after one unmeasured 2-peer game in each mode.
"""

from __future__ import annotations

import argparse
import functools
import random
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import p2p.crypto.proofs as proofs
import p2p.crypto.remask_proof as remask_proof
import p2p.crypto.shuffle_proof as shuffle_proof
import p2p.deck.audit as deck_audit
import p2p.deck.blind as blind
import p2p.deck.remasking as remasking
import p2p.deck.shuffling as shuffling
import p2p.session.audit as session_audit
import p2p.session.blame as session_blame
import p2p.session.loopback as loopback
from p2p.crypto.group import mul_base
from p2p.deck.deck import Deck
from p2p.identity import Identity

proofs.CACHE_SIZE = 0  # each peer pays for its own checks, as alone in its process
shuffle_proof.CACHE_SIZE = 0
remask_proof.CACHE_SIZE = 0
SPENT: dict[str, float] = {}
_DEPTH = {"deck": 0}
DECK_METHODS = ("receive", "commit_message", "shuffle", "rekey", "blind", "begin_batch",
                "disclose", "reveal", "remask", "unmask_key", "unmask", "opening_message",
                "check_disclosed_key", "check_slot_key")


def _timed(function: Callable[..., Any], label: str, outermost: bool = False) -> Any:
    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if outermost:
            _DEPTH["deck"] += 1
            if _DEPTH["deck"] > 1:
                try:
                    return function(*args, **kwargs)
                finally:
                    _DEPTH["deck"] -= 1
        start = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            SPENT[label] = SPENT.get(label, 0.0) + time.process_time() - start
            if outermost:
                _DEPTH["deck"] -= 1

    return wrapper


for _name in DECK_METHODS:
    setattr(Deck, _name, _timed(getattr(Deck, _name), "deck", outermost=True))
_AUDITS = {True: _timed(deck_audit.audit_deck, "deck", outermost=True),
           False: _timed(functools.partial(deck_audit.audit_deck, recompute_proven=True),
                         "deck", outermost=True)}
_PROVE, _VERIFY = proofs.prove, proofs.verify
_ARGUE, _CHECK_ARGUMENT = shuffle_proof.prove, shuffle_proof.verify
_REMASK_PROVE, _REMASK_VERIFY = remask_proof.prove, remask_proof.verify
_B = bytes.fromhex("58" + "66" * 31)
_ONE = (1).to_bytes(32, "little")


@contextmanager
def proofs_mode(enabled: bool) -> Iterator[None]:
    """Real proofs (timed), or the stubs that stand for the deck before them."""
    if enabled:
        prove = _timed(_PROVE, "proving")
        verify = _timed(_VERIFY, "checking")
        argue = _timed(_timed(_ARGUE, "proving"), "shuffle proving")
        check_argument = _timed(_timed(_CHECK_ARGUMENT, "checking"), "shuffle checking")
        prove_remask = _timed(_timed(_REMASK_PROVE, "proving"), "remask proving")
        verify_remask = _timed(_timed(_REMASK_VERIFY, "checking"), "remask checking")
    else:
        def prove(header: bytes, instances: Any, secrets: Any) -> list[bytes]:
            return [_ONE] * (len(instances) + 1)

        def verify(header: bytes, instances: Any, proof: Any) -> None:
            return None

        def argue(header: bytes, base: bytes, key: bytes, inputs: Any, outputs: Any,
                  x: bytes, permutation: Any) -> list[bytes]:
            m = len(inputs)
            return [_B] * shuffle_proof.points_in_proof(m) + [_ONE] * (2 * m + 5)

        def check_argument(*args: Any) -> None:
            return None

        def prove_remask(header: bytes, inputs: Any, outputs: Any, keys: Any, c: bytes,
                         order: Any, factors: Any) -> remask_proof.RemaskProof:
            m = len(inputs)
            return remask_proof.RemaskProof(  # S = c*B stays: the audit checks it
                mul_base(c), tuple(outputs),  # the shuffled points must be distinct
                tuple(_B for _ in range(shuffle_proof.points_in_proof(m)))
                + (_ONE,) * (2 * m + 5), (_ONE,) * (m + 1))

        def verify_remask(*args: Any) -> None:
            return None
    saved = (shuffling.prove, shuffling.verify, blind.prove, shuffling.prove_shuffle,
             shuffling.verify_shuffle, remasking.prove_remask, remasking.verify_remask)
    (shuffling.prove, shuffling.verify, blind.prove, shuffling.prove_shuffle,
     shuffling.verify_shuffle, remasking.prove_remask, remasking.verify_remask) = (
        prove, verify, prove, argue, check_argument, prove_remask, verify_remask)
    for user in (session_audit, session_blame):
        setattr(user, "audit_deck", _AUDITS[enabled])  # noqa: B010 (a patch, on purpose)
    try:
        yield
    finally:
        (shuffling.prove, shuffling.verify, blind.prove, shuffling.prove_shuffle,
         shuffling.verify_shuffle, remasking.prove_remask, remasking.verify_remask) = saved


def seeded(game: int) -> random.Random:
    """Keys and master secrets of game ``game`` from a seeded generator (a benchmark only)."""
    keys = random.Random(1000 + game)

    def token_bytes(size: int | None = None) -> bytes:
        return keys.randbytes(32 if size is None else size)

    def generate(cls: type[Identity]) -> Identity:
        return cls.from_private_bytes(keys.randbytes(32))

    setattr(loopback.secrets, "token_bytes", token_bytes)  # noqa: B010 (a patch, on purpose)
    setattr(Identity, "generate", classmethod(generate))  # noqa: B010
    return random.Random(game)


def play(game: int, players: int, with_proofs: bool) -> dict[str, float]:
    SPENT.clear()
    choices = seeded(game)
    with proofs_mode(with_proofs):
        table = loopback.LoopbackGame(players, game_id=f"{game:032x}")
        start, cpu = time.perf_counter(), time.process_time()
        table.play(lambda view: choices.choice(view.legal))
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    if table.sessions[0].result is None:
        raise SystemExit(f"game {game} did not end with an audited result")
    return {"wall": wall, "cpu": cpu, **SPENT}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    totals = {"with": {}, "without": {}}  # type: dict[str, dict[str, float]]
    for enabled in (False, True):  # warm-up (imports, caches), not counted
        play(10_000, 2, enabled)
    for game in range(args.games):
        # Alternate the two modes so that a change of machine load hits both alike.
        for mode, enabled in (("without", False), ("with", True)):
            for key, value in play(game, args.players, enabled).items():
                totals[mode][key] = totals[mode].get(key, 0.0) + value
    per = {mode: {k: v / args.games for k, v in spent.items()} for mode, spent in totals.items()}
    with_, without = per["with"], per["without"]
    print(f"{args.games} seeded games of {args.players} peers, each played with and without "
          "proofs in this run; per game:")
    print(f"  deck CPU with proofs   {with_['deck']:7.2f} s  (proving "
          f"{with_.get('proving', 0):.2f} s, checking {with_.get('checking', 0):.2f} s)")
    print(f"  of which shuffle args  {with_.get('shuffle proving', 0):7.2f} s proving, "
          f"{with_.get('shuffle checking', 0):.2f} s checking")
    print(f"  of which re-mask proofs{with_.get('remask proving', 0):7.2f} s proving, "
          f"{with_.get('remask checking', 0):.2f} s checking")
    print(f"  deck CPU without       {without['deck']:7.2f} s")
    print(f"  deck CPU ratio         {with_['deck'] / without['deck']:7.2f}x  (goal <= 3x)")
    print(f"  game CPU with proofs   {with_['cpu']:7.2f} s")
    print(f"  game CPU without       {without['cpu']:7.2f} s")
    print(f"  game CPU ratio         {with_['cpu'] / without['cpu']:7.2f}x")
    print(f"  game wall with proofs  {with_['wall']:7.2f} s")
    print(f"  game wall without      {without['wall']:7.2f} s")
    print(f"  game wall ratio        {with_['wall'] / without['wall']:7.2f}x  (goal <= 1.5x)")


if __name__ == "__main__":
    main()
