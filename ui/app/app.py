"""The Textual terminal UI: lobby, game, round summaries, end screen.

The app owns a ``TrioBridge`` (``ui.app.bridge``): the network game (``ui.app.netgame``) runs in a
trio thread and sends plain values (``ui.app.messages``) that ``deliver`` routes to the screens,
on the UI thread; the human's choices go back as ``HumanAnswer`` through the bridge.
"""

from __future__ import annotations

import dataclasses
import functools
import shlex
from pathlib import Path
from typing import Any, ClassVar

from textual.app import App
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import ModalScreen

from engine import Action
from engine.events import Event as GameEvent
from engine.events import PlanetOpened, ResolveStarted, RoundScores
from p2p.net.chatlink import ChatShown
from p2p.net.games import PeerOptions, unfinished_games
from p2p.net.joincode import JoinCode
from p2p.net.rematch import rematch_game_id
from p2p.net.roster import MAX_NAME_LEN
from p2p.text import printable
from ui.app.bridge import BridgeFinished, TrioBridge
from ui.app.chat import ChatInput, chat_line
from ui.app.lessons import event_lesson, lesson, reason
from ui.app.messages import (
    AskEscrow,
    AskHuman,
    BoardChanged,
    ChatSay,
    Connecting,
    EscrowAnswer,
    EscrowState,
    GameEnded,
    HandOver,
    HumanAnswer,
    LobbyOpened,
    NetNote,
    RosterChanged,
    RosterLine,
    SetEscrow,
)
from ui.app.netgame import NetSetup, run_network
from ui.app.pacing import Pacer, pace_from_env
from ui.app.render import scores_line
from ui.app.screens.dialogs import EscrowScreen, HelpScreen, LeaveScreen, LessonScreen
from ui.app.screens.game import GameScreen
from ui.app.screens.lobby import LobbyScreen
from ui.app.screens.start import LanStart, StartScreen
from ui.app.screens.summary import YIELDS_AT, EndScreen, RoundSummaryScreen, resolution_lines
from ui.app.wording import describe, readable

EXIT_FINISHED, EXIT_STOPPED, EXIT_LEFT = 0, 1, 130
EXIT_QUIT = 0  # quitting the start screen is a choice, not a failure (make play stays quiet)
SUMMARY_PACE = 0.6  # seconds between the lines of a round's summary (narrow terminals)
LEARN_PACE = 2.0  # seconds per resolution step in a --learn game
NOTE_STYLES = {"waiting": "#e3b341", "rejected": "bold #e3b341", "aborted": "bold red",
               "over": "bold #7ee787", "transcript": "dim", "watchers": "bold #9ecbff"}


NAME_LIMIT = 4 * MAX_NAME_LEN  # room for a few escapes, never a screenful
TEXT_LIMIT = 2000  # characters of one peer-supplied line (an abort reason can be long)


def shown(item: Any) -> Any:
    """``item`` with every peer-supplied text made printable (``p2p.text.printable``): player
    names, log lines and abort reasons may hold escape sequences that would drive the
    terminal."""
    if isinstance(item, RosterChanged):
        return dataclasses.replace(item, roster=tuple(
            RosterLine(printable(line.name, NAME_LIMIT), line.fingerprint)
            for line in item.roster))
    if isinstance(item, BoardChanged):
        return dataclasses.replace(
            item, names=tuple(printable(name, NAME_LIMIT) for name in item.names),
            waiting=tuple(printable(who, NAME_LIMIT) for who in item.waiting))
    if isinstance(item, AskHuman):
        return dataclasses.replace(item, names=tuple(printable(name, NAME_LIMIT)
                                                     for name in item.names))
    if isinstance(item, NetNote | Connecting):
        return dataclasses.replace(item, text=printable(item.text, TEXT_LIMIT))
    if isinstance(item, GameEnded):
        return dataclasses.replace(item, reason=printable(item.reason, TEXT_LIMIT))
    return item


class FromNetwork(Message):
    """One value from the trio side, re-posted as a Textual message so that it is handled
    inside the app's context (the bridge's loop callback runs outside of it)."""

    def __init__(self, item: Any, source: object = None) -> None:
        super().__init__()
        self.item = item
        self.source = source  # the bridge it came from (a dropped one's are ignored)


