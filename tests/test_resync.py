"""A restarted peer signs nothing until the others re-sent what it lacks (sans-IO, loopback
sessions): whatever its disk lost, it never signs two different messages with one seq."""

from __future__ import annotations

import random

import pytest

from engine import Action
from engine.canonical import canonical_json
from p2p.errors import LocalProtocolError
from p2p.net.resync import FRAME_SYNC_DONE, MAX_REASKS, Resync
from p2p.session.envelope import SignedMessage
from p2p.session.loopback import LoopbackGame
from p2p.session.machine import FRAME_MESSAGE, GameSession
from p2p.session.seatview import SeatView

VICTIM = 1


def _chooser(seed: int):
    rng = random.Random(seed)

    def choose(view: SeatView) -> Action:
        return view.legal[rng.randrange(len(view.legal))]

    return choose


def _advance(game: LoopbackGame, choose, steps: int) -> None:
    for session in game.sessions:
        session.start()
    for _ in range(steps):
        game.deliver()
        for session in game.sessions:
            view = session.seat_view() if not session.finished else None
            if view is not None and view.legal:
                session.submit(choose(view))


def _others(game: LoopbackGame) -> list[int]:
    return [p for p in range(len(game.sessions)) if p != VICTIM]


def _restart(game: LoopbackGame, stored: list[SignedMessage]) -> tuple[GameSession, Resync]:
    """The victim rebuilt from what its disk kept (as ``runner.open_session`` does)."""
    keys = [identity.public_bytes for identity in game.identities]
    session = GameSession(game.game_id, keys, VICTIM, game.identities[VICTIM],
                          game.masters[VICTIM])
    session.replaying = True
    for signed in stored:
        session.accept(signed, direct=False)
    session.replaying = False
    session.outbox.clear()
    resync = Resync(session, _others(game), held=True)
    session.start()
    return session, resync


def _answer(other: GameSession, request: bytes, session: GameSession, resync: Resync,
            peer: int) -> bool:
    """``peer`` answers the restarted session's sync request; True if that released it."""
    released = False
    replier = Resync(other, [], held=False)
    for frame in replier.reply(request):
        if frame[:1] == FRAME_MESSAGE:
            session.receive(peer, frame)
        else:
            assert frame[:1] == FRAME_SYNC_DONE
            released = resync.on_done(peer, frame)
    return released


def _own_seqs(session: GameSession) -> list[bytes]:
    return [m.encode() for m in session.msglog.messages if m.msg.seat == VICTIM]


@pytest.mark.parametrize("kept", ["all but our last two", "nothing (log deleted)"])
def test_a_restarted_peer_refetches_its_own_lost_messages_before_signing(kept: str) -> None:
    choose = _chooser(7)
    game = LoopbackGame(3)
    _advance(game, choose, 40)
    full = list(game.sessions[VICTIM].msglog.messages)
    own = [i for i, m in enumerate(full) if m.msg.seat == VICTIM]
    assert len(own) >= 3
    stored = full[:own[-2]] if kept.startswith("all") else []
    session, resync = _restart(game, stored)
    assert resync.held and session.outbox == [] and session.pending_input is None
    request = session.sync_request()
    assert not _answer(game.sessions[0], request, session, resync, 0)
    # one peer answered: the other may hold more of ours, so still nothing is signed
    assert resync.held and session.outbox == [] and session.pending_input is None
    assert resync.waiting_for() == [2]
    assert _answer(game.sessions[2], request, session, resync, 2)
    assert not resync.held
    # it holds every message of its own the others hold, byte for byte (and, when its disk
    # kept one that never went out before the crash, that one too: signed, stored, unsent)
    held_by_others = _own_seqs(game.sessions[0])
    assert _own_seqs(session)[:len(held_by_others)] == held_by_others
    _others_ask(session, game)
    game.sessions[VICTIM] = session
    game.play(choose)
    assert all(s.aborted is None for s in game.sessions), [s.aborted for s in game.sessions]
    assert all(s.result is not None and s.result["ok"] for s in game.sessions)


def _others_ask(session: GameSession, game: LoopbackGame) -> None:
    """The others' side of the reconnection (the runner's ``PeerReconnected``): each asks the
    restarted peer for what it lacks, which brings them what its disk kept but never sent."""
    for peer in _others(game):
        other = game.sessions[peer]
        for frame in Resync(session, [], held=False).reply(other.sync_request()):
            if frame[:1] == FRAME_MESSAGE:
                other.receive(VICTIM, frame)


