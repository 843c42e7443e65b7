"""Blame that cannot be forged, and no peer can stall the table (issue #11), without sockets.

Three peers wired back to back (``LoopbackGame``); one deviates, the others run this code
unmodified. Each test ends with every honest peer naming the right peer (with proof for a
cheat, by unanimous observation for a silent peer), or nobody, and with no exception.
Time is fed by the test (``GameSession.tick``), so deadlines cost nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from test_net_session import decode, events, first, frame, resign, run, started

from engine import Dispatch
from engine.actions import action_to_dict
from p2p.net.roster import Roster, RosterEntry
from p2p.session.events import (
    ABANDONED,
    STOPPED,
    UNFAIR,
    ClockRanOut,
    DeckAudit,
    GameAborted,
    Rejected,
    TableClock,
)
from p2p.session.loopback import LoopbackGame
from p2p.session.machine import FRAME_MESSAGE, GameSession
from p2p.session.timing import Timing
from p2p.storage.transcript import outcome_of, verify_transcript, write_transcript


def honest_peers(game: LoopbackGame, bad: int) -> list[GameSession]:
    return [s for i, s in enumerate(game.sessions) if i != bad]


def assert_named(game: LoopbackGame, bad: int, kind: str, text: str = "",
                 accused: int | None = None) -> None:
    """Every honest peer stopped naming ``bad`` with a verdict of ``kind``; none named an
    honest peer; on an abandonment they agree on the stage too. ``accused``: the honest
    peer a false claim of silence named, which names nobody itself (it cannot measure its
    own lateness; its abort says the claim does not check)."""
    stages = set()
    for session in honest_peers(game, bad):
        assert session.aborted is not None, f"peer {session.me} did not stop"
        if session.me == accused:
            assert (session.aborted.peer, session.aborted.kind) == (None, STOPPED), \
                session.aborted
            continue
        assert (session.aborted.peer, session.aborted.kind) == (bad, kind), \
            (session.me, session.aborted.peer, session.aborted.kind, session.aborted.reason)
        assert text in session.aborted.reason, session.aborted.reason
        assert session.result is None
        stages.add(session.aborted.stage)
        for event in events(session, GameAborted):
            assert event.peer == bad
    assert kind != ABANDONED or len(stages) == 1, stages


def advance(game: LoopbackGame, seconds: float, step: float = 1.0) -> None:
    """Let ``seconds`` pass on every peer's clock, delivering frames in between."""
    now = max(s.clock.now for s in game.sessions)
    for _ in range(int(seconds / step)):
        now += step
        for session in game.sessions:
            session.tick(now)
        run(game)


def start_clocks(game: LoopbackGame) -> None:
    for session in game.sessions:
        session.tick(0.0)


def roster_of(game: LoopbackGame) -> Roster:
    entries = tuple(RosterEntry(i, f"p{i}", identity.public_bytes, "127.0.0.1", 1000 + i)
                    for i, identity in enumerate(game.identities))
    return Roster(game.game_id, entries).sign(game.identities[0])


def transcript(game: LoopbackGame, peer: int, path: Path) -> Path:
    names = [f"p{i}" for i in range(len(game.sessions))]
    session = game.sessions[peer]
    return write_transcript(path / f"t{peer}.json", roster_of(game), session,
                            outcome_of(session, names))


def pop_own(session: GameSession, *kinds: str) -> Any:
    """Take our own message of one of ``kinds`` out of ``session``'s outbox (not sent)."""
    for i, data in enumerate(session.outbox):
        signed = decode(data)
        if signed.msg.seat == session.me and signed.msg.type in kinds:
            del session.outbox[i]
            return signed
    raise AssertionError(f"no {kinds} message in the outbox")


def play_until(game: LoopbackGame, kind: str, peer: int = 0) -> None:
    """Run an honest game until ``peer`` enters a stage of ``kind``."""
    run(game, until=lambda: game.sessions[peer].stage is not None
        and game.sessions[peer].stage.kind == kind)