class SolsticeApp(App[int]):
    CSS_PATH = Path(__file__).parent / "solstice.tcss"  # absolute: subclasses live elsewhere
    TITLE = "Solstice"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+c", "leave", "Quit", show=False, priority=True),
    ]

    def __init__(self, setup: NetSetup | None = None, title: str = "Solstice",
                 start: LanStart | None = None) -> None:
        super().__init__()
        self.setup = setup
        self.start = start  # with it, the start screen lists LAN games and picks the setup
        self.lobby = LobbyScreen(title)
        self.game: GameScreen | None = None
        self.bridge: TrioBridge | None = None
        self.ended: GameEnded | None = None
        self.left = False
        self.log_lines: list[str] = []  # every note, as shown
        self.game_log: list[GameEvent] = []  # the game's own events (for round summaries)
        self.view: dict[str, Any] | None = None
        self.names: tuple[str, ...] = ()
        self.game_id: str | None = None
        self.started = False  # the session exists, so the game is stored and resumable
        self.own_clock: float | None = None  # seconds left on our decision, when one runs
        self.summary_pace = SUMMARY_PACE
        # A round's resolution is revealed step by step in the log pane (``ui.app.pacing``);
        # where the pane is hidden (narrow), the round summary reveals it instead.
        self.reveal_pace = pace_from_env()  # seconds per step ($SOLSTICE_PACE; 0: no pacing)
        self.pacer: Pacer[NetNote] = Pacer(self._show_note, self.set_timer, 0.0,
                                           self._reveal_done)
        self.answers: list[Action] = []  # what the human chose, in order (tests read it)
        self.taught: set[str] = set()  # phases whose --learn lesson was shown
        # Lessons to show, oldest first, one at a time (they stacked up in reverse order).
        self.lessons_due: list[tuple[str, str]] = []
        if setup is not None and setup.learn:
            self.reveal_pace = max(self.reveal_pace, LEARN_PACE)  # time to read each step

    # -- lifecycle --------------------------------------------------------------------------

    def on_mount(self) -> None:
        if self.start is not None:
            self.push_screen(StartScreen(self.start), self._started)
            return
        self.push_screen(self.lobby)
        if self.setup is not None:
            self._start_network(self.setup)

    def _started(self, chosen: tuple[NetSetup, str] | None) -> None:
        if chosen is None:
            self.exit(EXIT_QUIT)
            return
        self.setup, title = chosen
        if self.setup.learn:
            self.reveal_pace = max(self.reveal_pace, LEARN_PACE)
        self.lobby = LobbyScreen(title)
        self.push_screen(self.lobby)
        self._start_network(self.setup)

    def _start_network(self, setup: NetSetup) -> None:
        bridge = TrioBridge(lambda item: self.post_message(FromNetwork(item, bridge)))
        self.bridge = bridge
        bridge.start(functools.partial(run_network, setup))

    def on_unmount(self) -> None:
        if self.bridge is not None:
            self.bridge.stop()

    # -- from the network -------------------------------------------------------------------

    def on_from_network(self, message: FromNetwork) -> None:
        # The bridge posts from its own thread: a value can land while Textual takes the
        # screens down, when their widgets are already gone. Nothing is shown any more then.
        if self.is_running and (message.source is None or message.source is self.bridge):
            self.deliver(message.item)

    def deliver(self, item: Any) -> None:
        """Route one value from the trio side (runs on the UI thread)."""
        item = shown(item)
        if isinstance(item, LobbyOpened):
            self.game_id = item.game_id or self.game_id
            self.lobby.show_code(item.code, item.players, item.short)
        elif isinstance(item, RosterChanged):
            self.lobby.show_roster(item.players, item.roster)
        elif isinstance(item, Connecting):
            self.lobby.show_status(item.text)
        elif isinstance(item, EscrowState):
            self.lobby.show_escrow(item.on, item.can_change)
        elif isinstance(item, AskEscrow):
            def answered(join: bool | None) -> None:
                if self.bridge is not None:
                    self.bridge.send(EscrowAnswer(bool(join)))

            self.push_screen(EscrowScreen(item.text), answered)
        elif isinstance(item, BoardChanged):
            self.view, self.names, self.started = item.view, item.names or self.names, True
            self._game_screen().show_board(self._while_revealing(item.view), self.names,
                                           item.waiting, item.clocks)
            self._own_clock(item)
            self._teach(item.view)
        elif isinstance(item, AskHuman):
            self.view, self.names, self.started = item.view, item.names or self.names, True
            self._game_screen().ask_human(item)
            self._teach(item.view)
        elif isinstance(item, NetNote):
            self._note(item)
        elif isinstance(item, ChatShown):
            self._chat(item)
        elif isinstance(item, GameEnded):
            self._show_end(item)
        elif isinstance(item, BridgeFinished) and self.ended is None:
            reason = "the network side stopped"
            if item.error is not None:
                reason = printable(f"{type(item.error).__name__}: {item.error}", TEXT_LIMIT)
            self._show_end(GameEnded(None, reason))

    def _teach(self, view: dict[str, Any]) -> None:
        """``play --learn``: the first time the draft or the dispatch comes up, its lesson
        (the resolution's comes with its first line, ``_explain``: the board is ahead of
        the paced reveal)."""
        setup = self.setup
        if setup is None or not setup.learn or view["phase"] in self.taught \
                or view["phase"] == "resolve":
            return
        found = lesson(view["phase"], view)
        if found is not None:
            self.taught.add(view["phase"])
            self.lessons_due.append(found)
            self._next_lesson()

    def _next_lesson(self, _result: object = None) -> None:
        """Show the oldest lesson due, over the game screen only (one due while a round's
        summary is open follows when it closes); the reveal goes on once none is left."""
        if not isinstance(self.screen, GameScreen):
            return
        if self.lessons_due:
            self.push_screen(LessonScreen(*self.lessons_due.pop(0)), self._next_lesson)
        elif self.pacer.held:
            self.pacer.resume()

    def _learning(self) -> bool:
        """A live ``--learn`` game (a resumed game's replayed rounds teach nothing)."""
        return self.setup is not None and self.setup.learn and self.view is not None

    def _explain(self, event: GameEvent) -> None:
        """``--learn``: a planet's one-line reason under its log line (a card's reason is its
        log line, ``_show_note``); the first time strongest/favored, scoring, a kill or a
        claim comes up, its lesson, and the reveal waits until the player has read it."""
        assert self.game is not None
        why = reason(event) if isinstance(event, PlanetOpened) else None
        if why is not None:
            self.game.add_log("   ↳ " + why, "italic #9ecbff")
        phase = lesson("resolve", self.view) if isinstance(event, ResolveStarted) \
            and "resolve" not in self.taught and self.view is not None else None
        if phase is not None:
            self.taught.add("resolve")
            self.lessons_due.append(phase)
        found = event_lesson(event)
        if found is not None and found[0] not in self.taught:
            key, title, text = found
            self.taught.add(key)
            self.lessons_due.append((title, text))
        if self.lessons_due:
            self.pacer.hold()  # the reveal waits until the player has read them
            self._next_lesson()

    def _while_revealing(self, view: dict[str, Any]) -> dict[str, Any]:
        """The header said "Game over" while the last round was still being revealed: until
        the reveal is done the board shows that round's Resolve phase."""
        if view["phase"] == "over" and (self.pacer.busy
                                        or isinstance(self.screen, RoundSummaryScreen)):
            return {**view, "phase": "resolve"}
        return view

    def _own_clock(self, board: BoardChanged) -> None:
        """Our seat's decision clock, shown on an open round summary (it keeps running); with
        ``YIELDS_AT`` seconds or fewer left the summary closes, back to the decision."""
        seat = board.view["seat"]
        self.own_clock = board.clocks[seat] if seat < len(board.clocks) else None
        if isinstance(self.screen, RoundSummaryScreen):
            if self.own_clock is not None and self.own_clock <= YIELDS_AT:
                self.screen.dismiss(None)
                self.notify("Your decision: the clock is running out (the round's summary is "
                            "in the log)", severity="warning", timeout=6)
                return
            self.screen.show_clock(self.own_clock)

    def _game_screen(self) -> GameScreen:
        if self.game is None:
            self.game = GameScreen()
            self._close_modals()
            self.push_screen(self.game)
        return self.game

    def _close_modals(self) -> None:
        while isinstance(self.screen, ModalScreen):
            self.pop_screen()

    def _note(self, note: NetNote) -> None:
        if note.kind in ("roster", "seats"):
            self.started = True  # the session runs: it is in the store from now on
        if note.kind == "aborted":
            self.pacer.skip()  # a stop is news now
        # Only the game's own lines, once a board is shown (a resumed game's old rounds are
        # not paced), mark where a resolution starts and ends.
        event = note.event if self.view is not None else None
        self.pacer.pace = self.reveal_pace if self._paced() else 0.0
        self.pacer.push(note, event)

    def _paced(self) -> bool:
        """Resolutions are paced in the log pane (shown only in wide terminals)."""
        return (self.reveal_pace > 0 and self.game is not None
                and not self.game.has_class("narrow"))

    def action_skip_reveal(self) -> None:
        self.pacer.skip()

    def _reveal_done(self) -> None:
        if self.game is not None and self.view is not None and self.view["phase"] == "over":
            self.game.show_board(self.view, self.names)  # now the header says "Game over"
        if (self.ended is not None and not self.left
                and not isinstance(self.screen, RoundSummaryScreen | EndScreen)):
            self._push_end()

    def _show_note(self, note: NetNote) -> None:
        event = note.event
        text = describe(event) if event is not None else readable(note.text)
        if event is not None and not isinstance(event, PlanetOpened) and self._learning():
            text = reason(event) or text  # what happened and why, said once
        self.log_lines.append(text)
        if self.game is not None:
            self.game.add_log(text, NOTE_STYLES.get(note.kind, ""))
            if isinstance(event, ResolveStarted) and self._paced() and self.view is not None:
                self.game.add_log("(space: the whole resolution at once)", "dim")
            if event is not None and self._learning():
                self._explain(event)
        else:
            self.lobby.show_status(text)
        if note.kind == "aborted":
            self.notify(text, severity="error", timeout=10)
        if note.kind == "watchers":  # the host's signed notice of who watches us play
            self.notify(text, timeout=8)
        if event is None:
            return
        self.game_log.append(event)
        if isinstance(event, RoundScores) and self.view is not None:
            # A round ended (the last one too): show how it resolved before going on. Only
            # once a board was shown, so a resumed game does not summarise old rounds.
            round_number = event.round
            lines = resolution_lines(self.game_log)
            scores = scores_line(self.view, self.names)
            self._close_modals()
            pace = 0.0 if self._paced() else self.summary_pace  # watched in the pane already
            # A learning game explains each card in the summary too (where the log pane is
            # hidden, it is where the resolution is revealed).
            summary = RoundSummaryScreen(round_number, lines, scores, pace,
                                         reason if self._learning() else None)
            summary.clock = self.own_clock
            if self.own_clock is not None and self.own_clock <= YIELDS_AT:
                self._summary_closed()  # no time to read it: the decision comes first
                return
            self.push_screen(summary, self._summary_closed)

    def _chat(self, shown: ChatShown) -> None:
        line = chat_line(shown)  # escapes the peer's name and text
        self.log_lines.append(line.plain)
        if self.game is None:
            self.lobby.add_chat(line)
            return
        self.game.add_log(line)
        if self.game.has_class("narrow") and shown.author is not None:
            self.notify(line.plain, timeout=6)  # the log pane is hidden at this width

    def on_lobby_screen_escrow_wanted(self, message: LobbyScreen.EscrowWanted) -> None:
        if self.bridge is not None:
            self.bridge.send(SetEscrow(message.on))

    def on_chat_input_said(self, message: ChatInput.Said) -> None:
        if self.bridge is not None:
            self.bridge.send(ChatSay(message.text))

    def _summary_closed(self, _result: object = None) -> None:
        self._next_lesson()
        if self.game is not None and self.view is not None and self.view["phase"] == "over":
            self.game.show_board(self.view, self.names)  # now the header says "Game over"
        if self.ended is not None and not isinstance(self.screen, EndScreen):
            self._push_end()

    def _show_end(self, ended: GameEnded) -> None:
        if self.ended is not None or self.left:
            return
        if self._back_to_list(ended):
            return
        self.ended = ended
        if isinstance(self.screen, RoundSummaryScreen) or self.pacer.busy:
            # The end screen follows when the player closes the last round's summary, which
            # opens when the reveal of its resolution is done.
            return
        self._push_end()

    def _back_to_list(self, ended: GameEnded) -> bool:
        """A game picked on the start screen that could not be joined (gone, full, closed):
        back to the list, saying why, instead of ending the program."""
        setup = self.setup
        if (self.start is None or setup is None or setup.mode != "join" or self.started
                or ended.result is not None):
            return False
        if self.bridge is not None:
            self.bridge.stop()
        self.setup, self.bridge, self.game, self.view = None, None, None, None
        self.log_lines, self.game_log = [], []
        while len(self.screen_stack) > 1:
            self.pop_screen()
        self.push_screen(StartScreen(self.start), self._started)
        self.notify(f"Could not join that game: {ended.reason}", severity="error", timeout=12)
        return True

    def _push_end(self) -> None:
        assert self.ended is not None
        names = {}
        if self.view is not None:
            names = {f: (self.names[i] if i < len(self.names) else "")
                     for i, f in enumerate(self.view["factions"])}
            names[self.view["factions"][self.view["seat"]]] = "you"
        self._close_modals()
        rematch = (self.ended.result is not None and self.setup is not None
                   and self.setup.mode != "play")
        self.push_screen(EndScreen(self.ended, names, self.log_lines, self.resume_hint(),
                                   can_rematch=rematch))

    # -- from the human ---------------------------------------------------------------------

    def on_game_screen_answered(self, message: GameScreen.Answered) -> None:
        self.answers.append(message.action)
        if self.bridge is not None:
            self.bridge.send(HumanAnswer(message.serial, message.action))

    def action_rematch(self) -> None:
        """Play again with the same table (from the end screen): a new game, seats drawn again,
        with everyone who accepts within the time limit."""
        ended, setup = self.ended, self.setup
        if ended is None or ended.result is None or not ended.game_id or setup is None \
                or setup.mode == "play":
            self.notify("A rematch needs a finished network game (local bots do not rematch: "
                        "start a new game with solstice play)", severity="warning")
            return
        if self.bridge is not None:
            self.bridge.stop()
        self.setup = NetSetup("rematch", setup.options, game=ended.game_id)
        # From now on the new game is the one to resume (or not: it may never start).
        self.game_id, self.started = rematch_game_id(ended.game_id), False
        self.ended, self.game, self.view, self.names = None, None, None, ()
        self.log_lines, self.game_log, self.in_resolution = [], [], False
        while len(self.screen_stack) > 1:
            self.pop_screen()
        self.lobby = LobbyScreen("Solstice — rematch with the same table")
        self.push_screen(self.lobby)
        self._start_network(self.setup)

    def action_help(self) -> None:
        events = tuple(self.view["events_in_play"]) if self.view else ()
        self.push_screen(HelpScreen(events, self.leave_text(), self.view))

    def leave_text(self) -> str:
        """What q does in this game, for the help screen."""
        if self.setup is not None and self.setup.mode == "play":
            return "q leave the game (a game against local bots cannot be resumed)"
        return "q leave the game (see the leave dialog for whether and how to resume it)"

    def resume_hint(self) -> str:
        setup = self.setup
        if setup is None:
            return ""
        if self.ended is not None and self.ended.handed_over is not None:
            return handed_over_text(self.ended)
        game = (self.ended.game_id if self.ended else None) or self.game_id or setup.game or (
            setup.code.game_id if setup.code else None)
        home = str(setup.options.home) if setup.options.home else None
        # Only a game this home holds unfinished can be resumed: the store is asked, not
        # guessed from how far the screens got (a rematch nobody joined was never stored).
        stored = game is not None and game in unfinished_games(setup.options.home_dir)
        return resume_hint(setup.mode, game, stored, home, setup.options.name)

    def action_leave(self) -> None:
        if self.ended is not None or self.bridge is None or not self.bridge.running:
            self.exit(self._exit_code())
            return
        if isinstance(self.screen, LeaveScreen):
            return

        def answered(leave: bool | str | None) -> None:
            if leave == "handover":
                if self.bridge is not None:  # the game's end screen follows
                    self.bridge.send(HandOver())
            elif leave:
                self.left = True
                if self.bridge is not None:
                    self.bridge.stop()
                self.exit(EXIT_LEFT)  # run_app prints how to resume, after the screen is gone

        # A seat can be handed over in a network game once the board (so the seats) is shown.
        hand_over = self.setup is not None and self.setup.mode != "play" and bool(self.view)
        self.push_screen(LeaveScreen(self.resume_hint(), hand_over), answered)

    def _exit_code(self) -> int:
        if self.left:
            return EXIT_LEFT
        if self.ended is not None and self.ended.result is not None:
            return EXIT_FINISHED
        return EXIT_STOPPED