def test_without_the_hold_the_same_restart_would_sign_again() -> None:
    """The control for the test above: a rebuilt session that is not held contributes at
    once, with the sequence number of a message its disk lost (an equivocation if that
    message differs, as a sealed box or a player's choice can)."""
    game = LoopbackGame(3)
    for session in game.sessions:
        session.start()
    game.deliver()  # setup commitments are out
    first = game.sessions[VICTIM].msglog.get(VICTIM, 0)
    assert first is not None
    keys = [identity.public_bytes for identity in game.identities]
    session = GameSession(game.game_id, keys, VICTIM, game.identities[VICTIM],
                          game.masters[VICTIM])
    session.start()
    assert session.outbox and session.msglog.next_seq(VICTIM) == 1  # re-signed seq 0


def test_a_message_written_but_never_sent_is_sent_after_the_restart() -> None:
    """Crash between the write and the send: the log holds a message of ours nobody saw. The
    restart sends exactly that message (answering the others' sync), never a new one."""
    choose = _chooser(3)
    game = LoopbackGame(3)
    _advance(game, choose, 30)
    victim = game.sessions[VICTIM]

    def own() -> list[bytes]:  # the outbox also holds copies of others' messages (relays)
        return [f for f in victim.outbox if f[:1] == FRAME_MESSAGE
                and SignedMessage.decode(f[1:]).msg.seat == VICTIM]

    while not own():  # play on until the victim has a message of its own to send
        game.deliver()
        for session in game.sessions:
            if session.pending_input is not None:
                session.submit(choose(session.seat_view()))
    unsent = own()[0]
    victim.outbox.clear()  # the crash: written (it is in its log), never sent
    stored = list(victim.msglog.messages)
    session, resync = _restart(game, stored)
    request = session.sync_request()
    for peer in (0, 2):
        _answer(game.sessions[peer], request, session, resync, peer)
    assert not resync.held and session.outbox == []  # nothing new: it had said it already
    for peer in (0, 2):  # the others ask it in turn (they see it reconnect)
        for frame in Resync(session, [], held=False).reply(game.sessions[peer].sync_request()):
            if frame[:1] == FRAME_MESSAGE:
                game.sessions[peer].receive(VICTIM, frame)
    seq = SignedMessage.decode(unsent[1:]).msg.seq
    assert game.sessions[0].msglog.get(VICTIM, seq).encode() == unsent[1:]
    game.sessions[VICTIM] = session
    game.play(choose)
    assert all(s.result is not None and s.result["ok"] for s in game.sessions)


@pytest.mark.parametrize("kind", ["pick/commit", "action"])
def test_a_stale_question_is_never_answered_in_a_later_stage(kind: str) -> None:
    """The player was asked at stage X; its answer for X came back from a peer (re-fetched
    after a restart) before the player answered: the question is withdrawn, and the late
    answer is refused, not played in whatever stage comes next. A pick is asked of every
    drafter at once: the question goes with our own commitment, not with the stage."""
    choose = _chooser(11)
    game = LoopbackGame(2)
    _advance(game, choose, 0)
    for _ in range(5000):
        game.deliver()
        victim = game.sessions[VICTIM]
        if victim.pending_input is not None and victim.stage is not None \
                and victim.stage.kind == kind:
            break
        for session in game.sessions:
            if session.pending_input is not None:
                session.submit(choose(session.seat_view()))
    original = game.sessions[VICTIM]
    assert original.pending_input is not None
    stage = original.input_stage
    # a twin of the victim (its restarted self) is asked the same question...
    twin, resync = _restart(game, list(original.msglog.messages))
    resync.held = False
    twin.replaying = False
    twin.start()
    assert twin.pending_input is not None and twin.input_stage == stage
    late_answer = twin.pending_input[0]
    # ...but the original's answer reaches it first, relayed by the other peer
    original.submit(choose(original.seat_view()))
    for frame in original.outbox:
        twin.receive(0, frame)
    assert twin.pending_input is None or twin.input_stage != stage
    with pytest.raises(LocalProtocolError):
        twin.submit(late_answer, stage)


def test_a_game_over_in_the_log_needs_nobody() -> None:
    choose = _chooser(5)
    game = LoopbackGame(2)
    game.play(choose)
    session, resync = _restart(game, list(game.sessions[VICTIM].msglog.messages))
    assert session.result is not None and session.result["ok"]
    assert not resync.held and resync.waiting_for() == []


