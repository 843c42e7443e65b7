"""Terminal UI round 4 (issue 48): a learning game no clock plays for, leaving and watching
that say what happened, the log in names, commands that survive a copy. Pilot tests from
plain data or loopback sessions (no network) unless they say otherwise."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest
import trio
from test_ui_feedback import _app, _state, _text
from test_ui_live import Posts, _at_decision
from textual.app import App

from engine import Pick
from engine.view import view
from p2p.errors import RemoteProtocolError
from p2p.net.games import PeerOptions
from p2p.net.joincode import JoinCode
from p2p.session.events import ClockRanOut, DecisionClock, SeatHandedOver
from ui.app import widgets
from ui.app.app import handed_over_text, resume_hint
from ui.app.commandtext import CommandText, layout, wrap_command
from ui.app.messages import BoardChanged, GameEnded, NetNote
from ui.app.netgame import LEARN_TIMING, NetGame, NetSetup
from ui.app.screens.dialogs import LeaveScreen
from ui.app.screens.summary import EndScreen
from ui.app.spectate import SpectateScreen, verdict_text
from ui.app.watchgame import WatchedGame, public_view
from ui.app.wording import describe

CSS = "../ui/app/solstice.tcss"
SMALL, STANDARD = (60, 20), (80, 24)
SIZES = pytest.mark.parametrize("size", [STANDARD, SMALL], ids=["80x24", "60x20"])
GAME = "0123abcd" * 4
HOME = "/home/alice/.local/share/solstice"
CODE = JoinCode("192.168.1.20", 40123, "ab" * 16, "cd" * 32)


@pytest.fixture(autouse=True)
def frozen_status_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(widgets, "now", lambda: 1000.0)


def _net_game(tmp_path: Path, mode: str = "join", players: int = 3,
              **setup: Any) -> tuple[NetGame, Posts, Any]:
    loop = _at_decision(players)
    side = Posts()
    game = NetGame(NetSetup(mode, PeerOptions(home=tmp_path), game="g1", **setup), side)  # type: ignore[arg-type]
    game.roster_names = ["me", "hal", "ann"][:players]
    game.views = loop.sessions[0].seat_view
    game.now = lambda: 0.0
    return game, side, loop


def _notes(side: Posts) -> list[str]:
    return [item.text for item in side.items if isinstance(item, NetNote)]


def _boards(side: Posts) -> list[BoardChanged]:
    return [item for item in side.items if isinstance(item, BoardChanged)]


# -- item 1: a learning game has no clock that plays for the player ------------------------------

def test_a_learning_game_against_bots_runs_no_clock_that_can_play_for_a_reader(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import ui.app.netgame as netgame

    seen: list[PeerOptions] = []
    ids: list[str | None] = []

    async def host_game(players: int, choose: Any, on_event: Any, options: PeerOptions,
                        on_lobby: Any, game_id: str | None = None) -> None:
        seen.append(options)
        ids.append(game_id)

    monkeypatch.setattr(netgame, "host_game", host_game)
    for learn in (True, False):
        game = NetGame(NetSetup("play", PeerOptions(home=tmp_path), bots=("random",),
                                learn=learn), Posts())  # type: ignore[arg-type]

        async def play(game: NetGame = game) -> None:
            async with trio.open_nursery() as nursery:
                await game._play(nursery)

        trio.run(play)
    learning, normal = seen
    assert learning.timing == LEARN_TIMING and normal.timing is None
    # The curated deal: fixed secrets and game id for the learning game alone.
    from ui.app.learngame import LEARN_SEED, learn_game_id

    assert (learning.fixed_secrets, ids[0]) == (LEARN_SEED, learn_game_id())
    assert (normal.fixed_secrets, ids[1]) == (None, None)
    # No game clock, and the longest decision the protocol allows.
    assert learning.timing.decision_bank == 0 and learning.timing.decision == 3600


def test_a_learning_game_shows_no_clock_and_no_action_text(tmp_path: Path) -> None:
    game, side, loop = _net_game(tmp_path, "play", players=2, learn=True)
    seats = loop.sessions[0].seat_view()
    game.on_event(DecisionClock("pick/commit", (0, 1), 3600, 3600.0, seats.stage, (None,)))
    assert _boards(side)[-1].clocks == ()
    assert _notes(side) == []  # the clock notice is no log line ("action by peer(s) ...")
    pick = next(a for a in seats.legal if isinstance(a, Pick))
    game.on_event(ClockRanOut(pick))
    (line,) = _notes(side)
    assert line.startswith("Your time ran out: played for you by default: ")
    assert pick.text() not in line and "drafts" in line, line


# -- item 6: the log pane in names, never "peer(s) 3" ---------------------------------------------

def test_the_log_pane_gets_no_decision_clock_lines(tmp_path: Path) -> None:
    game, side, loop = _net_game(tmp_path)
    seats = loop.sessions[0].seat_view()
    game.on_event(DecisionClock("pick/commit", (0, 1, 2), 120, 120.0, seats.stage,
                                (1200.0, 1200.0, 20.0)))
    assert not any("peer" in text for text in _notes(side))
    assert _boards(side)[-1].clocks  # the status line shows the clocks instead


def test_the_watch_log_gets_no_decision_clock_lines(tmp_path: Path) -> None:
    side = Posts()
    watched = WatchedGame(CODE, PeerOptions(home=tmp_path), side)  # type: ignore[arg-type]
    watched.session = _at_decision(3).sessions[0]
    watched.on_event(DecisionClock("pick/commit", (0, 1, 2), 120, 120.0, 9, ()))
    assert _notes(side) == []


# -- item 4: a handover shown when it arrives, in names and factions ------------------------------

def test_a_handover_is_shown_when_it_arrives_in_names_factions_and_phases(
        tmp_path: Path) -> None:
    game, side, loop = _net_game(tmp_path)
    me, hal = loop.sessions[0], loop.sessions[1]
    _our_dispatch_turn(loop)
    seat = me.seat_of_peer[1]
    faction = me.config.factions[seat]
    game.on_event(_disconnected())
    hal.hand_over()
    loop.deliver()
    # Held, not taken yet: the game needs hal only at its next turn, after ours.
    assert seat in me.seat_view().handed_over
    assert not any(isinstance(e, SeatHandedOver) for e in me.events)
    game.post_board(force=True)
    said = [t for t in _notes(side) if "handed" in t]
    assert said == [f"hal ({faction}) handed the seat over in round 1, during the dispatch "
                    f"and left; the ghost plays {faction} from now on, open-handed (every "
                    "remaining player sees its cards)"]
    assert 1 not in game.away  # gone for good: no "disconnected; the game stops in 60 s"
    # Once the game takes the handover, nothing is said twice, and no "seat 2, peer 1".
    game.on_event(SeatHandedOver(1, seat, 1, 9, "ghost"))  # type: ignore[arg-type]
    assert [t for t in _notes(side) if "handed" in t or "peer" in t] == said


def _our_dispatch_turn(loop: Any) -> None:
    """Everyone plays its first legal choice until it is our turn to dispatch."""
    me = loop.sessions[0]
    for _ in range(5000):
        if me.engine.phase.value == "dispatch" and me.pending_input:
            return
        for session in loop.sessions:
            if session.pending_input and not (session is me and
                                              me.engine.phase.value == "dispatch"):
                session.submit(session.pending_input[0], session.input_stage)
        loop.deliver()
    raise AssertionError("never our turn to dispatch")


def _disconnected() -> Any:
    from p2p.net.notices import Waiting
    from p2p.session.events import Peer

    return Waiting("hal (1a2b3c4d) disconnected (closed); waiting up to 60 s for it to come "
                   "back", (Peer(1),))


# -- item 3: the player who hands over is told what happened ---------------------------------------

def test_the_player_who_hands_over_is_told_the_game_goes_on_without_them(tmp_path: Path) -> None:
    game, _side, loop = _net_game(tmp_path)
    game.setup.code = CODE
    game.join_code = CODE.encode()
    game._hand_over = loop.sessions[0].hand_over
    game._leave_with_handover()
    ended = game._ended(None, "the game stopped; resume it with solstice resume g1")
    faction = loop.sessions[0].config.factions[loop.sessions[0].my_seat]
    assert ended.handed_over == faction
    text = handed_over_text(ended)
    assert text.startswith(f"You handed your seat over; the game goes on without you (the "
                           f"ghost plays {faction}, open-handed).")
    assert f"solstice watch {CODE.encode()}" in text and "another player" in text
    assert "resume" not in text.replace("Nothing to resume", "")


@SIZES
def test_the_end_screen_after_a_handover(snap_compare: Any, size: tuple[int, int]) -> None:
    ended = GameEnded(None, "stopped", game_id=GAME, handed_over="blue",
                      watch_code=CODE.encode())

    class Fixture(App[None]):
        CSS_PATH = CSS

        def on_mount(self) -> None:
            self.push_screen(EndScreen(ended, resume_hint=handed_over_text(ended)))

    assert snap_compare(Fixture(), terminal_size=size)


# -- item 8: commands on one line, or broken with a trailing backslash ----------------------------

def _joined(lines: list[str]) -> str:
    return re.sub(r" \\\n {2}", " ", "\n".join(lines))


@pytest.mark.parametrize("width", [44, 56, 76, 120])
def test_a_command_breaks_only_between_words_with_a_trailing_backslash(width: int) -> None:
    home = f"'{HOME}/my games'"  # one shell word: never broken, even where it is too long
    command = f"solstice resume {GAME} --home {home}"
    lines = wrap_command(command, width)
    assert _joined(lines) == command
    assert all(line.endswith(" \\") for line in lines[:-1])
    assert all(len(line) <= width for line in lines if home not in line)
    assert any(home in line for line in lines)


@pytest.mark.parametrize("width", [40, 56, 76])
def test_a_join_code_longer_than_a_line_breaks_where_the_shell_joins_it_again(width: int) -> None:
    command = f"solstice watch {CODE.encode()} --home {HOME}"
    lines = wrap_command(command, width)
    assert all(len(line) <= width for line in lines)
    # The shell drops a backslash-newline, inside a word too.
    assert "\n".join(lines).replace("\\\n", "").split() == command.split()


def test_a_quoted_command_in_a_stop_reason_gets_lines_of_its_own() -> None:
    reason = (f"hal stopped answering; to continue later, every player runs 'solstice resume "
              f"{GAME} --home THEIR_HOME' (here: 'solstice resume {GAME} --home {HOME}')")
    lines = layout(reason, 76)
    assert all(len(line) <= 76 for line in lines)
    assert f"solstice resume {GAME} --home {HOME}" in _joined(lines).split("\n")


@SIZES
def test_the_leave_dialog_keeps_the_resume_command_whole(snap_compare: Any,
                                                         size: tuple[int, int]) -> None:
    hint = resume_hint("join", GAME, True, HOME)
    assert hint.endswith(f":\nsolstice resume {GAME} --home {HOME}")

    class Fixture(App[None]):
        CSS_PATH = CSS

        def on_mount(self) -> None:
            self.push_screen(LeaveScreen(hint, hand_over=True))

    assert snap_compare(Fixture(), terminal_size=size)


@SIZES
def test_the_stopped_screen_keeps_the_commands_whole(size: tuple[int, int]) -> None:
    reason = (f"hal stopped answering; to continue later, every player runs 'solstice resume "
              f"{GAME} --home THEIR_HOME' (here: 'solstice resume {GAME} --home {HOME}')")
    ended = GameEnded(None, reason, game_id=GAME)

    class Fixture(App[None]):
        CSS_PATH = CSS

        def on_mount(self) -> None:
            self.push_screen(EndScreen(ended, resume_hint=resume_hint("join", GAME, True,
                                                                      HOME)))

    async def scenario() -> list[str]:
        app = Fixture()
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            return [str(w.render()) for w in app.screen.query(CommandText)]

    shown = asyncio.run(scenario())
    command = f"solstice resume {GAME} --home {HOME}"
    for text in shown:
        assert all(len(line) <= size[0] - 4 for line in text.split("\n")), text
    assert all(command in _joined(text.split("\n")).split("\n") for text in shown)


@SIZES
def test_the_disconnected_status_line_is_not_cut(tmp_path: Path, size: tuple[int, int]) -> None:
    s = _state()
    waiting = ("blue (hal) — disconnected; the game stops in 41 s unless they come back",)

    async def scenario() -> tuple[str, int]:
        app = _app("join", tmp_path)
        async with app.run_test(size=size) as pilot:
            app.deliver(BoardChanged(view(s, 0), waiting))
            await pilot.pause()
            status = app.screen.query_one(widgets.StatusLine)
            return str(status.render()), status.size.height

    text, height = asyncio.run(scenario())
    assert "unless they come back" in text and height >= 2


# -- item 7: a resumed game shows our decision's clock ---------------------------------------------

def test_a_resumed_game_shows_our_clock_though_its_clock_notice_came_before_the_time_ran(
        tmp_path: Path) -> None:
    import dataclasses

    game, side, loop = _net_game(tmp_path, "resume")
    me = loop.sessions[0]
    game.now = lambda: 10.0
    seats = me.seat_view()
    # Replayed from the store, the stage's clock notice has no deadline yet.
    game.on_event(DecisionClock("pick/commit", (0, 1, 2), 120, None, seats.stage, ()))
    game.views = lambda: dataclasses.replace(me.seat_view(), deadline=100.0)
    game.post_board(force=True)
    assert _boards(side)[-1].clocks[seats.seat] == 90.0


# -- item 5: a spectator who lost the game says so, whom it waited for, and how to watch again ----

def test_a_lost_connection_is_unfinished_not_unfair(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    import ui.app.watchgame as watchgame

    async def watch_game(code: Any, on_event: Any, options: Any) -> None:
        raise RemoteProtocolError(0, "the host closed the connection before the game ended")

    monkeypatch.setattr(watchgame, "watch_game", watch_game)
    options = PeerOptions(home=tmp_path / "w")
    ended = trio.run(WatchedGame(CODE, options, Posts()).run)  # type: ignore[arg-type]
    assert ended.unfinished == "connection lost"
    text = verdict_text(ended, ("blue (hal)",))
    assert "NOT a fair" not in text
    assert text.startswith("Unfinished (connection lost): the host closed the connection"), text
    assert "The game was waiting for blue (hal)" in text
    assert f"solstice watch {CODE.encode()} --home {tmp_path / 'w'}" in text


class WatchFixture(App[None]):
    CSS_PATH = CSS

    def __init__(self, ended: GameEnded | None) -> None:
        super().__init__()
        self.ended = ended

    def on_mount(self) -> None:
        from test_spectate_ui import _fixture_state

        screen = SpectateScreen(GAME)
        self.push_screen(screen)

        def fill() -> None:
            screen.show_board(public_view(_fixture_state()), ("alice", "bob", "carol"),
                              ("blue (bob)",))
            if self.ended is not None:
                screen.show_end(self.ended)

        screen.call_after_refresh(fill)


@SIZES
def test_the_watch_ui_says_whom_the_game_waits_for_live(snap_compare: Any,
                                                        size: tuple[int, int]) -> None:
    assert snap_compare(WatchFixture(None), terminal_size=size)


@SIZES
def test_the_watch_ui_after_a_lost_connection(snap_compare: Any, size: tuple[int, int]) -> None:
    ended = GameEnded(None, "nothing heard from the host for 20 s", game_id=GAME,
                      home="/home/dora/.local/share/solstice", watch_code=CODE.encode(),
                      unfinished="connection lost")
    assert snap_compare(WatchFixture(ended), terminal_size=size)


def test_the_watch_ui_head_names_whom_the_game_waits_for() -> None:
    async def scenario() -> str:
        app = WatchFixture(None)
        async with app.run_test(size=STANDARD) as pilot:
            await pilot.pause()
            await pilot.pause()
            return _text(app.screen)

    assert "Waiting for blue (bob)" in asyncio.run(scenario())


# -- item 9: joining from the start screen: names, hints, a dead game, the host's words ----------

def test_play_joins_the_lan_under_the_players_own_name_not_you(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    import ui.app.app as app_module
    from ui.cli.commands import app

    started: list[Any] = []
    monkeypatch.setattr(app_module, "run_app",
                        lambda setup, title, start=None: started.append((setup, start)) or 0)
    for name in (None, "  Ann  Lee "):
        args = ["play", "--home", str(tmp_path)] + (["--name", name] if name else [])
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.output
    (_, plain), (_, named) = started
    assert plain.join_options.name is None  # player-xxxx at the table, never "you"
    assert plain.bots.options.name == "you"  # only against our own bots
    assert named.join_options.name == "Ann Lee" == named.bots.options.name
    result = CliRunner().invoke(app, ["play", "--home", str(tmp_path), "--name", "   "])
    assert result.exit_code == 2 and "a name is 1 to" in result.output


def test_the_lobby_interrupt_hint_keeps_the_name(tmp_path: Path) -> None:
    from ui.cli.net import InterruptHint

    hint = InterruptHint("join", tmp_path, "random", None, CODE.encode(), "Ann Lee")()
    assert hint.endswith("--bot random --name 'Ann Lee'")


def test_a_game_that_cannot_be_joined_goes_back_to_the_list(tmp_path: Path) -> None:
    from test_ui_round3 import EmptyLan, _until

    from ui.app.app import SolsticeApp
    from ui.app.screens.start import LanStart, StartScreen

    start = LanStart(PeerOptions(home=tmp_path / "lan"), source=EmptyLan)

    async def scenario() -> tuple[bool, list[str], int]:
        app = SolsticeApp(None, "Solstice", start)
        async with app.run_test(size=STANDARD) as pilot:
            await _until(pilot, lambda: isinstance(app.screen, StartScreen))
            app.setup = NetSetup("join", start.join_options, code=CODE)  # as if picked
            app.deliver(GameEnded(None, "the host closed the lobby before the game started"))
            await pilot.pause()
            back = isinstance(app.screen, StartScreen)
            said = [n.message for n in app._notifications]
            await pilot.press("q")
        return back, said, app.return_value

    back, said, code = asyncio.run(scenario())
    assert back and said == ["Could not join that game: the host closed the lobby before the "
                             "game started"]
    assert code == 0


def test_the_hosts_errors_say_what_to_do_not_seat_0() -> None:
    from ui.app.netgame import failure_reason

    text = failure_reason(RemoteProtocolError(0, "the host closed the lobby before the game "
                                                 "started"))
    assert not text.startswith("seat 0")
    assert text.startswith("the host closed the lobby before the game started: ask the host")


# -- item 10: the header, ties, reasons said once, cards that scored nothing, the symbols --------

def test_the_header_holds_the_last_round_while_its_summary_is_open(tmp_path: Path) -> None:
    """At 80 columns the round summary reveals the last round, not the log pane."""
    from ui_helpers import game_note, round_end

    from ui.app.screens.summary import RoundSummaryScreen
    from ui.app.widgets import PhaseBar

    s = _state()
    over = dict(view(s, 0))
    over["phase"] = "over"

    async def scenario() -> tuple[str, str]:
        app = _app("play", tmp_path)
        async with app.run_test(size=STANDARD) as pilot:
            app.deliver(BoardChanged(view(s, 0)))
            await pilot.pause()
            app.deliver(game_note(round_end(1)))
            app.deliver(BoardChanged(over))
            await pilot.pause()
            assert isinstance(app.screen, RoundSummaryScreen)
            game = app.screen_stack[-2]
            during = str(game.query_one(PhaseBar).render())
            await pilot.press("enter")
            await pilot.pause()
            return during, str(game.query_one(PhaseBar).render())

    during, after = asyncio.run(scenario())
    assert "Game over" not in during and "Resolve" in during
    assert "Game over" in after


def test_every_tie_in_the_ranking_is_explained() -> None:
    from ui.app.screens.summary import ending_text

    result = {"ok": True, "winner": "black", "ranking": ["black", "white", "blue"],
              "scores": {"black": 12, "white": 7, "blue": 7},
              "vp": {"black": 16, "white": 8, "blue": 8},
              "casualties": {"black": 4, "white": 1, "blue": 1}}
    plain = ending_text(result).plain
    assert ("white and blue tied on 7: white places ahead earlier in turn order" in plain)


def test_a_learning_summary_says_each_reason_once_and_why_a_card_scored_nothing() -> None:
    from engine import events as ev
    from ui.app.lessons import reason
    from ui.app.screens.summary import resolution_text

    opened = ev.PlanetOpened("Capital", ("black:Marshal", "white:Diplomat", "blue:Legions",
                                         "event:Famine"), "black", None)
    scored = ev.Scored("black", 2, "Marshal", "Marshal, strongest")
    text = resolution_text([opened, scored], reason).plain
    assert text.count("black") >= 2 and reason(scored) in text
    assert describe(scored) not in text  # the reason says it; not the event line and again
    assert "white Diplomat: no VP — white is not favored (favored: nobody)" in text
    assert "blue Legions: no VP — Legions never score" in text
    assert "black Marshal: no VP" not in text and "Famine: no VP" not in text


def test_the_scoring_lesson_never_gives_an_event_card_a_faction() -> None:
    from engine import events as ev
    from ui.app.lessons import event_lesson

    lesson = event_lesson(ev.Scored("white", 1, "Transport", "Transport, favored"))
    assert lesson is not None
    assert "with its Transport" not in lesson[2]
    assert "the Transport event scores 1 VP for the white player" in lesson[2]


def test_the_help_explains_the_symbols_and_what_an_assassin_kills() -> None:
    from ui.app.render import card_effect
    from ui.app.screens.dialogs import HelpScreen

    async def scenario() -> str:
        app = App[None]()
        async with app.run_test(size=(100, 60)) as pilot:
            app.push_screen(HelpScreen())
            await pilot.pause()
            return _text(app.screen)

    text = asyncio.run(scenario())
    for symbol in ("⛓ holds a prisoner", "✝ casualties", "deck N: cards left",
                   "Claimed: an event card", "Assassin kills one enemy Duchess"):
        assert symbol in text, symbol
    from engine.cards import action_card

    assert card_effect(action_card("black", "Assassin")) == \
        "kills an enemy Duchess: VP 3"


# -- item 11: rematch listing, the end screen's Enter, the replay's start -------------------------

def test_a_running_game_is_listed_with_no_free_seat_though_it_started_short() -> None:
    from types import SimpleNamespace

    from p2p.net.discovery import lobby_ad

    lobby = SimpleNamespace(code=CODE, lobby=SimpleNamespace(players=3, terms=None),
                            joined=lambda: ["bob"], roster=None)
    assert lobby_ad(lobby, "ann").free == 2  # type: ignore[arg-type]
    # A rematch starts with whoever came back within its time: two of three.
    lobby.roster = SimpleNamespace(players=["ann", "bob"])
    ad = lobby_ad(lobby, "ann")  # type: ignore[arg-type]
    assert ad.free == 0 and ad.players == 2


def test_enter_on_the_end_screen_does_not_quit() -> None:
    ended = GameEnded({"ok": True, "winner": "black", "scores": {"black": 3, "white": 1},
                       "ranking": ["black", "white"], "summary": "audit passed"})

    class Fixture(App[None]):
        CSS_PATH = CSS

        def on_mount(self) -> None:
            self.push_screen(EndScreen(ended))

    async def scenario() -> tuple[bool, bool]:
        app = Fixture()
        async with app.run_test(size=STANDARD) as pilot:
            await pilot.pause()
            await pilot.press("enter")
            await pilot.pause()
            still = app.is_running and isinstance(app.screen, EndScreen)
            await pilot.press("q")
            await pilot.pause()
            return still, app.is_running

    still, running = asyncio.run(scenario())
    assert still and not running


def test_replay_says_it_checks_and_starts_as_the_files_own_player(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from types import SimpleNamespace

    from typer.testing import CliRunner
    from ui_transcript import write_finished_game

    import ui.app.replay_data as replay_data
    from p2p.storage.transcript import load_transcript
    from ui.app.replay import ReplayApp
    from ui.cli.commands import app

    home = tmp_path / "home"
    path = home / "games" / "g" / "transcript.json"
    write_finished_game(path, players=2)
    (home / "identity.key").write_text("")  # whose home it is (its peer id below)
    roster = load_transcript(path)[0]
    me = roster.players[1]
    monkeypatch.setattr(replay_data.Identity, "load_or_create",
                        lambda home=None: SimpleNamespace(peer_id=me.peer_id))
    opened: list[int] = []
    monkeypatch.setattr(ReplayApp, "run", lambda self: opened.append(self.seat))
    result = CliRunner().invoke(app, ["replay", str(path)])
    assert result.exit_code == 0, result.output
    assert f"checking the transcript {path}..." in result.output
    replay = replay_data.load_replay(path)
    assert opened == [replay.names.index(me.name)]
    elsewhere = tmp_path / "copy.json"  # another player's copy: no home, seat 0
    elsewhere.write_bytes(path.read_bytes())
    assert replay_data.own_seat(replay_data.load_replay(elsewhere)) is None


# -- item 13: the host's escrow, and what it costs, in the lobby ---------------------------------

def test_the_host_turns_the_escrow_on_in_the_lobby_before_the_game_starts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import ui.app.netgame as netgame
    from ui.app.messages import EscrowState

    side = Posts()
    game = NetGame(NetSetup("host", PeerOptions(home=tmp_path), players=3), side)  # type: ignore[arg-type]
    started_with: list[bool] = []

    async def host_game(players: int, choose: Any, on_event: Any, options: PeerOptions,
                        on_lobby: Any, game_id: str | None = None) -> None:
        game._set_escrow(True)  # the host pressed e while the lobby fills
        started_with.append(options.escrow)  # what the game's runner reads at the start
        game._opened = lambda: None  # the table is full: the game has started
        game._set_escrow(False)

    monkeypatch.setattr(netgame, "host_game", host_game)

    async def play() -> None:
        async with trio.open_nursery() as nursery:
            await game._play(nursery)

    trio.run(play)
    assert started_with == [True]
    assert [x for x in side.items if isinstance(x, EscrowState)] == [EscrowState(False),
                                                                     EscrowState(True)]
    assert "the escrow can no longer change" in _notes(side)[-1]


def test_no_escrow_choice_at_a_two_player_table_or_for_a_joiner(tmp_path: Path) -> None:
    for mode, players in (("host", 2), ("join", 3)):
        game = NetGame(NetSetup(mode, PeerOptions(home=tmp_path), players=players), Posts())  # type: ignore[arg-type]
        assert not game.escrow_choice()


def test_e_in_the_hosts_lobby_asks_for_the_escrow(tmp_path: Path) -> None:
    from ui.app.messages import EscrowState, SetEscrow

    async def scenario() -> list[object]:
        app = _app("host", tmp_path, players=3)
        async with app.run_test(size=STANDARD) as pilot:
            await pilot.pause()
            app.deliver(EscrowState(False))
            await pilot.pause()
            await pilot.press("e")
            await pilot.pause()
            return app.bridge.sent  # type: ignore[union-attr]

    assert asyncio.run(scenario()) == [SetEscrow(True)]


@SIZES
@pytest.mark.parametrize("on", [False, True], ids=["off", "on"])
def test_the_lobby_says_what_the_escrow_costs(snap_compare: Any, size: tuple[int, int],
                                              on: bool) -> None:
    from ui.app.messages import RosterLine
    from ui.app.screens.lobby import LobbyScreen

    class Fixture(App[None]):
        CSS_PATH = CSS

        def on_mount(self) -> None:
            screen = LobbyScreen("Solstice — hosting a 3-player game")
            self.push_screen(screen)

            def fill() -> None:
                screen.show_code("sol1-" + "abcdefgh" * 12, 3, "7KQ2-M9XD")
                screen.show_roster(3, (RosterLine("host", "1f2e3d4c5b6a"),))
                screen.show_escrow(on)

            screen.call_after_refresh(fill)

    assert snap_compare(Fixture(), terminal_size=size)


# -- item 2: the lessons, one at a time, in order, each at its moment -----------------------------

@SIZES
def test_the_resolutions_lessons_come_one_at_a_time_in_order(tmp_path: Path,
                                                             size: tuple[int, int]) -> None:
    """Also at 80x24, where the reveal is not paced (the summary reveals it): three lessons
    opened at once, the last on top; and none may wait for the next round."""
    from test_ui_learn import round_one

    from engine import events as ev
    from ui.app.lessons import EVENT_LESSONS
    from ui.app.screens.dialogs import LessonScreen
    from ui.app.screens.summary import RoundSummaryScreen

    s, events = round_one()

    async def scenario() -> tuple[list[str], int]:
        app = _app("play", tmp_path, learn=True, players=2)
        app.taught.update({"draft", "dispatch"})
        titles: list[str] = []
        most = 0
        async with app.run_test(size=size) as pilot:
            app.deliver(BoardChanged(view(s, 0)))
            await pilot.pause()
            for event in events:
                app.deliver(NetNote("log", describe(event), event))
            for _ in range(40):
                await pilot.pause()
                most = max(most, sum(isinstance(x, LessonScreen) for x in app.screen_stack))
                if isinstance(app.screen, LessonScreen):
                    titles.append(app.screen.title_text)
                    await pilot.press("enter")
                elif isinstance(app.screen, RoundSummaryScreen):
                    break
            assert isinstance(app.screen, RoundSummaryScreen)
        return titles, most

    titles, most = asyncio.run(scenario())
    assert most == 1
    kinds = {ev.PlanetOpened: "strongest", ev.Scored: "scoring", ev.Claimed: "claims",
             ev.Killed: "casualties", ev.Captured: "prisoners", ev.ResolveStarted: "resolve"}
    expected: list[str] = []
    for event in events:  # in the order they came up, each once
        key = kinds.get(type(event))
        title = None if key is None else (
            "Resolve: who scores" if key == "resolve" else EVENT_LESSONS[key][0])
        if title is not None and title not in expected:
            expected.append(title)
    assert titles == expected and "Prisoners" in expected


def test_the_draft_lesson_waits_for_the_cards_and_says_what_s_f_i_mean() -> None:
    from ui.app.lessons import lesson

    board = view(_state(players=2), 0)
    assert lesson("draft", dict(board, hand=[])) is None  # never "Your cards now: none yet"
    found = lesson("draft", board)
    assert found is not None
    text = found[1]
    assert "S is its strength, F its favor and i its initiative" in text
    dispatch = lesson("dispatch", board)
    assert dispatch is not None and "one of your own cards" in dispatch[1]


def test_any_lesson_opens_from_the_help_later(tmp_path: Path) -> None:
    from ui.app.lessons import EVENT_LESSONS
    from ui.app.screens.dialogs import HelpScreen, LessonScreen
    from ui.app.wording import card_name

    board = view(_state(players=2), 0)

    async def scenario() -> tuple[str, str, str, str]:
        app = _app("play", tmp_path, players=2)
        async with app.run_test(size=STANDARD) as pilot:
            app.deliver(BoardChanged(board))
            await pilot.pause()
            await pilot.press("f1")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            listed = _text(app.screen)
            await pilot.press("1")
            await pilot.pause()
            assert isinstance(app.screen, LessonScreen)
            draft = app.screen.text
            await pilot.press("enter", "5")
            await pilot.pause()
            assert isinstance(app.screen, LessonScreen)
            fifth = app.screen.title_text
            await pilot.press("enter", "8")  # the last: every lesson has its number
            await pilot.pause()
            assert isinstance(app.screen, LessonScreen)
            return listed, draft, fifth, app.screen.title_text

    listed, draft, fifth, last = asyncio.run(scenario())
    assert "1 Draft: choosing your hand" in listed and "7 Claims" in listed
    assert "8 Prisoners" in listed and last == EVENT_LESSONS["prisoners"][0]
    assert card_name(board["hand"][0]["label"]) in draft  # this game's cards as the example
    assert fifth == EVENT_LESSONS["scoring"][0]


def test_the_ghosts_cards_are_drawn_on_the_board_marked_as_the_ghosts(tmp_path: Path) -> None:
    from ui.app.netgame import board_view
    from ui.app.render import ghost_lines

    game, _side, loop = _net_game(tmp_path)
    me, hal = loop.sessions[0], loop.sessions[1]
    _our_dispatch_turn(loop)
    held = [c["label"] for c in hal.seat_view().board()["hand"]]
    hal.hand_over()
    loop.deliver()
    for _ in range(200):  # play on until the game needs hal: its ghost takes the seat
        if any(isinstance(e, SeatHandedOver) for e in me.events):
            break
        for session in (me, loop.sessions[2]):
            if session.pending_input:
                session.submit(session.pending_input[0], session.input_stage)
        loop.deliver()
    seat = me.seat_of_peer[1]
    assert any(isinstance(e, SeatHandedOver) for e in me.events)
    hands = dict(me.seat_view().ghost_hands)
    assert set(hands) == {seat} and set(hands[seat]) <= set(held) and hands[seat]
    board = board_view(me.seat_view())
    (line,) = ghost_lines(board, game.seat_names(me.seat_view()))
    faction = me.config.factions[seat]
    assert line.plain.startswith(f"Ghost {faction} (hal) plays open-handed: ")
    from ui.app.wording import card_name

    assert card_name(hands[seat][0]) in line.plain


def _face_down(board: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for planet in board["planets"] for c in planet["cards"] if not c["face_up"]]


def test_the_ghosts_face_down_planet_cards_are_named_and_no_other_seats_are(
        tmp_path: Path) -> None:
    from ui.app.netgame import board_view
    from ui.app.render import planet_cards

    _game, _side, loop = _net_game(tmp_path)
    me, hal, ann = loop.sessions
    _our_dispatch_turn(loop)
    hal.hand_over()
    loop.deliver()
    ghost_seat, ann_seat = me.seat_of_peer[1], me.seat_of_peer[2]
    board: dict[str, Any] = {}
    for _ in range(400):  # play on until the ghost has a face-down card on a planet
        board = board_view(me.seat_view())
        if any(c.get("ghost") is not None for c in _face_down(board)) and any(
                c["dispatcher"] == ann_seat for c in _face_down(board)):
            break
        for session in (me, ann):
            if session.pending_input:
                session.submit(session.pending_input[0], session.input_stage)
        loop.deliver()
    ghost_knows = {c["slot"]: c["label"] for c in _face_down(
        me.ghosts[1].session.seat_view().board())}
    ghosts = [c for c in _face_down(board) if c.get("ghost") is not None]
    assert ghosts, "the ghost never dispatched a card face down"
    for entry in ghosts:  # named as its seat's own view names it, and marked as the ghost's
        assert entry["ghost"] == entry["dispatcher"] == ghost_seat
        assert entry["label"] == ghost_knows[entry["slot"]] is not None
    # Another player's face-down cards stay hidden, though the ghost's player may have seen
    # some (the ghost's view is not copied wholesale).
    others = [c for c in _face_down(board) if c["dispatcher"] == ann_seat]
    assert others and all(c["label"] is None and "ghost" not in c for c in others)
    assert [c["label"] for c in _face_down(me.seat_view().board())
            if c["dispatcher"] == ann_seat] == [None] * len(others)
    faction = me.config.factions[ghost_seat]
    drawn = " ".join(planet_cards(p, board).plain for p in board["planets"])
    from engine.cards import CARD_BY_LABEL

    card = CARD_BY_LABEL[ghosts[0]["label"]]
    name = card.name if card.is_event else f"{card.faction} {card.name}"
    assert f"by ghost {faction}: {name}]" in drawn


def test_an_opponents_face_down_card_is_never_named_as_a_ghosts() -> None:
    from test_ui_snapshots import _dispatch_state

    from ui.app.netgame import with_ghost_cards

    s, seat = _dispatch_state()
    board = view(s, seat)
    other = [c for c in _face_down(board) if c["dispatcher"] not in (seat, None, -1)]
    assert other, "the fixture has an opponent's face-down card"
    target = other[0]
    label = s.label(target["slot"])
    # A ghost card list naming that slot for another seat (a bug upstream) changes nothing.
    ghost = next(x for x in range(s.n) if x not in (seat, target["dispatcher"]))
    marked = with_ghost_cards(board, ((ghost, target["slot"], label),))
    again = next(c for c in _face_down(marked) if c["slot"] == target["slot"])
    assert again["label"] is None and "ghost" not in again


@SIZES
def test_the_board_with_a_ghosts_face_down_cards(snap_compare: Any,
                                                 size: tuple[int, int]) -> None:
    from test_ui_snapshots import _dispatch_state

    from ui.app.netgame import with_ghost_cards
    from ui.app.screens.game import GameScreen

    s, seat = _dispatch_state()
    board = view(s, seat)
    ghost = (seat + 1) % s.n
    board["ghost_hands"] = [[ghost, [c for c in (s.label(x) for x in s.hands[ghost]) if c]]]
    cards = tuple((ghost, c["slot"], s.label(c["slot"])) for c in _face_down(board)
                  if c["dispatcher"] == ghost)
    assert cards, "the fixture's ghost seat has a face-down card"
    board = with_ghost_cards(board, cards)

    class Fixture(App[None]):
        CSS_PATH = CSS

        def on_mount(self) -> None:
            screen = GameScreen()
            self.push_screen(screen)
            screen.show_board(board, ("", "greedy-1", "random-2"))

    # At 60x20 the planets are below the hand: "]" scrolls the board to them.
    assert snap_compare(Fixture(), terminal_size=size, press=["]"] if size == SMALL else [])


@SIZES
def test_the_board_with_a_ghosts_open_hand(snap_compare: Any, size: tuple[int, int]) -> None:
    from test_ui_snapshots import _dispatch_state

    from ui.app.screens.game import GameScreen

    s, seat = _dispatch_state()
    board = view(s, seat)
    ghost = (seat + 1) % s.n
    board["ghost_hands"] = [[ghost, [c for c in (s.label(x) for x in s.hands[ghost]) if c]]]

    class Fixture(App[None]):
        CSS_PATH = CSS

        def on_mount(self) -> None:
            screen = GameScreen()
            self.push_screen(screen)
            screen.show_board(board, ("", "greedy-1", "random-2"))

    assert snap_compare(Fixture(), terminal_size=size)


def test_the_watch_verdicts_transcript_path_breaks_only_after_a_slash() -> None:
    path = "/home/dora/.local/share/solstice/games/" + GAME + "/watch-transcript.json"
    ended = GameEnded({"ok": True, "summary": "audit passed: 5 rounds"}, "", path)
    lines = layout(verdict_text(ended), 56)
    start = next(i for i, line in enumerate(lines) if line.startswith("/home/"))
    shown = lines[start:]
    assert "".join(shown) == path and all(line.endswith("/") for line in shown[:-1])


def test_the_lobbys_leave_hint_keeps_the_name() -> None:
    hint = resume_hint("join", GAME, False, HOME, "Ann Lee")
    assert hint.endswith(f"\nsolstice join --home {HOME} --name 'Ann Lee'")


# -- issue 40, case 6: a UI joiner agrees to an escrow table, or does not join ---------------


@pytest.mark.parametrize("agrees", [True, False], ids=["agrees", "declines"])
def test_a_ui_joiner_is_asked_before_it_joins_an_escrow_table(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, agrees: bool) -> None:
    """The table's welcome says it escrows: the UI asks (``AskEscrow``); on yes it joins
    again agreeing, on no it does not join at all."""
    import ui.app.netgame as netgame
    from p2p.net.lobby import EscrowNotAccepted
    from ui.app.messages import AskEscrow

    code = JoinCode("127.0.0.1", 4000, "ab" * 16, "cd" * 32)
    side = Posts()
    game = NetGame(NetSetup("join", PeerOptions(home=tmp_path), code=code), side)  # type: ignore[arg-type]
    tries: list[bool] = []

    async def join_game(code: Any, choose: Any, on_event: Any, options: PeerOptions) -> str:
        tries.append(options.accept_escrow)
        if not options.accept_escrow:
            raise EscrowNotAccepted("not joined: this table escrows")
        return "joined"

    monkeypatch.setattr(netgame, "join_game", join_game)

    async def play() -> object:
        async with trio.open_nursery() as nursery:
            game._escrow_answer.send_nowait(agrees)  # (the player's answer to the dialog)
            try:
                return await game._play(nursery)
            except EscrowNotAccepted as exc:
                return exc

    got = trio.run(play)
    assert [x for x in side.items if isinstance(x, AskEscrow)]
    assert "together could open your hand" in next(
        x for x in side.items if isinstance(x, AskEscrow)).text
    if agrees:
        assert (got, tries) == ("joined", [False, True])
    else:
        assert isinstance(got, EscrowNotAccepted) and tries == [False]


def test_the_escrow_dialog_answers_the_network_side(tmp_path: Path) -> None:
    from ui.app.messages import AskEscrow, EscrowAnswer

    async def scenario() -> list[object]:
        app = _app("join", tmp_path, players=3)
        async with app.run_test(size=STANDARD) as pilot:
            await pilot.pause()
            app.deliver(AskEscrow("This table escrows every player's secret."))
            await pilot.pause()
            await pilot.press("y")
            await pilot.pause()
            return app.bridge.sent  # type: ignore[union-attr]

    assert asyncio.run(scenario()) == [EscrowAnswer(True)]


# -- item 12: a double Enter (found by the browser test of solstice serve) -----------------------

def test_a_second_enter_before_the_first_is_handled_does_not_crash_the_game(
        tmp_path: Path) -> None:
    """Two Enters in a row reach the choices list before the screen has handled the first:
    the second names a card of the list the first replaced (the planets). It is dropped;
    before, it was taken for a destination and the app died (ValueError)."""
    from textual.widgets import OptionList

    from engine import RandomStream, apply, legal_actions, random_chance, to_move
    from ui.app.messages import AskHuman
    from ui.app.screens.game import GameScreen

    s = _state(2, b"double")
    while not (s.phase.value == "dispatch" and to_move(s) and to_move(s)[0] >= 0):
        movers = to_move(s)
        s = apply(s, random_chance(s, RandomStream(b"d%d" % len(s.log))) if movers[0] < 0
                  else legal_actions(s, movers[0])[0])
    seat = to_move(s)[0]

    async def scenario() -> None:
        app = _app("play", tmp_path)
        async with app.run_test(size=(100, 36)) as pilot:
            app.deliver(AskHuman(1, view(s, seat), tuple(legal_actions(s, seat))))
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, GameScreen) and screen.step == ("card",)
            choices = screen.query_one("#choices", OptionList)
            choices.action_select()
            choices.action_select()  # both queued before the screen sees the first
            await pilot.pause()
            assert app.is_running and screen.step[0] == "dest" and not app.answers
            assert all((o.id or "").startswith(("planet-", "capture", "discard"))
                       for o in choices.options)
            await pilot.press("enter")  # the first planet: on to its disclosure, or sent
            await pilot.pause()
            assert screen.step[0] == "claim" or app.answers

    asyncio.run(scenario())