# -- 1. a forged abort --------------------------------------------------------------------------


def test_forged_abort_naming_an_innocent_peer_names_its_sender(tmp_path: Path) -> None:
    """Peer 2 stops the game with a signed abort naming peer 0, with an invented reason and,
    as 'evidence', a genuine message of peer 0. Nothing checks: peer 2 is the one that left."""
    game = started(3)
    run(game, until=lambda: len(game.sessions[0].msglog.messages) > 60)
    liar = game.sessions[2]
    genuine = game.sessions[0].msglog.get(0, 5)
    assert genuine is not None
    liar._abort(0, "peer 0 marked the cards", evidence=[genuine.to_json()])
    run(game)
    assert_named(game, 2, ABANDONED, "its accusation does not check")
    for session in honest_peers(game, 2):
        assert not any(e.peer == 0 for e in events(session, GameAborted))
        verdict = verify_transcript(transcript(game, session.me, tmp_path))
        assert (verdict.status, verdict.blame, verdict.exit_status) == ("abandoned", 2, 3), \
            verdict.summary


def test_abort_instead_of_the_audit_names_its_sender() -> None:
    """A losing peer that, once the final scores are known, sends an abort naming an innocent
    peer instead of opening its keys: it abandoned the game at the audit."""
    game = started(3)
    liar = game.sessions[1]
    honest_contribute = liar._contribute

    def contribute(stage: Any) -> None:
        if stage.kind == "audit":
            liar._abort(2, "peer 2 cheated, trust me")
        else:
            honest_contribute(stage)

    liar._contribute = contribute  # type: ignore[method-assign]
    run(game)
    assert_named(game, 1, ABANDONED)
    for session in honest_peers(game, 1):
        assert session.stage is not None and session.stage.kind == "audit"


def test_abort_after_the_result_changes_nothing() -> None:
    game = started(3)
    run(game)
    results = [s.result for s in game.sessions]
    assert all(r is not None and r["ok"] for r in results)
    liar = game.sessions[2]
    assert liar.identity is not None
    late = liar.msglog.create(liar.identity, 2, "abort", {
        "kind": UNFAIR, "blame": 0, "reason": "invented", "evidence": None,
        "stage": liar.stage_index})
    for session in honest_peers(game, 2):
        session.receive(2, FRAME_MESSAGE + late.encode())
        assert session.result is not None and session.result["ok"] and session.aborted is None


def test_a_true_accusation_is_confirmed_by_every_peer() -> None:
    """The cheater's bad message reaches only peer 0; peer 0's abort carries it, so peer 2
    checks it for itself and names the cheater too, with the same proof."""
    game = started(3)
    run(game, until=lambda: len(game.sessions[0].msglog.messages) > 40)
    cheat = game.sessions[1]
    hidden: list[bytes] = []
    honest_submit = cheat.submit

    def submit(action: Any) -> None:
        honest_submit(action)
        if hidden:
            return
        # withheld from peer 2, sent to peer 0 with a wrong state hash
        signed = pop_own(cheat, "action", "pick/commit")
        bad = resign(game, signed, body={**signed.msg.body, "state": "0" * 64})
        hidden.append(frame(bad))
        game.sessions[0].receive(1, frame(bad))

    cheat.submit = submit  # type: ignore[method-assign]
    run(game, first)
    assert hidden
    assert_named(game, 1, UNFAIR, "state hash differs")


# -- 2. equivocation ----------------------------------------------------------------------------


