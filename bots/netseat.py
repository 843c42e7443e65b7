"""A bot in a network seat: the ``Chooser`` that asks a bot for this peer's moves.

The bot runs in a worker thread so the network stays responsive, behind the same guard as
local matches.
"""

from __future__ import annotations

import secrets
import sys
from typing import TextIO

import trio

from bots.base import Bot, GameInfo, Turn
from bots.faults import Fault
from bots.guard import GuardedSeat
from engine import Action
from engine.randomness import RandomStream
from p2p.net.runner import Chooser
from p2p.session.seatview import SeatView

HARD_LIMIT = 60.0  # seconds a bot without a budget may think before it is given up on


def bot_chooser(bot: Bot, out: TextIO = sys.stderr) -> Chooser:
    """Ask ``bot`` in a worker thread, so the network stays responsive, through the same guard
    as local matches: a bot that raises, answers an illegal action or runs over its budget is
    reported (logged) and a random legal action is played for it. A bot that does not answer
    at all by its deadline (twice its budget plus a second, or ``HARD_LIMIT``) is abandoned:
    the peer stays in the game and plays random legal actions from then on."""
    guard: GuardedSeat | None = None
    fallback = RandomStream(secrets.token_bytes(16))
    faults: list[Fault] = []

    async def choose(view: SeatView) -> Action:
        nonlocal guard
        legal = list(view.legal)
        if guard is None:
            guard = GuardedSeat(bot, view.seat)
            guard.start(GameInfo(view.seat, view.config, secrets.token_bytes(16),
                                 game=view.game_id), faults)
        turn = Turn(view.state, view.seat, legal)  # the view's own copy, redacted for the seat
        budget = bot.time_budget
        deadline = 2 * budget + 1 if budget is not None else HARD_LIMIT
        with trio.move_on_after(deadline):
            return await trio.to_thread.run_sync(guard.ask, turn, fallback, faults,
                                                 abandon_on_cancel=True)
        guard.gone = True  # its thread may still be running: never ask it again
        print(f"bot {bot.name} did not answer within {deadline:g} s; it plays random legal "
              "actions from now on", file=out)
        return legal[fallback.randbelow(len(legal))]

    return choose
