"""Leaving without a word (protocol.md, "Leaving without a word: the escrow"): at a table
whose host turned the escrow on, every peer's secret is split among the others at the start;
a peer named abandoned is recovered once every remaining peer has published its share with
its claim, and the game ends audited with the takeover recorded. A share that does not open
its commitment names its publisher, an escrow that does not rebuild the secret names the
leaver, a claim without its share names the claimant abandoned, and a box sealed wrong at the
start is proven against its author with the recipient's box key."""

from __future__ import annotations

import random
import secrets
from pathlib import Path
from typing import Any

import pytest
from byzantine import Table, Vanish, check_honest, check_no_small_coalition, check_table

from p2p.session.escrow import EscrowShare, escrow_body, share_commitment, shares_of, xor
from p2p.session.events import ABANDONED, UNFAIR, SeatHandedOver
from p2p.session.machine import GameSession


def vanish(start: int) -> Vanish:
    behaviour = Vanish(random.Random(0))
    behaviour.start, behaviour.share = start, 1.0
    return behaviour


def play(n: int, start: int, tmp_path: Path, escrow: bool = True,
         kinds: dict[int, type[GameSession]] | None = None, seed: int = 7,
         shuffles: int = 1) -> Table:
    table = Table(n, bad=n - 1, behaviours=[vanish(start)], seed=seed, escrow=escrow,
                  kinds=kinds or {})
    table.play()
    check_table(table, tmp_path, shuffles)  # verify agrees, in other orders of the file too
    return table


# -- the escrow itself --------------------------------------------------------------------------


@pytest.mark.parametrize("holders", [[1, 2], [0, 2, 3], [0, 1, 3]])
def test_the_shares_of_a_secret_rebuild_it_and_fewer_say_nothing_of_it(holders: list[int]
                                                                        ) -> None:
    master = secrets.token_bytes(32)
    shares = shares_of(master, "ab" * 16, holders)
    assert set(shares) == set(holders)
    assert xor([s.share for s in shares.values()]) == master
    # all but one: another master fits them as well (the last share is a one-time pad)
    fewer = [shares[h].share for h in holders[:-1]]
    assert xor(fewer) != master and len(set(fewer)) == len(fewer)
    other = shares_of(secrets.token_bytes(32), "ab" * 16, holders)
    assert other[holders[-1]].share != shares[holders[-1]].share


def test_a_share_s_commitment_binds_its_author_holder_and_game() -> None:
    share = EscrowShare(secrets.token_bytes(32), secrets.token_bytes(32))
    c = share_commitment("ab" * 16, 0, 1, share)
    assert c != share_commitment("ab" * 16, 0, 2, share)
    assert c != share_commitment("ab" * 16, 2, 1, share)
    assert c != share_commitment("cd" * 16, 0, 1, share)


# -- a seat recovered ---------------------------------------------------------------------------


# (stages 5 and 40 fall in round 1, so every game gets there: the deal, and the first draft)
@pytest.mark.parametrize(("n", "start"), [pytest.param(3, 40, marks=pytest.mark.soak), (4, 5)])
def test_a_peer_gone_for_good_is_played_on_from_the_escrow(n: int, start: int,
                                                            tmp_path: Path) -> None:
    table = play(n, start, tmp_path, shuffles=3 if start == 40 else 1)
    gone = n - 1
    for session in table.honest:
        assert session.result is not None and session.result["ok"], session.aborted
        (record,) = session.result["left"].values()
        assert record["by"] == "escrow"
        assert "its secret rebuilt from the escrow" in session.result["summary"]
        (event,) = [e for e in session.events if isinstance(e, SeatHandedOver)]
        assert event.peer == gone and event.escrow
    assert len({str(s.result) for s in table.honest}) == 1


@pytest.mark.parametrize("n", [3, pytest.param(4, marks=pytest.mark.soak)])
def test_after_a_recovery_no_smaller_coalition_can_rebuild_a_live_player_s_master(
        n: int, tmp_path: Path) -> None:
    """Issue 41 item 3: the gone peer's rebuilt master opens nothing it held of the others'
    escrows (they are sealed to a key of its own that the master does not give): at a
    3-player table each remaining player would otherwise hold every share of the other."""
    table = play(n, 40, tmp_path)
    assert all(s.ghosts for s in table.honest)
    check_no_small_coalition(table)


