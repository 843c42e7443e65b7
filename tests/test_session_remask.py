"""Re-mask stages in the game session: when they happen, and what a dishonest or missing
re-mask does to the game (the author is named)."""

from __future__ import annotations

import random

import pytest

import p2p.deck.remasking as remasking
from p2p.crypto import remask_proof
from p2p.deck.deck import Deck
from p2p.session.events import GameAborted
from p2p.session.loopback import LoopbackGame
from p2p.session.stages import PickReveal, PickRound
from tests.test_net_session import (
    assert_stopped,
    decode,
    finished_ok,
    frame,
    randomly,
    resign,
    run,
    started,
)


def test_picks_and_dispatches_come_from_hands_no_other_seat_can_link() -> None:
    """Whenever a seat commits to a pick, its hand holds only slots no other seat ever saw a
    card behind and that nobody saw it take (a dealt deck slot, or a slot it re-masked); when
    a dispatch phase begins, every hand is freshly re-masked."""
    game = LoopbackGame(3)
    for session in game.sessions:
        session.start()
    choose = randomly(5)
    checked = {"pick": 0, "dispatch": 0}
    slots_at_commit: dict[int, int] = {}
    for _ in range(20000):
        observer = game.sessions[0]
        stage, engine, deck = observer.stage, observer.engine, observer.deck
        if stage is not None and engine is not None and deck is not None:
            if stage.kind == "pick/reveal":  # the commitments and re-masks are applied
                reveal = stage.param(PickReveal)
                for seat in reveal.pickers:
                    for slot in engine.hands[seat]:
                        assert engine.known[slot] == 1 << seat
                        assert deck.remask_owner(slot) in (None, seat)
                    if any(deck.remask_owner(x) == seat for x in engine.hands[seat]):
                        # re-masked with this very commitment
                        assert min(engine.hands[seat]) >= slots_at_commit[reveal.pick]
                    checked["pick"] += 1
            if stage.kind == "pick/commit":
                slots_at_commit.setdefault(stage.param(PickRound).pick, len(engine.card_of))
            if stage.kind == "action" and engine.phase.value == "dispatch" and \
                    observer.remasked_round != engine.round:
                raise AssertionError("a dispatch phase began without its re-mask")
            if stage.kind == "action" and engine.phase.value == "dispatch":
                for seat in range(engine.n):
                    assert all(deck.remask_owner(x) == seat for x in engine.hands[seat])
                checked["dispatch"] += 1
        moved = game.deliver()
        for session in game.sessions:
            if session.pending_input is not None and not session.finished:
                session.submit(choose(session, session.pending_input))
                moved = True
        if all(s.finished for s in game.sessions) or not moved:
            break
    finished_ok(game)
    assert checked["pick"] > 0 and checked["dispatch"] > 0


def test_a_re_mask_of_slots_that_are_not_its_hand_stops_the_game() -> None:
    game = started(3)
    cheater = 1

    def tamper(who: int, data: bytes) -> bytes | None:
        signed = decode(data)
        if who == cheater and signed.msg.type == "remask" and not tamper.done:  # type: ignore
            tamper.done = True  # type: ignore[attr-defined]
            deck = dict(signed.msg.body["deck"])
            deck["old"] = [slot + 1 for slot in deck["old"]]
            return frame(resign(game, signed, body={**signed.msg.body, "deck": deck}))
        return data

    tamper.done = False  # type: ignore[attr-defined]
    run(game, tamper=tamper)
    assert tamper.done  # type: ignore[attr-defined]
    assert_stopped(game, cheater, "not its hand", authored=lambda m: m["type"] == "remask")


def test_a_refused_re_mask_leaves_the_game_waiting_for_its_holder() -> None:
    game = started(3)
    cheater = 1

    def refuse(who: int, data: bytes) -> bytes | None:
        return None if who == cheater and decode(data).msg.type == "remask" else data

    run(game, tamper=refuse)
    for index, session in enumerate(game.sessions):
        if index == cheater:
            continue
        assert session.stage is not None and session.stage.kind == "remask"
        assert cheater in session.waiting_for()
        assert session.aborted is None and session.result is None


