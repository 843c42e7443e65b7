"""Small widgets of the game screen; each re-renders from a seat's view held in a reactive."""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.widgets import Static

from ui.app.render import (
    claims_line,
    faction_style,
    ghost_lines,
    phase_line,
    planet_cards,
    planet_header,
    prisoner_line,
    score_rows,
    scores_line,
)

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
now = time.monotonic  # the status clock (snapshot tests freeze it)


class PhaseBar(Static):
    """Round, phase, draft direction, first player."""

    view: reactive[dict[str, Any] | None] = reactive(None, layout=True)
    names: tuple[str, ...] = ()

    def watch_view(self, view: dict[str, Any] | None) -> None:
        if view is None:
            self.update("Setting up the game…")
        else:  # fits the bar's width (it was cut at 60 columns)
            self.update(phase_line(view, self.names, self.content_size.width or None))

    def on_resize(self) -> None:
        self.watch_view(self.view)


class ScoreBar(Static):
    """VP, casualties and prisoners of every player on one line, then claimed events and
    our own prisoner."""

    view: reactive[dict[str, Any] | None] = reactive(None, layout=True)
    names: tuple[str, ...] = ()

    def scores(self, view: dict[str, Any]) -> Text:
        return scores_line(view, self.names)

    def watch_view(self, view: dict[str, Any] | None) -> None:
        if view is None:
            self.update("")
            return
        text = self.scores(view)
        for extra in (claims_line(view, self.names), prisoner_line(view),
                      *ghost_lines(view, self.names)):
            if extra is not None:
                text.append("\n")
                text.append_text(extra)
        self.update(text)


class SideScores(ScoreBar):
    """The scores one player per line, beside the board on a wide terminal."""

    def scores(self, view: dict[str, Any]) -> Text:
        return score_rows(view, self.names)


def show_view(widgets: Iterable[Any], view: dict[str, Any], names: tuple[str, ...]) -> None:
    """Hand a seat's view (and the players' names) to widgets that render from it."""
    for widget in widgets:
        widget.names = names
        widget.view = view


class PlanetView(Static):
    """One planet: name, VP, disclosure rule, strongest/favored, its cards."""

    _shown: tuple[Any, ...] | None = None

    def show(self, planet: dict[str, Any], view: dict[str, Any], names: tuple[str, ...],
             fresh: frozenset[int] = frozenset()) -> None:
        self._shown = (planet, view, names, fresh)
        width = self.content_size.width or None  # cards break between chips (0: not laid out)
        text = planet_header(planet, view, names)
        text.append("\n")
        text.append_text(planet_cards(planet, view, names, fresh, width))
        self.update(text)

    def on_resize(self) -> None:
        if self._shown is not None:
            self.show(*self._shown)


class PlanetBoard(VerticalScroll, can_focus=False):
    """The planets top to bottom (the order in which they resolve)."""

    view: reactive[dict[str, Any] | None] = reactive(None)
    names: tuple[str, ...] = ()
    # The cards that arrived on the planets with the last change (the last move): lit until
    # the next card arrives.
    fresh: frozenset[int] = frozenset()
    _on_board: frozenset[int] | None = None

    def compose(self) -> ComposeResult:
        for index in range(5):
            yield PlanetView(id=f"planet-{index}", classes="planet")

    def watch_view(self, view: dict[str, Any] | None) -> None:
        planets = view["planets"] if view else []
        on_board = frozenset(c["slot"] for p in planets for c in p["cards"])
        if view is not None:
            # The first board we see has no "last move" yet.
            if self._on_board is not None and on_board - self._on_board:
                self.fresh = on_board - self._on_board
            self._on_board = on_board
        for index, widget in enumerate(self.query(PlanetView)):
            if index < len(planets):
                widget.display = True
                assert view is not None
                widget.show(planets[index], view, self.names, self.fresh & on_board)
            else:
                widget.display = False


class StatusLine(Static):
    """Whom the game waits for (with a spinner and how long so far), or "Your move."

    The clock restarts whenever what we wait for changes. Decision clocks (issue #11), when
    the table has them, are shown after the wait as ``⏱ white 0:42``.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.message: Text = Text("")
        self.spinning = False
        self.since = now()
        self.clocks: dict[str, float] = {}

    def on_mount(self) -> None:
        self.set_interval(0.2, self._tick)

    def show_waiting(self, view: dict[str, Any] | None, waiting: tuple[str, ...],
                     asking: bool) -> None:
        if asking:
            message, spinning = Text("Your move.", style="bold #7ee787"), False
        elif waiting:
            message = Text("Waiting for " + ", ".join(waiting), style="#e3b341")
            spinning = True
        elif view is not None and view["phase"] == "resolve":
            message, spinning = Text("Resolving planets", style="#e3b341"), True
        else:
            message, spinning = Text("Waiting for the other players", style="#e3b341"), True
        self._set(message, spinning)

    def show_text(self, text: str) -> None:
        """A free status (the lobby's): spinning, timed since the text changed."""
        self._set(Text(text, style="#e3b341"), True)

    def _set(self, message: Text, spinning: bool) -> None:
        if message.plain != self.message.plain:
            self.since = now()
        self.message, self.spinning = message, spinning
        self._render_status()

    def show_clocks(self, clocks: dict[str, float]) -> None:
        """Seconds left per player (by name) on a table with decision clocks."""
        self.clocks = dict(clocks)
        self._render_status()

    def _tick(self) -> None:
        if self.spinning:
            self._render_status()

    def _render_status(self) -> None:
        text = Text()
        t = now()
        if self.spinning:
            text.append(SPINNER[int(t * 5) % len(SPINNER)] + " ", style="bold #e3b341")
        text.append_text(self.message)
        if self.spinning:
            text.append(f" · {int(t - self.since)}s", style="dim")
        for name, left in self.clocks.items():
            text.append(f"  ⏱ {name} {int(left) // 60}:{int(left) % 60:02d}", style="bold")
        self.update(text)


def picked_line(view: dict[str, Any], names: tuple[str, ...]) -> Text:
    """Who has committed a pick in this draft turn (the cards stay hidden)."""
    text = Text("Picked: ", style="dim")
    for seat, done in enumerate(view["picked"]):
        faction = view["factions"][seat]
        text.append("you" if seat == view["seat"] else faction, style=faction_style(faction))
        text.append(" ✓  " if done else " …  ", style="bold #7ee787" if done else "dim")
    return text
