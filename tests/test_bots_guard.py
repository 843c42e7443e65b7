"""In-process bots that misbehave: every fault is logged, recorded and replaced by a random
legal action, and the game still finishes (and replays identically)."""

from __future__ import annotations

import logging
import time

from bots.base import Bot, GameInfo, Turn
from bots.guard import BotGone
from bots.match import play_match
from bots.random_bot import RandomBot
from engine import Choose


class FaultyBot(Bot):
    """Plays the first legal action, except at decision ``at`` where it does ``fault``."""

    def __init__(self, fault: str, at: int = 3, budget: float | None = None) -> None:
        self.fault = fault
        self.at = at
        self.name = f"faulty-{fault}"
        self.time_budget = budget
        self.count = 0

    def start(self, info: GameInfo) -> None:
        super().start(info)
        self.count = 0
        if self.fault == "start":
            raise RuntimeError("cannot start")

    def choose(self, turn: Turn):
        self.count += 1
        if self.count >= self.at:
            if self.fault == "raise" and self.count == self.at:
                raise RuntimeError("boom")
            if self.fault == "illegal" and self.count == self.at:
                return Choose(turn.seat, "nonsense")
            if self.fault == "garbage" and self.count == self.at:
                return "not an action"
            if self.fault == "slow" and self.count == self.at:
                time.sleep(0.05)
            if self.fault == "gone":
                raise BotGone("the connection is lost")
        return turn.legal[0]


def _play(bot: Bot, seed: str = "guard"):
    return play_match([bot, RandomBot()], seed)


def test_a_bot_that_raises_gets_a_random_move(caplog) -> None:
    with caplog.at_level(logging.ERROR, logger="solstice.bots"):
        result = _play(FaultyBot("raise"))
    [fault] = result.faults
    assert str(fault) == ("bot 'faulty-raise' (seat 0, game guard, decision 3) raised "
                          "RuntimeError: boom")
    assert (fault.kind, fault.seat, fault.decision) == ("raised", 0, 3)
    [record] = [r for r in caplog.records if "boom" in r.getMessage()]
    assert "playing 0 " in record.getMessage()  # names the replacement action


def test_an_illegal_answer_gets_a_random_move() -> None:
    result = _play(FaultyBot("illegal"))
    assert len(result.faults) == 1
    assert "answered an illegal action '0 choose nonsense'" in str(result.faults[0])


def test_a_garbage_answer_gets_a_random_move() -> None:
    result = _play(FaultyBot("garbage"))
    assert len(result.faults) == 1
    assert "answered an illegal action 'not an action'" in str(result.faults[0])


def test_a_bot_over_its_time_budget_gets_a_random_move() -> None:
    result = _play(FaultyBot("slow", budget=0.02))
    assert len(result.faults) == 1 and result.faults[0].kind == "slow"
    assert "over its budget of 0.02 s" in str(result.faults[0])
    # Without a budget the same slow answer is accepted.
    assert _play(FaultyBot("slow", budget=None)).faults == ()


def test_a_bot_that_fails_to_start_plays_randomly() -> None:
    result = _play(FaultyBot("start"))
    assert len(result.faults) == 1 and "failed to start: cannot start" in str(result.faults[0])


def test_a_gone_bot_is_reported_once_and_not_asked_again() -> None:
    bot = FaultyBot("gone", at=2)
    result = _play(bot)
    assert len(result.faults) == 1 and "is gone: the connection is lost" in str(result.faults[0])
    assert bot.count == 2


def test_faulty_games_finish_and_replay_identically() -> None:
    first = _play(FaultyBot("raise"), "replay")
    second = _play(FaultyBot("raise"), "replay")
    assert first.scores == second.scores and first.actions == second.actions
    assert max(first.vp) >= 16 or max(first.casualties) >= 3  # a complete game



class _EqualsAnything:
    """Garbage that claims to equal every action (``action in legal`` would say yes)."""

    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = None  # type: ignore[assignment]


class _Answer(Bot):
    name = "answer"

    def __init__(self, make) -> None:
        self.make = make

    def choose(self, turn: Turn):
        return self.make(turn)


def test_the_guard_hands_back_one_of_the_listed_actions() -> None:
    """play_match plays the guard's answer without checking it again (apply_trusted), so the
    guard answers one of the very objects listed: a bot's equal copy is swapped for the listed
    action, and garbage that claims to equal anything is never what is played."""
    from bots.guard import GuardedSeat
    from engine import Pick, legal_actions, new_game, random_config, to_move
    from engine.randomness import RandomStream

    config = random_config(3, RandomStream("guard-listed"))
    state = new_game(config, list(config.card_ids()))
    seat = to_move(state)[0]
    legal = legal_actions(state, seat)
    last = legal[-1]
    assert isinstance(last, Pick)
    cases = {"copy": lambda turn: Pick(last.seat, tuple(last.slots)),
             "garbage": lambda turn: _EqualsAnything()}
    for kind, make in cases.items():
        guard = GuardedSeat(_Answer(make), seat)
        faults: list = []
        guard.start(GameInfo(seat, config, b"seed"), faults)
        answer = guard.ask(Turn(state, seat, legal), RandomStream("fallback"), faults)
        assert any(answer is action for action in legal), kind
        if kind == "copy":
            assert answer is last and faults == []


class _ListingRandom(Bot):
    """The random bot as it was before the engine drew for it: it lists every option."""

    name = "listing-random"

    def choose(self, turn: Turn):
        return turn.legal[self.rng.randbelow(len(turn.legal))]


class _ChoosingRandom(RandomBot):
    """The random bot asked through ``choose`` and the guard's checks (a subclass: the guard's
    short cut is for the plain random bot only)."""


def test_the_random_bot_plays_the_same_games_drawn_asked_or_listing() -> None:
    """The guard answers for the plain random bot with the engine's draw from the bot's own
    stream (no options listed): the same games as asking its ``choose``, and as listing the
    options and indexing them with the same stream, move for move."""
    from engine.serialize import state_to_dict

    for players, seed in ((2, "draw-same/2"), (3, "draw-same/3"), (4, "draw-same/4")):
        played = []
        for kind in (RandomBot, _ChoosingRandom, _ListingRandom):
            states: list[str] = []
            result = play_match([kind() for _ in range(players)], seed,
                                on_state=lambda s, states=states: states.append(
                                    repr(state_to_dict(s))))
            played.append((result, states))
        assert played[0] == played[1] == played[2]
        assert played[0][0].actions > 50