def test_a_re_mask_in_another_order_than_the_committed_one_is_named_by_the_audit() -> None:
    """A coherent cheater: it re-masks in an order of its own choosing and plays along with
    it, so every card opens fine; the audit recomputes the order from its seed."""
    game = started(2)
    cheater = 1
    keys = game.sessions[cheater].deck._keys  # type: ignore[union-attr]
    honest_order = keys.remask_order

    def own_order(first: int, size: int) -> list[int]:
        return honest_order(first, size)[::-1]

    object.__setattr__(keys, "remask_order", own_order)
    run(game, choose=randomly(3))
    honest = game.sessions[1 - cheater]
    assert honest.aborted is not None and honest.result is None
    assert honest.aborted.peer == cheater
    assert "re-mask point" in honest.aborted.reason
    event = next(e for e in honest.events if isinstance(e, GameAborted))
    assert event.peer == cheater


def test_a_pick_commitment_without_its_due_re_mask_stops_the_game() -> None:
    game = started(3)
    cheater = 1

    def tamper(who: int, data: bytes) -> bytes | None:
        signed = decode(data)
        body = signed.msg.body
        if who == cheater and signed.msg.type == "pick/commit" and "remask" in body \
                and not tamper.done:  # type: ignore[attr-defined]
            tamper.done = True  # type: ignore[attr-defined]
            stripped = {k: v for k, v in body.items() if k != "remask"}
            return frame(resign(game, signed, body=stripped))
        return data

    tamper.done = False  # type: ignore[attr-defined]
    run(game, tamper=tamper)
    assert tamper.done  # type: ignore[attr-defined]
    assert_stopped(game, cheater, "field 'remask' must be a dict")


def test_a_re_mask_nobody_asked_for_stops_the_game() -> None:
    game = started(3)
    cheater = 1

    def tamper(who: int, data: bytes) -> bytes | None:
        signed = decode(data)
        body = signed.msg.body
        if who == cheater and signed.msg.type == "pick/commit" and "remask" not in body \
                and not tamper.done:  # type: ignore[attr-defined]
            tamper.done = True  # type: ignore[attr-defined]
            return frame(resign(game, signed, body={**body, "remask": {}}))
        return data

    tamper.done = False  # type: ignore[attr-defined]
    run(game, tamper=tamper)
    assert tamper.done  # type: ignore[attr-defined]
    assert_stopped(game, cheater, "nobody else could link")


@pytest.mark.parametrize("n, seed", [(2, 11), (3, 12), (4, 13)])
def test_every_re_mask_of_seeded_honest_games_proves_and_each_peer_checks_it(
        n: int, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 42, a property: in honest games of 2-4 players every re-mask carries a proof
    that checks, every other peer checks it on arrival, and a keyless replay of the public
    deck transcript (what ``solstice verify`` runs) checks each again from scratch."""
    checked: dict[str, int] = {}
    verify = remasking.verify_remask

    def counting(head: bytes, *args: object) -> None:
        verify(head, *args)  # type: ignore[arg-type]
        checked[head.hex()] = checked.get(head.hex(), 0) + 1

    monkeypatch.setattr(remasking, "verify_remask", counting)
    choices = random.Random(seed)
    game = LoopbackGame(n)
    game.play(lambda view: choices.choice(view.legal))
    assert all(s.result is not None for s in game.sessions)
    deck = game.sessions[0].deck
    assert deck is not None
    remasks = [(sender, m) for sender, m in deck.public_transcript
               if m["type"] == "deck/remask"]
    assert remasks
    for sender, message in remasks:  # each checked by every peer but its author
        head = remask_proof.header(game.game_id, sender, message["first"], message["old"])
        assert checked.get(head.hex()) == n - 1, message["first"]
    remask_proof._verified.clear()
    checked.clear()
    replay = Deck(game.game_id, n, deck.n_cards, seat=None)
    for sender, message in deck.public_transcript:
        replay.receive(sender, message)
    assert sorted(checked.values()) == [1] * len(remasks)