def equivocate(game: LoopbackGame, cheater: int) -> list[int]:
    """At its first dispatch, ``cheater`` signs two different legal dispatches with one seq
    and sends one to each other peer. Returns the two other peers."""
    cheat = game.sessions[cheater]
    others = [p for p in range(len(game.sessions)) if p != cheater]
    honest_submit = cheat.submit
    done: list[bool] = []

    def submit(action: Any) -> None:
        legal = list(cheat.pending_input or [])
        honest_submit(action)
        dispatches = [a for a in legal if isinstance(a, Dispatch) and a != action]
        if done or not isinstance(action, Dispatch) or not dispatches:
            return
        done.append(True)
        signed = pop_own(cheat, "action")
        twin = resign(game, signed, body={**signed.msg.body,
                                          "action": action_to_dict(dispatches[0])})
        game.sessions[others[0]].receive(cheater, frame(signed))
        game.sessions[others[1]].receive(cheater, frame(twin))

    cheat.submit = submit  # type: ignore[method-assign]
    run(game, first)
    assert done
    return others


def test_equivocation_is_proven_within_the_stage_and_names_the_cheater(tmp_path: Path) -> None:
    game = started(3)
    equivocate(game, 1)
    assert_named(game, 1, UNFAIR, "equivocation")
    for session in honest_peers(game, 1):
        (event,) = events(session, GameAborted)
        proof = event.evidence
        assert len(proof) == 2 and {p["msg"]["seq"] for p in proof} == {proof[0]["msg"]["seq"]}
        # nobody ever compared state hashes of diverged engines
        assert not any("state hash" in e.text for e in session.events)
        verdict = verify_transcript(transcript(game, session.me, tmp_path))
        assert (verdict.status, verdict.blame) == ("unfair", 1), verdict.summary
    # the cheater's own transcript names the cheater as well
    cheater_log = verify_transcript(transcript(game, 1, tmp_path))
    assert cheater_log.blame in (1, None), cheater_log.summary


# -- 3. silence, selective abort, a human who never moves ------------------------------------


def silence(game: LoopbackGame, peer: int, kind: str) -> None:
    """``peer`` stays connected but sends nothing from its first ``kind`` stage on."""
    session = game.sessions[peer]
    honest_contribute = session._contribute

    def contribute(stage: Any) -> None:
        if stage.kind == kind or contribute.silent:  # type: ignore[attr-defined]
            contribute.silent = True  # type: ignore[attr-defined]
            return
        honest_contribute(stage)

    contribute.silent = False  # type: ignore[attr-defined]
    session._contribute = contribute  # type: ignore[method-assign]


def test_silence_at_the_audit_is_abandonment_at_the_audit(tmp_path: Path) -> None:
    game = started(3)
    start_clocks(game)
    silence(game, 2, "audit")
    run(game)
    assert all(s.aborted is None for s in game.sessions)  # nothing happens without time
    limit = game.sessions[0].timing.step + game.sessions[0].timing.grace
    advance(game, limit - 2)
    assert all(s.aborted is None for s in game.sessions)  # not before the deadline
    advance(game, 4)
    assert_named(game, 2, ABANDONED, "(audit)")
    for session in honest_peers(game, 2):
        verdict = verify_transcript(transcript(game, session.me, tmp_path))
        assert (verdict.status, verdict.blame, verdict.exit_status) == ("abandoned", 2, 3)
        assert "not a proof of cheating" in verdict.summary


def test_withholding_the_seed_reveal_after_seeing_the_others_is_abandonment() -> None:
    """Selective abort: peer 1 sees every other setup reveal and withholds its own."""
    game = LoopbackGame(3)
    start_clocks(game)
    cheat = game.sessions[1]
    honest_contribute = cheat._contribute

    def contribute(stage: Any) -> None:
        if stage.kind != "setup/reveal":
            honest_contribute(stage)

    cheat._contribute = contribute  # type: ignore[method-assign]
    for session in game.sessions:
        session.start()
    run(game)
    assert all(s.stage is not None and s.stage.kind == "setup/reveal" for s in game.sessions)
    advance(game, 40)
    assert_named(game, 1, ABANDONED, "setup/reveal")


def test_withholding_a_leftover_reveal_is_abandonment() -> None:
    game = started(3)
    start_clocks(game)
    silence(game, 0, "chance/reveal")
    run(game)
    advance(game, 40)
    assert_named(game, 0, ABANDONED, "chance/reveal")


