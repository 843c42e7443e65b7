"""Leaving with a handover (protocol.md, "Leaving with a handover"): the leaver publishes its
master secret, every remaining peer checks it against the leaver's commitments and plays the
seat alike as a ghost, and the game ends audited, with the takeover in the result; a forged
handover, or a peer that plays the ghost otherwise, is named with proof."""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from engine import Action
from engine.randomness import RandomStream
from p2p.net.roster import Roster, RosterEntry
from p2p.session.bundle import FRAME_BUNDLE
from p2p.session.envelope import Message, SignedMessage, sign_message
from p2p.session.events import UNFAIR, GameAborted, Peer, SeatHandedOver
from p2p.session.ghostseat import GHOST_BOT
from p2p.session.handover import HANDOVER
from p2p.session.inbox import FRAME_MESSAGE
from p2p.session.loopback import LoopbackGame
from p2p.session.machine import GameSession
from p2p.storage.transcript import outcome_of, verify_transcript, write_transcript
from ui.app.replay_data import load_replay


def random_player(seed: bytes = b"handover") -> Callable:
    rng = RandomStream(seed)
    return lambda view: view.legal[rng.randbelow(len(view.legal))]


def observe(game: LoopbackGame, peer: int = 0) -> GameSession:
    """``solstice verify``'s replay: a keyless observer given one peer's signed log."""
    observer = GameSession(game.game_id, [i.public_bytes for i in game.identities])
    for signed in game.sessions[peer].msglog.messages:
        observer.accept(signed, direct=False)
    observer.end_of_log()
    return observer


def play_with_leavers(n: int, leave: dict[int, int],
                      session: type[GameSession] = GameSession) -> LoopbackGame:
    game = LoopbackGame(n, session=session)
    for peer, after in leave.items():
        game.sessions[peer].leave_after_round = after
    game.play(random_player())
    return game


@pytest.mark.parametrize("n", [2, 3, 4])
def test_a_leaver_s_seat_is_played_by_a_ghost_and_the_game_ends_audited(n: int) -> None:
    # (round 0: it hands over at its first message after the deal, so the ghost plays it all)
    game = play_with_leavers(n, {1: 0})
    leaver = game.sessions[1]
    assert leaver.left and leaver.result is None and leaver.aborted is None
    remaining = [s for s in game.sessions if s is not leaver]
    results = [s.result for s in remaining]
    assert all(r is not None and r["ok"] for r in results), [s.aborted for s in remaining]
    assert all(r == results[0] for r in results)
    faction = leaver.config.factions[leaver.seat_of_peer[1]]
    (stage,) = {s.ghosts[Peer(1)].stage for s in remaining}
    assert results[0]["left"] == {faction: {"round": 1, "stage": stage, "bot": GHOST_BOT,
                                            "by": "handover"}}
    assert f"{faction} left at round 1, stage {stage}" in results[0]["summary"]
    for session in remaining:
        (event,) = [e for e in session.events if isinstance(e, SeatHandedOver)]
        assert (event.peer, event.stage, event.mine) == (1, stage, False)
    (own,) = [e for e in leaver.events if isinstance(e, SeatHandedOver)]
    assert own.mine
    # The signed log holds the handover and nothing of the leaver after it; replayed by a
    # keyless observer, every ghost move is recomputed and the same audited result comes out.
    log = remaining[0].msglog
    mine = [log.get(1, seq) for seq in range(log.next_seq(1))]
    assert mine[-1] is not None and mine[-1].msg.type == HANDOVER
    assert observe(game).result == results[0]


def test_the_game_goes_on_after_a_second_leaver_while_one_peer_remains() -> None:
    game = play_with_leavers(4, {1: 0, 3: 0})
    remaining = [game.sessions[0], game.sessions[2]]
    assert all(s.result is not None and s.result["ok"] for s in remaining)
    assert remaining[0].result == remaining[1].result
    assert len(remaining[0].result["left"]) == 2
    assert observe(game, 2).result == remaining[0].result


def test_a_leaver_after_round_one_leaves_when_it_is_over() -> None:
    game = play_with_leavers(3, {2: 1})
    leaver, other = game.sessions[2], game.sessions[0]
    assert other.result is not None and other.result["ok"]
    if other.result["rounds"] > 1:  # (a game can end after its first round)
        assert leaver.left
        (record,) = other.result["left"].values()
        assert record["round"] == 2
    else:
        assert not leaver.left and leaver.result == other.result


