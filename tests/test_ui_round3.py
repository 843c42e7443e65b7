"""Terminal UI round 3 (issue 29): quitting the start screen, the two-card pick, the chat
input, the clock behind the round summary. Pilot tests from plain data unless they say
otherwise (Textual needs asyncio: each test runs its own loop)."""

from __future__ import annotations

import asyncio
import io
import re
import threading
import time
from pathlib import Path
from typing import Any, ClassVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_ui_feedback import FakeBridge, _app, _state
from textual.widgets import OptionList, Static

from engine import Pick, legal_actions, to_move
from engine.view import view
from p2p.net.games import PeerOptions
from ui.app.app import SolsticeApp
from ui.app.chat import ChatInput
from ui.app.messages import AskHuman, BoardChanged, ChatSay
from ui.app.netgame import NetSetup
from ui.app.screens.game import GameScreen
from ui.app.screens.start import LanStart, StartScreen


class EmptyLan:
    """A LAN with no games on it."""

    def __init__(self) -> None:
        self.wake = threading.Event()

    def poll(self, timeout: float) -> bool:
        return self.wake.wait(timeout)

    def close(self) -> None:
        self.wake.set()

    games: ClassVar[dict[str, Any]] = {}


async def _until(pilot: Any, check: Any, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        await pilot.pause(0.05)


# -- item 6: q on the start screen ends with status 0 ------------------------------------------

def test_quitting_the_start_screen_with_q_exits_with_status_0(tmp_path: Path) -> None:
    bots = NetSetup("play", PeerOptions(home=tmp_path / "bots"), players=2, bots=("random",))
    start = LanStart(PeerOptions(home=tmp_path / "lan"), bots=bots, source=EmptyLan)

    async def scenario() -> Any:
        app = SolsticeApp(None, "Solstice", start)
        async with app.run_test(size=(80, 24)) as pilot:
            await _until(pilot, lambda: isinstance(app.screen, StartScreen))
            await pilot.press("q")
            await pilot.pause()
        return app.return_value  # what run_app returns as the exit status

    assert asyncio.run(scenario()) == 0


# -- item 7: the two-card pick, the chat line ----------------------------------------------------

def _two_card_pick(tmp_path: Path) -> tuple[SolsticeApp, Any, int]:
    s = _state(players=2)
    seat = to_move(s)[0]
    legal = tuple(legal_actions(s, seat))
    assert len(legal[0].slots) == 2  # type: ignore[union-attr]
    return _app("play", tmp_path), (s, seat, legal), seat


def test_in_a_two_card_pick_the_cursor_stays_on_the_card_enter_marked(tmp_path: Path) -> None:
    app, (s, seat, legal), _ = _two_card_pick(tmp_path)

    async def scenario() -> None:
        async with app.run_test(size=(100, 36)) as pilot:
            app.deliver(AskHuman(1, view(s, seat), legal))
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, GameScreen) and screen.draft is not None
            choices = screen.query_one("#choices", OptionList)
            await pilot.press("down", "enter")  # mark the second card
            await pilot.pause()
            assert choices.highlighted == 1, "the cursor moved off the card just marked"
            assert screen.marked == [screen.draft.slots[1]]
            prompt = str(screen.query_one("#prompt", Static).render())
            assert "Marked 1 of 2" in prompt
            await pilot.press("enter")  # Enter again on the same card unmarks it
            await pilot.pause()
            assert screen.marked == [] and choices.highlighted == 1 and not app.answers
            await pilot.press("enter", "up", "enter")  # the second and the first card
            await pilot.pause()
            assert app.answers == [Pick(seat, tuple(sorted(screen_slots[:2])))]

    screen_slots = sorted({slot for pick in legal for slot in pick.slots})  # type: ignore
    asyncio.run(scenario())


def test_the_chat_input_stays_open_after_a_line_so_the_next_words_are_chat(
        tmp_path: Path) -> None:
    app, (s, seat, legal), _ = _two_card_pick(tmp_path)
    said: list[str] = []

    class Recorder(FakeBridge):
        def send(self, item: object) -> bool:
            said.extend([item.text] if isinstance(item, ChatSay) else [])
            return True

    async def scenario() -> None:
        async with app.run_test(size=(100, 36)) as pilot:
            await pilot.pause()
            app.bridge = Recorder()  # type: ignore[assignment]
            app.deliver(BoardChanged(view(s, seat)))
            app.deliver(AskHuman(1, view(s, seat), legal))
            await pilot.pause()
            await pilot.press("t", *"hi", "enter", *"gl", "enter")
            await pilot.pause()
            chat = app.screen.query_one(ChatInput)
            assert chat.display and chat.has_focus and chat.value == ""
            assert not app.answers and app.screen.marked == []  # type: ignore[attr-defined]
            await pilot.press("escape", "enter")  # now Enter is the game's again
            await pilot.pause()
            assert not chat.display and app.screen.marked  # type: ignore[attr-defined]

    asyncio.run(scenario())
    assert said == ["hi", "gl"]