def test_a_human_who_never_moves_gets_a_default_move_from_its_own_client() -> None:
    """Peer 1's player never answers: after the table's decision time its own client plays a
    legal default and says so; the game goes on and nobody is blamed."""
    game = LoopbackGame(3)
    timing = Timing(decision=10, step=5, grace=1.0)
    for session in game.sessions:
        session.timing = session.clock.timing = timing
    start_clocks(game)
    for session in game.sessions:
        session.start()
    now = 0.0
    for _ in range(3000):
        if all(s.finished for s in game.sessions):
            break
        for session in game.sessions:
            if session.pending_input is not None and session.me != 1 and not session.finished:
                session.submit(session.pending_input[0])
        moved = game.deliver()
        if not moved and not any(s.pending_input and s.me != 1 for s in game.sessions):
            now += 11.0
            for session in game.sessions:
                session.tick(now)
    assert all(s.result is not None and s.result["ok"] for s in game.sessions), \
        [s.aborted.reason for s in game.sessions if s.aborted]
    timeouts = events(game.sessions[1], ClockRanOut)
    assert timeouts and "played by default" in timeouts[0].text
    assert not any(events(s, ClockRanOut) for s in game.sessions if s.me != 1)
    clocks = events(game.sessions[0], TableClock)
    assert clocks and (clocks[0].decision, clocks[0].step) == (10, 5)


def test_the_host_sets_the_table_clock_for_every_peer() -> None:
    game = LoopbackGame(3)
    game.sessions[0].timing = game.sessions[0].clock.timing = Timing(decision=42, step=7)
    for session in game.sessions:
        session.start()
    run(game, until=lambda: all(s.seat_of_peer for s in game.sessions))
    assert all((s.timing.decision, s.timing.step) == (42, 7) for s in game.sessions)


def test_a_host_clock_out_of_range_is_the_hosts_fault() -> None:
    game = LoopbackGame(3)
    game.sessions[0].timing = game.sessions[0].clock.timing = Timing(decision=0, step=7)
    for session in game.sessions:
        session.start()
    run(game)
    assert_named(game, 0, UNFAIR, "clock decision time")


# -- 4. leaving at the audit -------------------------------------------------------------------


def test_leaving_at_the_audit_names_the_peer_that_left_and_nobody_else() -> None:
    game = started(3)
    start_clocks(game)
    left = {"gone": False}

    def tamper(who: int, data: bytes) -> bytes | None:
        if who == 1 and data[:1] == FRAME_MESSAGE and decode(data).msg.type == "audit":
            left["gone"] = True
        return None if who == 1 and left["gone"] else data

    run(game, tamper=tamper)
    assert left["gone"]
    for _ in range(40):
        for session in game.sessions:
            session.tick(session.clock.now + 1)
        run(game, tamper=tamper)
    assert_named(game, 1, ABANDONED, "(audit)")


def test_a_claim_of_silence_contradicted_by_the_log_names_the_claimant() -> None:
    """Peer 2 claims peer 0 was silent at a stage where peer 0's message is in every log:
    peer 1 names peer 2."""
    game = started(3)
    run(game, until=lambda: len(game.sessions[0].msglog.messages) > 50)
    liar = game.sessions[2]
    stage = next(m.msg.body["stage"] for m in liar.msglog.messages if m.msg.seat == 0
                 and m.msg.type != "abort")
    assert liar.identity is not None
    claim = liar.msglog.create(liar.identity, 2, "abort", {
        "kind": ABANDONED, "blame": 0, "reason": "peer 0 went silent", "evidence": None,
        "stage": stage})
    liar.aborted = liar.aborted or _stopped()
    for peer in (0, 1):
        game.sessions[peer].receive(2, FRAME_MESSAGE + claim.encode())
    run(game)
    witness, accused = game.sessions[1], game.sessions[0]
    assert witness.aborted is not None and (witness.aborted.peer, witness.aborted.kind) == (
        2, ABANDONED) and "that peer's message for it is here" in witness.aborted.reason
    # The accused signs the same (its abort names peer 2), but names nobody itself.
    assert accused.aborted is not None and accused.aborted.peer is None
    said = [m for m in accused.msglog.messages if m.msg.seat == 0 and m.msg.type == "abort"]
    assert [m.msg.body["blame"] for m in said] == [2]


