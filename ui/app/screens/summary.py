"""After a round: how each planet resolved; after the game: final scores and the audit."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, Static

from engine.cards import PLANETS
from ui.app.messages import GameEnded
from ui.app.render import FACTION_STYLES, faction_style


def resolution_lines(log: list[str]) -> list[str]:
    """The log lines of the last Resolve phase (from "Resolve planets" to the next round)."""
    start = max((i for i, line in enumerate(log) if line == "Resolve planets"), default=-1)
    if start < 0:
        return []
    out = []
    for line in log[start + 1:]:
        if line.startswith("Round ") and ": draft passes" in line:
            break
        out.append(line)
    return out


def resolution_text(lines: list[str]) -> Text:
    """Planet headers stand out; each score or kill is indented under its planet."""
    text = Text()
    for line in lines:
        head = line.split(":", 1)[0]
        if head in PLANETS:
            text.append("\n" + head, style="bold underline")
            text.append(":" + line.split(":", 1)[1] + "\n")
        else:
            style = "red" if "killed" in line or "casualty" in line else ""
            if " scores " in line:
                style = "#7ee787"
            text.append("   " + line + "\n", style=style)
    return text


class RoundSummaryScreen(ModalScreen[None]):
    """The Resolve phase of a round, step by step, shown before the next round goes on."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,escape,space", "close", "Continue"),
    ]

    def __init__(self, round_number: int, lines: list[str], scores: Text | None) -> None:
        super().__init__()
        self.round_number = round_number
        self.lines = lines
        self.scores = scores

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="summary-box") as box:
            box.border_title = f"Round {self.round_number} resolved — Enter to continue"
            yield Static(resolution_text(self.lines) if self.lines else
                         Text("Nothing was resolved this round."))
            if self.scores is not None:
                yield Static(Text("Scores: ", style="bold").append_text(self.scores))
        yield Footer()

    def action_close(self) -> None:
        self.dismiss(None)


def result_table(result: dict[str, Any], names: dict[str, str]) -> Table:
    table = Table(title="Final scores", title_style="bold", expand=False)
    for column in ("", "player", "VP", "casualties", "score"):
        table.add_column(column, justify="right" if column in ("VP", "casualties", "score")
                         else "left")
    for place, faction in enumerate(result.get("ranking") or sorted(
            result["scores"], key=lambda f: -result["scores"][f])):
        label = Text(faction, style=faction_style(faction))
        if names.get(faction):
            label.append(f" ({names[faction]})")
        table.add_row(f"{place + 1}.", label, str(result.get("vp", {}).get(faction, "")),
                      str(result.get("casualties", {}).get(faction, "")),
                      str(result["scores"][faction]))
    return table


class EndScreen(Screen[None]):
    """Final scores, winner, the audit verdict and the transcript; or why the game stopped."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q,enter,escape", "app.quit", "Quit"),
        Binding("l", "show_log", "Log"),
        Binding("r", "app.rematch", "Play again", show=False),  # announced by the app
    ]

    def __init__(self, ended: GameEnded, names: dict[str, str] | None = None,
                 log_lines: list[str] | None = None, resume_hint: str = "") -> None:
        super().__init__()
        self.ended = ended
        self.names = names or {}
        self.log_lines = log_lines or []
        self.resume_hint = resume_hint

    def compose(self) -> ComposeResult:
        ended = self.ended
        with VerticalScroll(id="end-box"):
            if ended.result is not None:
                result = ended.result
                winner = result["winner"]
                title = Text("Game over — ", style="bold")
                title.append(f"{winner}", style=FACTION_STYLES.get(winner, "bold"))
                if self.names.get(winner):
                    title.append(f" ({self.names[winner]})", style="bold")
                title.append(" wins", style="bold")
                yield Static(title, id="end-title")
                yield Static(result_table(result, self.names))
                yield Static(Text("✔ " + result.get("summary", "audit passed"),
                                  style="bold #7ee787"), id="audit")
            else:
                yield Static(Text("The game stopped", style="bold red"), id="end-title")
                yield Static(Text(ended.reason or "unknown reason", style="red"), id="audit")
                if self.resume_hint:
                    yield Static(Text(self.resume_hint, style="#e3b341"))
            if ended.transcript:
                yield Static(Text.assemble(("Transcript: ", "bold"), ended.transcript,
                                           "\nRe-check it any time with: ",
                                           (f"solstice verify {ended.transcript}", "bold")))
            yield Static(Text("Press q or Enter to quit · l for the game log", style="dim"))
        yield Footer()

    def action_show_log(self) -> None:
        from ui.app.screens.dialogs import LogScreen

        self.app.push_screen(LogScreen(self.log_lines))
