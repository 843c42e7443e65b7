"""What a player sees while the game runs: leaving and resuming, round summaries (the last
one too), the join code, the prisoner, committed picks, waiting with a spinner and a clock,
the last move lit, and the log in plain words. Screens are driven with Pilot from plain data
(no network) unless the test says otherwise."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.widgets import Static
from ui_helpers import game_note, game_over, round_end

from engine import GameState, RandomStream, apply, legal_actions, new_game, random_config, to_move
from engine.cards import CARD_BY_LABEL
from engine.events import (
    DealtFaceUp,
    DispatchedFaceDown,
    Killed,
    PlanetOpened,
    ResolveStarted,
    RoundStarted,
    Scored,
)
from engine.view import view
from p2p.net.games import PeerOptions
from p2p.net.notices import GameEvent, RosterKnown
from ui.app import widgets
from ui.app.app import SolsticeApp, resume_hint
from ui.app.messages import (
    BoardChanged,
    GameEnded,
    HandOver,
    LobbyOpened,
    NetNote,
    RosterChanged,
)
from ui.app.netgame import NetGame, NetSetup, failure_reason
from ui.app.screens.dialogs import HelpScreen, LeaveScreen
from ui.app.screens.game import GameScreen
from ui.app.screens.lobby import LobbyScreen, copy_to_tmux, paste_lines
from ui.app.screens.summary import EndScreen, RoundSummaryScreen, short_path
from ui.app.widgets import PlanetBoard, StatusLine
from ui.app.wording import describe, readable

CODE = "sol1-" + "atakqzgiwjxkvkvkvkvkvkvkvkvkvkvkvkvkvo53xo53xo53xo53xo53xo53xo53x" + "o" * 30


def _state(players: int = 3, seed: bytes = b"feedback") -> GameState:
    stream = RandomStream(seed)
    config = random_config(players, stream)
    return new_game(config, deck_order=stream.sample(config.card_ids(), len(config.card_ids())))


def _text(screen: Any) -> str:
    return "\n".join(str(w.render()) for w in screen.query(Static))


class FakeBridge:
    """Stands in for the trio side: the app asks whether it runs, tells it to stop, and sends
    it items (kept in ``sent``)."""

    running = True

    def __init__(self) -> None:
        self.sent: list[object] = []

    def send(self, item: object) -> bool:
        self.sent.append(item)
        return True

    def stop(self) -> None:
        self.running = False


class OfflineApp(SolsticeApp):
    """The app with a setup (so it knows its mode) whose network side is never started: the
    setup is attached only once the app is mounted."""

    def __init__(self, setup: NetSetup) -> None:
        super().__init__()
        self.pending_setup = setup

    def on_ready(self) -> None:
        self.setup = self.pending_setup
        self.bridge = FakeBridge()  # type: ignore[assignment]


def _app(mode: str, tmp_path: Path, **setup: Any) -> SolsticeApp:
    return OfflineApp(NetSetup(mode, PeerOptions(home=tmp_path / "me"), **setup))


def run(scenario) -> None:
    asyncio.run(scenario())


# -- item 1: the leave dialog says the truth about resuming -------------------------------------

def test_resume_hint_for_each_mode_and_moment() -> None:
    # Each command on a line of its own (issue 48: a wrapped command lost its --home).
    assert resume_hint("host", "g1", True, None) == "Resume it later with:\nsolstice resume g1"
    assert "nothing to resume" in resume_hint("host", "g1", False, None)
    assert resume_hint("join", "g1", False, None).endswith(":\nsolstice join")
    assert "solstice resume" not in resume_hint("join", "g1", False, None)
    assert "solstice resume" not in resume_hint("rematch", "g1", False, None)
    assert resume_hint("join", "g1", True, "/h") == "Resume it later with:\nsolstice resume g1 " \
                                                     "--home /h"
    assert "solstice resume g1" in resume_hint("resume", "g1", True, None)
    assert "cannot be resumed" in resume_hint("play", "g1", True, None)


def test_host_leaving_mid_game_is_told_the_resume_command(tmp_path: Path) -> None:
    s = _state()

    async def scenario() -> None:
        app = _app("host", tmp_path, players=3)
        stored = tmp_path / "me" / "games" / ("0123abcd" * 4)
        stored.mkdir(parents=True)
        (stored / "roster.json").write_text("{}")  # the table was full: the game is stored
        async with app.run_test(size=(80, 24)) as pilot:
            app.deliver(LobbyOpened(CODE, 3, "0123abcd" * 4))
            app.deliver(NetNote("roster", "Players: host, a, b"))
            app.deliver(BoardChanged(view(s, 0), (), ("host", "a", "b")))
            await pilot.pause()
            await pilot.press("q")
            await pilot.pause()
            assert isinstance(app.screen, LeaveScreen)
            assert f"solstice resume {'0123abcd' * 4}" in _text(app.screen)
            assert "had not started" not in _text(app.screen)

    run(scenario)


def test_a_player_can_hand_its_seat_over_from_the_leave_dialog(tmp_path: Path) -> None:
    s = _state()

    async def scenario() -> None:
        app = _app("join", tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            app.deliver(NetNote("roster", "Players: host, a"))
            app.deliver(BoardChanged(view(s, 0), (), ("host", "a")))
            await pilot.pause()
            await pilot.press("q")
            await pilot.pause()
            assert isinstance(app.screen, LeaveScreen)
            assert "hand your seat over (h)" in _text(app.screen)
            assert "open-handed" in _text(app.screen)
            await pilot.press("h")
            await pilot.pause()
            assert not isinstance(app.screen, LeaveScreen)
            assert [type(x) for x in app.bridge.sent] == [HandOver]  # type: ignore[union-attr]
            assert not app.left  # the game's end screen comes, not the exit

    run(scenario)


def test_the_leave_dialog_offers_no_handover_before_the_seats_are_drawn(
        tmp_path: Path) -> None:
    async def scenario() -> None:
        app = _app("join", tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("q")
            await pilot.pause()
            assert "hand your seat over" not in _text(app.screen)
            await pilot.press("h")
            await pilot.pause()
            assert isinstance(app.screen, LeaveScreen)

    run(scenario)


def test_joiner_leaving_in_the_lobby_is_told_to_join_again(tmp_path: Path) -> None:
    async def scenario() -> None:
        app = _app("join", tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("q")
            await pilot.pause()
            assert isinstance(app.screen, LeaveScreen)
            assert "solstice join" in _text(app.screen)
            assert "solstice resume" not in _text(app.screen)

    run(scenario)


# -- items 2, 8, 13: round summaries ------------------------------------------------------------

# A resolution as the engine emits it (the UI reads these events, not their log sentences).
RESOLVE = [ResolveStarted(), PlanetOpened("Desert", (), None, None),
           PlanetOpened("Capital", ("white:Elder", "event:Famine"), "white", "white"),
           Scored("white", 3, "Elder", "Elder, favored")]


def _result(s: GameState) -> dict[str, Any]:
    f = s.config.factions
    return {"ok": True, "winner": f[0], "scores": {x: 1 for x in f}, "vp": {x: 1 for x in f},
            "casualties": {x: 0 for x in f}, "ranking": list(f),
            "summary": "audit passed: 1 rounds; white wins"}


def test_the_final_round_is_summarised_before_the_end_screen(tmp_path: Path) -> None:
    s = _state()

    async def scenario() -> None:
        app = _app("play", tmp_path)
        app.summary_pace = 0
        async with app.run_test(size=(80, 24)) as pilot:
            app.deliver(BoardChanged(view(s, 0)))
            for event in RESOLVE:
                app.deliver(game_note(event))
            app.deliver(NetNote("waiting", "waiting for random-1"))  # not part of the summary
            app.deliver(game_note(round_end(5)))
            app.deliver(game_note(game_over()))
            app.deliver(GameEnded(_result(s), transcript=None))
            await pilot.pause()
            assert isinstance(app.screen, RoundSummaryScreen)
            assert app.screen.round_number == 5
            text = _text(app.screen)
            assert "Desert: no cards" in text
            assert "white Elder" in text and "Famine" in text and "event:" not in text
            assert "waiting for" not in text
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, EndScreen)
            assert "1 round;" in _text(app.screen)

    run(scenario)


def test_a_resumed_game_does_not_summarise_rounds_played_before(tmp_path: Path) -> None:
    s = _state()

    async def scenario() -> None:
        app = _app("resume", tmp_path, game="g1")
        async with app.run_test(size=(80, 24)) as pilot:
            for event in [*RESOLVE, round_end(1), RoundStarted(2, "right")]:
                app.deliver(game_note(event))  # the stored game, replayed on resume
            app.deliver(BoardChanged(view(s, 0)))
            await pilot.pause()
            assert isinstance(app.screen, GameScreen)

    run(scenario)


def test_the_resume_lobby_offers_no_join_code_to_copy(tmp_path: Path) -> None:
    async def scenario() -> None:
        app = _app("resume", tmp_path, game="g1")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            lobby = app.screen
            assert isinstance(lobby, LobbyScreen)
            assert lobby.check_action("copy_code", ()) is False
            lobby.show_code(CODE, 2)
            assert lobby.check_action("copy_code", ()) is True

    run(scenario)


def _summary_host(lines: list[Any]) -> App[None]:
    """An app showing one round's summary of ``lines``, revealed at 0.3 s a line."""

    class Host(App[None]):
        CSS_PATH = SolsticeApp.CSS_PATH

        def on_mount(self) -> None:
            self.push_screen(RoundSummaryScreen(1, lines, None, pace=0.3))

    return Host()