def _stopped() -> Any:
    from p2p.session.events import Aborted

    return Aborted(None, "lying", ABANDONED)


# -- 6. a wrong re-key layer ---------------------------------------------------------------------


def cheat_on_first(game: LoopbackGame, peer: int, layer: str,
                   edit: Any) -> Any:
    """Make ``peer`` send its first deck layer of type ``layer`` with ``edit(points)``."""
    cheat = game.sessions[peer]
    honest_send = cheat._send

    def send(kind: str, body: dict[str, Any]) -> None:
        deck = body.get("deck")
        if kind == "deck/step" and isinstance(deck, dict) and deck.get("type") == layer \
                and not send.done:  # type: ignore[attr-defined]
            send.done = True  # type: ignore[attr-defined]
            body = {**body, "deck": {**deck, "points": edit(list(deck["points"]))}}
        honest_send(kind, body)

    send.done = False  # type: ignore[attr-defined]
    cheat._send = send  # type: ignore[method-assign]
    return send


def test_a_wrong_rekey_layer_is_named_by_its_proof_without_opening_a_seed(
        tmp_path: Path) -> None:
    """Peer 1 swaps two points of its re-key layer (each still a valid point): its proof
    no longer checks, so every peer names peer 1 on arrival, with that one signed message as
    proof; no slot is opened and no deck seed with it."""
    game = LoopbackGame(3)

    def swap(points: list[str]) -> list[str]:
        points[0], points[1] = points[1], points[0]
        return points

    send = cheat_on_first(game, 1, "deck/rekey", swap)
    for session in game.sessions:
        session.start()
    run(game)
    assert send.done
    assert_named(game, 1, UNFAIR, "deck/rekey")
    for session in honest_peers(game, 1):
        assert not any(isinstance(e, DeckAudit) for e in session.events)
        (event,) = events(session, GameAborted)
        assert len(event.evidence) == 1  # the re-key itself: no deck opening
        verdict = verify_transcript(transcript(game, session.me, tmp_path))
        assert (verdict.status, verdict.blame) == ("unfair", 1), verdict.summary


def test_a_shuffle_that_keeps_its_sum_is_named_by_its_argument_without_opening_a_seed(
        tmp_path: Path) -> None:
    """Peer 1 adds a point to one output of its shuffle and takes it from another (each
    still a valid point, the sum kept: what a proof over the sum alone let through): its
    shuffle argument no longer checks, so every peer names peer 1 on arrival with that one
    signed message as proof; no slot is opened and no deck seed."""
    from nacl import bindings as sodium

    game = LoopbackGame(3)

    def shift(points: list[str]) -> list[str]:
        moved = bytes.fromhex(points[2])
        first = sodium.crypto_core_ed25519_add(bytes.fromhex(points[0]), moved)
        second = sodium.crypto_core_ed25519_sub(bytes.fromhex(points[1]), moved)
        return [first.hex(), second.hex(), *points[2:]]

    send = cheat_on_first(game, 1, "deck/shuffle", shift)
    for session in game.sessions:
        session.start()
    run(game)
    assert send.done
    assert_named(game, 1, UNFAIR, "deck/shuffle")
    for session in honest_peers(game, 1):
        assert not any(isinstance(e, DeckAudit) for e in session.events)
        (event,) = events(session, GameAborted)
        assert len(event.evidence) == 1  # the shuffle itself: no deck opening
        verdict = verify_transcript(transcript(game, session.me, tmp_path))
        assert (verdict.status, verdict.blame) == ("unfair", 1), verdict.summary


