"""Shared Pilot steps for tests that play a whole game through the terminal UI."""

from __future__ import annotations

from typing import Any

from ui.app.screens.summary import RoundSummaryScreen


async def close_last_summary(app: Any, pilot: Any, tries: int = 20) -> None:
    """The game may end while the last round's summary is still open; the end screen follows
    when the player closes it (as a player would, press Enter)."""
    for _ in range(tries):
        if not isinstance(app.screen, RoundSummaryScreen):
            return
        await pilot.press("enter")
        await pilot.pause(0.1)


async def choose_highlighted(screen: Any, pilot: Any) -> None:
    """Enter on the highlighted option, as a player would. In a two-card pick the cursor
    stays on the card just marked, so the player first moves to a card not marked yet."""
    from textual.widgets import OptionList

    draft = getattr(screen, "draft", None)
    if draft is not None and screen.marked:
        choices = screen.query_one("#choices", OptionList)
        free = next(i for i, slot in enumerate(draft.slots) if slot not in screen.marked)
        here = choices.highlighted or 0
        for _ in range(abs(free - here)):
            await pilot.press("down" if free > here else "up")
    await pilot.press("enter")


def game_note(event: Any) -> Any:
    """The log pane's note for one engine event, as the network side posts it."""
    from ui.app.messages import NetNote

    return NetNote("log", event.text, event)


def round_end(round_number: int, factions: tuple[str, ...] = ("white", "black"),
              vp: tuple[int, ...] = (3, 0)) -> Any:
    """A round's end as the engine says it (``RoundScores``)."""
    from engine.events import RoundScores

    return RoundScores(round_number, factions, vp, (0,) * len(factions))


def game_over(factions: tuple[str, ...] = ("white", "black")) -> Any:
    from engine.events import GameOver

    return GameOver(factions, (16,) + (0,) * (len(factions) - 1), factions[0], (factions[0],),
                    ())