# -- item 7: the clock behind the round summary --------------------------------------------------

def test_the_round_summary_shows_our_next_decisions_clock_counting_down(tmp_path: Path) -> None:
    from ui_helpers import game_note, round_end

    from ui.app.screens.summary import RoundSummaryScreen

    app, (s, seat, _legal), _ = _two_card_pick(tmp_path)
    on_clock = tuple(100.0 if i == seat else None for i in range(2))

    async def scenario() -> list[str]:
        seen = []
        async with app.run_test(size=(80, 24)) as pilot:
            app.deliver(BoardChanged(view(s, seat), (), (), on_clock))
            app.deliver(game_note(round_end(1, vp=(0, 0))))
            await pilot.pause()
            assert isinstance(app.screen, RoundSummaryScreen)
            seen.append(str(app.screen.query_one("#summary-clock", Static).render()))
            app.deliver(BoardChanged(view(s, seat), (), (), tuple(
                41.0 if i == seat else None for i in range(2))))
            await pilot.pause()
            seen.append(str(app.screen.query_one("#summary-clock", Static).render()))
            app.deliver(BoardChanged(view(s, seat), (), (), ()))  # decided: no clock runs
            await pilot.pause()
            seen.append(str(app.screen.query_one("#summary-clock", Static).render()))
        return seen

    first, later, none = asyncio.run(scenario())
    assert "clock is running: 1:40 left" in first
    assert "0:41 left" in later
    assert "clock" not in none


# -- item 4: headless logs and replay --text in the players' words -------------------------------

INTERNAL = re.compile(r"\b(?:white|black|blue|red|event):[A-Z]|face_up|disclosing face down|"
                      r"by peer\(s\)")


@pytest.mark.parametrize("players,seed", [(2, 3), (3, 15), (4, 7)])
def test_headless_logs_and_replay_text_use_the_players_words(tmp_path: Path, players: int,
                                                             seed: int) -> None:
    """Every engine line of a whole seeded game, as the headless log prints it, and every
    line of ``replay --text``: card names, never labels or option ids."""
    from ui_transcript import write_finished_game

    from p2p.session.events import DecisionClock, LogLine
    from ui.app.replay_data import load_replay, text_log
    from ui.cli.headless import LogPrinter

    path = tmp_path / "t.json"
    write_finished_game(path, players=players, seed=seed)
    game = load_replay(path)
    out = io.StringIO()
    printer = LogPrinter(out)
    engine_lines = list(game.steps[-1].state.log)  # the engine's own log, as peers emit it
    assert any(INTERNAL.search(line) for line in engine_lines)  # the engine does log labels
    for event in game.steps[-1].state.events:
        printer(LogLine(event.text, event))  # as the session hands them on
    for peers in ((0, 1, 2, 3), (2,)):  # one per decision stage: said once at the start
        printer(DecisionClock("pick/commit", peers, 120, None, 1))
    printed = out.getvalue().splitlines()
    assert len(printed) == len(engine_lines)
    replayed = text_log(game)
    bad = [line for line in printed + replayed if INTERNAL.search(line)]
    assert not bad, bad[:5]


# -- item 3: a host that stopped answering leaves the start screen -------------------------------

