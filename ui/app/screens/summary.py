"""After a round: how each planet resolved; after the game: final scores and the audit."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.css.query import NoMatches
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, Static

from engine.cards import MAX_CASUALTIES, WIN_VP
from engine.events import (
    Event,
    GameOver,
    Killed,
    MartyrKilled,
    PlanetOpened,
    ResolveStarted,
    RoundScores,
    RoundStarted,
    Scored,
)
from ui.app.commandtext import CommandText, wrap_path
from ui.app.lessons import unscored
from ui.app.messages import GameEnded
from ui.app.render import FACTION_STYLES, faction_style
from ui.app.wording import describe, readable


def resolution_lines(events: Sequence[Event]) -> list[Event]:
    """The events of the last Resolve phase (after its ``ResolveStarted``, up to the round's
    scores, the game's end or the next round)."""
    start = max((i for i, e in enumerate(events) if isinstance(e, ResolveStarted)),
                default=-1)
    if start < 0:
        return []
    out = []
    for event in events[start + 1:]:
        if isinstance(event, RoundScores | GameOver | RoundStarted):
            break
        out.append(event)
    return out


def resolution_text(events: Sequence[Event],
                    reason: Callable[[Event], str | None] | None = None) -> Text:
    """Planet headers stand out; each score or kill is indented under its planet. ``reason``
    (a ``--learn`` game): each score or kill said once, with why it happened, and a line for
    each card that scored nothing, saying why (``ui.app.lessons.unscored``)."""
    text = Text()
    opened: PlanetOpened | None = None
    since: list[Event] = []  # the open planet's events so far

    def close_planet() -> None:
        if reason is not None and opened is not None:
            for line in unscored(opened, since):
                text.append("   " + line + "\n", style="dim")

    for event in events:
        why = reason(event) if reason is not None else None
        if isinstance(event, PlanetOpened):
            close_planet()
            opened, since = event, []
            text.append("\n" + event.planet, style="bold underline")
            text.append(describe(event).removeprefix(event.planet) + "\n")
            continue
        since.append(event)
        style = ""
        if isinstance(event, Killed | MartyrKilled):
            style = "red"
        elif isinstance(event, Scored):
            style = "#7ee787"
        # The reason says what happened too: once, not the event's line and then again.
        text.append("   " + (why or describe(event)) + "\n", style=style)
    close_planet()
    return text


# Seconds left on our decision's clock at which an open round summary gives way to the game.
YIELDS_AT = 20

SCORING_NOTE = ("A card's VP go to the player of its faction (its colour), not to the "
                "player who played it.")


class RoundSummaryScreen(ModalScreen[None]):
    """The Resolve phase of a round, revealed a line at a time (every ``pace`` seconds; 0 shows
    all at once). Space shows the rest at once; Enter continues."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space,s", "reveal_all", "Show all"),
        Binding("enter,escape", "close", "Continue"),
    ]

    def __init__(self, round_number: int, lines: list[Event], scores: Text | None,
                 pace: float = 0.0,
                 reason: Callable[[Event], str | None] | None = None) -> None:
        super().__init__()
        self.reason = reason
        self.round_number = round_number
        self.lines = lines
        self.scores = scores
        self.pace = pace
        self.shown = 0 if pace > 0 and lines else len(lines)
        self.clock: float | None = None  # seconds left on our next decision, if it runs

    def show_clock(self, left: float | None) -> None:
        """The table's clock does not stop for one player reading the summary: while our
        next decision's clock runs, the summary says so and counts it down; with
        ``YIELDS_AT`` seconds left it closes itself (the app does that), so the player is back
        at the decision before the clock can run out on them."""
        self.clock = left
        if self.is_mounted:
            self._render_clock()

    def _render_clock(self) -> None:
        left, text = self.clock, Text()
        if left is not None:
            text.append(f"⏱ Your next decision's clock is running: {int(left) // 60}:"
                        f"{int(left) % 60:02d} left. Enter goes back to the game (this "
                        f"summary closes itself at {YIELDS_AT // 60}:{YIELDS_AT % 60:02d}).",
                        style="bold #e3b341")
        clock = self.query_one("#summary-clock", Static)
        clock.update(text)
        clock.display = left is not None  # no empty line when no clock runs

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="summary-box") as box:
            box.border_title = f"Round {self.round_number} resolved — Enter to continue"
            yield Static(id="summary-lines")
            yield Static(id="summary-scores")
            yield Static(Text(SCORING_NOTE, style="dim"), id="summary-note")
        yield Static(id="summary-clock")
        yield Footer()

    def on_mount(self) -> None:
        self._render_lines()
        self._render_clock()
        if self.shown < len(self.lines):
            self._timer = self.set_interval(self.pace, self._reveal_next)

    def _reveal_next(self) -> None:
        self.shown = min(len(self.lines), self.shown + 1)
        try:
            self._render_lines()
        except NoMatches:
            # A tick that raced the screen's removal (the game ended on the last round's
            # summary at a short pace): there is nothing left to draw on.
            timer = getattr(self, "_timer", None)
            if timer is not None:
                timer.stop()

    def _render_lines(self) -> None:
        done = self.shown >= len(self.lines)
        body = (resolution_text(self.lines[:self.shown], self.reason) if self.lines else
                Text("Nothing was resolved this round."))
        if not done:
            body.append("… (space: show all)", style="dim")
        self.query_one("#summary-lines", Static).update(body)
        scores = Text()
        if done and self.scores is not None:
            scores = Text("Scores: ", style="bold").append_text(self.scores)
        self.query_one("#summary-scores", Static).update(scores)
        timer = getattr(self, "_timer", None)
        if timer is not None:
            # While revealing, keep the newest line in sight.
            self.query_one("#summary-box", VerticalScroll).scroll_end(animate=False)
            if done:
                timer.stop()

    def action_reveal_all(self) -> None:
        self.shown = len(self.lines)
        self._render_lines()

    def action_close(self) -> None:
        self.dismiss(None)


def ending_text(result: dict[str, Any]) -> Text:
    """Why the game ended (16 VP or 3 casualties), how the final score is made, and how a
    tie for first place was broken (ruling 23: fewer casualties, then turn order)."""
    vp, casualties = result.get("vp") or {}, result.get("casualties") or {}
    scores, ranking = result["scores"], result.get("ranking") or []
    why = [f"{f} reached {vp[f]} VP" for f in vp if vp[f] >= WIN_VP]
    why += [f"{f} took {casualties[f]} casualties" for f in casualties
            if casualties[f] >= MAX_CASUALTIES]
    text = Text()
    if why:
        text.append("The game ended because " + " and ".join(why) + f" (it ends after the "
                    f"round in which a faction reaches {WIN_VP} VP or {MAX_CASUALTIES} "
                    "casualties). ")
    text.append("Final score = VP − casualties.")
    for place, first in enumerate(ranking):
        tied = [f for f in ranking if scores[f] == scores[first]]
        if len(tied) < 2 or tied[0] != first:
            continue  # no tie, or one explained already
        fewer = all(casualties.get(a, 0) < casualties.get(b, 0)
                    for a, b in itertools.pairwise(tied))
        how = ("with fewer casualties" if fewer else
               "earlier in turn order (the tied player nearest the first player, in the "
               "draft's direction)")
        ahead = "wins" if place == 0 else "places ahead"
        text.append(f" {' and '.join(tied)} tied on {scores[first]}: {first} {ahead} {how}.")
    return text


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
        # Not Enter: one Enter too many after the last summary quit before the scores showed.
        Binding("q,escape", "app.quit", "Quit"),
        Binding("l", "show_log", "Log"),
        Binding("r", "replay", "Replay"),
    ]

    def __init__(self, ended: GameEnded, names: dict[str, str] | None = None,
                 log_lines: list[str] | None = None, resume_hint: str = "",
                 can_rematch: bool = False) -> None:
        """``can_rematch``: a finished network game, which ``p`` plays again (in the footer:
        a notice saying so covered the path and the keys)."""
        super().__init__()
        if can_rematch:
            self._bindings.bind("p", "app.rematch", "Play again")
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
                yield Static(ending_text(result), id="end-why")
                yield Static(Text("✔ " + readable(result.get("summary", "audit passed")),
                                  style="bold #7ee787"), id="audit")
            elif ended.handed_over is not None:
                yield Static(Text("You left the game", style="bold #e3b341"), id="end-title")
                yield CommandText(self.resume_hint, id="audit")
            else:
                yield Static(Text("The game stopped", style="bold red"), id="end-title")
                yield CommandText(ended.reason or "unknown reason", "red", id="audit")
                if self.resume_hint:
                    yield CommandText(self.resume_hint, "#e3b341")
            if ended.transcript:
                path = short_path(ended.transcript)
                # The path on a line of its own: at 80 columns it fits unbroken.
                yield Static(Text.assemble(
                    ("Transcript", "bold"), " (re-check it with ", ("solstice verify", "bold"),
                    ", watch it again with ", ("solstice replay", "bold"), "):"))
                yield PathLine(path)
            keys = "q quit · l game log"
            if ended.transcript and ended.result is not None:
                keys += " · r replay the game"
            yield Static(Text(keys, style="dim"))
        yield Footer()

    def action_show_log(self) -> None:
        from ui.app.screens.dialogs import LogScreen

        self.app.push_screen(LogScreen(self.log_lines))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Nothing finished to replay: no replay key in the footer.
        return not (action == "replay" and (not self.ended.transcript
                                            or self.ended.result is None))

    def action_replay(self) -> None:
        from p2p.storage.transcript import TranscriptUnreadable
        from ui.app.replay import ReplayScreen
        from ui.app.replay_data import ReplayRefused, load_replay

        if not self.ended.transcript or self.ended.result is None:
            self.notify("No finished game to replay", severity="warning")
            return
        try:
            replay = load_replay(Path(self.ended.transcript))
        except (TranscriptUnreadable, ReplayRefused) as exc:
            self.notify(str(exc), severity="error", timeout=10)
            return
        mine = [f for f, name in self.names.items() if name == "you"]
        seat = replay.factions.index(mine[0]) if mine and mine[0] in replay.factions else 0
        self.app.push_screen(ReplayScreen(replay, seat))  # as the player saw it


class PathLine(Static):
    """A file path, wrapped at its "/" to the widget's width."""

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path

    def render(self) -> Text:
        return Text("\n".join(wrap_path(self.path, max(10, self.size.width or 80))))


def short_path(path: str) -> str:
    """``~/...`` for a path under the home directory."""
    home = str(Path.home())
    return "~" + path[len(home):] if home != "/" and path.startswith(home + "/") else path