def test_the_summary_reveals_its_lines_one_by_one_and_space_shows_all() -> None:
    # enough lines that revealing them all takes 10 s at 0.3 s a line: a loaded machine that
    # starves the app for a second must not have shown them all before the first look
    lines = [*RESOLVE[1:] * 10, Scored("white", 1, "Sentry", "Sentry")]

    async def scenario() -> None:
        app = _summary_host(lines)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            summary = app.screen
            assert isinstance(summary, RoundSummaryScreen)
            assert summary.shown < len(lines)
            first = summary.shown
            await pilot.pause(0.7)
            assert summary.shown > first
            await pilot.press("space")
            assert summary.shown == len(lines)
            assert "the white player scores 1 VP (Sentry)" in _text(summary)

    run(scenario)


def test_a_summary_tick_after_its_lines_are_gone_draws_nothing_and_stops() -> None:
    """The last round's summary at a short pace, removed by the game's end while its timer
    still ticks: the tick found no '#summary-lines' and the app died (NoMatches)."""
    lines = [*RESOLVE[1:], Scored("white", 1, "Sentry", "Sentry")]

    async def scenario() -> None:
        app = _summary_host(lines)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            summary = app.screen
            assert isinstance(summary, RoundSummaryScreen)
            await summary.query_one("#summary-lines").remove()
            summary._reveal_next()  # what the racing tick does
            await pilot.pause(0.4)
            assert app.is_running and app.screen is summary

    run(scenario)