def test_without_the_escrow_a_peer_gone_for_good_stops_the_game(tmp_path: Path) -> None:
    table = play(3, 40, tmp_path, escrow=False)
    for session in table.honest:
        assert session.aborted is not None and session.result is None
        assert (session.aborted.peer, session.aborted.kind) == (2, ABANDONED)


def test_a_peer_gone_before_the_escrow_was_made_is_named_abandoned(tmp_path: Path) -> None:
    table = play(3, 2, tmp_path)
    for session in table.honest:
        assert session.aborted is not None
        assert (session.aborted.peer, session.aborted.kind) == (2, ABANDONED)


def test_two_player_tables_have_no_escrow(tmp_path: Path) -> None:
    table = play(2, 10, tmp_path)
    assert not table.sessions[0].escrow
    assert table.sessions[0].aborted is not None
    assert table.sessions[0].aborted.kind == ABANDONED


def test_a_peer_that_comes_back_after_its_seat_was_recovered_plays_no_more(
        tmp_path: Path) -> None:
    table = play(3, 40, tmp_path)
    log = table.sessions[0].msglog.messages
    back = GameSession(table.game_id, [i.public_bytes for i in table.identities], 2,
                       table.identities[2], table.masters[2])
    back.replaying = True
    for signed in log:
        back.accept(signed, direct=False)
    back.replaying = False
    back.start()
    assert back.left and back.finished
    assert any(isinstance(e, SeatHandedOver) and e.mine and e.escrow for e in back.events)


def test_a_claimant_restarted_with_its_claim_stored_goes_on_waiting_with_it(
        tmp_path: Path) -> None:
    """Issue 41 item 2: a claimant restarted from its log (its claim in it, the other
    claimant's not yet) goes on with its claim for a whole wait from its restart, and the
    seat is recovered when the other claim comes (before: the replayed claim's wait ran
    from the replay's clock, and the restarted peer stopped on it at its first tick)."""
    table = play(3, 40, tmp_path)
    log = table.sessions[0].msglog.messages
    claims = [m for m in log if m.msg.type == "abort"]
    ours = next(m for m in claims if m.msg.seat == 0)
    theirs = next(m for m in claims if m.msg.seat == 1)
    back = GameSession(table.game_id, [i.public_bytes for i in table.identities], 0,
                       table.identities[0], table.masters[0], timing=table.timing)
    back.replaying = True
    for signed in log[:log.index(ours) + 1]:
        if signed is not theirs:
            back.accept(signed, direct=False)
    back.replaying = False
    back.tick(10_000.0)
    back.start()
    back.tick(10_001.0)
    assert not back.finished and set(back.escrow_claims) == {2}
    back.accept(theirs, direct=False)
    assert 2 in back.ghosts and not back.finished


class SeesPeerTwoGone(GameSession):
    """Finds peer 2 silent where the others find peer 3 (two players died at once, and
    peer 2's last message reached the others but not this peer)."""

    def _escrow_claim(self, peer: Any, reason: str, evidence: Any, stage: int) -> bool:
        return super()._escrow_claim(2 if peer == 3 else peer, reason, evidence, stage)


@pytest.mark.parametrize("ours_first", [True, False])
def test_two_claims_of_two_seats_stop_the_table_for_now_naming_nobody(
        ours_first: bool) -> None:
    """Issue 41 item 5, both orders of the two claims: two players of four are gone, and the
    two left claim different seats. No recovery can be made (each needs the other's share of
    its seat), so neither claim stands alone: both wait, and the driver's grace period stops
    the game for now (before: when the other's claim came after ours, our claim became a
    final verdict naming the seat we claimed, by which claim happened to arrive first)."""
    table = Table(4, bad=3, behaviours=[vanish(5)], seed=7, escrow=True,
                  kinds={0: SeesPeerTwoGone})
    zero, one = table.sessions[0], table.sessions[1]
    table.play(until=lambda: bool(one.escrow_claims if ours_first else zero.escrow_claims))
    assert set(zero.escrow_claims) == {2}
    theirs = [f for f in zero.outbox if b'"escrow"' in f]
    assert theirs, "peer 0's claim is still to be sent"
    for frame in theirs:
        one.receive(0, frame)
    one.tick(table.now)
    # (peer 0's claim coming first, peer 1 holds peer 2's message that refutes it: peer 0
    # stopped on a claim that does not check, and peer 1 claims it; the same wait follows)
    assert set(one.escrow_claims) == ({3} if ours_first else {0})
    assert not one.finished, one.aborted
    assert 0 in one.escrow_waits_for() or not ours_first
    assert not one.give_up_on([2, 3])  # (the driver then stops the game for now)


