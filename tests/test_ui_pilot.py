"""Whole games through the UI with key presses, against a real bot peer over loopback TLS.

Textual needs asyncio while pytest-trio runs async tests under trio, so these are plain test
functions that run their own asyncio loop; the network runs in the bridge's trio thread.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from textual.widgets import Static
from ui_helpers import choose_highlighted, close_last_summary

from engine import Capture, Choose, Discard, Dispatch, Pick
from p2p.net.games import PeerOptions
from ui.app.app import EXIT_FINISHED, SolsticeApp
from ui.app.netgame import NetSetup
from ui.app.screens.game import GameScreen
from ui.app.screens.lobby import LobbyScreen
from ui.app.screens.summary import EndScreen, RoundSummaryScreen


def _setup(home: Path, bot: str = "random") -> NetSetup:
    options = PeerOptions(home=home, name="tester", bind="127.0.0.1", port=0)
    return NetSetup("play", options, players=2, bots=(bot,), seed="pilot")


def test_play_a_whole_game_with_keys(tmp_path: Path) -> None:
    answered: list[object] = []
    seen_summary = False
    seen_lobby_code = False

    async def scenario() -> None:
        nonlocal seen_summary, seen_lobby_code
        app = SolsticeApp(_setup(tmp_path))
        async with app.run_test(size=(100, 36)) as pilot:
            deadline = time.monotonic() + 80
            while app.ended is None and time.monotonic() < deadline:
                screen = app.screen
                if isinstance(screen, LobbyScreen) and screen.code:
                    seen_lobby_code = True
                if isinstance(screen, RoundSummaryScreen):
                    seen_summary = True
                    await pilot.press("enter")
                elif isinstance(screen, GameScreen) and screen.ask is not None:
                    # Enter on the highlighted option: picks, card -> planet -> disclosure,
                    # decisions; a two-card pick: Enter, a move to another card, Enter.
                    await choose_highlighted(screen, pilot)
                await pilot.pause(0.02)
            assert app.ended is not None, "the game did not end in time"
            await pilot.pause(0.2)
            await close_last_summary(app, pilot)
            assert isinstance(app.screen, EndScreen)
            audit = str(app.screen.query_one("#audit", Static).render())
            assert "audit passed" in audit, audit
            assert app.ended.transcript and Path(app.ended.transcript).exists()
            await pilot.press("q")
        assert app.return_code == EXIT_FINISHED
        answered.extend(app.answers)

    asyncio.run(scenario())
    assert seen_lobby_code
    assert seen_summary, "the round summary never showed"
    kinds = {type(a) for a in answered}
    assert Pick in kinds and (Dispatch in kinds or Capture in kinds)
    # At least one full round of the human's own moves: 3 picks (2+1+1... in a 2-player
    # draft) and 5 dispatches per round.
    assert len(answered) >= 8
    assert all(isinstance(a, Pick | Dispatch | Capture | Discard | Choose) for a in answered)


def test_leaving_mid_game_says_it_cannot_be_resumed_against_bots(tmp_path: Path) -> None:
    async def scenario() -> None:
        app = SolsticeApp(_setup(tmp_path))
        async with app.run_test(size=(80, 24)) as pilot:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                if isinstance(app.screen, GameScreen) and app.screen.ask is not None:
                    break
                await pilot.pause(0.05)
            await pilot.press("q")
            await pilot.pause(0.1)
            text = " ".join(str(w.render()) for w in app.screen.query(Static))
            assert "cannot be resumed" in text
            await pilot.press("y")
            await pilot.pause(0.2)
        assert app.left
        assert app.bridge is not None and not app.bridge.running

    asyncio.run(scenario())


def test_lost_host_shows_a_message_not_a_traceback(tmp_path: Path) -> None:
    """Joining a game whose host is not there ends with a readable reason."""
    from p2p.identity import Identity
    from p2p.net.joincode import JoinCode

    host_id = Identity.load_or_create(tmp_path / "ghost").peer_id
    code = JoinCode("127.0.0.1", 9, "0" * 32, host_id)  # port 9: nobody listens
    options = PeerOptions(home=tmp_path / "me", bind="127.0.0.1")

    async def scenario() -> None:
        app = SolsticeApp(NetSetup("join", options, code=code))
        async with app.run_test(size=(80, 24)) as pilot:
            deadline = time.monotonic() + 30
            while app.ended is None and time.monotonic() < deadline:
                await pilot.pause(0.05)
            await pilot.pause(0.1)
            assert isinstance(app.screen, EndScreen)
            text = " ".join(str(w.render()) for w in app.screen.query(Static))
            assert "The game stopped" in text
            assert "Traceback" not in text
            # One plain reason (not a trio ExceptionGroup), and no resume command that fails.
            assert "ExceptionGroup" not in text and "nursery" not in text
            assert "cannot connect" in text or "timed out" in text, text
            assert "solstice resume" not in text and "solstice join" in text

    asyncio.run(scenario())
