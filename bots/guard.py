"""Asking a bot for an action without trusting it.

A bot that raises, answers something that is not one of the legal actions, or exceeds its time
budget gets a reported fault and a random legal action is played for it, so one faulty bot
never stops a game. A bot that is gone for good (a process bot whose program died, stopped
reading or flooded) raises ``BotGone``: that is reported once, and the seat then plays random
legal actions without asking the bot again. Faults a bot notices itself (a process bot's
skipped lines: ``Bot.take_faults``) are reported too; none of those costs a move.

Every fault is a ``bots.faults.Fault`` naming the bot, seat, game and decision.
"""

from __future__ import annotations

import logging
import operator
import time
from collections.abc import Sequence
from itertools import repeat
from typing import cast

from bots import bot_output
from bots.base import Bot, GameInfo, Turn
from bots.faults import BotError, BotGone, Fault
from bots.random_bot import RandomBot
from engine import Action, GameState, draw_legal
from engine.randomness import RandomStream

__all__ = ["BotError", "BotGone", "GuardedSeat"]

log = logging.getLogger("solstice.bots")


class GuardedSeat:
    """One seat's bot plus what the guard remembers about it (whether it is gone)."""

    __slots__ = ("asked", "bot", "draws", "game", "gone", "notices", "seat")

    def __init__(self, bot: Bot, seat: int) -> None:
        self.bot = bot
        self.seat = seat
        self.gone = False
        self.game = ""
        self.asked = 0  # decisions asked this game (numbers the faults of in-process bots)
        # Most bots keep the base class's take_faults (never any): asking it after every
        # decision is a call per move for nothing, so only a bot that overrides it is asked.
        self.notices = getattr(type(bot), "take_faults", None) is not Bot.take_faults
        # The plain random bot's choice is the engine's draw from its stream, legal by the
        # rules: asked through the try, the clock and the check, it costs as much again.
        self.draws = type(bot) is RandomBot

    def report(self, fault: Fault, faults: list[Fault], replacement: str = "") -> None:
        """Report ``fault`` of this seat's bot: logged, kept in ``--bot-log``, counted."""
        fault = fault.at(bot=self.bot.name, seat=self.seat, game=self.game)
        log.error("%s%s", fault, replacement)
        bot_output.fault(f"{fault}{replacement}")
        faults.append(fault)

    def _collect(self, faults: list[Fault]) -> None:
        if not self.notices:
            return
        try:
            noticed = self.bot.take_faults()
        except Exception:  # a broken hook of a plugin bot must not stop the game
            return
        for fault in noticed:
            self.report(fault, faults)

    def start(self, info: GameInfo, faults: list[Fault]) -> None:
        """Start the bot; one that fails to (e.g. a process bot that fails its handshake) is
        reported and plays random legal actions."""
        self.game, self.asked = info.game, 0
        try:
            self.bot.start(info)
        except Exception as exc:
            self.gone = True
            self._collect(faults)
            kind = exc.kind if isinstance(exc, BotError) and \
                exc.kind in ("gone", "flood", "protocol") else "start"
            self.report(Fault(kind, f"failed to start: {exc}; it plays random legal actions"),
                         faults)
        else:
            self._collect(faults)

    def answer(self, state: GameState, fallback: RandomStream, faults: list[Fault]) -> Action:
        """``ask`` on a ``Turn`` of ``state`` for this seat, whose options are listed only if
        the bot reads them. The plain random bot's answer is the engine's draw from its own
        stream (what its ``choose`` answers: ``engine.draw_legal``), legal by the rules, so it
        skips the guard's clock, try and check."""
        stream = self.draw_stream()
        if stream is not None:
            self.asked += 1
            return draw_legal(state, self.seat, stream)
        return self.ask(Turn(state, self.seat), fallback, faults)

    def draw_stream(self) -> RandomStream | None:
        """The stream the engine draws this seat's answers from, as ``answer`` does: the plain
        random bot's own, once started, without a time budget; None for a bot ``answer``
        asks. It does not change during a game (only a failed start makes a random bot gone),
        so a match loop may read it once."""
        if self.draws and not self.gone and self.bot.time_budget is None:
            return self.bot.rng
        return None

    def ask(self, turn: Turn, fallback: RandomStream, faults: list[Fault]) -> Action:
        """The bot's action if it is legal and in time, else a random legal one (reported).
        Either way it is one of the very objects of ``turn.legal`` (a bot's equal copy is
        swapped for the listed action), so the caller may play it without checking it again
        (``engine.apply_trusted``)."""
        if self.gone:
            return turn.draw(fallback)
        self.asked += 1
        budget = self.bot.time_budget
        # the clock is read only for a bot with a budget (a call per move otherwise)
        started = time.perf_counter() if budget is not None else 0.0
        fault: Fault | None = None
        listed: Action | None = None
        try:
            action = self.bot.choose(turn)
        except BotGone as exc:
            self.gone = True
            fault = Fault(exc.kind, f"is gone: {exc}; it plays random legal actions from now "
                          "on", decision=exc.decision)
        except BotError as exc:
            fault = Fault(exc.kind, f"failed: {exc}", decision=exc.decision)
        except Exception as exc:
            fault = Fault("raised", f"raised {type(exc).__name__}: {exc}", decision=self.asked)
        else:
            elapsed = time.perf_counter() - started if budget is not None else 0.0
            if budget is not None and elapsed > budget:
                fault = Fault("slow", f"took {elapsed:.3f} s, over its budget of {budget:g} s "
                              f"(its answer {_text(action)} is ignored)", decision=self.asked)
            elif turn.drew(action):  # drawn from the game by its rules: legal as it is
                listed = action
            else:
                listed = _listed(action, turn.legal)
                if listed is None:
                    fault = Fault("illegal", f"answered an illegal action {_text(action)}",
                                  decision=self.asked)
        self._collect(faults)
        if fault is None and listed is not None:
            return listed
        assert fault is not None  # an answer that is not listed is a fault
        choice = turn.draw(fallback)
        self.report(fault, faults, f"; playing {choice.text()} for it instead")
        return choice


def _listed(action: object, legal: Sequence[Action]) -> Action | None:
    """The element of ``legal`` that ``action`` is, or equals; None if there is none."""
    # In-process bots answer with one of the very objects offered: find it by identity first
    # (C-level), comparing by value only for a copy (e.g. parsed from a process bot's text).
    if any(map(operator.is_, legal, repeat(action))):
        return cast(Action, action)  # it is one of them
    try:
        for listed in legal:
            if listed == action:
                return listed
    except Exception:  # garbage with a raising __eq__ is simply not a legal action
        return None
    return None


def _text(action: object) -> str:
    text = getattr(action, "text", None)
    if callable(text):
        try:
            return repr(text())
        except Exception:  # a garbage object with a broken text(): show its repr instead
            pass
    return repr(action)
