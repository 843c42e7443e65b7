"""The spectator's terminal UI (``solstice watch`` without ``--headless``): the game live with
public information only, the log, the spectator's own verdict and transcript at the end; q
leaves and the game goes on.

Textual needs asyncio while pytest-trio runs async tests under trio, so the pilot tests are
plain functions with their own asyncio loop; the game runs in a trio thread.
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
from textual.app import App
from textual.widgets import Static

from bots.netseat import bot_chooser
from bots.registry import make_bot
from engine import (
    CHANCE,
    RandomStream,
    apply,
    legal_actions,
    new_game,
    random_chance,
    random_config,
    to_move,
)
from engine.view import view
from p2p.net.games import PeerOptions, host_game, join_game
from p2p.net.joincode import JoinCode
from p2p.net.node import HostedLobby
from p2p.net.notices import GameEvent
from p2p.net.transport import NetConfig
from p2p.session.loopback import LoopbackGame
from p2p.session.machine import GameSession
from p2p.session.seatview import SeatView
from p2p.storage.transcript import verify_transcript
from ui.app import widgets
from ui.app.app import SolsticeApp
from ui.app.messages import BoardChanged, GameEnded, NetNote
from ui.app.screens.game import GameScreen
from ui.app.spectate import EXIT_FAIR, EXIT_LEFT, SpectateApp, SpectateScreen
from ui.app.watchgame import public_view
from ui.app.widgets import PhaseBar

LOOPBACK = "127.0.0.1"
CFG = NetConfig(handshake_timeout=5.0, first_read_timeout=5.0, grace_period=10.0,
                backoff_initial=0.02, backoff_max=0.2, lobby_timeout=30.0)


def _options(root: Path, name: str) -> PeerOptions:
    return PeerOptions(home=root / name, name=name, bind=LOOPBACK, net=CFG)


class BotTable:
    """A 3-player bot game on loopback in a trio thread; the joiners come once ``go`` is set
    (after the spectator is in)."""

    def __init__(self, root: Path, pace: float = 0.0) -> None:
        self.root = root
        self.pace = pace  # seconds each bot waits before each decision
        self.code: JoinCode | None = None
        self.opened, self.go = threading.Event(), threading.Event()
        self.sessions: dict[str, GameSession] = {}
        self.events: dict[str, list[GameEvent]] = {}
        self.thread = threading.Thread(target=trio.run, args=(self._main,), daemon=True)

    async def _main(self) -> None:
        def chooser() -> Any:
            bot = bot_chooser(make_bot("random"), out=io.StringIO())

            async def paced(seats: SeatView) -> Any:
                await trio.sleep(self.pace)
                return await bot(seats)
            return paced

        def on_lobby(lobby: HostedLobby) -> None:
            self.code = lobby.code
            self.opened.set()

        async def play(name: str) -> None:
            sink = self.events.setdefault(name, []).append
            if name == "alice":
                self.sessions[name] = await host_game(3, chooser(), sink,
                                                      _options(self.root, name), on_lobby)
                return
            await trio.to_thread.run_sync(self.go.wait)
            assert self.code is not None
            self.sessions[name] = await join_game(self.code, chooser(), sink,
                                                  _options(self.root, name))

        with trio.fail_after(120):
            async with trio.open_nursery() as nursery:
                for name in ("alice", "bob", "carol"):
                    nursery.start_soon(play, name)

    def start(self) -> JoinCode:
        self.thread.start()
        assert self.opened.wait(30)
        assert self.code is not None
        return self.code


class RecordingApp(SpectateApp):
    """Keeps every board it was sent (the test checks that none shows a secret)."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.boards: list[dict[str, Any]] = []

    def deliver(self, item: Any) -> None:
        if isinstance(item, BoardChanged):
            self.boards.append(item.view)
        super().deliver(item)


