"""Live game feedback wired from the session to the screens: a resumed player sees the board at
once, whoever decides is shown with the time left on the clock (and a timeout is logged),
and peer-supplied text never reaches the terminal raw (issue #15 items 8 and the clocks,
issue #11's UI part)."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Any

import pytest
import trio
from textual.widgets import Static

from bots.netseat import bot_chooser
from bots.registry import make_bot
from engine import Action
from engine.events import RoundScores
from engine.view import view
from p2p.net.games import PeerOptions, host_game, join_game
from p2p.net.notices import RosterKnown, SeatsDrawn
from p2p.net.transport import NetConfig
from p2p.session.events import DecisionClock, LogLine, Peer
from p2p.session.loopback import LoopbackGame
from p2p.session.machine import GameSession
from p2p.session.seatview import SeatView
from ui.app.app import SolsticeApp
from ui.app.messages import (
    AskHuman,
    BoardChanged,
    GameEnded,
    NetNote,
    RosterChanged,
    RosterLine,
)
from ui.app.netgame import NetGame, NetSetup
from ui.app.screens.game import GameScreen
from ui.app.screens.lobby import LobbyScreen
from ui.app.screens.summary import EndScreen
from ui.app.widgets import StatusLine
from ui.cli.headless import LogPrinter

ESC_NAME = "evil\x1b[2J\x1b]0;pwned\x07"
ESC_REASON = "white cheated\x1b[1A\x1b[2Kfair: nothing happened"


class Posts:
    """The UI side of the bridge, as the trio side sees it: what was posted, in order."""

    def __init__(self) -> None:
        self.items: list[Any] = []

    def post(self, item: Any) -> None:
        self.items.append(item)


def _at_decision(players: int = 2) -> LoopbackGame:
    """Sessions past the setup, every seat asked for its first decision, clocks running."""
    loop = LoopbackGame(players)
    for session in loop.sessions:
        session.tick(0.0)
        session.start()
    for _ in range(2000):
        if all(s.pending_input for s in loop.sessions):
            return loop
        loop.deliver()
    raise AssertionError("nobody was asked to decide")


def _text(screen: Any) -> str:
    return "\n".join(str(w.render()) for w in screen.query(Static))


class Offline(SolsticeApp):
    """The app with no network side: the test delivers what the trio side would post."""

    def __init__(self, tmp_path: Path, mode: str = "join") -> None:
        super().__init__()
        self.pending = NetSetup(mode, PeerOptions(home=tmp_path))

    def on_ready(self) -> None:
        self.setup = self.pending


# -- item 8: a resumed player sees the board as soon as the game is replayed -------------------

def test_a_resumed_game_shows_the_board_once_replayed_not_at_the_first_decision(
        tmp_path: Path) -> None:
    session = _at_decision().sessions[0]
    side = Posts()
    game = NetGame(NetSetup("resume", PeerOptions(home=tmp_path), game="g1"), side)  # type: ignore[arg-type]
    game.now = lambda: 0.0
    game._open(session)  # what PeerOptions.on_session hands over once the log is replayed
    game.on_event(RosterKnown("Players: a, b", ("a", "b")))
    old = RoundScores(1, ("white", "black"), (3, 0), (0, 0))
    game.on_event(LogLine(old.text, old))  # a replayed old round
    assert not [x for x in side.items if isinstance(x, BoardChanged)]  # no summary of it
    game.on_event(SeatsDrawn("Seats: ...", {"a": "white", "b": "black"}))
    boards = [x for x in side.items if isinstance(x, BoardChanged)]
    assert boards and boards[-1].view == view(session.engine, session.my_seat)
    assert not [x for x in side.items if isinstance(x, AskHuman)]


def test_the_game_hands_its_session_over_before_the_first_decision(tmp_path: Path) -> None:
    net = NetConfig(handshake_timeout=5.0, first_read_timeout=5.0, grace_period=10.0,
                    backoff_initial=0.02, backoff_max=0.2, lobby_timeout=30.0)
    opened: list[GameSession] = []
    asked_after: list[int] = []
    sessions: list[GameSession] = []

    def chooser() -> Any:
        inner = bot_chooser(make_bot("random"), out=io.StringIO())

        async def choose(seats: SeatView) -> Action:
            asked_after.append(sum(s.game_id == seats.game_id and s.me == seats.peer
                                   for s in opened))
            return await inner(seats)

        return choose

    def options(i: int) -> PeerOptions:
        return PeerOptions(home=tmp_path / f"p{i}", name=f"p{i}", bind="127.0.0.1", net=net,
                           on_session=opened.append)

    async def main() -> None:
        code = trio.Event()
        lobby_code: list[Any] = []

        def on_lobby(lobby: Any) -> None:
            lobby_code.append(lobby.code)
            code.set()

        async def join() -> None:
            await code.wait()
            sessions.append(await join_game(lobby_code[0], chooser(), lambda e: None,
                                            options(1)))

        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(join)
                sessions.append(await host_game(2, chooser(), lambda e: None, options(0),
                                                on_lobby))

    trio.run(main)
    assert sorted(map(id, opened)) == sorted(map(id, sessions))  # each peer's own session
    assert asked_after and all(n == 1 for n in asked_after)  # always handed over beforehand


# -- decision clocks ----------------------------------------------------------------------------

def test_the_board_carries_the_time_left_of_whoever_still_decides() -> None:
    loop = _at_decision(2)
    me, other = loop.sessions
    clock = [e for e in me.events if isinstance(e, DecisionClock)][-1]
    assert clock.deadline is not None and clock.stage == me.stage.index
    deadline = clock.deadline
    side = Posts()
    game = NetGame(NetSetup("play", PeerOptions()), side)  # type: ignore[arg-type]
    game.views = me.seat_view
    game.now = lambda: deadline - 42.5
    game.on_event(clock)
    assert side.items[-1].clocks == pytest.approx((42.5, 42.5))
    other.submit(other.pending_input[0])  # the other seat has decided: off the clock
    loop.deliver()
    game.post_board()
    left = side.items[-1].clocks
    assert left[me.seat_of_peer[0]] == pytest.approx(42.5) and left[me.seat_of_peer[1]] is None
    game.now = lambda: deadline - 41.2  # a second later: a fresh board, one less
    game.post_board()
    assert side.items[-1].clocks[me.seat_of_peer[0]] == pytest.approx(41.2)


def test_a_clock_of_an_earlier_stage_is_not_shown() -> None:
    me = _at_decision(2).sessions[0]
    game = NetGame(NetSetup("play", PeerOptions()), Posts())  # type: ignore[arg-type]
    game.views, game.now = me.seat_view, lambda: 0.0
    game.on_event(DecisionClock("pick/commit", (Peer(0), Peer(1)), 120, 120.0,
                                me.stage.index - 1))
    seats = me.seat_view()
    assert seats is not None and game.clocks(seats) == ()


def test_the_status_line_shows_the_deciders_clock_and_drops_it_when_decided(
        tmp_path: Path) -> None:
    s = _at_decision(2).sessions[0]
    board = view(s.engine, 0)
    white = board["factions"].index("white") if "white" in board["factions"] else 0
    faction = board["factions"][white]
    clocks = tuple(42.0 if seat == white else None for seat in range(len(board["factions"])))

    async def scenario() -> None:
        app = Offline(tmp_path, "play")
        async with app.run_test(size=(80, 24)) as pilot:
            app.deliver(BoardChanged(board, (faction,), (), clocks))
            await pilot.pause()
            status = str(app.screen.query_one(StatusLine).render())
            assert f"⏱ {faction} 0:42" in status
            app.deliver(BoardChanged(board, (), (), ()))
            await pilot.pause()
            assert "⏱" not in str(app.screen.query_one(StatusLine).render())

    asyncio.run(scenario())


def test_the_headless_log_says_when_our_clock_ran_out() -> None:
    me = _at_decision(2).sessions[0]
    seen = len(me.events)
    me.tick(me.timing.decision + 1.0)  # nobody answered within the decision time
    out = io.StringIO()
    printer = LogPrinter(out)
    for event in me.events[seen:]:
        printer(event)
    assert "clock: our clock ran out: " in out.getvalue()
    assert "played by default" in out.getvalue()


# -- peer text is sanitised before any screen shows it ------------------------------------------

def test_escape_sequences_in_a_name_and_an_abort_reason_are_shown_escaped(
        tmp_path: Path) -> None:
    s = _at_decision(2).sessions[0]
    board = view(s.engine, 0)

    async def scenario() -> None:
        app = Offline(tmp_path)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            app.deliver(RosterChanged(2, (RosterLine(ESC_NAME, "abcd"), RosterLine("me", ""))))
            await pilot.pause()
            assert isinstance(app.screen, LobbyScreen)
            lobby = _text(app.screen)
            assert "evil\\x1b[2J" in lobby and "\x1b" not in lobby and "\x07" not in lobby
            app.deliver(BoardChanged(board, (f"white ({ESC_NAME})",), (ESC_NAME, "me")))
            app.deliver(NetNote("log", f"{ESC_NAME} is back"))
            app.deliver(NetNote("aborted", ESC_REASON))
            await pilot.pause()
            assert isinstance(app.screen, GameScreen)
            game = _text(app.screen) + "\n".join(app.log_lines)
            assert "evil\\x1b[2J" in game and "white cheated\\x1b[1A" in game
            assert "\x1b" not in game and "\x07" not in game
            assert all("\x1b" not in name for name in app.names)
            app.deliver(GameEnded(None, ESC_REASON))
            await pilot.pause()
            assert isinstance(app.screen, EndScreen)
            end = _text(app.screen)
            assert "white cheated\\x1b[1A" in end and "\x1b" not in end

    asyncio.run(scenario())
