"""Small widgets of the game screen; each re-renders from a seat's view held in a reactive."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.widgets import Static

from ui.app.render import (
    claims_line,
    phase_line,
    planet_cards,
    planet_header,
    scores_line,
    seat_text,
)


class PhaseBar(Static):
    """Round, phase, draft direction, first player."""

    view: reactive[dict[str, Any] | None] = reactive(None, layout=True)
    names: tuple[str, ...] = ()

    def watch_view(self, view: dict[str, Any] | None) -> None:
        if view is None:
            self.update("Setting up the game…")
        else:
            self.update(phase_line(view, self.names))


class ScoreBar(Static):
    """VP, casualties and prisoners of every player, plus claimed events."""

    view: reactive[dict[str, Any] | None] = reactive(None, layout=True)
    names: tuple[str, ...] = ()

    def watch_view(self, view: dict[str, Any] | None) -> None:
        if view is None:
            self.update("")
            return
        text = scores_line(view, self.names)
        claims = claims_line(view, self.names)
        if claims is not None:
            text.append("\n")
            text.append_text(claims)
        self.update(text)


class PlanetView(Static):
    """One planet: name, VP, disclosure rule, strongest/favored, its cards."""

    def show(self, planet: dict[str, Any], view: dict[str, Any], names: tuple[str, ...]) -> None:
        text = planet_header(planet, view, names)
        text.append("\n")
        text.append_text(planet_cards(planet, view, names))
        self.update(text)


class PlanetBoard(VerticalScroll, can_focus=False):
    """The planets top to bottom (the order in which they resolve)."""

    view: reactive[dict[str, Any] | None] = reactive(None)
    names: tuple[str, ...] = ()

    def compose(self) -> ComposeResult:
        for index in range(5):
            yield PlanetView(id=f"planet-{index}", classes="planet")

    def watch_view(self, view: dict[str, Any] | None) -> None:
        planets = view["planets"] if view else []
        for index, widget in enumerate(self.query(PlanetView)):
            if index < len(planets):
                widget.display = True
                assert view is not None
                widget.show(planets[index], view, self.names)
            else:
                widget.display = False


class StatusLine(Static):
    """Whom the game waits for, or what just happened."""

    def show_waiting(self, view: dict[str, Any] | None, waiting: tuple[str, ...],
                     asking: bool) -> None:
        if asking:
            self.update(Text("Your move.", style="bold #7ee787"))
        elif waiting:
            self.update(Text("Waiting for " + ", ".join(waiting) + "…", style="#e3b341"))
        elif view is not None and view["phase"] == "resolve":
            self.update(Text("Resolving planets…", style="#e3b341"))
        else:
            self.update(Text("Waiting for the other players…", style="dim"))


def picked_line(view: dict[str, Any], names: tuple[str, ...]) -> Text:
    """Who has committed a pick in this draft turn (the cards stay hidden)."""
    text = Text("Committed this pick: ", style="dim")
    for seat, done in enumerate(view["picked"]):
        text.append_text(seat_text(view, seat, names))
        text.append(" ✓  " if done else " …  ", style="bold" if done else "dim")
    return text
