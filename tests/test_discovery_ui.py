"""The UI's start screen: the LAN's games listed and kept current, joined with Enter.

Textual needs asyncio while pytest-trio runs async tests under trio, so these are plain test
functions that run their own asyncio loop (as in test_ui_pilot.py).
"""

from __future__ import annotations

import asyncio
import io
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import trio
from textual.widgets import OptionList, Static
from ui_helpers import choose_highlighted, close_last_summary

from bots.netseat import bot_chooser
from bots.registry import make_bot
from p2p.identity import Identity
from p2p.net.discovery import GameAd
from p2p.net.games import PeerOptions, host_game, join_game
from p2p.net.joincode import JoinCode
from p2p.net.roster import new_game_id
from p2p.session.machine import GameSession
from ui.app.app import EXIT_FINISHED, SolsticeApp
from ui.app.messages import LobbyOpened
from ui.app.netgame import NetSetup
from ui.app.screens.game import GameScreen
from ui.app.screens.start import BOTS_OPTION, LanStart, StartScreen
from ui.app.screens.summary import EndScreen, RoundSummaryScreen

LOOPBACK = "127.0.0.1"


class FakeSource:
    """Serves the games a test sets, as a browser would after resolving them."""

    def __init__(self) -> None:
        self.games: dict[str, GameAd] = {}
        self.pending = threading.Event()
        self.closed = False

    def set(self, *ads: GameAd) -> None:
        self.games = {ad.game_id: ad for ad in ads}
        self.pending.set()

    def poll(self, timeout: float) -> bool:
        changed = self.pending.wait(timeout)
        self.pending.clear()
        return changed

    def close(self) -> None:
        self.closed = True


def _ad(name: str, taken: int = 1, players: int = 3) -> GameAd:
    return GameAd(new_game_id(), Identity.generate().peer_id, name, players, taken, LOOPBACK,
                  4242)


def _options(home: Path) -> PeerOptions:
    return PeerOptions(home=home, name="tester", bind=LOOPBACK)


