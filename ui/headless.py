"""Headless network play: a bot answers for this peer and the game is printed as a log."""

from __future__ import annotations

import logging
import secrets
import sys
import time
from typing import TextIO

import trio

from bots.base import Bot, GameInfo, Turn
from engine import Action
from engine.randomness import RandomStream
from p2p.runner import Chooser
from p2p.session import Event, GameSession

log = logging.getLogger("solstice.headless")


def bot_chooser(bot: Bot, out: TextIO = sys.stderr) -> Chooser:
    """Ask ``bot`` (in a worker thread, so the network stays responsive); a bot that fails or
    answers an illegal action is reported and a random legal action is played for it."""
    started = False
    fallback = RandomStream(secrets.token_bytes(16))

    async def choose(session: GameSession, legal: list[Action]) -> Action:
        nonlocal started
        assert session.engine is not None and session.my_seat is not None
        if not started:
            started = True
            bot.start(GameInfo(session.my_seat, session.config, secrets.token_bytes(16)))
        turn = Turn(session.engine.clone(), session.my_seat, legal)
        try:
            action = await trio.to_thread.run_sync(bot.choose, turn)
        except Exception as exc:
            print(f"bot {bot.name} raised {type(exc).__name__}: {exc}; playing a random "
                  "legal action", file=out)
            return legal[fallback.randbelow(len(legal))]
        if action not in legal:
            print(f"bot {bot.name} answered an illegal action {action!r}; playing a random "
                  "legal action", file=out)
            return legal[fallback.randbelow(len(legal))]
        return action

    return choose


class LogPrinter:
    """Prints the public progress of a game, one line per event, with elapsed time."""

    def __init__(self, out: TextIO = sys.stdout) -> None:
        self.out = out
        self.started = time.monotonic()

    def __call__(self, event: Event) -> None:
        if event.kind == "input":
            return
        stamp = f"[{time.monotonic() - self.started:6.1f}s]"
        prefix = {"rejected": "warning: ", "aborted": "STOPPED: ", "waiting": "",
                  "over": "", "transcript": "transcript written to "}.get(event.kind, "")
        print(f"{stamp} {prefix}{event.text}", file=self.out, flush=True)