def resume_hint(mode: str, game: str | None, stored: bool, home: str | None,
                name: str | None = None) -> str:
    """How (and whether) a game left now can be picked up again: ``stored`` says that this
    home holds ``game`` unfinished (its roster is stored once the table is full), the only
    case in which ``solstice resume`` can continue it. Every command printed here works when
    copied: each is on a line of its own (``ui.app.commandtext`` lays it out to the screen);
    joining again keeps the ``name`` the player chose."""
    home_flag = f" --home {shlex.quote(home)}" if home else ""
    if mode == "play":
        return ("A game against local bots cannot be resumed (the bots keep no state); "
                "start a new one with:\nsolstice play")
    if game is not None and stored:
        return f"Resume it later with:\nsolstice resume {game}{home_flag}"
    if mode == "rematch":
        return "The rematch had not started (not everyone had joined); nothing to resume."
    if mode == "join":
        return ("You were not in a game yet, so there is nothing to resume; to pick a game "
                f"on the LAN:\nsolstice join{home_flag}"
                + (f" --name {shlex.quote(name)}" if name else ""))
    return "The game had not started yet; nothing to resume."


def handed_over_text(ended: GameEnded) -> str:
    """What a player who handed its seat over can do now: nothing to resume (the game goes
    on without it); the game's final transcript comes from someone still in it."""
    text = (f"You handed your seat over; the game goes on without you (the ghost plays "
            f"{ended.handed_over}, open-handed). Nothing to resume. For the final transcript, "
            "ask another player for theirs (solstice verify checks it)")
    if ended.watch_code:
        return text + f", or watch the rest of the game:\nsolstice watch {ended.watch_code}"
    return text + "."


