"""Proof checks that cannot be turned around against the accused (issue #24, findings 2, 4, 5).

A claim is re-checked against what the accused signed and what held when it signed it; a
check that cannot be made, or evidence that proves nothing, counts against the claimant (or
nobody), never the accused. ``solstice verify`` judges a file the same way whatever the
interleaving of its authors (each author's own order kept), and a claim's bad evidence is
the claimant's fault, not damage to the file.
"""

from __future__ import annotations

import dataclasses
import json
import random
import secrets
from pathlib import Path
from typing import Any

import pytest
from byzantine import (
    Behaviour,
    Context,
    Send,
    Table,
    check_table,
    live_verdict,
    merge_by_author,
)
from test_net_blame import assert_named, honest_peers, transcript
from test_net_session import run, started

from engine.canonical import parse_json
from p2p.crypto.sealed import box_key, unseal
from p2p.errors import OutOfOrder, SlotKeyMismatch
from p2p.identity import Identity
from p2p.session.envelope import MessageLog, SignedMessage, sign_message
from p2p.session.events import ABANDONED, Aborted, GameAborted, Rejected
from p2p.session.loopback import LoopbackGame
from p2p.storage.transcript import Verdict, verify_transcript


def verdict_of(verdict: Verdict) -> tuple[str, int | None]:
    return verdict.status, verdict.blame


def rewritten(path: Path, messages: list[Any], name: str) -> Path:
    """The transcript at ``path`` with its messages replaced (order, deletions)."""
    data = json.loads(path.read_bytes())
    data["messages"] = messages
    out = path.with_name(name)
    out.write_text(json.dumps(data))
    return out


def assert_no_honest_peer_blamed(game: LoopbackGame, bad: int) -> None:
    for session in honest_peers(game, bad):
        for event in session.events:
            if isinstance(event, GameAborted | Rejected) and event.peer is not None:
                assert event.peer == bad, (session.me, event)


# -- finding 2: an honest peer's genuine keys, re-checked after its slots changed ---------------


def stale_sealed_keys(game: LoopbackGame, accuser: int, accused: int) -> SignedMessage | None:
    """A ``keys`` message of ``accused`` with keys sealed to ``accuser`` for slots that have
    all been re-masked or put back under the deck since (so they are not live any more)."""
    session = game.sessions[accuser]
    if session.deck is None or not session.seat_of_peer:
        return None
    to, author = session.seat_of_peer[accuser], session.seat_of_peer[accused]
    deck = session.deck
    for sealed in session.private_log:
        if sealed.author != author or sealed.to != to:
            continue
        if all(slot in deck._retired for slot in sealed.slots):
            for signed in session.msglog.messages:
                private = signed.msg.body.get("private")
                if (signed.msg.seat == accused and signed.msg.type == "keys"
                        and isinstance(private, dict) and private.get(str(to)) == sealed.box):
                    return signed
    return None


def test_genuine_sealed_keys_of_a_slot_since_remasked_prove_nothing(tmp_path: Path) -> None:
    """Peer 1 waits until the slots peer 0 opened to it are re-masked or put back, then
    accuses peer 0 with peer 0's own, correct ``keys`` message and its box key. The keys are
    checked against their commitments as they were due, so they are right: peer 1 is the one
    that left (the old check refused the slot as not live *now* and named peer 0)."""
    game = started(3)
    run(game, until=lambda: stale_sealed_keys(game, 1, 0) is not None)
    genuine = stale_sealed_keys(game, 1, 0)
    assert genuine is not None
    game.sessions[1]._abort(0, "peer 0 sealed me a false key", evidence=[genuine.to_json()],
                            box=True)
    run(game)
    assert_named(game, 1, ABANDONED, "does not check")
    assert_no_honest_peer_blamed(game, 1)
    for session in honest_peers(game, 1):
        path = transcript(game, session.me, tmp_path)
        assert verdict_of(verify_transcript(path)) == ("abandoned", 1)


