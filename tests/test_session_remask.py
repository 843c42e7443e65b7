"""Re-mask stages in the game session: when they happen, and what a dishonest or missing
re-mask does to the game (the author is named)."""

from __future__ import annotations

from typing import Any

from p2p.session.loopback import LoopbackGame
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


def stage_kinds_by_peer(game: LoopbackGame) -> dict[int, list[str]]:
    kinds: dict[int, list[str]] = {}
    for signed in game.sessions[0].msglog.messages:
        kinds.setdefault(signed.msg.seat, []).append(signed.msg.type)
    return kinds


def test_every_pick_commitment_follows_its_pickers_re_mask_and_every_dispatch_phase_starts_with_one(
) -> None:
    game = LoopbackGame(2)
    game.play(randomly(5))
    finished_ok(game)
    engine = game.sessions[0].engine
    assert engine is not None
    for kinds in stage_kinds_by_peer(game).values():
        picks = [i for i, kind in enumerate(kinds) if kind == "pick/commit"]
        assert picks and all(kinds[i - 1] == "remask" for i in picks)
        # one re-mask per pick, plus one per dispatch phase (every round has one)
        assert kinds.count("remask") == len(picks) + engine.round - 1 + \
            (engine.phase.value == "over")


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
    assert honest.aborted.seat == cheater
    assert "re-mask point" in honest.aborted.reason
    event: Any = next(e for e in honest.events if e.kind == "aborted")
    assert event.data["seat"] == cheater