def test_the_start_screen_drops_a_host_that_no_longer_answers(tmp_path: Path) -> None:
    """A browser's cache keeps a host killed without a goodbye for minutes; the start screen
    sweeps with a fresh browser and lists only the hosts that still answer."""
    from p2p.identity import Identity
    from p2p.net.discovery import GameAd
    from p2p.net.roster import new_game_id

    def ad(name: str) -> GameAd:
        return GameAd(new_game_id(), Identity.generate().peer_id, name, 3, 1, "127.0.0.1", 4242)

    alive, dead = ad("alive"), ad("killed")

    class Cached(EmptyLan):
        def __init__(self, *ads: GameAd) -> None:
            super().__init__()
            self.games = {a.game_id: a for a in ads}
            self.fresh = True

        def poll(self, timeout: float) -> bool:
            if self.fresh:
                self.fresh = False
                return True
            return super().poll(timeout)

    opened = [Cached(alive, dead)]

    def open_source() -> Cached:
        if len(opened) > 1 or opened[0].fresh is False:
            opened.append(Cached(alive))  # the killed host does not answer a fresh browser
        return opened[-1]

    start = LanStart(PeerOptions(home=tmp_path / "lan"), source=open_source, sweep=0.5,
                     gather=0.2)

    def listed(app: SolsticeApp) -> list[str]:
        options = app.screen.query_one("#lan-games", OptionList)
        return [str(options.get_option_at_index(i).prompt)
                for i in range(options.option_count)]

    async def scenario() -> None:
        app = SolsticeApp(None, "Solstice", start)
        async with app.run_test(size=(80, 24)) as pilot:
            await _until(pilot, lambda: isinstance(app.screen, StartScreen)
                         and len(listed(app)) == 2)
            assert any("killed" in line for line in listed(app))
            await _until(pilot, lambda: len(listed(app)) == 1)
            assert "alive" in listed(app)[0]
            await pilot.press("q")

    asyncio.run(scenario())
    assert opened[0].wake.is_set()  # the stale browser was closed


# -- item 5: a dropped player, and a resumed game -------------------------------------------------

def _net_game(tmp_path: Path, mode: str, players: int = 3) -> tuple[Any, Any, Any]:
    from test_ui_live import Posts, _at_decision

    from ui.app.netgame import NetGame

    session = _at_decision(players).sessions[0]
    side = Posts()
    game = NetGame(NetSetup(mode, PeerOptions(home=tmp_path), game="g1"), side)  # type: ignore[arg-type]
    game.roster_names = ["me", "hal", "ann"][:players]
    game.views = session.seat_view
    return game, side, session


def _last_board(side: Any) -> BoardChanged:
    return [x for x in side.items if isinstance(x, BoardChanged)][-1]


def test_a_dropped_player_shows_as_disconnected_with_the_stop_and_no_running_clock(
        tmp_path: Path) -> None:
    from p2p.net.notices import Waiting
    from p2p.session.events import DecisionClock, LogLine, Peer

    game, side, session = _net_game(tmp_path, "join")
    now = [0.0]
    game.now = lambda: now[0]
    seats = session.seat_view()
    assert len(seats.waiting) == 3  # everyone picks at once
    game.on_event(DecisionClock("pick/commit", (0, 1, 2), 120, 120.0, seats.stage))
    hal = seats.peer_of_seat.index(1)
    game.on_event(Waiting("hal (1a2b3c4d) disconnected (connection lost); waiting up to 60 s "
                          "for it to come back", (Peer(1),)))
    now[0] = 19.0
    game.post_board(force=True)
    board = _last_board(side)
    hal_line = next(line for line in board.waiting if "(hal)" in line)
    assert "disconnected; the game stops in 41 s unless they come back" in hal_line
    assert board.clocks[hal] is None  # no clock runs against a player who is away
    ann = seats.peer_of_seat.index(2)
    assert board.clocks[ann] == 101.0
    game.on_event(LogLine("hal (1a2b3c4d) is back"))
    game.post_board(force=True)
    board = _last_board(side)
    assert not any("disconnected" in line for line in board.waiting)
    assert board.clocks[hal] == 101.0


def test_a_resumed_game_shows_our_own_clock_and_whom_it_waits_for(tmp_path: Path) -> None:
    import dataclasses

    from p2p.net.notices import Waiting
    from p2p.session.events import Peer

    game, side, session = _net_game(tmp_path, "resume")
    game.now = lambda: 10.0
    seats = session.seat_view()
    assert seats.legal
    # After a resume no decision clock notice was seen; our view still has our deadline.
    game.views = lambda: dataclasses.replace(session.seat_view(), deadline=70.0, waiting=())
    game.on_event(Waiting("resuming: waiting for hal (1a2b3c4d) to re-send what we lack "
                          "before we play on (3 s so far; giving up after 60 s)", (Peer(1),)))
    board = _last_board(side)
    assert board.clocks[seats.seat] == 60.0
    assert any("(hal)" in line and "re-send" in line for line in board.waiting), board.waiting


# -- item 9: why the game ended, who played a face-up card, whom a card scores for --------------