# -- items 3, 9: network failures and the lobby -------------------------------------------------

def test_a_failure_inside_a_trio_nursery_is_one_plain_line() -> None:
    group = ExceptionGroup("Exceptions from Trio nursery (1 sub-exception)",
                           [ConnectionRefusedError(111, "Connection refused")])
    reason = failure_reason(group)
    assert reason == "cannot connect: Connection refused"
    assert "ExceptionGroup" not in reason and "nursery" not in reason


class Posts:
    def __init__(self) -> None:
        self.items: list[Any] = []

    def post(self, item: Any) -> None:
        self.items.append(item)


def test_a_joiner_sees_the_roster_when_the_game_forms(tmp_path: Path) -> None:
    from p2p.net.joincode import JoinCode

    side = Posts()
    code = JoinCode("127.0.0.1", 9, "0" * 32, "1" * 64)
    game = NetGame(NetSetup("join", PeerOptions(home=tmp_path), code=code), side)  # type: ignore[arg-type]
    game.on_event(RosterKnown("Players: host, me", ("host", "me")))
    rosters = [x for x in side.items if isinstance(x, RosterChanged)]
    assert [line.name for line in rosters[-1].roster] == ["host", "me"]


def test_a_joiner_sees_the_table_fill_up_in_the_lobby(tmp_path: Path) -> None:
    from p2p.identity import Identity
    from p2p.net.games import lobby_reporter
    from p2p.net.joincode import JoinCode
    from p2p.net.lobby import LobbySeat, LobbyUpdate

    host, me, p1, p2 = (Identity.from_private_bytes(bytes([i]) * 32) for i in range(1, 5))
    seats = [LobbySeat(name, ident.peer_id) for name, ident in
             (("host", host), ("ann", me), ("player", p1), ("player", p2))]
    events: list[GameEvent] = []
    report = lobby_reporter(me, events.append)
    for size in (2, 3, 4):  # what the node reports: two updates, then the roster's table
        report(LobbyUpdate(4, tuple(seats[:size])))
    side = Posts()
    code = JoinCode("127.0.0.1", 9, "0" * 32, host.peer_id)
    game = NetGame(NetSetup("join", PeerOptions(home=tmp_path), code=code), side)  # type: ignore[arg-type]
    for event in events:
        game.on_event(event)
    rosters = [x for x in side.items if isinstance(x, RosterChanged)]
    assert [len(r.roster) for r in rosters] == [2, 3, 4]

    async def scenario() -> None:
        app = _app("join", tmp_path, code=code)
        async with app.run_test(size=(80, 24)) as pilot:
            screens = []
            for item in side.items:
                app.deliver(item)
                if isinstance(item, RosterChanged):
                    await pilot.pause()
                    assert isinstance(app.screen, LobbyScreen)
                    screens.append(_text(app.screen))
            assert "Players 2/4" in screens[0] and "waiting for 2 more" in screens[0]
            assert "2. ann" in screens[0] and "3. " not in screens[0]
            assert "Players 3/4" in screens[1] and "3. player" in screens[1]
            await pilot.pause()
            last = _text(app.screen)
            assert "Players 4/4" in last and "waiting for" not in last
            # The two players called "player" are told apart by their ids.
            assert f"3. player  id {p1.peer_id[:12]}" in last
            assert f"4. player  id {p2.peer_id[:12]}" in last
            assert f"player ({p2.short_id}) joined, 4/4" in last  # the status line

    run(scenario)