def test_a_restarted_leaver_replaying_its_own_handover_signs_nothing_more() -> None:
    game = play_with_leavers(3, {1: 0})
    old = game.sessions[1]
    again = GameSession(game.game_id, [i.public_bytes for i in game.identities], 1,
                        game.identities[1], game.masters[1])
    again.replaying = True
    for signed in game.sessions[0].msglog.messages:
        again.accept(signed, direct=False)
    again.replaying = False
    again.start()
    assert again.left and again.finished and not again.outbox
    assert again.msglog.next_seq(1) == old.msglog.next_seq(1)


def test_a_leaver_restarted_before_its_handover_was_taken_never_hands_over_twice() -> None:
    """Issue 41: restarted with its handover in its log (not yet taken by a stage), a leaver
    asked to leave again (the leave key, its round over again) sends no second handover."""
    game = play_with_leavers(3, {1: 0})
    log = game.sessions[0].msglog.messages
    handover = next(m for m in log if m.msg.seat == 1 and m.msg.type == "handover")
    again = GameSession(game.game_id, [i.public_bytes for i in game.identities], 1,
                        game.identities[1], game.masters[1])
    # (the others' messages of the setup only: the seats are drawn, and all of its own
    # messages, the handover with them, wait in its queue for the deck's first stage)
    again.replaying = True
    for signed in log[:log.index(handover) + 1]:
        if signed.msg.seat == 1 or signed.msg.body.get("stage", 0) <= 2:
            again.accept(signed, direct=False)
    again.replaying = False
    assert not again.finished
    again.hand_over()
    assert again.left and not again.outbox
    assert again.msglog.next_seq(1) == handover.msg.seq + 1


# -- the adversary ----------------------------------------------------------------------------


def forged_handover(game: LoopbackGame, leaver: int, change: Callable[[dict], dict]
                    ) -> Callable[[int, bytes], bytes | None]:
    """A tamperer that re-signs the leaver's handover (with its own key: it is the leaver
    that lies) after ``change`` rewrote its body."""

    def tamper(sender: int, frame: bytes) -> bytes | None:
        if sender != leaver or frame[:1] != FRAME_MESSAGE:
            return frame
        signed = SignedMessage.decode(frame[1:])
        if signed.msg.type != HANDOVER:
            return frame
        session = game.sessions[leaver]
        body = change(dict(signed.msg.body))
        # (the leaver's log already holds the honest one at this seq: sign a copy afresh)
        msg = Message(signed.msg.game, signed.msg.seat, signed.msg.seq, signed.msg.prev,
                      HANDOVER, body)
        assert session.identity is not None
        return FRAME_MESSAGE + sign_message(session.identity, msg).encode()

    return tamper


@pytest.mark.parametrize(("what", "change"), [
    ("another master", lambda b: {**b, "master": secrets.token_hex(32)}),
    ("a master of upper-case hex", lambda b: {**b, "master": b["master"].upper()}),
    ("no master", lambda b: {k: v for k, v in b.items() if k != "master"}),
    ("another bot", lambda b: {**b, "bot": "greedy"}),
    ("a stage to come", lambda b: {**b, "stage": b["stage"] + 1000}),
])
def test_a_handover_that_does_not_check_names_the_leaver(what: str, change: Callable) -> None:
    game = LoopbackGame(3)
    game.sessions[1].leave_after_round = 0
    game.play(random_player(), tamper=forged_handover(game, 1, change))
    for session in (game.sessions[0], game.sessions[2]):
        assert session.aborted is not None, what
        assert (session.aborted.peer, session.aborted.kind) == (1, UNFAIR)
        assert "handover does not check" in session.aborted.reason
        assert not session.ghosts
    verdict = observe(game).aborted
    assert verdict is not None and (verdict.peer, verdict.kind) == (1, UNFAIR)


class PlaysTheGhostOtherwise(GameSession):
    """A peer whose ghosts (sessions of its own class) play another policy than the
    protocol's: whenever there is a choice, not the one the ghost bot makes."""

    def choose(self, stage: int, legal: Sequence[Action]) -> Action:
        fair = super().choose(stage, legal)
        return next((a for a in legal if a != fair), fair)


def test_a_peer_that_plays_the_ghost_otherwise_is_named_by_the_others() -> None:
    game = LoopbackGame(4)
    keys = [i.public_bytes for i in game.identities]
    game.sessions[3] = PlaysTheGhostOtherwise(game.game_id, keys, 3, game.identities[3],
                                              game.masters[3])
    game.sessions[1].leave_after_round = 0
    game.play(random_player())
    for session in (game.sessions[0], game.sessions[2]):
        assert session.aborted is not None and session.result is None
        assert (session.aborted.peer, session.aborted.kind) == (3, UNFAIR), \
            session.aborted.reason
    verdict = observe(game).aborted
    assert verdict is not None and (verdict.peer, verdict.kind) == (3, UNFAIR)


