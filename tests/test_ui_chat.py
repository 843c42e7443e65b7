"""Table chat in the terminal UI (#15): key t, a line typed, shown in the log pane as
"name: text", stored with the game; peer text escaped."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from test_ui_feedback import _app, _state, run
from textual.widgets import RichLog

from engine import legal_actions, to_move
from engine.view import view
from p2p.net.chatlink import ChatShown
from p2p.net.games import PeerOptions
from p2p.storage.chatlog import load_chat
from ui.app.app import SolsticeApp
from ui.app.chat import ChatInput, chat_line
from ui.app.messages import AskHuman, BoardChanged
from ui.app.netgame import NetSetup
from ui.app.screens.game import GameScreen
from ui.app.screens.summary import RoundSummaryScreen


def test_a_chat_line_is_shown_as_name_and_text_with_peer_characters_escaped() -> None:
    line = chat_line(ChatShown("bob\x1b[2J", "gg\x1b[1A\u202e"))
    assert line.plain == "bob\\x1b[2J: gg\\x1b[1A\\u202e"
    assert chat_line(ChatShown(None, "chat: too fast")).plain == "chat: too fast"


def test_typing_a_chat_line_in_the_game_shows_it_in_the_log_and_keeps_it(
        tmp_path: Path) -> None:
    options = PeerOptions(home=tmp_path, name="tester", bind="127.0.0.1", port=0)
    setup = NetSetup("play", options, players=2, bots=("random",), seed="chat")

    async def scenario() -> None:
        app = SolsticeApp(setup)
        async with app.run_test(size=(140, 40)) as pilot:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                if isinstance(app.screen, GameScreen) and app.screen.ask is not None:
                    break
                await pilot.pause(0.05)
            screen = app.screen
            assert isinstance(screen, GameScreen) and screen.ask is not None
            await pilot.press("t")
            chat = screen.query_one(ChatInput)
            assert chat.display and chat.has_focus
            await pilot.press(*"quick, gl")  # q and l: text here, not Quit or Log
            await pilot.press("enter")
            deadline = time.monotonic() + 10
            while "tester: quick, gl" not in screen.log_lines and time.monotonic() < deadline:
                await pilot.pause(0.05)
            assert "tester: quick, gl" in screen.log_lines
            logged = [str(strip.text) for strip in screen.query_one("#log", RichLog).lines]
            assert any("tester: quick, gl" in text for text in logged)
            assert app.screen is screen and chat.display  # no leave dialog, input kept open
            assert screen.ask is not None and not app.answers  # still our move, untouched
            assert app.game_id is not None
            kept = load_chat(tmp_path / "games" / app.game_id)
            assert [line.text for line in kept] == ["quick, gl"]
            # Esc closes the input without sending; the choices have the focus again.
            await pilot.press("x", "escape")
            assert not chat.display and chat.value == ""
            assert not isinstance(app.screen, RoundSummaryScreen)

    asyncio.run(scenario())


def test_a_question_arriving_while_typing_leaves_the_keys_in_the_chat_line(
        tmp_path: Path) -> None:
    s = _state()
    seat = to_move(s)[0]

    async def scenario() -> None:
        app = _app("play", tmp_path)
        async with app.run_test(size=(140, 40)) as pilot:
            app.deliver(BoardChanged(view(s, seat)))
            await pilot.pause()
            await pilot.press("t", "h", "i")
            app.deliver(AskHuman(1, view(s, seat), tuple(legal_actions(s, seat))))
            await pilot.pause()
            chat = app.screen.query_one(ChatInput)
            assert chat.has_focus and chat.value == "hi"
            await pilot.press("enter")  # sends the line; it does not choose a card
            await pilot.pause()
            assert not app.answers and chat.display and chat.value == ""

    run(scenario)


def test_in_the_lobby_t_says_a_line_to_the_table_and_the_lobby_shows_it(tmp_path: Path) -> None:
    options = PeerOptions(home=tmp_path, name="tester", bind="127.0.0.1", port=0)
    setup = NetSetup("host", options, players=3)

    async def scenario() -> None:
        app = SolsticeApp(setup)
        async with app.run_test(size=(100, 40)) as pilot:
            lobby = app.lobby
            deadline = time.monotonic() + 10
            while lobby.code is None and time.monotonic() < deadline:
                await pilot.pause(0.05)
            assert lobby.code is not None and app.screen is lobby
            log = lobby.query_one("#lobby-chat", RichLog)
            assert not log.display  # no chat yet: no empty pane
            await pilot.press("t")
            chat = lobby.query_one(ChatInput)
            assert chat.display and chat.has_focus
            await pilot.press(*"hi, qc")  # q and c: text here, not Quit or Copy
            await pilot.press("enter")
            deadline = time.monotonic() + 10
            while not lobby.chat_lines and time.monotonic() < deadline:
                await pilot.pause(0.05)
            assert lobby.chat_lines == ["(lobby) tester: hi, qc"]
            assert log.display and chat.display and app.screen is lobby
            # A joiner's line arrives as peer text: escaped before it is shown.
            app.deliver(ChatShown("bob\x1b[2J", "hello\u202e", lobby=True))
            await pilot.pause()
            assert lobby.chat_lines[-1] == "(lobby) bob\\x1b[2J: hello\\u202e"
            shown = [str(strip.text) for strip in log.lines]
            assert any("tester: hi, qc" in text for text in shown)

    asyncio.run(scenario())
