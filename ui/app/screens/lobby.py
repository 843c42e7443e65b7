"""The lobby: the join command to hand out (selectable, pastable as shown, copyable), the
roster, what we wait for (with a spinner and the time so far) and the lobby's chat (key
``t``, as in the game)."""

from __future__ import annotations

import os
import shutil
import subprocess
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, RichLog, Static

from ui.app.chat import ChatInput
from ui.app.messages import RosterLine
from ui.app.widgets import StatusLine

CODE_MARGIN = 6  # the lobby's padding and the code box's own
ESCROW_COST = "the cost: the others together could open any hand"


def paste_lines(code: str, width: int) -> list[str]:
    """``solstice join CODE`` in lines of at most ``width`` characters. Each line but the
    last ends with `` \\`` (a shell line continuation), so pasting all the lines as drawn
    runs one command; ``solstice join`` joins the pieces of the code again."""
    command = f"solstice join {code}"
    if len(command) <= width:
        return [command]
    room = max(12, width - 2)
    lines, line, rest = [], "solstice join ", code
    while rest:
        take = room - len(line)
        line, rest = line + rest[:take], rest[take:]
        if rest:
            lines.append(line + " \\")
            line = ""
    lines.append(line)
    return lines


def copy_to_tmux(text: str) -> bool:
    """Inside tmux, put ``text`` in tmux's paste buffer (tmux does not take the terminal
    clipboard sequence from programs unless set-clipboard is on)."""
    if not os.environ.get("TMUX") or shutil.which("tmux") is None:
        return False
    try:
        subprocess.run(["tmux", "set-buffer", "--", text], check=True, timeout=2,
                       capture_output=True)
    except (OSError, subprocess.SubprocessError):
        return False
    return True


class LobbyScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "copy_code", "Copy join code"),
        Binding("e", "toggle_escrow", "Escrow on/off"),
        Binding("t", "chat", "Chat", show=False),  # in F1 help and README, as in the game
        Binding("f1", "app.help", "Help"),
        Binding("question_mark", "app.help", "Help", show=False),
        Binding("q", "app.leave", "Quit"),
    ]

    def __init__(self, title: str = "Solstice") -> None:
        super().__init__()
        self.title_text = title
        self.code: str | None = None
        self.players = 0
        self.roster: tuple[RosterLine, ...] = ()
        self.chat_lines: list[str] = []  # as shown (escaped), for tests and the game's log
        self.escrow: bool | None = None  # the host's choice (None: not ours to make)

    def compose(self) -> ComposeResult:
        with Vertical(id="lobby-box"):
            yield Static(Text(self.title_text, style="bold"), id="lobby-title")
            yield Static(id="code", classes="hidden")
            yield Static(id="join-hint", classes="hidden")
            yield Static(id="roster")
            yield Static(id="escrow", classes="hidden")
            yield StatusLine(id="lobby-status")
            yield RichLog(id="lobby-chat", wrap=True, markup=False, classes="hidden")
        yield ChatInput()
        yield Footer()

    def on_mount(self) -> None:
        self.show_status("Starting…")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # No code (joining, resuming): no copy key in the footer either.
        if action == "toggle_escrow":
            return self.escrow is not None
        return not (action == "copy_code" and self.code is None)

    def show_escrow(self, on: bool, can_change: bool = True) -> None:
        """The escrow the game will start with, and what it costs, before anyone plays."""
        self.escrow = on if can_change else None
        text = Text(f"Escrow {'on' if on else 'off'}", style="bold #7ee787" if on
                    else "bold #e3b341")
        if can_change:
            text.append(f" (e: {'off' if on else 'on'})", style="dim")
        text.append(f": a player who vanishes is played by the ghost; {ESCROW_COST}." if on
                    else ": a player who vanishes stops the game (on: the ghost plays on; "
                         f"{ESCROW_COST}).")
        widget = self.query_one("#escrow", Static)
        widget.update(text)
        widget.remove_class("hidden")
        self.refresh_bindings()

    def action_toggle_escrow(self) -> None:
        if self.escrow is not None:
            self.post_message(self.EscrowWanted(not self.escrow))

    class EscrowWanted(Message):
        """The host pressed ``e``: the escrow it wants now."""

        def __init__(self, on: bool) -> None:
            super().__init__()
            self.on = on

    def on_resize(self, event: events.Resize) -> None:
        if self.code is not None:
            self._render_code(event.size.width)

    def _render_code(self, width: int) -> None:
        assert self.code is not None
        lines = paste_lines(self.code, max(20, width - CODE_MARGIN))
        self.query_one("#code", Static).update("\n".join(lines))

    def show_code(self, code: str, players: int, short: str | None = None) -> None:
        self.code, self.players = code, players
        widget = self.query_one("#code", Static)
        widget.border_title = "Other players run (press c to copy the code)"
        self._render_code(self.size.width or 80)
        widget.remove_class("hidden")
        hint = self.query_one("#join-hint", Static)
        if short is None:
            hint.update(Text("Select and paste all the lines above as they are (the \\ joins "
                             "them), or press c and paste after: solstice join", style="dim"))
        else:  # advertised on the LAN: the short code is enough there
            hint.update(Text.assemble(("On this LAN other players run: ", "dim"),
                                      (f"solstice join {short}", "bold"),
                                      ("  (elsewhere: the code above)", "dim")))
        hint.remove_class("hidden")
        self.refresh_bindings()
        self.show_status("Waiting for the players to join…")
        self._render_roster()

    def show_roster(self, players: int, roster: tuple[RosterLine, ...]) -> None:
        self.players, self.roster = players, roster
        self._render_roster()

    def add_chat(self, line: Text) -> None:
        """A chat line (escaped already) or a note about chat, under the roster."""
        self.chat_lines.append(line.plain)
        log = self.query_one("#lobby-chat", RichLog)
        log.remove_class("hidden")
        log.write(line)

    def action_chat(self) -> None:
        self.query_one(ChatInput).open()

    def show_status(self, text: str) -> None:
        self.query_one("#lobby-status", StatusLine).show_text(text)

    def _render_roster(self) -> None:
        text = Text(f"Players {len(self.roster)}/{self.players or '?'}\n", style="bold")
        for index, line in enumerate(self.roster):
            text.append(f"  {index + 1}. ")
            text.append(line.name, style="bold")
            if line.fingerprint:
                text.append(f"  id {line.fingerprint}", style="dim")
            if index == 0:
                text.append("  (host)", style="dim")
            text.append("\n")
        missing = self.players - len(self.roster)
        if missing > 0:
            text.append(f"  waiting for {missing} more player(s)…", style="#e3b341")
        self.query_one("#roster", Static).update(text)

    def action_copy_code(self) -> None:
        if self.code is None:
            self.notify("No join code yet", severity="warning")
            return
        self.app.copy_to_clipboard(self.code)  # OSC 52: terminals that allow it
        if copy_to_tmux(self.code):
            self.notify("Join code copied to tmux's paste buffer (and sent to the terminal "
                        "clipboard)")
        else:
            self.notify("Join code sent to the terminal clipboard; if your terminal does not "
                        "take it, select the lines above instead")