async def _until(pilot: Any, check: Any, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        await pilot.pause(0.05)


def _prompts(app: SolsticeApp) -> list[str]:
    options = app.screen.query_one("#lan-games", OptionList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


def test_the_start_screen_lists_lan_games_and_enter_joins_the_highlighted_one(
        tmp_path: Path) -> None:
    source = FakeSource()
    alice, bert, full = _ad("alice"), _ad("bert", taken=2), _ad("carl", taken=3)
    bots = NetSetup("play", _options(tmp_path / "bots"), players=2, bots=("random",))
    start = LanStart(_options(tmp_path / "lan"), bots=bots, source=lambda: source)
    chosen: dict[str, Any] = {}

    async def scenario() -> None:
        app = SolsticeApp(None, "Solstice", start)
        app._start_network = lambda setup: chosen.setdefault("setup", setup)  # type: ignore
        async with app.run_test(size=(100, 30)) as pilot:
            await _until(pilot, lambda: isinstance(app.screen, StartScreen))
            source.set(alice)
            await _until(pilot, lambda: len(_prompts(app)) == 2)
            assert "alice" in _prompts(app)[1] and "1/3 players, 2 free" in _prompts(app)[1]
            await pilot.press("down")  # highlight alice's game
            source.set(alice, bert, full)  # the list changes under the cursor
            await _until(pilot, lambda: len(_prompts(app)) == 4)
            options = app.screen.query_one("#lan-games", OptionList)
            assert options.highlighted_option is not None
            assert options.highlighted_option.id == f"{alice.host_id}:{alice.game_id}"
            assert options.get_option_at_index(3).disabled  # carl's game is full
            status = str(app.screen.query_one("#start-status", Static).render())
            assert "3 game(s) found" in status
            await pilot.press("enter")
            await _until(pilot, lambda: "setup" in chosen)
            await _until(pilot, lambda: source.closed)  # browsing stopped with the screen
            app.exit()
        setup = chosen["setup"]
        assert setup.mode == "join" and setup.code == alice.join_code()
        assert setup.options.home == tmp_path / "lan"

    asyncio.run(scenario())


def test_the_bots_entry_starts_the_local_game(tmp_path: Path) -> None:
    source = FakeSource()
    bots = NetSetup("play", _options(tmp_path), players=2, bots=("random",))
    start = LanStart(_options(tmp_path), bots=bots, source=lambda: source)
    chosen: list[NetSetup] = []

    async def scenario() -> None:
        app = SolsticeApp(None, "Solstice", start)
        app._start_network = chosen.append  # type: ignore[method-assign]
        async with app.run_test(size=(100, 30)) as pilot:
            await _until(pilot, lambda: isinstance(app.screen, StartScreen))
            options = app.screen.query_one("#lan-games", OptionList)
            assert options.highlighted_option is not None
            assert options.highlighted_option.id == BOTS_OPTION
            await pilot.press("enter")
            await _until(pilot, lambda: bool(chosen))
            app.exit()
        assert chosen == [bots]

    asyncio.run(scenario())


@pytest.mark.slow
@pytest.mark.soak  # (make test: the short-code join of test_discovery_lan, the UI pilot game)
def test_the_ui_joins_a_game_found_on_the_lan_and_plays_it_to_the_end(tmp_path: Path) -> None:
    hosted: dict[str, GameSession] = {}

    host_name = f"ui-host-{new_game_id()[:6]}"  # tell our game from any other on loopback

    async def host() -> None:
        options = PeerOptions(home=tmp_path / "host", name=host_name, bind=LOOPBACK,
                              discovery=True)
        chooser = bot_chooser(make_bot("random"), out=io.StringIO())
        hosted["session"] = await host_game(2, chooser, lambda e: None, options)

    host_thread = threading.Thread(target=trio.run, args=(host,), daemon=True)
    host_thread.start()
    start = LanStart(_options(tmp_path / "ui"))  # the real browser, confined to loopback

    async def scenario() -> None:
        app = SolsticeApp(None, "Solstice", start)
        async with app.run_test(size=(100, 36)) as pilot:
            await _until(pilot, lambda: isinstance(app.screen, StartScreen))
            await _until(pilot, lambda: any(host_name in p for p in _prompts(app)), 15)
            options = app.screen.query_one("#lan-games", OptionList)
            options.highlighted = next(i for i, p in enumerate(_prompts(app)) if host_name in p)
            await pilot.press("enter")
            await _play_to_the_end(app, pilot)
            await pilot.press("q")
        assert app.return_code == EXIT_FINISHED
        assert app.setup is not None and app.setup.mode == "join"

    asyncio.run(scenario())
    host_thread.join(timeout=30)
    assert hosted["session"].result is not None and hosted["session"].result["ok"]


def test_an_advertised_hosts_lobby_shows_the_short_code_to_type() -> None:
    async def scenario() -> None:
        app = SolsticeApp(None, "Solstice")
        async with app.run_test(size=(100, 30)) as pilot:
            app.deliver(LobbyOpened("sol1-abc", 3, short="ABCD-EFGH"))
            await pilot.pause(0.1)
            hint = str(app.lobby.query_one("#join-hint", Static).render())
            assert "solstice join ABCD-EFGH" in hint
            app.deliver(LobbyOpened("sol1-abc", 3))  # not advertised: the long code only
            await pilot.pause(0.1)
            hint = str(app.lobby.query_one("#join-hint", Static).render())
            assert "ABCD-EFGH" not in hint and "paste all the lines above" in hint
            app.exit()

    asyncio.run(scenario())


async def _play_to_the_end(app: SolsticeApp, pilot: Any, seconds: float = 80) -> None:
    deadline = time.monotonic() + seconds
    while app.ended is None and time.monotonic() < deadline:
        screen = app.screen
        if isinstance(screen, RoundSummaryScreen) or (
                isinstance(screen, GameScreen) and screen.ask is not None):
            await choose_highlighted(screen, pilot)
        await pilot.pause(0.02)
    assert app.ended is not None, "the game did not end in time"
    await pilot.pause(0.2)
    await close_last_summary(app, pilot)
    assert isinstance(app.screen, EndScreen)


@pytest.mark.soak  # make test's time (issue 40: under 10 minutes): in make soak
def test_r_on_the_end_screen_plays_again_with_the_same_table(tmp_path: Path) -> None:
    from p2p.net.rematch import host_rematch, with_rematch

    hosted: list[GameSession] = []
    codes: list[Any] = []
    code_ready = threading.Event()
    host_options = PeerOptions(home=tmp_path / "host", name="alice", bind=LOOPBACK)

    def on_lobby(lobby: Any) -> None:
        codes.append(lobby.code)
        code_ready.set()

    def chooser() -> Any:
        return bot_chooser(make_bot("random"), out=io.StringIO())

    async def host() -> None:
        first = lambda choose: host_game(2, choose, lambda e: None,  # noqa: E731
                                         host_options, on_lobby)
        run = with_rematch(first, host_rematch, chooser, lambda e: None, host_options, 60.0)
        hosted.append(await run(chooser()))

    host_thread = threading.Thread(target=trio.run, args=(host,), daemon=True)
    host_thread.start()
    assert code_ready.wait(30)

    async def scenario() -> None:
        app = SolsticeApp(NetSetup("join", _options(tmp_path / "ui"), code=codes[0]))
        async with app.run_test(size=(100, 36)) as pilot:
            await _play_to_the_end(app, pilot)
            first = app.ended
            assert first is not None and first.result is not None
            await pilot.press("p")
            await _until(pilot, lambda: app.ended is None and app.setup is not None
                         and app.setup.mode == "rematch")
            await _play_to_the_end(app, pilot)
            second = app.ended
            assert second is not None and second.result is not None
            assert second.game_id and second.game_id != first.game_id
            await pilot.press("q")
        assert app.return_code == EXIT_FINISHED

    asyncio.run(scenario())
    host_thread.join(timeout=30)
    assert hosted and hosted[0].result is not None and hosted[0].result["ok"]
    assert hosted[0].game_id != codes[0].game_id  # the host's last game was the rematch


@pytest.mark.soak  # make test's time (under 10 minutes): in make soak
def test_the_hosts_rematch_lobby_shows_its_code_and_who_came_back(tmp_path: Path) -> None:
    from p2p.net.rematch import join_rematch, with_rematch

    joined: list[GameSession] = []
    ui_options = PeerOptions(home=tmp_path / "ui", name="tester", bind=LOOPBACK,
                             discovery=False)

    async def scenario() -> None:
        app = SolsticeApp(NetSetup("host", ui_options, players=2))
        async with app.run_test(size=(100, 36)) as pilot:
            await _until(pilot, lambda: app.lobby.code is not None)
            code = JoinCode.parse(app.lobby.code)  # type: ignore[arg-type]

            async def joiner() -> None:
                options = PeerOptions(home=tmp_path / "bob", name="bob", bind=LOOPBACK)
                first = lambda choose: join_game(code, choose, lambda e: None,  # noqa: E731
                                                 options)
                run = with_rematch(first, join_rematch, lambda: bot_chooser(
                    make_bot("random"), out=io.StringIO()), lambda e: None, options, 60.0)
                joined.append(await run(bot_chooser(make_bot("random"), out=io.StringIO())))

            thread = threading.Thread(target=trio.run, args=(joiner,), daemon=True)
            thread.start()
            await _play_to_the_end(app, pilot)
            first_lobby = app.lobby
            await pilot.press("p")
            await _until(pilot, lambda: app.lobby is not first_lobby
                         and app.lobby.code is not None, 30)
            rematch = app.lobby
            assert JoinCode.parse(rematch.code).game_id != code.game_id  # type: ignore[arg-type]
            await _until(pilot, lambda: app.ended is None and app.game is not None, 60)
            assert any(line.name == "bob" for line in rematch.roster), "no roster shown"
            await _play_to_the_end(app, pilot)
            await pilot.press("q")
            thread.join(timeout=30)

    asyncio.run(scenario())
    assert joined and joined[0].result is not None