# -- the adversary ------------------------------------------------------------------------------


class PublishesAWrongShare(GameSession):
    def _escrow_claim(self, peer: Any, reason: str, evidence: Any, stage: int) -> bool:
        if peer in self.escrow_held:
            self.escrow_held[peer] = EscrowShare(secrets.token_bytes(32),
                                                 self.escrow_held[peer].salt)
        return super()._escrow_claim(peer, reason, evidence, stage)


class KeepsItsShare(GameSession):
    def _send(self, kind: str, body: dict[str, Any]) -> None:
        if kind == "abort":
            body = {k: v for k, v in body.items() if k != "escrow"}
        super()._send(kind, body)


class EscrowsAnotherSecret(GameSession):
    """Shares that open their commitments but rebuild another secret than its own."""

    def _send(self, kind: str, body: dict[str, Any]) -> None:
        if kind == "setup/reveal" and "escrow" in body:
            boxes = {p: key for p, key in self.escrow_public.items() if p != self.me}
            body = {**body, "escrow": escrow_body(secrets.token_bytes(32), self.game_id,
                                                  self.me, boxes)}
        super()._send(kind, body)


class SealsGarbageToPeerZero(GameSession):
    def _send(self, kind: str, body: dict[str, Any]) -> None:
        if kind == "setup/reveal" and "escrow" in body:
            escrow = dict(body["escrow"])
            escrow["0"] = {**escrow["0"], "box": escrow["1"]["box"]}  # peer 1's, not 0's
            body = {**body, "escrow": escrow}
        super()._send(kind, body)


def verified(table: Table, culprit: int, tmp_path: Path) -> list[GameSession]:
    """The peers neither gone nor the culprit: each names nobody but the culprit, and verify
    gives its verdict on its transcript, in any order of the file."""
    honest = [i for i in range(table.n) if i not in (culprit, table.bad)]
    check_honest([(table.sessions[i], table.transcript(i, tmp_path)) for i in honest],
                 culprit, f"culprit {culprit}", 1, random.Random(1))
    return [table.sessions[i] for i in honest]


@pytest.mark.parametrize("n", [3, 4])
def test_a_share_that_does_not_open_its_commitment_names_its_publisher(
        n: int, tmp_path: Path) -> None:
    table = Table(n, bad=n - 1, behaviours=[vanish(40)], seed=7, escrow=True,
                  kinds={1: PublishesAWrongShare})
    table.play()
    for session in verified(table, 1, tmp_path):
        assert session.aborted is not None, session.result
        assert (session.aborted.peer, session.aborted.kind) == (1, UNFAIR)
        assert "does not open the commitment" in session.aborted.reason


def test_a_claim_without_its_share_names_the_claimant_abandoned(tmp_path: Path) -> None:
    table = Table(4, bad=3, behaviours=[vanish(40)], seed=7, escrow=True,
                  kinds={1: KeepsItsShare})
    table.play()
    for session in verified(table, 1, tmp_path):
        aborted = session.aborted
        assert aborted is not None and (aborted.peer, aborted.kind) == (1, ABANDONED)
        assert "did not publish its escrow share" in aborted.reason


def test_an_escrow_that_rebuilds_another_secret_names_the_leaver(tmp_path: Path) -> None:
    table = Table(3, bad=2, behaviours=[vanish(40)], seed=7, escrow=True,
                  kinds={2: EscrowsAnotherSecret})
    table.play()
    check_table(table, tmp_path, shuffles=1)
    for session in table.honest:
        assert session.aborted is not None
        assert (session.aborted.peer, session.aborted.kind) == (2, UNFAIR)
        assert "does not rebuild its secret" in session.aborted.reason


def test_a_share_sealed_wrong_at_the_start_is_proven_against_its_author(tmp_path: Path
                                                                         ) -> None:
    # peer 2 seals to peer 0 what it sealed to peer 1: only peer 0 can tell, and its abort
    # carries its box key, so peer 1 (and verify) check the box themselves
    table = Table(3, bad=2, behaviours=[], seed=7, escrow=True,
                  kinds={2: SealsGarbageToPeerZero})
    table.play()
    check_table(table, tmp_path, shuffles=2)
    for session in table.honest:
        assert session.aborted is not None
        assert (session.aborted.peer, session.aborted.kind) == (2, UNFAIR), \
            session.aborted.reason