def test_a_false_alarm_of_a_corrupt_deck_names_the_alarmist() -> None:
    game = started(3)
    run(game, until=lambda: len(game.sessions[0].msglog.messages) > 40)
    game.sessions[2].referee.open_deck("I say the deck is corrupt", None)
    run(game)
    assert_named(game, 2, ABANDONED, "audit of every layer shows it is not")


def test_an_alarm_sent_to_one_peer_only_names_the_alarmist_not_the_answerer(
        tmp_path: Path) -> None:
    """Peer 2 raises a false deck alarm, and everything it sends from then on reaches peer 0
    alone. Peer 0 answers; peer 1 holds 2's alarm only as 0's relayed copy, which leaves
    before 0's answer, so 1 answers too instead of naming 0: every honest peer names the
    alarmist, and ``verify`` agrees on both honest transcripts."""
    game = started(3)
    run(game, until=lambda: len(game.sessions[0].msglog.messages) > 40)
    alarmist, kept_out = 2, 1
    game.sessions[alarmist].referee.open_deck("I say the deck is corrupt", None)

    def deliver() -> bool:
        moved = False
        for sender, session in enumerate(game.sessions):
            session.release_relays()
            out, session.outbox = session.outbox, []
            for data in out:
                moved = True
                for peer, other in enumerate(game.sessions):
                    if peer != sender and (sender, peer) != (alarmist, kept_out):
                        other.receive(sender, data)
        return moved

    for _ in range(1000):
        if not deliver():
            break
    assert_named(game, alarmist, ABANDONED, "audit of every layer shows it is not")
    for peer in (0, 1):
        verdict = verify_transcript(transcript(game, peer, tmp_path))
        assert (verdict.status, verdict.blame) == ("abandoned", alarmist), verdict.summary


def test_a_false_alarm_raised_while_a_deck_batch_is_built_proves_nothing_to_a_peer_further_on(
        tmp_path: Path) -> None:
    """In a clean-up reshuffle, the peer of seat 1 re-keys, then cries "corrupt deck" in the
    next stage, seat 2's re-key: that proves nothing (no card of the batch was opened). Seat
    2's peer reads the alarm there, before its step; seat 0's peer reads it only once the batch
    is done and it has moved on. Both judge it by the deck as it was at the alarm's stage and
    name the alarmist (seat 0's peer once answered it, waited for deck openings nobody else
    would send, and named an honest peer for that: soak byzantine seed 139)."""
    game = started(3)
    peer_of_seat = game.sessions[0].peer_of_seat
    late, alarmist, last = (game.sessions[peer_of_seat[seat]] for seat in range(3))
    held: list[tuple[int, bytes]] = []
    raised: list[int] = []  # the alarm's stage, once it is raised

    def rekey_of(seat: int, s: GameSession) -> bool:
        turn = s.deck.turn if s.deck is not None and s.engine is not None else None
        return turn is not None and turn.batch >= 1 and (turn.step, turn.seat) == ("rekey", seat)

    def passed(s: GameSession) -> bool:
        return s.stage_index > raised[0] and s.deck is not None and s.deck.turn is None

    def send(sender: int, peer: int, data: bytes) -> None:
        signed = decode(data)
        if raised and game.sessions[peer] is late and signed.msg.seat == alarmist.me \
                and signed.msg.type == "abort" and not passed(late):
            held.append((sender, data))
        else:
            game.sessions[peer].receive(sender, data)

    def deliver() -> bool:
        """One round: every frame ready now goes out (frames made meanwhile wait)."""
        frames = []
        for sender, session in enumerate(game.sessions):
            session.release_relays()
            frames += [(sender, data) for data in session.outbox]
            session.outbox = []
        for sender, data in frames:
            for peer in range(3):
                if peer != sender:
                    send(sender, peer, data)
        if held and passed(late):
            for sender, data in held:
                late.receive(sender, data)
            held.clear()
        return bool(frames)

    run(game, until=lambda: any(s.deck is not None and s.deck.turn is not None
                                and s.deck.turn.batch >= 1 for s in game.sessions))
    for _ in range(100):
        if rekey_of(2, alarmist):
            break
        deliver()
    assert rekey_of(2, alarmist) and rekey_of(1, last)  # its re-key is not delivered yet
    raised.append(alarmist.stage_index)
    alarmist.referee.open_deck("I say the deck is corrupt", None)
    out, alarmist.outbox = alarmist.outbox, []
    assert alarmist.me is not None and decode(out[-1]).msg.type == "abort"
    # Seat 2's peer takes the step and the alarm in before it moves (as when both come in
    # one read): it reads the alarm as it enters its own re-key stage, before its step.
    for data in out:
        signed = decode(data)
        last.absorb(signed, direct=signed.msg.seat == alarmist.me)
    last._pump()
    for data in out:
        send(alarmist.me, late.me or 0, data)
    for _ in range(1000):
        if not deliver():
            break
    assert passed(late) and not held  # it read the alarm only further on
    assert_named(game, alarmist.me, ABANDONED)
    for session in honest_peers(game, alarmist.me):
        verdict = verify_transcript(transcript(game, session.me or 0, tmp_path))
        assert (verdict.status, verdict.blame) == ("abandoned", alarmist.me), verdict.summary


