"""The lobby: the join code to hand out (shown whole, selectable, copyable) and the roster."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, Static

from ui.app.messages import RosterLine


class LobbyScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "copy_code", "Copy join code"),
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

    def compose(self) -> ComposeResult:
        with Vertical(id="lobby-box"):
            yield Static(Text(self.title_text, style="bold"), id="lobby-title")
            yield Static(id="code", classes="hidden")
            yield Static(id="join-hint", classes="hidden")
            yield Static(id="roster")
            yield Static(Text("Starting…", style="#e3b341"), id="lobby-status")
        yield Footer()

    def show_code(self, code: str, players: int, short: str | None = None) -> None:
        self.code, self.players = code, players
        widget = self.query_one("#code", Static)
        widget.border_title = "Join code (press c to copy)"
        widget.update(code)
        widget.remove_class("hidden")
        hint = self.query_one("#join-hint", Static)
        if short is None:
            hint.update(Text.assemble(("Other players run: ", "dim"),
                                      ("solstice join ", "bold"), ("<the code>", "bold italic")))
        else:  # advertised on the LAN: the short code is enough there
            hint.update(Text.assemble(("On this LAN other players run: ", "dim"),
                                      (f"solstice join {short}", "bold"),
                                      ("  (elsewhere: the code above)", "dim")))
        hint.remove_class("hidden")
        self.show_status("Waiting for the players to join…")
        self._render_roster()

    def show_roster(self, players: int, roster: tuple[RosterLine, ...]) -> None:
        self.players, self.roster = players, roster
        self._render_roster()

    def show_status(self, text: str) -> None:
        self.query_one("#lobby-status", Static).update(Text(text, style="#e3b341"))

    def _render_roster(self) -> None:
        text = Text(f"Players {len(self.roster)}/{self.players or '?'}\n", style="bold")
        for index, line in enumerate(self.roster):
            text.append(f"  {index + 1}. ")
            text.append(line.name, style="bold")
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
        self.app.copy_to_clipboard(self.code)
        self.notify("Join code copied to the clipboard")