def _result(vp: dict[str, int], casualties: dict[str, int], ranking: list[str]) -> dict[str, Any]:
    scores = {f: vp[f] - casualties[f] for f in vp}
    return {"ok": True, "scores": scores, "vp": vp, "casualties": casualties,
            "ranking": ranking, "winner": ranking[0], "summary": "audit passed"}


def test_the_end_screen_says_why_the_game_ended_and_how_a_tie_was_broken() -> None:
    from ui.app.screens.summary import ending_text

    plain = ending_text(_result({"black": 16, "white": 9}, {"black": 0, "white": 1},
                                ["black", "white"])).plain
    assert "because black reached 16 VP" in plain and "Final score = VP − casualties" in plain
    assert "tied" not in plain
    killed = ending_text(_result({"black": 12, "white": 13}, {"black": 0, "white": 3},
                                 ["black", "white"])).plain
    assert "white took 3 casualties" in killed
    fewer = ending_text(_result({"black": 16, "white": 11}, {"black": 6, "white": 1},
                                ["white", "black"])).plain
    assert "white and black tied on 10: white wins with fewer casualties" in fewer
    order = ending_text(_result({"black": 16, "white": 16}, {"black": 1, "white": 1},
                                ["white", "black"])).plain
    assert "white and black tied on 15: white wins earlier in turn order" in order


