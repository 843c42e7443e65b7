"""A bot in a network seat: the ``Chooser`` that asks a bot for this peer's moves, and the end
of its game (``finished``: the bot hears the result and is closed, as in local games).

The bot runs in a worker thread so the network stays responsive, behind the same guard as
local matches. Its budget is the smaller of its own time budget and what is left of the
table's decision clock: a bot that would miss the table's clock is given up on for that
decision just before it runs out, named, and counted as a fault like any other timeout.
"""

from __future__ import annotations

import secrets
import sys
import threading
from collections.abc import Awaitable
from typing import Any, TextIO

import trio

from bots import bot_output
from bots.base import Bot, GameInfo, Turn
from bots.faults import Fault
from bots.guard import GuardedSeat
from engine import Action, GameConfig
from engine.randomness import RandomStream
from p2p.net.runner import Chooser
from p2p.session.machine import GameSession
from p2p.session.seatview import SeatView

HARD_LIMIT = 60.0  # seconds a bot without a budget may think before it is given up on
TABLE_MARGIN = 0.5  # seconds before the table's clock runs out that our answer is sent


class BotSeat:
    """A bot at a network seat. Called with a ``SeatView`` it is the ``Chooser`` that asks the
    bot (see ``bot_chooser``); ``finish`` ends its game: the bot hears how the game ended
    (``Bot.end``, a program's ``end`` message) and is closed (a program gets ``quit``)."""

    def __init__(self, bot: Bot, out: TextIO = sys.stderr,
                 faults: list[Fault] | None = None) -> None:
        self.bot = bot
        self.out = out
        self.guard: GuardedSeat | None = None
        self.fallback = RandomStream(secrets.token_bytes(16))
        self.faults: list[Fault] = faults if faults is not None else []
        self.busy: threading.Event | None = None  # set when the bot's last (cut off) call returns
        self.config: GameConfig | None = None
        self.finished = False

    async def __call__(self, view: SeatView) -> Action:
        bot, out, kept, fallback = self.bot, self.out, self.faults, self.fallback
        legal = list(view.legal)
        if self.guard is None:
            self.guard = GuardedSeat(bot, view.seat)
            self.config = view.config
            self.guard.start(GameInfo(view.seat, view.config, secrets.token_bytes(16),
                                      game=view.game_id), kept)
        guard = self.guard
        budget = bot.time_budget
        own = 2 * budget + 1 if budget is not None else HARD_LIMIT
        busy = self.busy
        if busy is not None and not busy.is_set() and not guard.gone:
            # still thinking about a decision the table's clock took from it: never ask a
            # bot twice at once
            finished = await trio.to_thread.run_sync(busy.wait, own, abandon_on_cancel=True)
            if not finished:
                guard.gone = True
                print(f"bot {bot.name} did not finish a decision within {own:g} s; it plays "
                      "random legal actions from now on", file=out)
        if guard.gone:
            return legal[fallback.randbelow(len(legal))]
        turn = Turn(view.state, view.seat, legal)  # the view's own copy, redacted for the seat
        table_left = (view.deadline - trio.current_time() - TABLE_MARGIN
                      if view.deadline is not None else None)
        limit = own if table_left is None else max(0.0, min(own, table_left))
        done = threading.Event()

        def ask() -> Action:
            try:
                return guard.ask(turn, fallback, kept)
            finally:
                done.set()

        self.busy = done
        if limit > 0:  # (none left: the table's clock ran out while it finished the last)
            with trio.move_on_after(limit):
                return await trio.to_thread.run_sync(ask, abandon_on_cancel=True)
        else:
            done.set()
        choice = legal[fallback.randbelow(len(legal))]
        if table_left is not None and table_left < own:
            fault = Fault("timeout", f"did not answer within the table's decision clock "
                          f"({limit:.1f} s were left of it, its own budget is "
                          f"{budget if budget is not None else HARD_LIMIT:g} s)",
                          decision=guard.asked)
            guard.report(fault, kept, f"; playing {choice.text()} for it instead")
            print(f"bot {bot.name} (seat {view.seat}) did not answer within the table's "
                  f"decision clock; {choice.text()} is played for it", file=out)
            return choice
        guard.gone = True  # its thread may still be running: never ask it again
        text = (f"bot {bot.name} did not answer within {own:g} s; it plays random legal "
                "actions from now on")
        bot_output.fault(text)
        print(text, file=out)
        return choice

    def finish(self, result: dict[str, Any] | None) -> None:
        """The game is over (``result``: the session's audited result, None for a game that
        stopped unfinished): tell a bot that played it how it ended, then close the bot.
        Blocking (a program has ``QUIT_GRACE`` to exit): run it in a thread."""
        if self.finished:
            return
        self.finished = True
        guard, config = self.guard, self.config
        idle = self.busy is None or self.busy.is_set()  # never talk over a cut-off decision
        if result is not None and guard is not None and config is not None and \
                not guard.gone and idle:
            factions = list(config.factions)
            try:
                self.bot.end({"seat": guard.seat,
                              "scores": [int(result["scores"][f]) for f in factions],
                              "winner": factions.index(result["winner"])})
            except Exception as exc:  # a bot's hook failing must not fail the peer
                print(f"bot {self.bot.name} failed in end(): {exc}", file=self.out)
        try:
            self.bot.close()
        except Exception as exc:
            print(f"bot {self.bot.name} failed to close: {exc}", file=self.out)


def bot_chooser(bot: Bot, out: TextIO = sys.stderr, faults: list[Fault] | None = None
                ) -> BotSeat:
    """Ask ``bot`` in a worker thread, so the network stays responsive, through the same guard
    as local matches: a bot that raises, answers an illegal action or runs over its budget is
    reported (logged) and a random legal action is played for it. A bot that does not answer
    by the table's decision clock (less ``TABLE_MARGIN``) is reported as late and a random
    legal action is played for it; its next decision waits for it to finish this one. A bot
    that does not answer at all by its own deadline (twice its budget plus a second, or
    ``HARD_LIMIT``) is abandoned: the peer stays in the game and plays random legal actions
    from then on. ``faults``: where the faults are kept (default: a list of its own). Play the
    game with ``finished`` so that the bot hears the end of it."""
    return BotSeat(bot, out, faults)


async def finished(choose: Chooser, game: Awaitable[GameSession]) -> GameSession:
    """``game`` (played with ``choose``), then, if ``choose`` is a bot's seat, the bot told
    how it ended and closed, whether the game ended, stopped or was interrupted."""
    session: GameSession | None = None
    try:
        session = await game
        return session
    finally:
        if isinstance(choose, BotSeat):
            result = session.result if session is not None else None
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(choose.finish, result)
