"""The app shutting down while the network side still sends: what arrives then is dropped.

The bridge posts from its own thread, so a board can reach the app after Textual has begun to
take the screens down (CI saw ``NoMatches: PhaseBar`` raised out of a finished game)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from test_ui_feedback import _app, _state

from engine import to_move
from engine.view import view
from ui.app import widgets
from ui.app.app import FromNetwork
from ui.app.messages import BoardChanged
from ui.app.screens.game import GameScreen


def test_a_board_arriving_while_the_app_shuts_down_is_dropped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    s = _state()
    board = BoardChanged(view(s, to_move(s)[0]))
    posted: list[bool] = []

    async def late_board(self: widgets.PhaseBar) -> None:
        # Widgets are unmounted one by one while the app's queue still runs: the bridge's
        # next board lands in between, as it did on CI.
        posted.append(self.app.post_message(FromNetwork(board)))
        await asyncio.sleep(0.05)

    async def scenario() -> None:
        app = _app("play", tmp_path)
        async with app.run_test(size=(140, 40)) as pilot:
            app.deliver(board)
            await pilot.pause()
            assert isinstance(app.screen, GameScreen)
            monkeypatch.setattr(widgets.PhaseBar, "on_unmount", late_board, raising=False)

    asyncio.run(scenario())  # raised NoMatches out of run_test before the guard
    assert posted == [True]