async def _until(pilot: Any, check: Any, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        await pilot.pause(0.05)


def _log(app: SpectateApp) -> list[str]:
    return app.watch_screen.log_lines


def _watcher(tmp_path: Path, pace: float = 0.0) -> tuple[BotTable, RecordingApp]:
    table = BotTable(tmp_path, pace)
    return table, RecordingApp(table.start(), _options(tmp_path, "dora"))


async def _players_come(app: RecordingApp, table: BotTable, pilot: Any) -> None:
    """Once the host has welcomed the spectator, the other players join."""
    await _until(pilot, lambda: any("watching;" in t for t in _log(app)), 15)
    table.go.set()


@pytest.mark.slow
def test_a_spectator_watches_a_bot_game_live_and_sees_its_own_verdict(tmp_path: Path) -> None:
    table, app = _watcher(tmp_path)

    async def scenario() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await _players_come(app, table, pilot)
            await _until(pilot, lambda: app.ended is not None, 120)
            await pilot.pause(0.2)
            assert app.watch_screen.boards == len(app.boards)  # each one was drawn
            assert f"Round {app.boards[-1]['round']}" in str(
                app.watch_screen.query_one(PhaseBar).render())
            verdict = str(app.watch_screen.query_one("#verdict", Static).render())
            assert "Your audit: FAIR" in verdict and "watch-transcript.json" in verdict
            await pilot.press("q")
        assert app.return_value == EXIT_FAIR

    asyncio.run(scenario())
    table.thread.join(60)
    rounds = {board["round"] for board in app.boards}
    assert len(app.boards) > 10 and len(rounds) >= 2  # the board followed the game
    assert {board["phase"] for board in app.boards} >= {"draft", "dispatch"}
    for board in app.boards:  # public information only: no hand, nobody is "you"
        assert board["spectator"] and board["hand"] == [] and board["prisoner"] is None
    (players,) = [t for t in _log(app) if t.startswith("Players: ")]
    assert sorted(players.removeprefix("Players: ").split(", ")) == ["alice", "bob", "carol"]
    assert app.ended is not None and app.ended.transcript is not None
    assert verify_transcript(Path(app.ended.transcript)).ok
    assert all(s.result is not None and s.result["ok"] for s in table.sessions.values())
    assert any(e.text == "watching: dora" for e in table.events["bob"])


@pytest.mark.soak  # make test's time (under 10 minutes): in make soak
def test_q_leaves_and_the_game_goes_on_without_the_spectator(tmp_path: Path) -> None:
    table, app = _watcher(tmp_path, pace=0.1)  # the game outlasts the spectator's stay

    async def scenario() -> None:
        async with app.run_test(size=(100, 30)) as pilot:
            await _players_come(app, table, pilot)
            await _until(pilot, lambda: len(app.boards) > 2, 60)
            assert app.ended is None
            await pilot.press("q")
        assert app.return_value == EXIT_LEFT

    asyncio.run(scenario())
    table.thread.join(120)
    assert all(s.result is not None and s.result["ok"] for s in table.sessions.values())
    assert any("dora (" in e.text and "stopped watching" in e.text for e in table.events["alice"])


def _keyless_mid_dispatch() -> tuple[LoopbackGame, GameSession]:
    """Three sessions played (random legal moves) into a dispatch with cards face down on the
    planets, and a keyless session fed their public log, as a spectator's is."""
    loop = LoopbackGame(3)
    stream = RandomStream(b"spectate-public")
    for session in loop.sessions:
        session.start()
    for _ in range(5000):
        s = loop.sessions[0].engine
        if s is not None and s.phase.value == "dispatch" and sum(
                not s.face_up[c] for p in s.planets for c in p) >= 2:
            break
        loop.deliver()
        for session in loop.sessions:
            if session.pending_input:
                legal = session.pending_input
                session.submit(legal[stream.randbelow(len(legal))])
    else:
        raise AssertionError("fixture state not reached")
    for _ in range(100):  # every session sees every move made so far
        if not loop.deliver():
            break
    keyless = GameSession(loop.game_id, [i.public_bytes for i in loop.identities])
    for signed in loop.sessions[0].msglog.messages:
        keyless.accept(signed, direct=False)
    return loop, keyless


def test_the_public_view_shows_no_hand_and_no_face_down_card() -> None:
    loop, keyless = _keyless_mid_dispatch()
    assert keyless.engine is not None
    public = public_view(keyless.engine)
    assert public["spectator"] and public["hand"] == [] and public["legal"] == []
    hidden = [c for p in public["planets"] for c in p["cards"] if not c["face_up"]]
    assert len(hidden) >= 2 and all(c["label"] is None for c in hidden)
    # The player who dispatched one of them does see it: the spectator's view hid it.
    player = loop.sessions[keyless.peer_of_seat[hidden[0]["dispatcher"]]]
    assert player.engine is not None and player.my_seat is not None
    own = view(player.engine, player.my_seat)
    assert any(c["slot"] == hidden[0]["slot"] and c["label"]
               for p in own["planets"] for c in p["cards"])
    assert public["hand_sizes"] == own["hand_sizes"]  # how many cards each holds: public
    assert [c["label"] for p in public["planets"] for c in p["cards"] if c["face_up"]] == \
        [c["label"] for p in own["planets"] for c in p["cards"] if c["face_up"]]


def _fixture_state() -> Any:
    """A deterministic local game in dispatch, as a spectator knows it: only face-up cards
    (a keyless session never learns the others; the local engine knows them all)."""
    stream = RandomStream(b"spectate-dispatch")
    config = random_config(3, stream)
    s = new_game(config, deck_order=stream.sample(config.card_ids(), len(config.card_ids())))
    for _ in range(3000):
        if s.phase.value == "dispatch" and sum(not s.face_up[c] for p in s.planets
                                               for c in p) >= 2 and to_move(s) != [CHANCE]:
            break
        movers = to_move(s)
        legal = legal_actions(s, movers[0]) if movers != [CHANCE] else []
        s = apply(s, random_chance(s, stream) if movers == [CHANCE]
                  else legal[stream.randbelow(len(legal))])
    public = s.clone()
    for slot in s.live_slots():
        if not s.face_up[slot]:
            public.card_of[slot] = -1
    return public


class SpectateFixture(App[None]):
    CSS_PATH = "../ui/app/solstice.tcss"

    def on_mount(self) -> None:
        screen = SpectateScreen("0123abcd" * 4)
        self.push_screen(screen)

        def fill() -> None:
            screen.show_board(public_view(_fixture_state()), ("alice", "bob", "carol"))
            for line in ("Players: alice, bob, carol", "watching; waiting for the players",
                         "white dispatches a card face down to Helios"):
                screen.add_log(line)
            screen.show_end(GameEnded({"ok": True, "summary": "audit passed: 5 rounds; "
                                       "winner white"}, "", "/home/dora/games/g/"
                                       "watch-transcript.json"))

        screen.call_after_refresh(fill)


def test_snapshot_spectator_80x24(snap_compare: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(widgets, "now", lambda: 1000.0)
    assert snap_compare(SpectateFixture(), terminal_size=(80, 24))


def test_a_players_ui_shows_who_watches() -> None:
    board = view(_fixture_state(), 0)

    async def scenario() -> None:
        app = SolsticeApp()  # no network side: the test delivers what it would post
        async with app.run_test(size=(100, 30)) as pilot:
            app.deliver(BoardChanged(board, (), ("alice", "bob", "carol")))
            app.deliver(NetNote("watchers", "watching: dora, \x1b[2Jeve"))
            await pilot.pause()
            assert isinstance(app.screen, GameScreen)
            assert "watching: dora, \\x1b[2Jeve" in app.screen.log_lines
            shown = [n.message for n in app._notifications]
            assert shown == ["watching: dora, \\x1b[2Jeve"]

    asyncio.run(scenario())
