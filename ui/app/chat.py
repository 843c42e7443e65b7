"""Table chat in the game and lobby screens: the one-line input (key ``t``) and how a line is
shown.

Lines arrive from the network side as ``p2p.net.chatlink.ChatShown`` (peer text, raw); they
are escaped here, at the app's entry point, like every other peer text, and shown in the log
pane as "name: text" (a lobby line as "(lobby) name: text"; a note about chat, e.g. a dropped
flood, as a dim line).
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Input

from p2p.net.chat import MAX_TEXT
from p2p.net.chatlink import ChatShown
from p2p.net.roster import MAX_NAME_LEN
from p2p.text import printable

CHAT_STYLE = "#79c0ff"
NOTE_STYLE = "dim italic"


def chat_line(shown: ChatShown) -> Text:
    """The log pane's line for a chat line or note, every peer character escaped."""
    if shown.author is None:
        return Text(printable(shown.text), style=NOTE_STYLE)
    line = Text("(lobby) " if shown.lobby else "", style="dim")
    line.append(printable(shown.author, 4 * MAX_NAME_LEN) + ": ", style="bold " + CHAT_STYLE)
    line.append(printable(shown.text, MAX_TEXT))
    return line


class ChatInput(Input):
    """A hidden one-line input; ``open()`` shows and focuses it. Enter sends the line
    (``Said``) and keeps the input open for the next; Esc closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", "Close chat")]

    class Said(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class Closed(Message):
        """The input was closed (the screen gives the focus back)."""

    def __init__(self) -> None:
        # Short enough for 60 columns (it was cut there).
        super().__init__(placeholder=f"Chat to the table: Enter sends, Esc closes (≤{MAX_TEXT})",
                         max_length=MAX_TEXT, id="chat-input")
        self.display = False

    def open(self) -> None:
        self.display = True
        self.focus()

    def action_close(self) -> None:
        self.value = ""
        self.display = False
        self.post_message(self.Closed())

    @on(Input.Submitted)
    def _send(self, event: Input.Submitted) -> None:
        event.stop()
        if event.value.strip():
            self.post_message(self.Said(event.value))
        # The input stays open for the next line (only Esc closes it): closing it after each
        # line sent the next words and Enter to the game, where they made picks.
        self.value = ""