def test_the_end_screen_shows_the_reason(tmp_path: Path) -> None:
    from ui.app.messages import GameEnded
    from ui.app.screens.summary import EndScreen

    result = _result({"black": 17, "white": 9}, {"black": 0, "white": 1}, ["black", "white"])

    async def scenario() -> str:
        app = _app("host", tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            app.push_screen(EndScreen(GameEnded(result, "", None, "g1")))
            await pilot.pause()
            return str(app.screen.query_one("#end-why", Static).render())

    assert "black reached 17 VP" in asyncio.run(scenario())


def test_a_face_up_card_shows_who_played_it_and_a_score_line_names_the_player() -> None:
    from engine.events import Scored
    from engine.view import view as seat_view
    from ui.app.render import planet_cards
    from ui.app.screens.summary import SCORING_NOTE
    from ui.app.wording import describe

    s = _state(players=3)
    board = seat_view(s, 0)
    planet = dict(board["planets"][0])
    planet["cards"] = [
        {"slot": 1, "label": "white:Legions", "face_up": True, "resolved": False,
         "dispatcher": 2, "claim": None},
        {"slot": 2, "label": "black:Elder", "face_up": True, "resolved": False,
         "dispatcher": 0, "claim": None},
        {"slot": 3, "label": "event:Famine", "face_up": True, "resolved": False,
         "dispatcher": None, "claim": None},  # dealt face up: played by nobody
    ]
    text = planet_cards(planet, board).plain
    third = board["factions"][2]
    assert f"by {third}]" in text
    assert "by you]" in text and text.count(" by ") == 2
    assert describe(Scored("white", 3, "Elder", "Elder, favored")) == \
        "the white player scores 3 VP (Elder, favored)"
    assert "faction" in SCORING_NOTE and "not to the player who played it" in SCORING_NOTE


# -- item 10: the replay from the end screen ----------------------------------------------------

def test_the_replay_opened_from_the_end_screen_starts_as_the_player_and_end_scrolls_home(
        tmp_path: Path) -> None:
    from ui_transcript import write_finished_game

    from ui.app.messages import GameEnded
    from ui.app.replay import ReplayScreen, ReplayScroll
    from ui.app.replay_data import load_replay
    from ui.app.screens.summary import EndScreen

    path = tmp_path / "t.json"
    write_finished_game(path, players=3, seed=15)
    factions = load_replay(path).factions
    me = factions[2]
    result = _result({f: 1 for f in factions}, {f: 0 for f in factions}, list(factions))

    async def scenario() -> tuple[int | None, float, float]:
        app = _app("host", tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            app.push_screen(EndScreen(GameEnded(result, "", str(path), "g1"),
                                      {me: "you", factions[0]: "ann"}))
            await pilot.pause()
            await pilot.press("r")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, ReplayScreen)
            scroll = screen.query_one(ReplayScroll)
            scroll.scroll_end(animate=False)
            await pilot.pause()
            scrolled = scroll.scroll_y
            await pilot.press("end")
            await pilot.pause()
            return screen.viewer, scrolled, scroll.scroll_y

    viewer, scrolled, after = asyncio.run(scenario())
    assert viewer == 2
    assert scrolled > 0 and after == 0


# -- item 8: layouts ---------------------------------------------------------------------------

@settings(max_examples=200, deadline=None)
@given(names=st.lists(st.text("abcdef0123456789.-_", min_size=1, max_size=40), min_size=1,
                      max_size=8),
       width=st.integers(10, 100))
def test_a_path_wraps_only_after_a_slash_unless_a_name_is_longer_than_a_line(
        names: list[str], width: int) -> None:
    from ui.app.screens.summary import wrap_path

    path = "~/" + "/".join(names)
    lines = wrap_path(path, width)
    assert "".join(lines) == path
    assert all(len(line) <= width for line in lines)
    for line in lines[:-1]:
        next_part = path[len("".join(lines[:lines.index(line) + 1])):].split("/")[0]
        # a break is after a "/" unless the name did not fit on a line of its own
        assert line.endswith("/") or len(line) == width or len(next_part) > width


def test_the_end_screen_keeps_the_path_whole_and_shows_p_in_the_footer(tmp_path: Path) -> None:
    from ui.app.messages import GameEnded
    from ui.app.screens.summary import EndScreen, PathLine

    path = "/home/me/.local/share/solstice/games/" + "0123abcd" * 4 + "/transcript.json"
    result = _result({"black": 16, "white": 3}, {"black": 0, "white": 0}, ["black", "white"])

    async def scenario(size: tuple[int, int]) -> tuple[str, str]:
        app = _app("host", tmp_path)
        async with app.run_test(size=size) as pilot:
            app.push_screen(EndScreen(GameEnded(result, "", path, "g1"), can_rematch=True))
            await pilot.pause()
            shown = str(app.screen.query_one(PathLine).render())
            keys = " ".join(b.binding.description for b in app.screen.active_bindings.values()
                            if b.binding.show)
            return shown, keys

    for size in ((80, 24), (60, 20)):
        shown, keys = asyncio.run(scenario(size))
        assert shown.replace("\n", "") == path
        assert all(line.endswith("/") for line in shown.split("\n")[:-1]), shown
        assert "Play again" in keys


@pytest.mark.parametrize("width", [30, 44, 58, 78, 100])
def test_a_planets_cards_break_between_chips_never_inside_one(width: int) -> None:
    from test_ui_snapshots import _dispatch_state

    from engine.view import view as seat_view
    from ui.app.render import phase_line, planet_cards

    s, seat = _dispatch_state()
    board = seat_view(s, seat)
    names = ("me", "hal", "ann")
    broken = 0
    for planet in board["planets"]:
        lines = planet_cards(planet, board, names, width=width).plain.split("\n")
        broken += len(lines) - 1
        for line in lines:
            assert line.count("[") == line.count("]"), line  # no chip split across lines
            assert len(line) <= width or line.strip().count("[") == 1, line
    assert broken or width >= 58  # narrow lines did break (between chips)
    assert phase_line(board, names, 58).cell_len <= 58


def test_the_header_says_game_over_only_once_the_last_round_is_revealed(tmp_path: Path) -> None:
    from test_ui_pacing import RESOLVE
    from ui_helpers import game_note

    from ui.app.widgets import PhaseBar

    s = _state()
    over = dict(view(s, 0))
    over["phase"] = "over"

    async def scenario() -> tuple[str, str]:
        app = _app("play", tmp_path)
        app.reveal_pace = 1.0
        async with app.run_test(size=(140, 40)) as pilot:
            app.deliver(BoardChanged(view(s, 0)))
            await pilot.pause()
            for event in RESOLVE:
                app.deliver(game_note(event))
            app.deliver(BoardChanged(over))
            await pilot.pause()
            during = str(app.screen.query_one(PhaseBar).render())
            await pilot.press("space")  # the rest of the reveal at once
            await pilot.pause()
            return during, str(app.screen.query_one(PhaseBar).render())

    during, after = asyncio.run(scenario())
    assert "Game over" not in during and "Resolve" in during
    assert "Game over" in after


def test_the_watch_ui_says_whom_the_game_waits_for(tmp_path: Path) -> None:
    from test_ui_live import Posts, _at_decision

    from p2p.net.joincode import JoinCode
    from ui.app.watchgame import WatchedGame

    session = _at_decision(3).sessions[0]
    side = Posts()
    watched = WatchedGame(JoinCode("127.0.0.1", 9, "ab" * 16, "cd" * 32),
                          PeerOptions(home=tmp_path), side)  # type: ignore[arg-type]
    watched.session, watched.names = session, ["me", "hal", "ann"]
    watched.post_board()
    board = _last_board(side)
    assert len(board.waiting) == 3
    hal = session.config.factions[session.seat_of_peer[1]]
    assert f"{hal} (hal)" in board.waiting


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("size", [(60, 20), (80, 24)])
def test_the_first_pick_shows_its_key_hint_and_scrolls_its_cards(
        tmp_path: Path, size: tuple[int, int], players: int) -> None:
    s = _state(players=players)
    seat = to_move(s)[0]
    legal = tuple(legal_actions(s, seat))

    async def scenario() -> tuple[Any, Any, int, int]:
        app = _app("play", tmp_path)
        async with app.run_test(size=size) as pilot:
            app.deliver(AskHuman(1, view(s, seat), legal))
            await pilot.pause()
            await pilot.pause()
            screen = app.screen
            hint = screen.query_one("#hint", Static)
            panel = screen.query_one("#panel")
            choices = screen.query_one("#choices", OptionList)
            return hint.region, panel.region, choices.option_count, choices.region.height

    hint, panel, count, shown = asyncio.run(scenario())
    assert count >= 5
    assert hint.height == 1 and panel.y < hint.y < panel.bottom - 1, (hint, panel)
    assert shown >= 2


# -- play --learn ---------------------------------------------------------------------------------

def test_a_learning_game_explains_each_phase_once_with_the_cards_on_the_table(
        tmp_path: Path) -> None:
    from ui.app.screens.dialogs import LessonScreen
    from ui.app.wording import card_name

    s = _state(players=2)
    seat = to_move(s)[0]
    legal = tuple(legal_actions(s, seat))
    board = view(s, seat)
    first_card = card_name(board["hand"][0]["label"])

    async def scenario() -> list[str]:
        shown = []
        app = _app("play", tmp_path, learn=True, players=2)
        async with app.run_test(size=(80, 24)) as pilot:
            app.deliver(AskHuman(1, board, legal))
            await pilot.pause()
            assert isinstance(app.screen, LessonScreen)
            shown.append(app.screen.title_text + "\n" + app.screen.text)
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, GameScreen) and not app.answers  # Enter: got it
            app.deliver(BoardChanged(board))
            await pilot.pause()
            assert isinstance(app.screen, GameScreen)  # each phase once
            dispatch = dict(board, phase="dispatch")
            app.deliver(BoardChanged(dispatch))
            await pilot.pause()
            assert isinstance(app.screen, LessonScreen)
            shown.append(app.screen.title_text + "\n" + app.screen.text)
        return shown

    draft, dispatch = asyncio.run(scenario())
    assert draft.startswith("Draft") and first_card in draft and "two cards" in draft
    assert dispatch.startswith("Dispatch") and board["planets"][0]["rule"] in dispatch


