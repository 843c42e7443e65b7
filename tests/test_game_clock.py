"""The table's time, without sockets: silence is agreed to only after one's own deadline
(issue 24, finding 3), and each player's game clock stops a peer that answers just before
every deadline (finding 6), while an honest game with ordinary thinking times never comes
near it. Time is simulated: every peer is fed the same clock, frames move between ticks.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_net_blame import assert_named, honest_peers, start_clocks, transcript
from test_net_session import decode, run, started

from p2p.session.clock import StageClock
from p2p.session.events import ABANDONED, DecisionClock
from p2p.session.loopback import LoopbackGame
from p2p.session.machine import FRAME_MESSAGE, GameSession
from p2p.session.seatview import SeatView
from p2p.session.stage_table import DECISIONS, STAGE_TABLE
from p2p.session.timing import DECISION, STEP, Timing, parse_clock
from p2p.storage.transcript import verify_transcript

TICK = 0.5

# -- finding 3: an instant claim of silence ------------------------------------------------------


def until_asked(game: LoopbackGame, asked: GameSession) -> None:
    """Play on (the others answering at once) until ``asked`` is to decide."""
    for _ in range(20000):
        if asked.pending_input is not None:
            break
        moved = game.deliver()
        for session in game.sessions:
            if session is not asked and session.pending_input and not session.finished:
                session.submit(session.pending_input[0])
                moved = True
        assert moved, "the game stopped before peer 0 was asked"
    else:
        raise AssertionError("peer 0 was never asked")
    moved = True
    while moved:  # the others answer the same stage too: it waits for peer 0 alone
        moved = game.deliver()
        for session in game.sessions:
            if session is not asked and session.pending_input and not session.finished:
                session.submit(session.pending_input[0])
                moved = True
    assert all(s.waiting_for() == [asked.me] for s in game.sessions)


def _claim_silence(liar: GameSession, blame: int, stage: int) -> bytes:
    assert liar.identity is not None and liar.me is not None
    claim = liar.msglog.create(liar.identity, liar.me, "abort", {
        "kind": ABANDONED, "blame": blame, "reason": f"peer {blame} went silent",
        "evidence": None, "stage": stage})
    return FRAME_MESSAGE + claim.encode()


def test_an_instant_claim_of_silence_is_not_agreed_to_and_names_the_claimant(
        tmp_path: Path) -> None:
    """The moment a decision of peer 0 begins, peer 2 claims peer 0 was silent at it. Peer 1
    (and peer 0) stand at that stage without peer 0's message, but their own deadline has not
    passed: they wait; peer 0 decides, and the claim is false: peer 1 names peer 2, and so
    does ``verify`` on its transcript. Peer 0, the accused, signs that the claim does not
    check but names nobody itself (it cannot measure its own lateness), and ``verify`` on its
    transcript, one claim against the other, names nobody: never peer 0."""
    game = started(3)
    start_clocks(game)
    deciding = game.sessions[0]
    until_asked(game, deciding)
    liar = game.sessions[2]
    stage = deciding.stage_index
    assert deciding.stage is not None and deciding.stage.kind in DECISIONS
    assert deciding.pending_input is not None and game.sessions[1].stage_index == stage
    frame = _claim_silence(liar, 0, stage)
    liar.aborted = liar.aborted or _stopped()
    for peer in (0, 1):
        game.sessions[peer].tick(1.0)  # one second into the stage: nobody's deadline is past
        game.sessions[peer].receive(2, frame)
    assert all(s.aborted is None for s in honest_peers(game, 2)), [
        s.aborted.reason for s in honest_peers(game, 2) if s.aborted]
    run(game)  # peer 0 decides: its message for the stage refutes the claim
    witness, accused = game.sessions[1], game.sessions[0]
    assert witness.aborted is not None and (witness.aborted.peer, witness.aborted.kind) == (
        2, ABANDONED) and "that peer's message for it is here" in witness.aborted.reason
    assert accused.aborted is not None and accused.aborted.peer is None, accused.aborted
    verdict = verify_transcript(transcript(game, 1, tmp_path))
    assert (verdict.status, verdict.blame) == ("abandoned", 2), verdict.summary
    verdict = verify_transcript(transcript(game, 0, tmp_path))
    assert (verdict.status, verdict.blame) == ("incomplete", None), verdict.summary


def test_a_claim_of_silence_is_agreed_to_once_the_receivers_own_deadline_passed() -> None:
    """A true claim: peer 0 never sends its decision. A receiver that gets the claim early
    agrees only when its own deadline for peer 0 there has passed, then names peer 0."""
    game = started(3)
    timing = Timing(decision=10, step=5, grace=1.0)
    for session in game.sessions:
        session.timing = session.clock.timing = timing
    start_clocks(game)
    deciding = game.sessions[0]
    until_asked(game, deciding)
    deciding.pending_input = None  # peer 0's player is gone, and so is its client's default
    deciding.tick = lambda now: None  # type: ignore[method-assign]
    stage = deciding.stage_index
    frame = _claim_silence(game.sessions[2], 0, stage)
    game.sessions[2].aborted = _stopped()
    receiver = game.sessions[1]
    receiver.tick(5.0)
    receiver.receive(2, frame)
    assert receiver.aborted is None  # 5 s into a 15 s deadline: it waits
    receiver.tick(16.0)  # its own deadline (10 + 5 s) passed: the claim is agreed to
    assert receiver.aborted is not None and receiver.aborted.peer == 0, receiver.aborted


def _stopped() -> object:
    from p2p.session.events import Aborted

    return Aborted(None, "lying", ABANDONED)


# -- finding 6: a per-player game clock ---------------------------------------------------------

Think = Callable[[int, SeatView], float]  # seconds a player takes over a decision
Hold = Callable[[int, bytes], float]      # seconds a peer holds a frame back before it leaves


def clocked_play(game: LoopbackGame, timing: Timing, think: Think, hold: Hold | None = None,
                 give_up: float = 100000.0, untimed: int | None = None) -> float:
    """Play a whole game on simulated time; returns the seconds it took. ``untimed``: a
    peer whose session is never fed the time (a crawler keeps its own judge quiet: the
    others' lateness it would see is its own doing)."""
    for session in game.sessions:
        session.timing = session.clock.timing = timing
    now = 0.0
    for session in game.sessions:
        session.tick(now)
    for session in game.sessions:
        session.start()
    answers: dict[int, tuple[int, float]] = {}    # peer -> (stage asked in, answer at)
    held: list[tuple[float, int, bytes]] = []     # (leaves at, sender, frame), in order
    last_release = [0.0] * len(game.sessions)

    def send(sender: int, data: bytes) -> None:
        for peer, other in enumerate(game.sessions):
            if peer != sender:
                other.receive(sender, data)

    # The table's bound is the honest peers': the untimed crawler's own end does not count.
    judged = [s for peer, s in enumerate(game.sessions) if peer != untimed]
    while now < give_up and not all(s.finished for s in judged):
        moved = True
        while moved:
            moved = False
            for sender, session in enumerate(game.sessions):
                session.release_relays()
                out, session.outbox = session.outbox, []
                for data in out:
                    delay = hold(sender, data) if hold is not None else 0.0
                    if delay <= 0 and not any(h[1] == sender for h in held):
                        send(sender, data)
                        moved = True
                    else:  # a peer's frames leave in the order it made them
                        last_release[sender] = max(last_release[sender], now + delay)
                        held.append((last_release[sender], sender, data))
            for item in [h for h in held if h[0] <= now]:
                held.remove(item)
                send(item[1], item[2])
                moved = True
            for peer, session in enumerate(game.sessions):
                view = session.seat_view() if not session.finished else None
                if view is None or not view.legal:
                    continue
                asked = answers.get(peer)
                if asked is None or asked[0] != view.stage:
                    answers[peer] = asked = (view.stage, now + think(peer, view))
                if now >= asked[1]:
                    session.submit(view.legal[0], view.stage)
                    moved = True
        now += TICK
        for peer, session in enumerate(game.sessions):
            if peer != untimed:
                session.tick(now)
    # The last verdicts still reach the others, as a runner gathers them before it writes
    # its transcript (``RunOptions.concur``).
    for _ in game.sessions:
        for sender, session in enumerate(game.sessions):
            out, session.outbox = session.outbox, []
            for data in [*(h[2] for h in held if h[1] == sender), *out]:
                send(sender, data)
        held.clear()
    return now


def crawler(peer: int, timing: Timing) -> Hold:
    """``peer`` holds each message of its own back until just before the others' deadline
    for it (limit + grace), and answers its decisions at once (its clock never plays)."""
    def hold(sender: int, data: bytes) -> float:
        if sender != peer or data[:1] != FRAME_MESSAGE:
            return 0.0
        signed = decode(data)
        if signed.msg.seat != peer or signed.msg.type == "abort":
            return 0.0
        return timing.limit(STAGE_TABLE[signed.msg.type].clock) + timing.grace - 2 * TICK
    return hold


def _crawl_bound(timing: Timing) -> float:
    """The most a crawler can cost the table, from the table's clock: each bank (and the
    increments its stages earn back) spent at the crawler's rate, plus one stage's wait, plus
    one grace for the claim to be agreed (a clean-clone run of a random game took 0.42 s
    past the bound without it)."""
    total = timing.grace
    for clock in (DECISION, STEP):
        bank, increment = timing.bank(clock)
        wait = timing.limit(clock) + timing.grace
        total += (bank + timing.tolerance(clock)) * wait / (wait - increment) + wait
    return total


FAST = Timing(decision=6, step=3, grace=1.0, decision_bank=40, decision_increment=2,
              step_bank=20, step_increment=1)


def test_a_crawler_is_named_abandoned_within_the_bound_the_table_chose(tmp_path: Path) -> None:
    """Peer 1 answers just before every deadline: without a game clock it would stretch a
    game of seconds to hours, and never be named. Its game clock runs out, every honest peer
    names it abandoned (and nobody else), within the bound the host's clock sets; ``verify``
    agrees on their transcripts."""
    game = LoopbackGame(3)
    took = clocked_play(game, FAST, think=lambda peer, view: 0.0, hold=crawler(1, FAST), untimed=1)
    assert_named(game, 1, ABANDONED, "game clock")
    assert took <= _crawl_bound(FAST), (took, _crawl_bound(FAST))
    for peer in (0, 2):
        verdict = verify_transcript(transcript(game, peer, tmp_path))
        assert (verdict.status, verdict.blame) == ("abandoned", 1), verdict.summary


def test_without_a_game_clock_the_crawler_is_never_named() -> None:
    """The same crawler against a table without game clocks (banks 0) stalls far longer than
    the bound and is never named: the bound above is the game clock's doing."""
    off = Timing(decision=6, step=3, grace=1.0, decision_bank=0, step_bank=0)
    game = LoopbackGame(3)
    took = clocked_play(game, off, think=lambda peer, view: 0.0, hold=crawler(1, off),
                        untimed=1, give_up=3 * _crawl_bound(FAST))
    assert all(s.aborted is None for s in game.sessions)
    # It is cut off at three times the bound, or, in a short deal, crawls to the game's end
    # unnamed (the shortest of 72 such games took 2.1 times the bound).
    assert took >= 1.5 * _crawl_bound(FAST)


def test_an_honest_game_with_ordinary_thinking_times_never_comes_near_the_default_clock() -> None:
    """Three players on the default clock, each taking 30 s over every decision and 1 s
    over every automatic step (slow machines): the game finishes, and every bank, as every
    peer measures it, keeps at least a third of its time (about half, in most deals)."""
    game = LoopbackGame(3)
    timing = Timing()

    def slow_steps(sender: int, data: bytes) -> float:
        return 1.0 if data[:1] == FRAME_MESSAGE and decode(data).msg.seat == sender else 0.0

    clocked_play(game, timing, think=lambda peer, view: 30.0, hold=slow_steps)
    for session in game.sessions:
        assert session.result is not None and session.result["ok"], session.aborted
        for peer in range(3):
            for clock in (DECISION, STEP):
                left = session.clock.bank_left(peer, clock)
                bank, _ = timing.bank(clock)
                assert left is not None and left > bank / 3, (session.me, peer, clock, left)


def test_our_own_client_plays_its_default_before_our_game_clock_runs_out() -> None:
    """A slow player (its client answers only after 5 s, its decision time is 6 s) on a
    small decision bank: its own client plays the default before the bank is overdrawn, so
    an honest but slow player is never named."""
    game = LoopbackGame(3)
    small = Timing(decision=6, step=3, grace=1.0, decision_bank=12, decision_increment=1,
                   step_bank=60, step_increment=1)
    clocked_play(game, small, think=lambda peer, view: 5.0 if peer == 2 else 0.0)
    assert all(s.result is not None and s.result["ok"] for s in game.sessions), \
        [s.aborted.reason for s in game.sessions if s.aborted]


def test_the_game_clock_is_the_hosts_and_is_shown_with_each_decision() -> None:
    game = LoopbackGame(3)
    host = Timing(decision=42, step=7, decision_bank=600, decision_increment=10,
                  step_bank=120, step_increment=3)
    game.sessions[0].timing = game.sessions[0].clock.timing = host
    start_clocks(game)
    for session in game.sessions:
        session.start()
    run(game, until=lambda: all(any(isinstance(e, DecisionClock) for e in s.events)
                                for s in game.sessions))
    assert all(s.timing == Timing(grace=s.timing.grace, **host.to_json())
               for s in game.sessions)
    shown = [e for e in game.sessions[1].events if isinstance(e, DecisionClock)]
    assert shown and "game clock left: peer" in shown[0].text and "10:00" in shown[0].text


def test_a_clock_without_game_clocks_still_parses_as_none() -> None:
    """An older transcript's clock (decision and step only) has no game clock."""
    timing = parse_clock(0, {"decision": 120, "step": 30}, Timing())
    assert (timing.decision_bank, timing.step_bank) == (0, 0)
    assert parse_clock(0, Timing().to_json(), Timing()) == Timing()


def test_the_host_sets_the_game_clock_on_the_command_line(monkeypatch, capsys) -> None:
    """``solstice host --decision-bank ... --step-increment ...`` becomes the table's clock
    that the host's setup/commit carries (and the transcript with it)."""
    import p2p.net.games as games
    from p2p.errors import LocalProtocolError
    from ui.cli.commands import main

    seen: list[Timing | None] = []

    async def fake_host(players, choose, on_event, options, on_lobby):  # type: ignore[no-untyped-def]
        seen.append(options.timing)
        raise LocalProtocolError("stop here")

    monkeypatch.setattr(games, "host_game", fake_host)
    main(["host", "--players", "2", "--bot", "random", "--bind", "127.0.0.1",
          "--decision-bank", "600", "--decision-increment", "5", "--step-bank", "90",
          "--step-increment", "1", "--decision-time", "60"])
    capsys.readouterr()
    assert seen == [Timing(60, 30, decision_bank=600, decision_increment=5, step_bank=90,
                           step_increment=1)]
    assert Timing().describe().endswith("decisions 20:00 + 20 s each, steps 5:00 + 2 s each")


@pytest.mark.parametrize("seed", range(3))
def test_a_crawler_at_seeded_random_delays_never_gets_an_honest_peer_named(
        tmp_path: Path, seed: int) -> None:
    """The crawler holds each message back a seeded random share (40-97 %) of the others'
    deadline plus grace: whatever the mix, the game ends within the table's bound, and if
    anyone is named it is the crawler, with ``verify`` agreeing."""
    rng = random.Random(seed)
    game = LoopbackGame(3)
    crawl = crawler(1, FAST)

    def hold(sender: int, data: bytes) -> float:
        return crawl(sender, data) * rng.uniform(0.4, 0.97)

    took = clocked_play(game, FAST, think=lambda peer, view: rng.uniform(0, 3), hold=hold,
                        untimed=1)
    assert took <= _crawl_bound(FAST) + 200, took  # + the honest game's own time
    for peer in (0, 2):
        session = game.sessions[peer]
        if session.aborted is not None:
            assert session.aborted.peer == 1, session.aborted.reason
            verdict = verify_transcript(transcript(game, peer, tmp_path))
            assert verdict.blame == 1, verdict.summary
        else:
            assert session.result is not None and session.result["ok"]


@given(st.lists(st.tuples(st.floats(0.0, 5.0), st.booleans()), max_size=60),
       st.integers(1, 20), st.integers(0, 60))
@settings(max_examples=200, deadline=None)
def test_a_deadline_counts_only_the_time_a_peer_is_here(
        steps: list[tuple[float, bool]], step: int, bank: int) -> None:
    """Whatever the sequence of ticks and absences: the time a peer was away is never
    charged, it is never due before its present time passed the stage's limit or its bank
    and the margin, and it is declared late only beyond the grace on top."""
    timing = Timing(decision=5, step=step, grace=1.0, step_bank=bank, step_increment=0)
    clock = StageClock(timing)
    clock.adopted = True  # the host's clock is in force
    clock.advance(0.0)
    clock.enter_stage()
    now = present = 0.0
    for elapsed, here in steps:
        now += elapsed
        clock.advance(now, [7] if here else [])
        present += elapsed if here else 0.0
        assert clock.waited.get(7, 0.0) == pytest.approx(present)
        left = clock.bank_left(7, STEP)
        assert left == (None if bank == 0 else pytest.approx(bank - present))
        margin = timing.margin(STEP)
        limit_passed = present > step or (bank and present > bank + margin)
        assert clock.due(7, STEP) == bool(limit_passed) or abs(present - step) < 1e-9 \
            or abs(present - bank - margin) < 1e-9
        if clock.late(7, STAGE_TABLE["keys"]) is not None:
            # (1e-9: the clock sums differences of ``now``, the test the elapsed times, and at
            # exactly the limit the two sums may differ in the last bit)
            assert present > step + 1.0 - 1e-9 \
                or (bank and present > bank + timing.tolerance(STEP) - 1e-9)


def test_a_peer_that_replays_or_resyncs_judges_nobody() -> None:
    """While a session replays (a restarted peer catching up), no deadline and no game clock
    runs against anyone, however long it takes; once it plays again, they run from then."""
    game = started(3)
    start_clocks(game)
    until_asked(game, game.sessions[0])
    judge = game.sessions[1]
    judge.replaying = True
    for now in range(1, 2000, 50):
        judge.tick(float(now))
    assert judge.aborted is None and not judge.clock.waited
    judge.replaying = False
    judge.tick(2001.0)
    assert judge.aborted is None  # its wait for peer 0 starts now
    judge.tick(2001.0 + judge.timing.limit(DECISION) + judge.timing.grace + 1)
    assert judge.aborted is not None and judge.aborted.peer == 0
