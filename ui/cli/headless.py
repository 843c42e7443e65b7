"""Headless network play: the game is printed as a log, one line per event."""

from __future__ import annotations

import logging
import sys
import time
from typing import TextIO

from p2p.net.chatlink import ChatLink, ChatShown
from p2p.net.notices import (
    ChoiceRefused,
    GameEvent,
    Stopped,
    StoreRepaired,
    TranscriptWritten,
)
from p2p.session.events import (
    ClockRanOut,
    DecisionClock,
    GameAborted,
    InputWanted,
    LogLine,
    Rejected,
    TableClock,
)
from p2p.text import printable
from ui.app.wording import describe, readable

log = logging.getLogger("solstice.headless")


# What a line starts with, by event class (none: the event's text alone).
_PREFIX: dict[type, str] = {
    Rejected: "warning: ", ChoiceRefused: "warning: ", StoreRepaired: "warning: ",
    GameAborted: "STOPPED: ", Stopped: "STOPPED: ",
    TranscriptWritten: "transcript written to ", TableClock: "clock: ", ClockRanOut: "clock: ",
}


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
        where = "lobby chat" if shown.lobby else "chat"
        print(f"{self.stamp()} {where}: {who}{printable(shown.text)}", file=self.out, flush=True)

    def __call__(self, event: GameEvent) -> None:
        if isinstance(event, InputWanted):
            return
        if isinstance(event, DecisionClock):
            # One per decision stage ("pick/commit by peer(s) 0, 1, 2: 120 s to decide"): the
            # table clock line at the start says it once, in words; kept for --debug only.
            log.debug("%s", event.text)
            return
        stamp = self.stamp()
        prefix = _PREFIX.get(type(event), "")
        # Event texts carry peer-supplied names and reasons: never raw to the terminal. The
        # engine's card labels (white:Legions, event:Sentry) are shown as the players'
        # names for the cards, as on screen.
        game = event.game if isinstance(event, LogLine) else None
        text = describe(game) if game is not None else readable(printable(event.text, 2000))
        print(f"{stamp} {prefix}{text}", file=self.out, flush=True)