def test_a_restarted_peer_resyncs_from_the_peers_that_are_up_and_plays_on() -> None:
    """Peer 2 is down: the restarted peer waits only for peer 0 (up), is released by its
    answer, and plays on; peer 2's messages come when it is back (issue 33, item 1)."""
    choose = _chooser(3)
    game = LoopbackGame(3)
    _advance(game, choose, 40)
    stored = list(game.sessions[VICTIM].msglog.messages)
    session, _ = _restart(game, stored)
    up = {0}
    resync = Resync(session, [0, 2], held=True, up=lambda peer: peer in up)
    assert resync.held and resync.waiting_for() == [0]
    assert not resync.try_release()  # nobody answered yet: nothing to go on
    assert _answer(game.sessions[0], session.sync_request(), session, resync, 0)
    assert not resync.held and not session.replaying
    game.sessions[VICTIM] = session
    for peer in (0, 2):  # each asks us on reconnecting (peer 2 when it is back)
        for frame in resync.reply(game.sessions[peer].sync_request()):
            if frame[:1] == FRAME_MESSAGE:
                game.sessions[peer].receive(VICTIM, frame)
    game.play(choose)
    assert all(s.aborted is None for s in game.sessions), [s.aborted for s in game.sessions]
    assert all(s.result is not None and s.result["ok"] for s in game.sessions), [
        (s.stage_index, s.waiting_for(), s.replaying, s.pending_input) for s in game.sessions]


def test_a_peer_we_waited_for_that_goes_down_no_longer_holds_us() -> None:
    choose = _chooser(4)
    game = LoopbackGame(3)
    _advance(game, choose, 30)
    session, _ = _restart(game, list(game.sessions[VICTIM].msglog.messages))
    up = {0, 2}
    resync = Resync(session, [0, 2], held=True, up=lambda peer: peer in up)
    assert not _answer(game.sessions[0], session.sync_request(), session, resync, 0)
    assert resync.waiting_for() == [2]
    up.discard(2)  # it went down before it answered
    assert resync.try_release() and not resync.held


def test_a_peer_that_holds_nothing_of_its_own_waits_for_every_peer_even_one_down() -> None:
    """Its records are lost (folder deleted): the peer that is down may be the only one that
    got its last message, so the answer of the peers that are up is not enough (it stays
    held; the 60 s bound then stops the game for now, resumably)."""
    choose = _chooser(4)
    game = LoopbackGame(3)
    _advance(game, choose, 30)
    session, _ = _restart(game, [])
    up = {0}
    resync = Resync(session, [0, 2], held=True, up=lambda peer: peer in up)
    assert resync.waiting_for() == [0, 2]
    assert not _answer(game.sessions[0], session.sync_request(), session, resync, 0)
    assert resync.held and resync.waiting_for() == [2] and not resync.try_release()
    up.add(2)
    assert _answer(game.sessions[2], session.sync_request(), session, resync, 2)
    assert not resync.held


def test_a_done_frame_that_claims_messages_of_ours_it_never_sent_holds_us_only_briefly() -> None:
    """A lying (or broken) peer's ``D`` says it holds far more of our messages than it sent:
    it is asked again, ``MAX_REASKS`` times, and then its claim counts only up to what we
    hold, so the restarted peer plays on instead of waiting out the table's 60 s bound."""
    choose = _chooser(4)
    game = LoopbackGame(3)
    _advance(game, choose, 30)
    session, resync = _restart(game, list(game.sessions[VICTIM].msglog.messages))
    assert _answer(game.sessions[2], session.sync_request(), session, resync, 2) is False
    have = [session.msglog.next_seq(p) for p in range(3)]
    lie = FRAME_SYNC_DONE + canonical_json({"next": [have[0], 10**6, have[2]]})
    for _ in range(MAX_REASKS):
        assert resync.on_done(0, lie) is False
        assert resync.take_reask(0) and not resync.take_reask(0)  # ask once per D
        assert resync.held and resync.waiting_for() == [0]
    assert resync.on_done(0, lie) is True and not resync.held
    assert resync.overclaimed == {0: 10**6} and not resync.take_reask(0)


def test_a_claim_of_ours_that_its_answer_backs_is_waited_for() -> None:
    """The control: a peer whose ``D`` counts messages of ours that it did send (so we hold
    them by then) is taken at its word at once; nothing is asked again."""
    choose = _chooser(4)
    game = LoopbackGame(3)
    _advance(game, choose, 30)
    full = list(game.sessions[VICTIM].msglog.messages)
    own = [i for i, m in enumerate(full) if m.msg.seat == VICTIM]
    session, resync = _restart(game, full[:own[-1]])  # our last message lost
    assert not _answer(game.sessions[0], session.sync_request(), session, resync, 0)
    assert not resync.take_reask(0) and resync.overclaimed == {}
    assert _answer(game.sessions[2], session.sync_request(), session, resync, 2)
    assert _own_seqs(session) == _own_seqs(game.sessions[0])
