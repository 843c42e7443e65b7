"""Leaving under faults (issue 41), with real peers over loopback TLS and kill points placed
inside the harness (``tests/test_handover_tls.py``): a handover is delivered like any message
of its author once it is written, whatever happens to the leaver after; an escrow recovery is
agreed by the whole table or not made at all; a peer that comes back after its seat was
rebuilt is told so."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import trio
from crash_game import Trial, play_with_kill_points
from test_handover_tls import (
    CFG,
    SHORT_GRACE,
    Crash,
    DiskFull,
    kill_at,
    options_in,
    play,
    play_with_a_death,
    random_bot,
)
from test_net_tcp import Peer

from p2p.net.notices import Stopped, TranscriptWritten
from p2p.session.envelope import SignedMessage
from p2p.session.events import STOPPED, GameAborted, SeatHandedOver
from p2p.session.timing import Timing
from p2p.storage.store import GameStore
from p2p.storage.transcript import verify_transcript

LEAVER = 1


def check_the_table_played_on(peers: list, gone: int, escrow: bool = False) -> None:
    """Every peer but ``gone`` finished the game with the seat played by the ghost (its
    secret from the escrow, if ``escrow``); every transcript verifies fair, and all agree."""
    results = []
    for i, peer in enumerate(peers):
        if i == gone:
            continue
        session = peer.session
        assert session is not None and session.result is not None, \
            [e.text for e in peer.events if isinstance(e, GameAborted | Stopped)]
        assert any(isinstance(e, SeatHandedOver) for e in session.events)
        verdict = verify_transcript(peer.transcript)
        assert verdict.ok, verdict.summary
        (record,) = verdict.result["left"].values()
        assert record["by"] == ("escrow" if escrow else "handover")
        results.append(verdict.result["scores"])
    assert results and all(r == results[0] for r in results)


@pytest.mark.parametrize("fault", ["killed after the handover is written",
                                   "disk full once the handover is written"])
def test_a_handover_written_is_delivered_whatever_happens_to_the_leaver(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault: str) -> None:
    """Issue 41 item 1: the leaver dies between storing its handover and sending it (or its
    disk fills right after, when it marks the game over); started again, it delivers the
    handover and leaves, and the others play on to the end."""
    home = tmp_path / f"peer{LEAVER}"
    if fault.startswith("killed"):
        fired = kill_at(monkeypatch, home, lambda m, me: m.msg.type == "handover", written=True)
    else:
        fired = []
        real = GameStore.mark_finished

        def mark_finished(store: GameStore, outcome: dict) -> None:
            if store.dir.parent.parent == home and not fired:
                fired.append(outcome)
                raise DiskFull()
            real(store, outcome)

        monkeypatch.setattr(GameStore, "mark_finished", mark_finished)
    options = options_in(tmp_path, leave_after_round=lambda i: 0 if i == LEAVER else None)
    peers = trio.run(play, tmp_path, 3, options)
    assert fired
    leaver = peers[LEAVER]
    assert leaver.session is not None and leaver.session.left
    restarted = [e for e in leaver.events if "--- restarted ---" in getattr(e, "text", "")]
    assert restarted
    assert any(isinstance(e, Stopped) and "we left" in e.text for e in leaver.events)
    assert GameStore(home, leaver.session.game_id).finished
    check_the_table_played_on(peers, LEAVER)


def test_two_players_gone_at_once_stop_an_escrow_table_resumably(tmp_path: Path) -> None:
    """Issue 41 item 5: at a 4-player table with escrow two joiners die for good at the same
    moment; a recovery needs every other player's share, so the two left stop as they would
    without the escrow: for now, naming nobody, the game resumable (before: a final verdict
    naming one of the two)."""
    peers = trio.run(play_with_a_death, tmp_path, 4, 2, 3)
    for peer in peers[:2]:
        session = peer.session
        assert session is not None and session.aborted is not None, session and session.result
        assert (session.aborted.kind, session.aborted.peer) == (STOPPED, None), \
            session.aborted
        assert not [e for e in session.events if isinstance(e, GameAborted)]
        assert any(isinstance(e, Stopped) and "did not come back" in e.text
                   for e in peer.events)
        assert not GameStore(tmp_path / f"peer{peer.index}", session.game_id).finished


def is_claim(signed: SignedMessage) -> bool:
    return signed.msg.type == "abort" and "escrow" in signed.msg.body


CLAIM_FAULTS = {
    "killed before writing its claim": (lambda m, me: is_claim(m) and m.msg.seat == me, Crash),
    "disk full at its own claim": (lambda m, me: is_claim(m) and m.msg.seat == me, DiskFull),
    # (when the other claimant's claim comes first; when ours does, this is a restart with
    # our claim stored, continued)
    "disk full at another's claim": (lambda m, me: is_claim(m) and m.msg.seat != me, DiskFull),
}


@pytest.mark.slow
@pytest.mark.parametrize("fault", [
    # make test's time: the sans-IO crash sweep (tests/byzantine.py) kills claimants at
    # their claims in make test; these real-process tables run in make soak
    *(pytest.param(f, marks=pytest.mark.soak)
      for f in ("killed before writing its claim", *(f for f in CLAIM_FAULTS if "disk" in f)))])
def test_a_claimant_that_dies_at_the_claims_does_not_split_the_table(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault: str) -> None:
    """Issue 41 item 2: 3 players with escrow, one gone for good; a claimant dies as the
    claims are written (and is started again at once). The table recovers the seat once,
    agreed by both who remain: both finish with the same outcome, verified fair, the gone
    seat played by the ghost (before: the other claimant's wait ran out while the restarted
    one waited a whole fresh grace period, and it then recovered the seat alone from a claim
    whose author had stopped, and went on to claim and rebuild that honest player too).
    A step of 4 s makes the claim's wait (step + the table's 5 s grace) shorter than the
    grace period for a peer to come back, as it is with the defaults (35 s and 60 s)."""
    hit, error = CLAIM_FAULTS[fault]
    fired = kill_at(monkeypatch, tmp_path / "peer1", hit, written=False, error=error)
    net = dataclasses.replace(CFG, grace_period=12.0)
    peers = trio.run(partial(play_with_a_death, tmp_path, 3, 2, net=net,
                             timing=lambda i: Timing(step=4)))
    assert fired
    check_the_table_played_on(peers, 2, escrow=True)


async def seat_recovered(peers: list[Peer]) -> None:
    """Until the host has played a seat on from the escrow."""
    while not any(isinstance(e, SeatHandedOver) and e.escrow for e in peers[0].events):
        await trio.sleep(0.05)


async def game_over(peers: list[Peer]) -> None:
    """Until the host and the first joiner have written their transcripts (they linger)."""
    while not all(any(isinstance(e, TranscriptWritten) for e in p.events) for p in peers[:2]):
        await trio.sleep(0.05)


@pytest.mark.parametrize("when", [
    game_over, pytest.param(seat_recovered, marks=[pytest.mark.slow, pytest.mark.soak])])
def test_a_peer_back_after_its_seat_was_rebuilt_is_answered_and_plays_no_more(
        tmp_path: Path, when: Callable[[list[Peer]], Awaitable[None]]) -> None:
    """Issue 41 item 4: a joiner killed in round 2 at a 3-player escrow table is started
    again once the others have rebuilt its seat, or finished the game: they answer it with
    the claims (after the end they stay for it, as for any peer not done), it says its seat
    is played by the ghost and stops at once, its game over (before: back after the end,
    nobody answered it, and it stopped after the grace period telling every player to
    resume)."""
    gone = 2
    comes_back = trio.Event()

    def chooser(i: int) -> Any:
        honest = random_bot(i)

        async def choose(view: Any) -> Any:
            if i == gone and view.state.round >= 2 and not comes_back.is_set():
                comes_back.set()
                raise Crash
            return await honest(view)

        return choose

    options = options_in(tmp_path, SHORT_GRACE, escrow=lambda i: i == 0,
                         accept_escrow=lambda i: i != 0, linger=lambda i: 30.0)
    peers = trio.run(partial(play, tmp_path, 3, options, chooser, comeback=when))
    back = peers[gone]
    assert back.session is not None and back.session.left, \
        [e.text for e in back.events if isinstance(e, Stopped)]
    after = back.events[[getattr(e, "text", "") for e in back.events].index(
        "--- restarted ---"):]
    assert any(isinstance(e, SeatHandedOver) and e.mine and e.escrow for e in after)
    assert any(isinstance(e, Stopped) and "rebuilt our seat's secret" in e.text
               for e in after)
    assert GameStore(tmp_path / f"peer{gone}", back.session.game_id).finished
    check_the_table_played_on(peers, gone, escrow=True)


@pytest.mark.slow
@pytest.mark.soak
def test_real_processes_a_leaver_killed_after_writing_its_handover_delivers_it(
        tmp_path: Path) -> None:
    """Issue 41 item 1 with real ``solstice`` processes: the leaver kills itself (SIGKILL)
    right after its handover is on its disk, before it is sent; started again with the same
    ``join`` command it delivers the handover and leaves (exit 0), and the other two finish
    the game (before: it stopped at once on its replayed handover, every time, and the
    others stopped after the grace period)."""
    trial = play_with_kill_points(tmp_path, {1: "handover:after-write"}, {1: ""},
                                  extra={1: ["--leave-after-round", "0"]})
    assert trial.procs[1].returncode == 0, trial.all_logs()
    assert "we left" not in trial.killed_at  # (it died before it could say so)
    restarted = trial.log(1).split("--- restarted ---", 1)[1]
    assert "we left" in restarted, trial.all_logs()
    check_the_processes_played_on(trial, (0, 2), "handover")


def check_the_processes_played_on(trial: Trial, peers: tuple[int, ...], by: str) -> None:
    """``peers`` exited 0, each with a transcript that verifies fair, the seat that left
    played by the ghost (``by``: "handover" or "escrow"), all with the same scores."""
    results = []
    for i in peers:
        assert trial.procs[i].returncode == 0, trial.all_logs()
        (path,) = trial.homes[i].glob("games/*/transcript.json")
        verdict = verify_transcript(path)
        assert verdict.ok, verdict.summary
        (record,) = verdict.result["left"].values()
        assert record["by"] == by, verdict.summary
        results.append(verdict.result["scores"])
    assert all(r == results[0] for r in results)


@pytest.mark.slow
@pytest.mark.soak
def test_real_processes_a_claimant_killed_before_writing_its_claim_does_not_split(
        tmp_path: Path) -> None:
    """Issue 41 item 2 with real processes: at a 3-player escrow table one joiner dies for
    good at its first pick; the other is killed just before writing its claim and started
    again at once. Both who remain recover the seat together and finish with the same
    verified outcome. (A 4 s step makes the claims' wait, step + 5 s, shorter than the
    12 s grace period, as the defaults are: 35 s and 60 s.)"""
    trial = play_with_kill_points(
        tmp_path, {2: "pick/commit:before-write", 1: "abort:before-write"}, {1: ""},
        extra={0: ["--escrow", "--step-time", "4"], 1: ["--accept-escrow"],
               2: ["--accept-escrow"]}, grace=12.0)
    assert trial.procs[2].returncode == -9
    check_the_processes_played_on(trial, (0, 1), "escrow")


@pytest.mark.slow
@pytest.mark.soak
def test_real_processes_a_peer_back_after_its_seat_was_rebuilt_is_told_so(
        tmp_path: Path) -> None:
    """Issue 41 item 4 with real processes: a joiner killed at its first pick of a 3-player
    escrow table is started again once the others have written their transcripts: they
    answer it (they linger for it), it says its seat was rebuilt and exits 0 (before: it
    waited the grace period unanswered and exited 1 telling every player to resume)."""
    trial = play_with_kill_points(
        tmp_path, {2: "pick/commit:before-write"}, {2: "transcript written"},
        extra={0: ["--escrow"], 1: ["--accept-escrow"], 2: ["--accept-escrow"]}, grace=4.0)
    restarted = trial.log(2).split("--- restarted ---", 1)[1]
    assert trial.procs[2].returncode == 0 and "rebuilt our seat" in restarted, \
        trial.all_logs()
    check_the_processes_played_on(trial, (0, 1), "escrow")