def run_app(setup: NetSetup | None, title: str, start: LanStart | None = None) -> int:
    """Run the UI on ``setup``, or on what the start screen picks when ``start`` is given."""
    app = SolsticeApp(setup, title, start)
    code = app.run()
    setup = app.setup
    if app.left:
        print("You left the game. " + app.resume_hint())
    elif app.ended is not None:
        ended = app.ended
        if ended.result is not None:
            print(readable(ended.result.get("summary", "game over")))
        elif ended.handed_over is not None:
            print(handed_over_text(ended))
        else:
            print(f"The game stopped: {ended.reason}")
            if setup is not None and setup.mode != "play" and ended.game_id:
                print(app.resume_hint())
        if ended.transcript:
            print(f"Transcript: {ended.transcript}")
    return code if isinstance(code, int) else app._exit_code()


def run_network_ui(mode: str, **kwargs: Any) -> int:
    """``solstice host/join/resume`` without ``--bot``: the human plays in the UI (``join``
    without a code: "browse", the start screen lists the LAN's games)."""
    options: PeerOptions = kwargs["options"]
    if mode == "host":
        setup = NetSetup("host", options, players=int(kwargs["players"]))
        title = f"Solstice — hosting a {setup.players}-player game"
    elif mode == "join":
        code: JoinCode = kwargs["code"]
        setup = NetSetup("join", options, code=code)
        title = "Solstice — joining a game"
    elif mode == "resume":
        setup = NetSetup("resume", options, game=str(kwargs["game"]))
        title = f"Solstice — resuming game {setup.game}"
    elif mode == "browse":  # ``solstice join`` with no code: pick a LAN game on the start screen
        return run_app(None, "Solstice", LanStart(options))
    else:
        raise ValueError(f"unknown mode {mode!r}")
    return run_app(setup, title)
