"""A bot playing a network seat: a faulty or stuck bot never stalls the game."""

from __future__ import annotations

import io
import time

import trio

from bots.base import Bot, GameInfo, Turn
from bots.netseat import bot_chooser
from engine import Action
from p2p.session.loopback import LoopbackGame
from p2p.session.seatview import SeatView


def _view_wanting_input() -> SeatView:
    game = LoopbackGame(2)
    for session in game.sessions:
        session.start()
    while not any(s.pending_input for s in game.sessions):
        assert game.deliver(), "the game stalled before anyone had to choose"
    view = next(s for s in game.sessions if s.pending_input).seat_view()
    assert view is not None and view.legal
    return view


class Stuck(Bot):
    name = "stuck"
    time_budget = 0.1

    def __init__(self) -> None:
        self.asked = 0

    def choose(self, turn: Turn) -> Action:
        self.asked += 1
        time.sleep(3)
        return turn.legal[0]


class Raising(Bot):
    name = "raising"

    def choose(self, turn: Turn) -> Action:
        raise RuntimeError("boom")


class FailsToStart(Bot):
    name = "fails-to-start"

    def __init__(self) -> None:
        self.asked = 0

    def start(self, info: GameInfo) -> None:
        raise OSError("no such program")

    def choose(self, turn: Turn) -> Action:
        self.asked += 1
        return turn.legal[0]


async def test_a_bot_that_fails_to_start_is_never_asked_and_its_seat_plays_on() -> None:
    view = _view_wanting_input()
    legal = view.legal
    bot = FailsToStart()
    with trio.fail_after(2):
        assert await bot_chooser(bot, io.StringIO())(view) in legal
    assert bot.asked == 0


async def test_a_bot_that_never_answers_is_abandoned_and_the_peer_plays_on() -> None:
    view = _view_wanting_input()
    legal = view.legal
    bot, out = Stuck(), io.StringIO()
    choose = bot_chooser(bot, out)
    with trio.fail_after(2.5):
        action = await choose(view)
    assert action in legal
    assert "did not answer within 1.2 s" in out.getvalue()
    with trio.fail_after(0.5):  # given up on: not asked again
        assert await choose(view) in legal
    assert bot.asked == 1


async def test_a_bot_that_raises_gets_a_random_legal_action_played_for_it() -> None:
    view = _view_wanting_input()
    legal = view.legal
    with trio.fail_after(2):
        assert await bot_chooser(Raising(), io.StringIO())(view) in legal