def test_a_false_sealed_key_is_still_proven_after_its_slot_changed() -> None:
    """The check against the past is a check: at peer 2, long after, peer 0's genuine keys
    sealed to peer 1 pass, and the same keys with one swapped for another slot's fail."""
    game = started(3)
    run(game, until=lambda: stale_sealed_keys(game, 1, 0) is not None)
    genuine = stale_sealed_keys(game, 1, 0)
    assert genuine is not None
    checker = game.sessions[2]
    assert checker.deck is not None
    to, author = checker.seat_of_peer[1], checker.seat_of_peer[0]
    box = genuine.msg.body["private"][str(to)]
    (sealed,) = [s for s in checker.private_log if s.box == box]
    keys = parse_json(unseal(box_key(game.masters[1], game.game_id), author, box))
    for slot, data in zip(sealed.slots, keys, strict=True):
        checker.deck.check_disclosed_key(author, to, slot, data)
        with pytest.raises(SlotKeyMismatch):
            checker.deck.check_disclosed_key(author, to, slot, dict(data, key=keys[-1]["key"]
                                             if data is not keys[-1] else keys[0]["key"]))
        with pytest.raises(OutOfOrder):
            checker.deck.check_disclosed_key(author, to, slot + 1, data)


# -- finding 5: a claim's evidence from another game, or with a bad signature ------------------


def other_game_copy(game: LoopbackGame, signed: SignedMessage) -> SignedMessage:
    """``signed`` as its author could have signed it in another game."""
    msg = dataclasses.replace(signed.msg, game=secrets.token_hex(16))
    return sign_message(game.identities[signed.msg.seat], msg)


def bad_signature(signed: SignedMessage) -> dict[str, Any]:
    data = signed.to_json()
    sig = data["sig"]
    data["sig"] = ("0" if sig[0] != "0" else "1") + sig[1:]
    return data


def test_evidence_from_another_game_or_badly_signed_is_the_claimants_fault(
        tmp_path: Path) -> None:
    game = started(3)
    run(game, until=lambda: len(game.sessions[0].msglog.messages) > 40)
    genuine = game.sessions[0].msglog.get(0, 5)
    assert genuine is not None
    junk = [other_game_copy(game, genuine).to_json(), bad_signature(genuine)]
    game.sessions[2]._abort(0, "peer 0 cheated, see", evidence=junk)
    run(game)
    assert_named(game, 2, ABANDONED, "does not check")
    assert_no_honest_peer_blamed(game, 2)
    for session in honest_peers(game, 2):
        verdict = verify_transcript(transcript(game, session.me, tmp_path))
        assert verdict_of(verdict) == ("abandoned", 2), verdict.summary


def test_evidence_of_an_unknown_seat_or_another_identity_is_the_claimants_fault(
        tmp_path: Path) -> None:
    game = started(3)
    run(game, until=lambda: len(game.sessions[0].msglog.messages) > 40)
    stranger = Identity.generate()
    other = MessageLog(game.game_id, [stranger.public_bytes] * 5)
    junk = [other.create(stranger, 4, "action", {"stage": 3}).to_json(),
            other.create(stranger, 0, "action", {"stage": 3}).to_json()]
    game.sessions[2]._abort(0, "peer 0 cheated, see", evidence=junk)
    run(game)
    assert_named(game, 2, ABANDONED)
    assert_no_honest_peer_blamed(game, 2)
    for session in honest_peers(game, 2):
        verdict = verify_transcript(transcript(game, session.me, tmp_path))
        assert verdict_of(verdict) == ("abandoned", 2), verdict.summary


# -- finding 4: verify's verdict does not depend on the file's interleaving --------------------


def false_silence_claim(tmp_path: Path) -> tuple[LoopbackGame, Path, SignedMessage]:
    """Peer 2 claims peer 0 was silent at the stage of peer 0's latest message, which every
    peer holds; returns the game, peer 1's transcript and peer 0's message."""
    game = started(3)
    run(game, until=lambda: len(game.sessions[0].msglog.messages) > 50)
    liar = game.sessions[2]
    assert liar.identity is not None
    latest = [m for m in liar.msglog.messages if m.msg.seat == 0][-1]
    liar._abort(0, "peer 0 went silent", kind=ABANDONED, stage=latest.msg.body["stage"])
    run(game)
    assert_named(game, 2, ABANDONED, "that peer's message for it is here", accused=0)
    return game, transcript(game, 1, tmp_path), latest


