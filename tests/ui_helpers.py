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
