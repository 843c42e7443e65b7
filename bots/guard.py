"""Asking a bot for an action without trusting it.

A bot that raises, answers something that is not one of the legal actions, or exceeds its time
budget gets a logged error and a random legal action is played for it, so one faulty bot never
stops a game. A bot that is gone for good (a process bot whose program died) raises
``BotGone``: that is reported once, and the seat then plays random legal actions without
asking the bot again.
"""

from __future__ import annotations

import logging
import operator
import time
from collections.abc import Sequence
from itertools import repeat

from bots.base import Bot, GameInfo, Turn
from engine import Action
from engine.randomness import RandomStream

log = logging.getLogger("solstice.bots")


class BotError(Exception):
    """A bot failed to answer one decision (garbage, timeout, ...): that move is replaced."""


class BotGone(BotError):
    """A bot can answer no more decisions in this game (e.g. its process died)."""


class GuardedSeat:
    """One seat's bot plus what the guard remembers about it (whether it is gone)."""

    __slots__ = ("bot", "gone", "seat")

    def __init__(self, bot: Bot, seat: int) -> None:
        self.bot = bot
        self.seat = seat
        self.gone = False

    def start(self, info: GameInfo, faults: list[str]) -> None:
        """Start the bot; one that fails to (e.g. a process bot that fails its handshake) is
        reported and plays random legal actions."""
        try:
            self.bot.start(info)
        except Exception as exc:
            self.gone = True
            reason = (f"bot {self.bot.name!r} (seat {self.seat}) failed to start: {exc}; it "
                      "plays random legal actions")
            log.error("%s", reason)
            faults.append(reason)

    def ask(self, turn: Turn, fallback: RandomStream, faults: list[str]) -> Action:
        """The bot's action if it is legal and in time, else a random legal one (logged)."""
        legal: Sequence[Action] = turn.legal
        if self.gone:
            return legal[fallback.randbelow(len(legal))]
        who = f"bot {self.bot.name!r} (seat {self.seat})"
        started = time.perf_counter()
        try:
            action = self.bot.choose(turn)
        except BotGone as exc:
            self.gone = True
            reason = f"{who} is gone: {exc}; it plays random legal actions from now on"
        except BotError as exc:
            reason = f"{who} failed: {exc}"
        except Exception as exc:
            reason = f"{who} raised {type(exc).__name__}: {exc}"
        else:
            elapsed = time.perf_counter() - started
            budget = self.bot.time_budget
            if budget is not None and elapsed > budget:
                reason = (f"{who} took {elapsed:.3f} s, over its budget of {budget:g} s "
                          f"(its answer {_text(action)} is ignored)")
            elif _is_one_of(action, legal):
                return action
            else:
                reason = f"{who} answered an illegal action {_text(action)}"
        choice = legal[fallback.randbelow(len(legal))]
        log.error("%s; playing %s for it instead", reason, choice.text())
        faults.append(reason)
        return choice


def _is_one_of(action: object, legal: Sequence[Action]) -> bool:
    # In-process bots answer with one of the very objects offered: find it by identity first
    # (C-level), comparing by value only for a copy (e.g. parsed from a process bot's text).
    if any(map(operator.is_, legal, repeat(action))):
        return True
    try:
        return action in legal
    except Exception:  # garbage with a raising __eq__ is simply not a legal action
        return False


def _text(action: object) -> str:
    text = getattr(action, "text", None)
    if callable(text):
        try:
            return repr(text())
        except Exception:  # a garbage object with a broken text(): show its repr instead
            pass
    return repr(action)