def test_a_peer_that_does_not_open_its_deck_keys_is_named() -> None:
    game = started(3)
    start_clocks(game)
    run(game, until=lambda: len(game.sessions[0].msglog.messages) > 40)
    silent = game.sessions[0]
    silent.referee.open_deck = lambda *args, **kwargs: None  # type: ignore[method-assign]
    game.sessions[2].referee.open_deck("slot 3 decrypts to no card", None)
    run(game)
    advance(game, 40)
    assert_named(game, 0, ABANDONED, "did not open its deck keys")


# -- 7. floods -----------------------------------------------------------------------------------


def test_ten_thousand_junk_frames_keep_a_bounded_trace_and_stop_nothing() -> None:
    from p2p.session.inbox import MAX_REJECTIONS_SHOWN

    game = started(3)
    victim = game.sessions[0]
    before = len(victim.events)
    for i in range(10_000):
        victim.receive(2, b"M{junk %d}" % i)
    shown = [e for e in victim.events[before:] if isinstance(e, Rejected)]
    assert len(shown) == MAX_REJECTIONS_SHOWN
    assert "further rejections" in shown[-1].text
    assert victim.rejections[2] == 10_000 and victim.aborted is None
    run(game)
    assert all(s.result is not None for s in game.sessions)


def test_messages_far_ahead_of_the_game_are_bounded() -> None:
    """Peer 1 signs 200 messages no stage asks for: at most MAX_QUEUED are kept; when the game
    reaches peer 1, its first one is out of place and proves the fault."""
    from p2p.session.inbox import MAX_QUEUED

    game = started(3)
    flooder = game.sessions[1]
    assert flooder.identity is not None
    victim = game.sessions[0]
    before = victim.msglog.next_seq(1)
    for i in range(200):
        signed = flooder.msglog.create(flooder.identity, 1, "action", {"stage": 10_000 + i})
        victim.receive(1, FRAME_MESSAGE + signed.encode())
    assert len(victim.queues[1]) <= MAX_QUEUED
    # at most MAX_QUEUED kept waiting, plus one the game may already have taken and judged
    assert victim.msglog.next_seq(1) - before <= MAX_QUEUED + 1
    run(game)
    assert victim.aborted is not None and victim.aborted.peer == 1


async def test_resync_requests_are_answered_within_a_budget(autojump_clock) -> None:
    import trio

    from p2p.net.runner import SYNC_BURST, SYNC_EVERY, _SyncBudget

    budget = _SyncBudget(3)
    assert [budget.take(1) for _ in range(SYNC_BURST + 5)].count(True) == SYNC_BURST
    assert budget.take(2)  # another peer's budget is its own
    await trio.sleep(SYNC_EVERY)
    assert budget.take(1) and not budget.take(1)
