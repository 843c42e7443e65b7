"""Benchmark: the CPU a 4-peer game costs per round, without sockets.

Run: .venv/bin/python bench/bench_session.py [--games 8] [--players 4] [--tree PATH]

Each game is a ``LoopbackGame`` (p2p/session/loopback.py): the peers' sessions in one process,
frames handed over in memory, random legal choices from a seeded generator, keys and master
secrets from a seeded generator too, so game g is the same game on every run of one checkout
(another checkout may play it differently: its protocol draws other randomness). Measured with
``time.process_time`` around ``play``, which covers every peer's work: signing and verifying,
the deck, the state hash at every stage, relays, and each peer's end-of-game audit. Reported
per round, since games last 2 to 6 rounds; plus where the time went in a few functions (own
timers, not cProfile, whose overhead distorts the split) and the frames handed over.

``--tree PATH`` measures another checkout (read before the imports below), which is how the
README's "before" figures were taken: alternate the two trees, on the same machine load.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _checkout() -> Path:
    """The checkout to measure: ``--tree PATH`` (read before the imports below need it)."""
    early = argparse.ArgumentParser(add_help=False)
    early.add_argument("--tree", type=Path, default=Path(__file__).resolve().parent.parent)
    return early.parse_known_args()[0].tree.resolve()


TREE = _checkout()
sys.path.insert(0, str(TREE))

import p2p.session.envelope as envelope  # noqa: E402
import p2p.session.loopback as loopback  # noqa: E402
from p2p.identity import Identity  # noqa: E402

try:  # each peer checks every deck proof itself, as alone in its process (trees with proofs)
    import p2p.crypto.proofs as proofs
    proofs.CACHE_SIZE = 0
except ImportError:
    pass

SPENT: dict[str, float] = {}


def timed(owner: Any, name: str, label: str) -> None:
    """Add the process time spent in ``owner.name`` to SPENT[label]."""
    function: Callable[..., Any] = getattr(owner, name)

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            SPENT[label] = SPENT.get(label, 0.0) + time.process_time() - start

    setattr(owner, name, wrapper)


def call_site(name: str, *modules: str) -> Any:
    """The first of ``modules`` (in the tree measured) that calls ``name`` by that name: the
    session's modules were split after the "before" trees."""
    for module in modules:
        try:
            found = importlib.import_module(module)
        except ImportError:
            continue
        if hasattr(found, name):
            return found
    raise SystemExit(f"no module of {TREE} calls {name}")


timed(call_site("public_hash", "p2p.session.lockstep", "p2p.session.machine"), "public_hash",
      "state hash")
# Older trees import audit_game inside a method (the module's attribute is what is called).
timed(call_site("audit_game", "p2p.session.complete", "p2p.session.audit"), "audit_game",
      "end-of-game audit")
timed(envelope.SignedMessage, "verify", "signature checks")


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


def _choose(rng: random.Random, view: Any, legal: list[Any] | None = None) -> Any:
    """A seeded random choice; ``--tree`` may be a checkout from before the seat view, whose
    choosers get (session, legal) instead of a ``SeatView``."""
    return rng.choice(view.legal if legal is None else legal)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--tree", default=None, help="another checkout to measure")
    args = parser.parse_args()
    cpu = 0.0
    rounds = frames = messages = 0
    for g in range(args.games):
        choices = seeded(g)
        game = loopback.LoopbackGame(args.players, game_id=f"{g:032x}")
        start = time.process_time()
        game.play(functools.partial(_choose, choices))
        cpu += time.process_time() - start
        session = game.sessions[0]
        if session.result is None or session.engine is None:
            raise SystemExit(f"game {g} did not end with an audited result")
        rounds += session.engine.round
        frames += game.frames
        messages += len(session.msglog.messages)
    print(f"tree {TREE}: {args.games} games of {args.players} peers, {rounds} rounds: "
          f"{cpu:.2f} s CPU, {cpu / rounds:.3f} s per round, {cpu / args.games:.2f} s per game; "
          f"{messages / rounds:.0f} signed messages and {frames / rounds:.0f} frames handed "
          "over per round")
    for label, seconds in sorted(SPENT.items(), key=lambda item: -item[1]):
        print(f"  {label:18} {seconds:6.2f} s  {100 * seconds / cpu:4.1f}%")


if __name__ == "__main__":
    main()
