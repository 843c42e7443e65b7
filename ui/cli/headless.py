"""Headless network play: the game is printed as a log, one line per event."""

from __future__ import annotations

import logging
import sys
import time
from typing import TextIO

from p2p.net.chatlink import ChatLink, ChatShown
from p2p.session.events import Event
from p2p.text import printable

log = logging.getLogger("solstice.headless")


class LogPrinter:
    """Prints the public progress of a game, one line per event, with elapsed time."""

    def __init__(self, out: TextIO = sys.stdout) -> None:
        self.out = out
        self.started = time.monotonic()

    def stamp(self) -> str:
        return f"[{time.monotonic() - self.started:6.1f}s]"

    def chat_link(self) -> ChatLink:
        """A chat link that prints every chat line (and note) the game shows."""
        return ChatLink(self.chat)

    def chat(self, shown: ChatShown) -> None:
        who = f"{printable(shown.author, 40)}: " if shown.author is not None else ""
        print(f"{self.stamp()} chat: {who}{printable(shown.text)}", file=self.out, flush=True)

    def __call__(self, event: Event) -> None:
        if event.kind == "input":
            return
        stamp = self.stamp()
        prefix = {"rejected": "warning: ", "aborted": "STOPPED: ", "waiting": "",
                  "over": "", "transcript": "transcript written to ",
                  "clock": "clock: ", "timeout": "clock: "}.get(event.kind, "")
        # Event texts carry peer-supplied names and reasons: never raw to the terminal.
        print(f"{stamp} {prefix}{printable(event.text, 2000)}", file=self.out, flush=True)