def test_a_ghost_message_never_reaches_the_wire_or_the_log() -> None:
    game = LoopbackGame(3)
    game.sessions[1].leave_after_round = 0
    sent: list[SignedMessage] = []

    def watch(sender: int, frame: bytes) -> bytes:
        if frame[:1] == FRAME_MESSAGE:
            sent.append(SignedMessage.decode(frame[1:]))
        assert frame[:1] in (FRAME_MESSAGE, FRAME_BUNDLE)
        return frame

    game.play(random_player(), tamper=watch)
    assert game.sessions[0].result is not None
    assert all(m.sig and m.verify(game.identities[m.msg.seat].public_bytes) for m in sent)
    handover_seq = next(m.msg.seq for m in sent if m.msg.type == HANDOVER)
    assert not [m for m in sent if m.msg.seat == 1 and m.msg.seq > handover_seq]
    ghost = game.sessions[0].ghosts[Peer(1)].session
    assert ghost.made and not any(m.sig for m in ghost.made)
    assert not any(isinstance(e, GameAborted) for s in game.sessions for e in s.events)


def test_the_transcript_verifies_and_the_replay_shows_the_takeover(tmp_path: Path) -> None:
    game = play_with_leavers(3, {1: 0})
    session = game.sessions[0]
    names = ["p0", "p1", "p2"]
    entries = tuple(RosterEntry(i, names[i], identity.public_bytes, "127.0.0.1", 1000 + i)
                    for i, identity in enumerate(game.identities))
    roster = Roster(game.game_id, entries).sign(game.identities[0])
    path = write_transcript(tmp_path / "t.json", roster, session, outcome_of(session, names))
    verdict = verify_transcript(path)
    assert verdict.ok and verdict.result["left"] == session.result["left"]
    faction = session.config.factions[session.seat_of_peer[1]]
    replay = load_replay(path)
    ghost_moves = [s for s in replay.steps if s.move.endswith("(the ghost bot)")]
    assert ghost_moves and {s.seat for s in ghost_moves} == {session.seat_of_peer[1]}
    told = [line for s in replay.steps for line in s.log if "has left" in line]
    assert told == [f"{faction} has left: the ghost bot plays the seat from here on, "
                    "open-handed"]
    # A stored outcome that hides the takeover is damage.
    data = json.loads(path.read_text())
    data["outcome"].pop("left")
    data["outcome"]["left"] = {}
    path.write_text(json.dumps(data))
    assert verify_transcript(path).status == "damaged"


class LeavesAtADecision(GameSession):
    """Hands over the first time it is asked for a decision: the others meet the handover in
    a decision stage, where a peer still deciding has nothing of its own to send for it."""

    def _leaving(self) -> bool:
        return (self.stage is not None and self.stage.spec.answer is not None
                and self.leave_after_round is not None)


def in_author_order(messages: Sequence[SignedMessage], authors: Sequence[int]
                    ) -> list[SignedMessage]:
    return [m for author in authors for m in messages if m.msg.seat == author]


@pytest.mark.parametrize("authors", [(0, 1, 2), (2, 1, 0), (1, 0, 2), (0, 2, 1)])
def test_a_forged_handover_in_a_decision_names_the_leaver_in_every_order(
        authors: tuple[int, ...]) -> None:
    """The class of a claim made before the claimant had a message for its stage: a receiver
    takes the accused's queued message for the stage before judging the claimant blocked on
    its abort (else the claimant, still deciding, was named as having left)."""
    game = LoopbackGame(3, session=LeavesAtADecision)
    game.sessions[2].leave_after_round = 0
    game.play(random_player(), tamper=forged_handover(
        game, 2, lambda b: {**b, "master": secrets.token_hex(32)}))
    for session in game.sessions[:2]:
        assert session.aborted is not None
        assert (session.aborted.peer, session.aborted.kind) == (2, UNFAIR)
    stopped = [s for s in game.sessions[:2]
               if not any(m.msg.seat == s.me and m.msg.body.get("stage") == s.aborted.stage
                          and m.msg.type != "abort" for m in s.msglog.messages)]
    assert stopped, "no claimant was caught still deciding: the case is not exercised"
    for peer in (0, 1):
        observer = GameSession(game.game_id, [i.public_bytes for i in game.identities])
        for signed in in_author_order(game.sessions[peer].msglog.messages, authors):
            observer.accept(signed, direct=False)
        observer.end_of_log()
        verdict = observer.aborted
        assert verdict is not None and (verdict.peer, verdict.kind) == (2, UNFAIR), \
            verdict and verdict.reason