def test_a_false_silence_claim_moved_before_the_message_still_names_the_claimant(
        tmp_path: Path) -> None:
    """Peer 0's message put after the claim (each author's order kept): the old verify
    agreed with the claim as soon as it read it and named peer 0."""
    _, path, latest = false_silence_claim(tmp_path)
    assert verdict_of(verify_transcript(path)) == ("abandoned", 2)
    messages = json.loads(path.read_bytes())["messages"]
    mine = next(i for i, m in enumerate(messages) if m == latest.to_json())
    claim = next(i for i, m in enumerate(messages)
                 if m["msg"]["seat"] == 2 and m["msg"]["type"] == "abort")
    assert mine < claim
    between = messages[mine:claim + 1]
    moved = messages[:mine] + [m for m in between if m["msg"]["seat"] != 0] \
        + [m for m in between if m["msg"]["seat"] == 0] + messages[claim + 1:]
    verdict = verify_transcript(rewritten(path, moved, "moved.json"))
    assert verdict_of(verdict) == ("abandoned", 2), verdict.summary


def test_a_false_silence_claim_with_the_message_deleted_does_not_name_the_accused(
        tmp_path: Path) -> None:
    """Peer 0's message deleted from the file: its later messages stand behind the gap, so
    the file lacks a message and proves nobody's silence; the old verify named peer 0."""
    _, path, latest = false_silence_claim(tmp_path)
    messages = json.loads(path.read_bytes())["messages"]
    cut = [m for m in messages if m != latest.to_json()]
    assert len(cut) == len(messages) - 1
    verdict = verify_transcript(rewritten(path, cut, "cut.json"))
    assert verdict_of(verdict) == ("damaged", None), verdict.summary
    assert "follows a gap" in verdict.summary


@pytest.mark.parametrize("n", [3, 4])
def test_a_file_cut_right_after_a_false_claim_of_silence_names_nobody(
        n: int, tmp_path: Path) -> None:
    """Peer 2 claims peer 0 silent the moment peer 0's stage begins; the live table refutes
    the claim and names peer 2. An outsider cuts an honest peer's file right after the claim
    (the refutations and peer 0's message gone): that is exactly what the claimant's own file
    would be if the claim were true and nobody else had signed it yet, so it names nobody; the
    old verify named peer 0 abandoned. The uncut file names the claimant."""
    game = started(n)
    liar = game.sessions[2]
    run(game, until=lambda: len(liar.msglog.messages) > 40 and 0 in liar.waiting_for()
        and 2 not in liar.waiting_for())
    liar._abort(0, "peer 0 went silent", kind=ABANDONED)
    for data in liar.outbox:  # the claim reaches everyone before peer 0's answer
        for peer, session in enumerate(game.sessions):
            if peer != 2:
                session.receive(2, data)
    liar.outbox.clear()
    run(game)
    assert_named(game, 2, ABANDONED, "that peer's message for it is here", accused=0)
    path = transcript(game, 1, tmp_path)
    assert verdict_of(verify_transcript(path)) == ("abandoned", 2)
    messages = json.loads(path.read_bytes())["messages"]
    claim = next(i for i, m in enumerate(messages)
                 if m["msg"]["seat"] == 2 and m["msg"]["type"] == "abort")
    verdict = verify_transcript(rewritten(path, messages[:claim + 1], "cut.json"))
    assert verdict_of(verdict) == ("incomplete", None), verdict.summary
    assert "one peer's word names nobody" in verdict.summary


def test_every_valid_interleaving_of_a_transcript_verifies_the_same(tmp_path: Path) -> None:
    _, path, _ = false_silence_claim(tmp_path)
    expected = verdict_of(verify_transcript(path))
    messages = json.loads(path.read_bytes())["messages"]
    rng = random.Random(24)
    for n in range(6):
        shuffled = merge_by_author(messages, rng)
        verdict = verify_transcript(rewritten(path, shuffled, f"shuffled{n}.json"))
        assert verdict_of(verdict) == expected, (n, verdict.summary)


