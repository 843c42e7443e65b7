"""The byzantine peer over real loopback TLS (issue #24): a few seeded strategies of
``tests/byzantine.py`` applied to the adversary's outgoing frames at ``Mesh.send`` (alone or in
bundles), the host and the other joiner unmodified, bots playing. The same properties as the
sans-IO suite: no honest peer crashes, hangs or names an honest peer, and ``verify`` gives
each honest transcript's live verdict, on per-author shuffles too.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import trio
from byzantine import (
    Alter,
    Behaviour,
    Context,
    Delay,
    Drop,
    Duplicate,
    Equivocate,
    ForgeClaim,
    Garble,
    Leave,
    Send,
    check_honest,
    live_verdict,
)
from test_net_adversary import ADVERSARY, Peer, play_table

from p2p.identity import Identity
from p2p.net.mesh import Mesh
from p2p.session.bundle import FRAME_BUNDLE, bundle, unbundle
from p2p.session.machine import GameSession

TLS_BEHAVIOURS: list[type[Behaviour]] = [Drop, Delay, Duplicate, Alter, Equivocate, Garble,
                                         ForgeClaim]


def tls_strategy(seed: int) -> list[Behaviour]:
    rng = random.Random(seed)
    kinds = rng.sample(TLS_BEHAVIOURS, rng.randrange(1, 3))
    behaviours = [kind(rng) for kind in kinds]
    for behaviour in behaviours:
        if isinstance(behaviour, Delay):
            behaviour.most = min(behaviour.most, 1.5)  # real seconds here
    return behaviours


async def play_byzantine(root: Path, seed: int, monkeypatch: pytest.MonkeyPatch,
                         chosen: list[Behaviour] | None = None
                         ) -> list[tuple[str, int | None]]:
    behaviours = chosen or tls_strategy(seed)
    table = [Peer(root / f"peer{i}") for i in range(3)]
    identities = {i: Identity.load_or_create(p.home) for i, p in enumerate(table)}
    opened: list[GameSession] = []
    contexts: list[Context] = []
    honest_send = Mesh.send

    def context(mesh: Mesh) -> Context:
        if not contexts:
            keys = [identity.public_bytes for identity in identities.values()]
            session = opened[0] if opened else None
            order = list(session.msglog.keys) if session is not None else keys
            by_peer = {order.index(identity.public_bytes): identity
                       for identity in identities.values()}
            contexts.append(Context(mesh.my_index, 3, random.Random(seed), by_peer,
                                    session.master if session is not None else b"",
                                    lambda: opened[0] if opened else None))
        return contexts[0]

    async def send(self: Mesh, index: int, payload: bytes) -> None:
        if self.identity.public_bytes != table[ADVERSARY].key or not opened:
            await honest_send(self, index, payload)
            return
        ctx = context(self)
        for behaviour in behaviours:
            for injected in behaviour.inject(ctx):
                await honest_send(self, injected.to, injected.frame)
        frames = unbundle(payload) if payload[:1] == FRAME_BUNDLE else [payload]
        for frame in frames:
            sends = [Send(index, frame)]
            for behaviour in behaviours:
                sends = behaviour.outgoing(ctx, sends)
            for out in sends:
                if out.delay:
                    await trio.sleep(out.delay)
                (data,) = bundle([out.frame]) if payload[:1] == FRAME_BUNDLE else [out.frame]
                await honest_send(self, out.to, data)

    monkeypatch.setattr(Mesh, "send", send)
    played = await play_table(root, None, limit=120, opened=opened)
    assert opened
    bad = list(opened[0].msglog.keys).index(table[ADVERSARY].key)
    honest: list[tuple[GameSession, Path]] = []
    for i, peer in enumerate(played):
        if i != ADVERSARY:
            assert peer.session is not None, f"honest peer {i} did not finish"
            honest.append((peer.session, peer.transcript))
    check_honest(honest, bad, f"tls seed {seed}, {behaviours}", 2, random.Random(seed))
    return [live_verdict(session) for session, _ in honest]


# In make soak, not make test (for time): under load its shuffled transcripts once named the
# byzantine peer abandoned where the live verdict proved it unfair (an observer named a
# claimant blocking the stage before reading a proof later in the file; it now waits for the
# file's end: p2p/session/blame.py).
@pytest.mark.soak
@pytest.mark.parametrize("seed", [16])
async def test_a_byzantine_peer_over_tls_gets_no_honest_peer_named(
        seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    verdicts = await play_byzantine(tmp_path, seed, monkeypatch)
    # seed 16 alters its messages and forges a claim: the game cannot end fair
    assert {status for status, _ in verdicts} <= {"unfair", "abandoned"}, verdicts


@pytest.mark.slow
@pytest.mark.parametrize("seed", [
    1, 3, *(pytest.param(seed, marks=pytest.mark.soak) for seed in (2, *range(4, 22)))])
async def test_more_byzantine_peers_over_tls(seed: int, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    await play_byzantine(tmp_path, seed, monkeypatch)


@pytest.mark.soak  # (make test plays handovers over TLS in test_handover_tls.py)
@pytest.mark.parametrize("forged", [False, True])
async def test_a_leaver_over_tls_is_played_as_a_ghost_or_named_for_a_forged_handover(
        forged: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    leave = Leave(random.Random(0))
    leave.start, leave.forged, leave.chatty = 30, forged, 5  # (it replays old messages too)
    verdicts = await play_byzantine(tmp_path, 0, monkeypatch, [leave])
    assert leave.done
    if forged:
        assert {status for status, _ in verdicts} == {"unfair"}, verdicts
        assert len({peer for _, peer in verdicts}) == 1
    else:
        assert verdicts == [("fair", None)] * 2, verdicts


def test_the_tls_strategies_are_not_all_alike() -> None:
    names = {b.name for seed in [16, *range(1, 10), *range(10, 22)] for b in tls_strategy(seed)}
    assert len(names) >= 5, names
