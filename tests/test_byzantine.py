"""Byzantine peers against the sans-IO session (issue #24): whatever one peer does with its
traffic, honest peers never crash, never hang past the table's bound, never name each other
or themselves; when they name someone it is the byzantine peer; and ``solstice verify`` on
every honest transcript gives the live verdict, on every per-author-order-preserving
shuffle of it too.

A second sweep (issue 41) kills an honest peer, or fills its disk, at a message of the
handover and escrow paths (a handover, an escrow claim, the escrow itself; its own or another's;
before or after the write, or right after the send) and starts it again from its store: the
table ends with one outcome, names nobody honest, rebuilds no seat whose player still
answers, and no coalition smaller than all the other players can read a player's escrow.

Each seed picks one to three behaviours of ``tests/byzantine.py`` (drop, delay, duplicate,
reorder, alter and re-sign, equivocate, garble, replay, forged claims with evidence from this
game or signed for another, leaving with a handover, honest or forged, vanishing for good;
in the soak sweep, deck layers with forged proofs, issue 42) and when they start; every
other table escrows its secrets. A few tens of seeds run in the normal suite; many more under
``-m slow``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from byzantine import (
    Behaviour,
    Context,
    Delay,
    Equivocate,
    ForgeClaim,
    ForgeProof,
    InstantSilence,
    Send,
    Table,
    check_crash_table,
    check_table,
    crash_plan,
    decode,
    strategy,
)

from p2p.session.machine import FRAME_MESSAGE

QUICK_SEEDS = [*range(14), 16, 22]  # (16: a peer vanishes at an escrow table; 22: reorder)
SLOW_SEEDS = (100, 101, 103, 104, 105)   # make test
SOAK_SEEDS = (102, *range(106, 260))   # make soak


def play_and_check(seed: int, tmp_path: Path, shuffles: int = 1,
                   behaviours: list[Behaviour] | None = None) -> Table:
    n = 3 if seed % 3 else 4
    # every other table escrows its secrets (so a peer that vanishes is recovered)
    table = Table(n, bad=seed % n, behaviours=behaviours or strategy(seed), seed=seed,
                  escrow=seed % 2 == 0)
    table.play()
    check_table(table, tmp_path, shuffles)
    return table


@pytest.mark.parametrize("seed", QUICK_SEEDS)
def test_a_byzantine_peer_gets_no_honest_peer_named(seed: int, tmp_path: Path) -> None:
    play_and_check(seed, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [
    *SLOW_SEEDS, *(pytest.param(seed, marks=pytest.mark.soak) for seed in SOAK_SEEDS)])
def test_many_byzantine_peers_get_no_honest_peer_named(seed: int, tmp_path: Path) -> None:
    play_and_check(seed, tmp_path, shuffles=2)


def test_the_strategies_cover_every_behaviour() -> None:
    """The quick seeds are not all one kind of attack."""
    names = {b.name for seed in QUICK_SEEDS for b in strategy(seed)}
    assert {"drop", "delay", "duplicate", "reorder", "alter", "equivocate", "garble",
            "replay", "forge-claim", "leave", "vanish"} <= names, names


def test_a_forged_claim_from_a_peer_that_plays_on_names_it(tmp_path: Path) -> None:
    """A deterministic forged claim (the behaviour the table must survive most often)."""
    import random
    claim = ForgeClaim(random.Random(1))
    claim.start, claim.share, claim.keep_playing = 20, 1.0, True
    table = play_and_check(7, tmp_path, shuffles=2, behaviours=[claim])
    assert claim.done
    for session in table.honest:
        assert session.aborted is not None and session.aborted.peer == table.bad


def test_equivocation_with_delays_is_proven_against_the_byzantine_peer(tmp_path: Path) -> None:
    import random
    rng = random.Random(5)
    twin, late = Equivocate(rng), Delay(rng)
    twin.start, twin.share = 15, 1.0
    late.start, late.share, late.most = 0, 0.3, 2.0
    table = play_and_check(2, tmp_path, shuffles=2, behaviours=[twin, late])
    for session in table.honest:
        assert session.aborted is not None and session.aborted.peer == table.bad


class BadDigest(Behaviour):
    """One stage message re-signed with its ``history`` or ``own`` not a digest (junk, or a
    digest's letters in upper case), sent to one receiver (the others get the original, an
    equivocation) or to all."""

    name = "bad-digest"

    def __init__(self, key: str, junk: object, to_one: bool) -> None:
        import random
        super().__init__(random.Random(0))
        self.start, self.share = 9, 1.0
        self.key, self.junk, self.to_one, self.done = key, junk, to_one, False

    def outgoing(self, ctx: Context, sends: list[Send]) -> list[Send]:
        import dataclasses
        signed = decode(sends[0].frame) if sends else None
        if (self.done or signed is None or signed.msg.seat != ctx.me or not self.active(ctx)
                or self.key not in signed.msg.body):
            return sends
        self.done = True
        body = dict(signed.msg.body)
        body[self.key] = (body[self.key].upper() if self.junk == "upper" else self.junk)
        frame = FRAME_MESSAGE + ctx.sign(dataclasses.replace(signed.msg, body=body)).encode()
        first = min(s.to for s in sends)
        return [dataclasses.replace(s, frame=frame) if not self.to_one or s.to == first else s
                for s in sends]


@pytest.mark.parametrize("key, junk, to_one", [
    ("history", {"a": [1]}, True), ("history", "upper", False), ("own", None, True),
    ("own", "x", False)])
def test_a_history_that_is_no_digest_names_its_author_live_and_offline(
        key: str, junk: object, to_one: bool, tmp_path: Path) -> None:
    """A stage message whose ``history`` or ``own`` is not a digest is its author's fault
    whatever the file around it holds: every honest peer names it unfair, and ``verify``
    agrees on every transcript, the one of a peer that got the twin and not the original
    too (before: that peer's transcript was "damaged", its live verdict a "history differs"
    that only a live peer could check, in about half the games of seed 211)."""
    bad = BadDigest(key, junk, to_one)
    table = play_and_check(211, tmp_path, shuffles=2, behaviours=[bad])
    assert bad.done
    for session in table.honest:
        assert session.aborted is not None and session.aborted.peer == table.bad
    # (with a twin, the peers that got the original name the equivocation once it reaches them)
    assert any("not a digest" in s.aborted.reason for s in table.honest if s.aborted)


FORGED_KINDS = (*ForgeProof.KINDS, *ForgeProof.REMASK_KINDS)


@pytest.mark.parametrize("kind, start", [*((kind, 0) for kind in FORGED_KINDS),
                                         ("flip", 60)])  # 60: a reshuffle batch's layer
def test_a_forged_deck_proof_names_the_byzantine_peer_at_once(kind: str, start: int,
                                                              tmp_path: Path) -> None:
    """Issue 42: a deck layer or re-mask sent with a forged proof (validly signed; a re-mask
    substituting or duplicating a card, re-proven as well as its author can) is refused by
    every honest peer on arrival, naming its author unfair with that message as the proof: no
    deck seed is opened (no deck audit runs), and ``verify`` agrees on every transcript."""
    import random

    from p2p.session.events import UNFAIR, DeckAudit
    forge = ForgeProof(random.Random(kind))
    forge.kind, forge.start, forge.share = kind, start, 1.0
    seed = FORGED_KINDS.index(kind)
    table = play_and_check(seed, tmp_path, behaviours=[forge])
    assert forge.done
    for session in table.honest:
        assert session.aborted is not None, (kind, session.me)
        assert (session.aborted.peer, session.aborted.kind) == (table.bad, UNFAIR), \
            session.aborted
        assert not any(isinstance(e, DeckAudit) for e in session.events)
        if start:  # a layer of a later (reshuffle) batch
            assert "batch 0 " not in session.aborted.reason, session.aborted.reason


@pytest.mark.parametrize("kind", ForgeProof.REMASK_KINDS)
def test_a_forged_dispatch_phase_re_mask_names_the_byzantine_peer_at_once(
        kind: str, tmp_path: Path) -> None:
    """As above, for the re-mask of a ``remask`` stage (the one above meets a pick
    commitment's first)."""
    import random

    from p2p.session.events import UNFAIR, DeckAudit
    forge = ForgeProof(random.Random(kind))
    forge.kind, forge.start, forge.share, forge.only = kind, 0, 1.0, "remask"
    table = play_and_check(2 + ForgeProof.REMASK_KINDS.index(kind), tmp_path,
                           behaviours=[forge])
    assert forge.done
    for session in table.honest:
        assert session.aborted is not None
        assert (session.aborted.peer, session.aborted.kind) == (table.bad, UNFAIR)
        assert "re-mask" in session.aborted.reason, session.aborted.reason
        assert not any(isinstance(e, DeckAudit) for e in session.events)


@pytest.mark.parametrize("start", [5, 40])
def test_an_instant_claim_of_silence_names_its_sender(start: int, tmp_path: Path) -> None:
    import random
    claim = InstantSilence(random.Random(start))
    claim.start = start
    table = play_and_check(1, tmp_path, behaviours=[claim])
    assert claim.done
    # The accused signs that the claim does not check but names nobody itself (it cannot
    # measure its own lateness); every other honest peer names the claimant.
    named = [s.aborted.peer for s in table.honest if s.aborted is not None]
    assert len(named) == len(table.honest) and named.count(None) == 1, named
    assert set(named) == {None, table.bad}, named


# Issue 41: an honest peer dies (kill -9, or a full disk) at a message of the handover and
# escrow paths, before or after it is written or sent, and comes back from its disk.
# (1: a handover lost before it was written; 2: a claimant killed before writing its claim;
# 3: a leaver killed right after its handover left; 5: a leaver killed after writing its
# handover, down past the grace: its seat is recovered from the escrow, and it comes back)
CRASH_QUICK_SEEDS = [1, 2, 3, 5]
CRASH_SOAK_SEEDS = [s for s in range(90) if s not in CRASH_QUICK_SEEDS]


def play_a_crash(seed: int, tmp_path: Path, shuffles: int = 1) -> Table:
    n = 3 if seed % 3 else 4
    bad = (seed + 1) % n
    plan, behaviours = crash_plan(seed, n, bad)
    table = Table(n, bad=bad, behaviours=behaviours, seed=seed, escrow=True, crash=plan)
    table.play()
    check_crash_table(table, tmp_path, shuffles)
    return table


@pytest.mark.parametrize("seed", [
    *CRASH_QUICK_SEEDS,
    *(pytest.param(seed, marks=[pytest.mark.slow, pytest.mark.soak])
      for seed in CRASH_SOAK_SEEDS)])
def test_a_peer_dying_on_the_handover_and_escrow_paths_never_splits_the_table(
        seed: int, tmp_path: Path) -> None:
    play_a_crash(seed, tmp_path)