# -- found by the byzantine peer (tests/test_byzantine.py) -------------------------------------


class LateFrom(Behaviour):
    """From stage ``start`` on, every frame arrives ``late`` seconds after it was sent (past
    every deadline)."""

    name = "late"

    def __init__(self, start: int, late: float = 30.0) -> None:
        self.start, self.share, self.late = start, 1.0, late

    def outgoing(self, ctx: Context, sends: list[Send]) -> list[Send]:
        if ctx.session.stage_index < self.start:
            return sends
        return [dataclasses.replace(s, delay=self.late) for s in sends]


class EarlyAlarm(Behaviour):
    """Cries "corrupt deck" while the deck is still being committed or shuffled."""

    name = "early-alarm"

    def __init__(self) -> None:
        self.start, self.share, self.done = 0, 1.0, False

    def inject(self, ctx: Context) -> list[Send]:
        session = ctx.session
        if self.done or session.deck is None or session.deck.turn is None:
            return []
        self.done = True
        frame = ctx.new_message("abort", {"kind": "corrupt", "blame": None, "reason": "corrupt",
                                          "deck": {"type": "deck/open-keys", "seat": 0},
                                          "evidence": None, "stage": session.stage_index})
        session.aborted = session.aborted or Aborted(None, "gone", "stopped", 0)
        return [Send(p, frame) for p in ctx.others]


def test_a_message_after_the_verdict_stays_out_of_the_transcript(tmp_path: Path) -> None:
    """Peer 1's messages arrive only after every deadline: the others name it abandoned.
    Its late message then arrives; the old code took it into the log, so the honest peers'
    own transcripts refuted their own claim and verify named them."""
    table = Table(3, bad=1, behaviours=[LateFrom(40)], seed=3)
    table.play()
    for session in table.honest:
        assert live_verdict(session) == ("abandoned", 1), session.aborted
    check_table(table, tmp_path, shuffles=3)


def test_an_alarm_before_the_deck_is_ready_names_the_alarmist(tmp_path: Path) -> None:
    """A corrupt-deck alarm while the deck is still being committed: the old code audited
    at once and named a peer whose commitment was not yet due (or not yet here)."""
    for seed in range(4):
        alarm = EarlyAlarm()
        table = Table(3, bad=seed % 3, behaviours=[alarm], seed=seed)
        table.play()
        assert alarm.done
        for session in table.honest:
            assert live_verdict(session) == ("abandoned", table.bad), session.aborted
        check_table(table, tmp_path / str(seed), shuffles=3)


class PastSilence(Behaviour):
    """At stage ``start``, claims peer ``accused`` was silent at stage 1 (it was not)."""

    name = "past-silence"

    def __init__(self, start: int, accused: int) -> None:
        self.start, self.share, self.accused, self.done = start, 1.0, accused, False

    def inject(self, ctx: Context) -> list[Send]:
        session = ctx.session
        if self.done or session.stage_index < self.start:
            return []
        self.done = True
        frame = ctx.new_message("abort", {"kind": ABANDONED, "blame": self.accused,
                                          "reason": "silent", "evidence": None, "stage": 1})
        session.aborted = session.aborted or Aborted(None, "gone", "stopped", 0)
        return [Send(p, frame) for p in ctx.others]


def test_the_verdict_on_a_refuted_claim_is_not_judged_as_a_claim_of_silence(
        tmp_path: Path) -> None:
    """Peer 1's false claim is refuted: the honest peers abort with "abandoned by peer 1 at
    stage N" (N: the stage after its last message). The old verify, reading that abort
    before peer 1's claim, judged it as a claim of silence at N, a stage peer 1 was not due
    in, and named the honest peer that wrote it."""
    for start in (5, 8, 12):
        table = Table(3, bad=1, behaviours=[PastSilence(start, 2)], seed=start)
        table.play()
        for session in table.honest:  # the accused (peer 2) names nobody itself
            assert live_verdict(session) == (("incomplete", None) if session.me == 2
                                             else ("abandoned", 1)), session.aborted
        check_table(table, tmp_path / str(start), shuffles=8)