def test_two_players_keeping_the_default_name_get_different_names(tmp_path: Path) -> None:
    from ui.cli.net import default_name

    a, b = default_name(tmp_path / "a"), default_name(tmp_path / "b")
    assert a.startswith("player-") and b.startswith("player-") and a != b
    assert default_name(tmp_path / "a") == a


# -- item 4: the join code can be pasted as shown -----------------------------------------------

@pytest.mark.parametrize("width", [34, 54, 74, 154])
def test_the_join_command_pastes_as_one_shell_command_at_any_width(width: int) -> None:
    lines = paste_lines(CODE, width)
    assert all(len(line) <= width for line in lines)
    assert lines[0].startswith("solstice join ")
    # What bash runs when the lines are pasted as drawn: `solstice join` joins the pieces.
    script = "solstice() { shift; printf '%s' \"$@\"; }\n" + "\n".join(lines)
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout == CODE


def test_copy_uses_tmux_only_inside_tmux(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TMUX", raising=False)
    assert copy_to_tmux(CODE) is False


# -- items 5, 6: the prisoner and committed picks -----------------------------------------------

def _captured() -> tuple[GameState, int]:
    s = _state(3, b"prisoner")
    for _ in range(3000):
        if any(x >= 0 for x in s.prisoner):
            return s, next(i for i, x in enumerate(s.prisoner) if x >= 0)
        movers = to_move(s)
        seat = movers[0]
        legal = legal_actions(s, seat)
        from engine import Capture, random_chance

        if seat < 0:
            s = apply(s, random_chance(s, RandomStream(b"c%d" % len(s.log))))
            continue
        captures = [a for a in legal if isinstance(a, Capture)]
        s = apply(s, captures[0] if captures else legal[0])
    raise AssertionError("nobody captured a prisoner")


def test_your_prisoner_is_shown_as_a_card(tmp_path: Path) -> None:
    s, seat = _captured()
    label = s.label(s.prisoner[seat])
    card = CARD_BY_LABEL[label]

    async def scenario() -> None:
        app = _app("play", tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            app.deliver(BoardChanged(view(s, seat)))
            await pilot.pause()
            text = _text(app.screen)
            assert "Your prisoner: [" in text
            assert card.name in text.split("Your prisoner: ")[1]

    run(scenario)


def test_committed_picks_come_from_the_session_stage() -> None:
    from p2p.session.loopback import LoopbackGame

    loop = LoopbackGame(3)
    for session in loop.sessions:
        session.start()
    for _ in range(2000):
        if all(s.pending_input for s in loop.sessions):
            break
        loop.deliver()
    me, other = loop.sessions[0], loop.sessions[1]
    assert me.stage is not None and me.stage.kind == "pick/commit"
    other.submit(other.pending_input[0])
    loop.deliver()
    side = Posts()
    game = NetGame(NetSetup("play", PeerOptions()), side)  # type: ignore[arg-type]
    game.views = me.seat_view
    game.post_board()
    picked = side.items[-1].view["picked"]
    assert picked[me.seat_of_peer[1]] is True
    assert picked[me.seat_of_peer[0]] is False and picked[me.seat_of_peer[2]] is False


# -- item 11: waiting has a spinner, the time so far, and a place for decision clocks -----------

def test_waiting_shows_a_spinner_and_the_time_so_far(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [100.0]
    monkeypatch.setattr(widgets, "now", lambda: clock[0])

    class Host(App[None]):
        CSS_PATH = SolsticeApp.CSS_PATH

        def on_mount(self) -> None:
            self.push_screen(GameScreen())

    async def scenario() -> None:
        app = Host()
        async with app.run_test(size=(80, 24)) as pilot:
            status = app.screen.query_one(StatusLine)
            status.show_waiting(None, ("white (ismcts-1)",), False)
            first = str(status.render())
            assert "Waiting for white (ismcts-1) · 0s" in first
            clock[0] += 8.4
            status._tick()
            later = str(status.render())
            assert "· 8s" in later and later[0] != first[0]  # the spinner moved on
            status.show_clocks({"white": 42.0})
            assert "⏱ white 0:42" in str(status.render())
            status.show_waiting(None, (), True)
            assert str(status.render()).startswith("Your move.")
            await pilot.pause()

    run(scenario)


# -- live feedback: the last move is lit on the board -------------------------------------------

def test_the_card_just_played_is_marked_on_the_board(tmp_path: Path) -> None:
    s = _state(3, b"fresh")
    for _ in range(3000):
        if s.phase.value == "dispatch" and to_move(s) and to_move(s)[0] >= 0:
            break
        movers = to_move(s)
        from engine import random_chance

        s = apply(s, random_chance(s, RandomStream(b"f%d" % len(s.log))) if movers[0] < 0
                  else legal_actions(s, movers[0])[0])
    seat = to_move(s)[0]
    before = view(s, 0)
    s2 = apply(s, next(a for a in legal_actions(s, seat) if type(a).__name__ == "Dispatch"))
    new = {c["slot"] for p in view(s2, 0)["planets"] for c in p["cards"]} - {
        c["slot"] for p in before["planets"] for c in p["cards"]}

    async def scenario() -> None:
        app = _app("play", tmp_path)
        async with app.run_test(size=(100, 30)) as pilot:
            app.deliver(BoardChanged(before))
            app.deliver(BoardChanged(view(s2, 0)))
            await pilot.pause()
            board = app.screen.query_one(PlanetBoard)
            assert board.fresh == frozenset(new) and len(new) == 1
            assert "▸[" in _text(app.screen)

    run(scenario)


# -- item 12: help tells what q does in this game -----------------------------------------------

def test_help_does_not_promise_a_resume_for_a_game_against_local_bots(tmp_path: Path) -> None:
    async def scenario() -> None:
        app = _app("play", tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            app.action_help()
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            text = _text(app.screen)
            assert "cannot be resumed" in text
            assert "you can resume it later" not in text

    run(scenario)


# -- item 13: wording ---------------------------------------------------------------------------

@pytest.mark.parametrize(("event", "shown"), [
    (Killed("white:Elder", "white"), "white Elder is killed; white takes a casualty"),
    (DealtFaceUp("event:Famine", "Desert"), "Famine is dealt face up to Desert"),
    (DealtFaceUp("event:Honor Guards", "Capital"), "Honor Guards is dealt face up to Capital"),
    (PlanetOpened("Desert", (), None, None), "Desert: no cards"),
    (DispatchedFaceDown("blue", "Water", "Elder"),
     "blue dispatches a card face down to Water, disclosing an Elder"),
    (Scored("white", 3, "Elder", "Elder, favored"),
     "the white player scores 3 VP (Elder, favored)"),
])
def test_game_events_read_as_plain_words(event: Any, shown: str) -> None:
    assert describe(event) == shown


def test_other_lines_name_cards_and_rounds_plainly() -> None:
    assert readable("audit passed: 1 rounds; white 3") == "audit passed: 1 round; white 3"
    assert readable("Mercenaries: kill white:Duchess for 2 VP?") == \
        "Mercenaries: kill white Duchess for 2 VP?"


def test_a_claim_says_when_it_works_not_acts_now() -> None:
    from ui.app.render import claims_line

    v = view(_state(), 0)
    v["claims"] = [{"event": "Sentry", "seat": 1, "round": 1, "active": True}]
    text = claims_line(v).plain
    assert "Sentry → " in text and "(this round)" in text and "acts now" not in text


def test_the_transcript_path_is_shortened_to_the_home_directory() -> None:
    path = str(Path.home() / ".local/share/solstice/games" / ("ab" * 16) / "transcript.json")
    assert short_path(path).startswith("~/.local/share/solstice/games/")
    assert short_path("/srv/t.json") == "/srv/t.json"


# -- item 7: small terminals keep the status and the choices, and scroll the board by keys -------

def test_at_60x20_the_status_and_choices_stay_and_the_board_scrolls_by_keys(
        tmp_path: Path) -> None:
    s = _state(4, b"small")
    for _ in range(3000):
        movers = to_move(s)
        if s.phase.value == "dispatch" and movers and movers[0] >= 0 and sum(
                len(p) for p in s.planets) >= 8:
            break
        from engine import random_chance

        s = apply(s, random_chance(s, RandomStream(b"s%d" % len(s.log))) if movers[0] < 0
                  else legal_actions(s, movers[0])[0])
    seat = to_move(s)[0]

    async def scenario() -> None:
        from engine.view import view as seat_view
        from ui.app.messages import AskHuman

        app = _app("play", tmp_path)
        async with app.run_test(size=(60, 20)) as pilot:
            v = seat_view(s, seat)
            app.deliver(AskHuman(1, v, tuple(legal_actions(s, seat))))
            await pilot.pause()
            screen = app.screen
            status = screen.query_one(StatusLine)
            assert 0 <= status.region.y < 20 and str(status.render()) == "Your move."
            choices = screen.query_one("#choices")
            assert choices.region.height >= 2 and choices.region.bottom <= 19
            board = screen.query_one(PlanetBoard)
            assert board.max_scroll_y > 0, "the board should overflow at 60x20"
            await pilot.press("right_square_bracket")
            await pilot.pause()
            assert board.scroll_y > 0
            await pilot.press("left_square_bracket")
            await pilot.pause()
            assert board.scroll_y == 0

    run(scenario)


# -- the end screen opens the replay viewer --------------------------------------------------------

def test_r_on_the_end_screen_opens_the_replay(tmp_path: Path) -> None:
    from ui_transcript import write_finished_game

    from ui.app.replay import ReplayScreen

    path = write_finished_game(tmp_path / "t.json", players=2, seed=3)
    result = __import__("json").loads(path.read_text())["outcome"]

    class Host(App[None]):
        CSS_PATH = SolsticeApp.CSS_PATH

        def on_mount(self) -> None:
            self.push_screen(EndScreen(GameEnded(result, transcript=str(path))))

    async def scenario() -> None:
        app = Host()
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("r")
            await pilot.pause()
            assert isinstance(app.screen, ReplayScreen)
            await pilot.press("q")
            await pilot.pause()
            assert isinstance(app.screen, EndScreen)

    run(scenario)