def test_a_normal_game_has_no_lessons(tmp_path: Path) -> None:
    s = _state(players=2)
    seat = to_move(s)[0]

    async def scenario() -> Any:
        app = _app("play", tmp_path, players=2)
        async with app.run_test(size=(80, 24)) as pilot:
            app.deliver(AskHuman(1, view(s, seat), tuple(legal_actions(s, seat))))
            await pilot.pause()
            return type(app.screen)

    assert asyncio.run(scenario()) is GameScreen


def test_play_learn_is_in_the_help() -> None:
    from typer.testing import CliRunner

    from ui.cli.commands import app

    result = CliRunner().invoke(app, ["play", "--help"], terminal_width=100)
    assert result.exit_code == 0 and "--learn" in result.output


def test_the_start_screen_offers_the_learning_game(tmp_path: Path) -> None:
    bots = NetSetup("play", PeerOptions(home=tmp_path / "bots"), players=3, bots=("greedy",))
    learning = NetSetup("play", PeerOptions(home=tmp_path / "bots"), players=2,
                        bots=("random",), learn=True)
    start = LanStart(PeerOptions(home=tmp_path / "lan"), bots=bots, source=EmptyLan,
                     learn=learning)
    chosen: list[NetSetup] = []

    async def scenario() -> None:
        app = SolsticeApp(None, "Solstice", start)
        app._start_network = chosen.append  # type: ignore[method-assign]
        async with app.run_test(size=(80, 24)) as pilot:
            await _until(pilot, lambda: isinstance(app.screen, StartScreen))
            await pilot.press("down", "enter")  # the entry under the bot game
            await _until(pilot, lambda: bool(chosen))

    asyncio.run(scenario())
    assert chosen[0].learn and chosen[0].players == 2
