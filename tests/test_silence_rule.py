"""One rule of silence and time, live and offline (issue 40): no honest player is named by a
game clock a host may set, by a machine that stalls, by a late message that refutes the
wrong thing, or by ``verify`` reading a file differently from what the live peers saw.
Time is simulated (the sans-IO harness of ``test_game_clock``)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from test_game_clock import _claim_silence, _stopped, clocked_play, until_asked
from test_net_blame import start_clocks, transcript
from test_net_session import decode, run, started

from p2p.session.clock import StageClock
from p2p.session.events import ABANDONED, STOPPED
from p2p.session.loopback import LoopbackGame
from p2p.session.machine import FRAME_MESSAGE
from p2p.session.stage_table import STAGE_TABLE
from p2p.session.timing import DECISION, MIN_INCREMENT, MIN_MARGIN, STEP, Timing
from p2p.storage.transcript import verify_transcript

# The smallest clocks a host may set: 1 s per decision and per step, banks of 1 s, no increment.
SMALLEST = Timing(decision=1, step=1, grace=5.0, decision_bank=1, decision_increment=0,
                  step_bank=1, step_increment=0)


def _starved(rng: random.Random, share: float = 0.9, stall: float = 2.0):  # type: ignore[no-untyped-def]
    """A loaded machine: every message of every peer leaves after up to ``share`` of a second
    (CPU starvation), and now and then (1 in 30) after a stall of up to ``stall`` seconds
    more. (Stalls of 3 s on two hops in a row can pass a 1 s step's deadline plus the 5 s
    grace: the stage's own deadline, which the host cannot set below 1 s.)"""
    def hold(sender: int, data: bytes) -> float:
        if data[:1] != FRAME_MESSAGE:
            return 0.0
        delay = rng.uniform(0.0, share)
        return delay + (rng.uniform(0.0, stall) if rng.random() < 1 / 30 else 0.0)
    return hold


# -- the clock floor (case 3) -------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(2))
def test_the_smallest_clocks_a_host_may_set_name_no_honest_peer_on_a_starved_machine(
        seed: int) -> None:
    _starved_game(3, seed)


@pytest.mark.soak
@pytest.mark.parametrize("players,seed", [(n, seed) for n in (2, 3, 4) for seed in range(12)])
def test_the_smallest_clocks_on_a_starved_machine_soak(players: int, seed: int) -> None:
    _starved_game(players, seed)


def _starved_game(players: int, seed: int) -> None:
    """Every bank 1 s and no increment (legal for a host), on a machine where every message
    takes up to 0.9 s and some stall for seconds: each stage still gives the floor back
    (``MIN_INCREMENT``) and a bank is overdrawn only past ``MIN_MARGIN``, so the game ends
    with nobody named (before the floor, peers named each other in a ring)."""
    rng = random.Random(seed)
    game = LoopbackGame(players)
    clocked_play(game, SMALLEST, think=lambda peer, view: rng.uniform(0.0, 3.0),
                 hold=_starved(rng))
    for session in game.sessions:
        assert session.aborted is None, session.aborted.reason
        assert session.result is not None and session.result["ok"]


def test_the_floor_is_in_force_whatever_the_host_set_and_it_is_shown() -> None:
    timing = SMALLEST
    assert timing.bank(STEP) == (1, MIN_INCREMENT) and timing.bank(DECISION) == (1, MIN_INCREMENT)
    assert timing.margin(STEP) == MIN_MARGIN and timing.tolerance(STEP) == 5.0 + MIN_MARGIN
    assert Timing(step_bank=0).bank(STEP) == (0, 0)  # no game clock: no increment either
    assert timing.describe().endswith(f"decisions 0:01 + {MIN_INCREMENT} s each, steps 0:01 + "
                                      f"{MIN_INCREMENT} s each")
    # The host's own values are what its signed clock carries (the floor is every peer's rule).
    assert timing.to_json()["step_increment"] == 0


# -- agreeing that another peer's bank ran out (case 4) -----------------------------------------


def test_a_bank_is_agreed_run_out_only_past_the_margin_not_at_zero() -> None:
    """Another peer's claim that peer 7's bank ran out is agreed to by our own measure only
    once that bank is overdrawn past the margin (the claimant waited the grace on top), not
    the moment it reaches zero: measures differ by a few tenths between peers."""
    timing = Timing(decision=60, step=30, grace=1.0, step_bank=10, step_increment=1)
    clock = StageClock(timing)
    clock.adopted = True
    clock.advance(0.0)
    clock.enter_stage()
    clock.advance(10.13, [7])  # the bank is at -0.13 s by our measure
    assert not clock.due(7, STEP)
    clock.advance(10.0 + timing.margin(STEP) + 0.01, [7])
    assert clock.due(7, STEP)
    assert clock.late(7, STAGE_TABLE["keys"]) is None  # a claimant waits the grace on top
    clock.advance(10.0 + timing.tolerance(STEP) + 0.01, [7])
    assert clock.late(7, STAGE_TABLE["keys"]) == "its game clock for steps ran out"


# -- a late message refutes a stage's deadline, not a bank spent before it came (case 5) --------


CRAWL = Timing(decision=60, step=30, grace=1.0, decision_bank=0, step_bank=2, step_increment=1)


def _crawled_step() -> tuple[LoopbackGame, bytes, int]:
    """A 3-peer game on ``CRAWL`` at time 0, where peer 1 holds back its message for a step
    stage (returned, with the stage's number) and sends nothing more: peers 0 and 2 stand at
    that stage waiting for it alone."""
    game = started(3)
    for session in game.sessions:
        session.timing = session.clock.timing = CRAWL
    start_clocks(game)
    held: list[bytes] = []

    def crawl(sender: int, data: bytes) -> bytes | None:
        if sender != 1:
            return data
        signed = decode(data)
        if not held and signed.msg.type in STAGE_TABLE \
                and STAGE_TABLE[signed.msg.type].clock == STEP:
            held.append(data)
        return None if held else data

    run(game, tamper=crawl, until=lambda: bool(held) and all(
        s.waiting_for() == [1] for s in (game.sessions[0], game.sessions[2])))
    stage = decode(held[0]).msg.body["stage"]
    assert game.sessions[0].stage_index == game.sessions[2].stage_index == stage
    return game, held[0], stage


def test_a_crawlers_late_message_does_not_refute_that_its_bank_ran_out(tmp_path: Path) -> None:
    """Peer 1 crawls through a step: its message reaches peer 2 only after its step bank ran
    out by peer 2's own measure, and before peer 0's (true) claim that it ran out. Peer 2
    agrees with the claim (the message refutes a stage's deadline, not a bank spent before it
    came): both honest peers name peer 1, and so does ``verify`` on their files; before, peer
    2 refuted the claim and named the honest claimant."""
    game, held, stage = _crawled_step()
    claimant, witness = game.sessions[0], game.sessions[2]
    late_at = CRAWL.step_bank + CRAWL.margin(STEP) + 0.5  # overdrawn at the witness
    for session in (claimant, witness):
        session.tick(late_at)
    witness.receive(1, held)  # it comes, but too late by the witness's measure
    assert witness.aborted is None and witness.stage_index > stage
    claimant.tick(CRAWL.step_bank + CRAWL.tolerance(STEP) + 0.5)
    assert claimant.aborted is not None and claimant.aborted.peer == 1, claimant.aborted
    for data in claimant.outbox:
        witness.receive(0, data)
    assert witness.aborted is not None, "the witness did not judge the claim"
    assert (witness.aborted.peer, witness.aborted.kind) == (1, ABANDONED), witness.aborted
    for data in witness.outbox:  # its word that it saw the same reaches the claimant's file
        claimant.receive(2, data)
    for peer in (0, 2):
        verdict = verify_transcript(transcript(game, peer, tmp_path))
        assert (verdict.status, verdict.blame) == ("abandoned", 1), verdict.summary


def test_a_message_that_came_in_time_still_refutes_the_claim() -> None:
    """The same claim, but the crawler's message reached the witness before its bank ran out
    by the witness's measure: the claim is refuted as before (the claimant is named)."""
    game, held, stage = _crawled_step()
    liar, witness = game.sessions[0], game.sessions[2]
    witness.tick(1.0)
    witness.receive(1, held)
    frame = _claim_silence(liar, 1, stage)
    liar.aborted = _stopped()  # type: ignore[assignment]
    witness.tick(2.0)
    witness.receive(0, frame)
    assert witness.aborted is not None and witness.aborted.peer == 0, witness.aborted


# -- a stalled machine charges nobody (case 8) --------------------------------------------------


def test_a_peer_that_was_stalled_charges_the_gap_to_nobody() -> None:
    """A peer that did not run for 8 s (suspended, thrashing) wakes up while waiting for
    peer 0's decision: the driver says it was stalled, so those 8 s are charged to nobody
    and it names nobody (the message it waited for may have sat unread in its socket)."""
    game = started(3)
    timing = Timing(decision=3, step=2, grace=1.0)
    for session in game.sessions:
        session.timing = session.clock.timing = timing
    start_clocks(game)
    until_asked(game, game.sessions[0])
    frozen = game.sessions[1]
    frozen.tick(0.5)
    frozen.tick(8.5, stalled=True)
    assert frozen.aborted is None and frozen.clock.waited.get(0, 0.0) == pytest.approx(0.5)
    frozen.tick(9.0)  # running again: the wait goes on from where it was
    assert frozen.clock.waited[0] == pytest.approx(1.0)


def test_the_accused_names_nobody_and_verify_of_its_file_never_names_its_claimant(
        tmp_path: Path) -> None:
    """A peer woken from a long stall finds the others declared it silent at a stage it has
    since answered: it cannot tell how late its message reached them, so it signs that the
    claim does not check but names nobody, and ``verify`` of its own file, one claim against
    the other, names nobody (before, it named the honest host)."""
    game = started(3)
    until_asked(game, game.sessions[1])
    stalled = game.sessions[1]
    stage = stalled.stage_index
    claim = _claim_silence(game.sessions[0], 1, stage)
    game.sessions[0].aborted = _stopped()  # type: ignore[assignment]
    stalled.submit(stalled.pending_input[0])  # its late answer went out
    stalled.receive(0, claim)
    assert stalled.aborted is not None
    assert (stalled.aborted.peer, stalled.aborted.kind) == (None, STOPPED), stalled.aborted
    verdict = verify_transcript(transcript(game, 1, tmp_path))
    assert (verdict.status, verdict.blame) == ("incomplete", None), verdict.summary


# -- verify weighs what the live peers signed (case 1) ------------------------------------------


def test_verify_names_the_claimant_when_the_live_peers_stopped_before_the_accused_answered(
        tmp_path: Path) -> None:
    """Peer 2 claims peer 0 silent the moment a draft pick begins (every seat picks, peer 2
    too). Live, peer 1 needs peer 2's pick and finds only its claim: it names peer 2 at once;
    peer 0 signs that the claim does not check and names nobody. Neither file holds peer 0's
    pick (the live peers stopped before it was made), yet ``verify`` names peer 2 on peer 1's
    file (a witness's signed dispute is weighed) and nobody on peer 0's; before, it named
    the honest peer 0 on both."""
    game = started(3)
    for _ in range(20000):
        if all(s.pending_input is not None and s.stage is not None
               and s.stage.kind == "pick/commit" for s in game.sessions):
            break
        assert game.deliver(), "no draft pick came"
    accused, witness, liar = game.sessions
    stage = accused.stage_index
    frame = _claim_silence(liar, 0, stage)
    liar.aborted = _stopped()  # type: ignore[assignment]
    for session in (accused, witness):
        session.receive(2, frame)
    run(game)
    assert witness.aborted is not None and witness.aborted.peer == 2, witness.aborted
    assert accused.aborted is not None and accused.aborted.peer is None, accused.aborted
    for peer, expected in ((1, ("abandoned", 2)), (0, ("incomplete", None))):
        path = transcript(game, peer, tmp_path)
        assert not any(m["msg"]["seat"] == 0 and m["msg"]["body"].get("stage") == stage
                       and m["msg"]["type"] != "abort"
                       for m in json.loads(path.read_text())["messages"])
        verdict = verify_transcript(path)
        assert (verdict.status, verdict.blame) == expected, verdict.summary
