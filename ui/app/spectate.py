"""The spectator's terminal UI (``solstice watch`` without ``--headless``): the game live, public
information only, then the spectator's own audit verdict and where its transcript is.

The board is drawn by the same widgets as a player's and the replay viewer's, from a seatless
public view (``ui.app.watchgame.public_view``): no hand, no face-down card, nobody is "you".
Keys: q leave (the game goes on without us), [ ] scroll the board.
"""

from __future__ import annotations

import functools
import shlex
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, RichLog, Static

from engine.events import Event
from p2p.net.games import PeerOptions
from p2p.net.joincode import JoinCode
from p2p.text import printable
from ui.app.app import NOTE_STYLES, TEXT_LIMIT, FromNetwork, shown
from ui.app.bridge import BridgeFinished, TrioBridge
from ui.app.commandtext import CommandText
from ui.app.messages import BoardChanged, GameEnded, NetNote
from ui.app.watchgame import run_watch
from ui.app.widgets import PhaseBar, PlanetBoard, ScoreBar, show_view
from ui.app.wording import describe, readable

EXIT_FAIR, EXIT_NOT_FAIR, EXIT_LEFT = 0, 1, 130
NARROW = 110  # below this width the log goes under the board


def watch_again(ended: GameEnded) -> str:
    """The command that watches the same game again (with this watcher's home)."""
    home = f" --home {shlex.quote(ended.home)}" if ended.home else ""
    return f"solstice watch {ended.watch_code}{home}" if ended.watch_code else ""


def verdict_text(ended: GameEnded, waiting: tuple[str, ...] = ()) -> str:
    """The spectator's own audit, and where its transcript is (for ``solstice verify``); a
    game it lost the connection to (or that stopped with nobody unfair) is unfinished, not
    unfair: whom it waited for, and how to watch again."""
    text = Text()
    if ended.result is not None and ended.result.get("ok"):
        text.append("Your audit: FAIR. ", style="bold #7ee787")
        text.append(readable(printable(ended.result.get("summary", ""), TEXT_LIMIT)))
    elif ended.unfinished is not None:
        text.append(f"Unfinished ({ended.unfinished}): ", style="bold #e3b341")
        text.append(ended.reason or "the game stopped")
        if waiting:
            text.append(f". The game was waiting for {', '.join(waiting)}")
        again = watch_again(ended)
        if again:
            text.append(".\nTo watch again:\n" + again)
    else:
        text.append("Your audit: NOT a fair finished game. ", style="bold red")
        text.append(ended.reason or "the game stopped")
    if ended.transcript:
        text.append("\nYour transcript (solstice verify accepts it):\n", style="bold")
        text.append(printable(ended.transcript, TEXT_LIMIT))
    else:
        text.append("\nNo transcript was written (the game did not reach its end).",
                    style="dim")
    return text.plain


class SpectateScreen(Screen[None]):
    DEFAULT_CSS = """
    #watch-head { height: 1; padding: 0 1; background: #1f2a36; }
    #watch-head { height: auto; max-height: 3; }
    #verdict { height: auto; padding: 0 1; border-top: solid #7ee787; display: none; }
    #watch-side { width: 56; border-left: solid #30363d; }
    SpectateScreen.narrow #columns { layout: vertical; }
    SpectateScreen.narrow #watch-side { width: 100%; height: 7; border-left: none;
                                        border-top: solid #30363d; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left_square_bracket", "scroll_board(-1)", "Scroll board", key_display="[ ]"),
        Binding("right_square_bracket", "scroll_board(1)", "Board ↓", show=False),
        Binding("q", "app.leave", "Leave"),
    ]

    def __init__(self, game_id: str = "") -> None:
        super().__init__()
        self.game_id = game_id
        self.log_lines: list[str] = []
        self.boards = 0  # boards shown so far (tests read it)
        self.waiting: tuple[str, ...] = ()  # whom the game waits for now

    def compose(self) -> ComposeResult:
        with Horizontal(id="columns"):
            with Vertical(id="main"):
                yield PhaseBar(id="phase")
                yield Static(id="watch-head")
                yield ScoreBar(id="scores")
                yield PlanetBoard(id="board")
            with Vertical(id="watch-side"):
                yield RichLog(id="log", wrap=True, markup=False, min_width=20)
        yield CommandText("", id="verdict")
        yield Footer()

    def on_mount(self) -> None:
        self._show_head()

    def _show_head(self, ended: GameEnded | None = None) -> None:
        head = Text("Watching", style="bold #9ecbff")
        head.append(f" game {self.game_id[:8]} · public information only · q leaves, the "
                    "game goes on", style="")
        waiting = ", ".join(self.waiting)
        if ended is not None and ended.unfinished is not None:
            head = Text(f"{ended.unfinished.capitalize()}", style="bold #e3b341")
            if waiting:
                head.append(f"; the game was waiting for {waiting}")
        elif ended is not None:
            head = Text("The game is over", style="bold #9ecbff")
        elif waiting:
            head.append(f"\nWaiting for {waiting}", style="#e3b341")
        self.query_one("#watch-head", Static).update(head)

    def on_resize(self, event: events.Resize) -> None:
        self.set_class(event.size.width < NARROW, "narrow")

    def show_board(self, board: dict[str, Any], names: tuple[str, ...],
                   waiting: tuple[str, ...] = ()) -> None:
        self.boards += 1
        if waiting != self.waiting:
            self.waiting = waiting
            self._show_head()
        show_view((self.query_one(PhaseBar), self.query_one("#scores", ScoreBar),
                   self.query_one(PlanetBoard)), board, names)

    def add_log(self, line: str, style: str = "", event: Event | None = None) -> None:
        """``event``: the engine event the line says, worded from its fields."""
        line = describe(event) if event is not None else readable(line)
        self.log_lines.append(line)
        self.query_one("#log", RichLog).write(Text(line, style=style))

    def show_end(self, ended: GameEnded) -> None:
        self._show_head(ended)
        verdict = self.query_one("#verdict", CommandText)
        verdict.text = verdict_text(ended, self.waiting)
        verdict.tone = ("#7ee787" if ended.result is not None and ended.result.get("ok")
                              else "#e3b341" if ended.unfinished is not None else "red")
        verdict.refresh(layout=True)
        verdict.display = True

    def action_scroll_board(self, direction: int) -> None:
        board = self.query_one(PlanetBoard)
        if direction < 0:
            board.scroll_page_up()
        else:
            board.scroll_page_down()


class SpectateApp(App[int]):
    """``solstice watch CODE``: follow one game as a spectator."""

    CSS_PATH = Path(__file__).parent / "solstice.tcss"
    TITLE = "Solstice — watching"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+c", "leave", "Quit", show=False, priority=True),
    ]

    def __init__(self, code: JoinCode, options: PeerOptions) -> None:
        super().__init__()
        self.code = code
        self.options = options
        self.watch_screen = SpectateScreen(code.game_id)
        self.bridge: TrioBridge | None = None
        self.ended: GameEnded | None = None
        self.left = False

    def on_mount(self) -> None:
        self.push_screen(self.watch_screen)
        self.bridge = TrioBridge(self._from_trio)
        self.bridge.start(functools.partial(run_watch, self.code, self.options))

    def _from_trio(self, item: Any) -> None:
        self.post_message(FromNetwork(item))

    def on_unmount(self) -> None:
        if self.bridge is not None:
            self.bridge.stop()

    def on_from_network(self, message: FromNetwork) -> None:
        self.deliver(message.item)

    def deliver(self, item: Any) -> None:
        """Route one value from the trio side (runs on the UI thread)."""
        item = shown(item)
        screen = self.watch_screen
        if isinstance(item, BoardChanged):
            screen.show_board(item.view, item.names, item.waiting)
        elif isinstance(item, NetNote):
            if item.kind != "input":
                screen.add_log(item.text, NOTE_STYLES.get(item.kind, ""), item.event)
        elif isinstance(item, GameEnded):
            self._end(item)
        elif isinstance(item, BridgeFinished) and self.ended is None:
            reason = "the network side stopped"
            if item.error is not None:
                reason = printable(f"{type(item.error).__name__}: {item.error}", TEXT_LIMIT)
            self._end(GameEnded(None, reason, unfinished="connection lost"))

    def _end(self, ended: GameEnded) -> None:
        if self.ended is None and not self.left:
            self.ended = ended
            self.watch_screen.show_end(ended)

    def action_leave(self) -> None:
        if self.ended is None:
            self.left = True
        if self.bridge is not None:
            self.bridge.stop()  # our link closes: the host drops us, the game goes on
        self.exit(self.exit_code())

    def exit_code(self) -> int:
        if self.left:
            return EXIT_LEFT
        ended = self.ended
        return EXIT_FAIR if ended is not None and ended.result is not None \
            and ended.result.get("ok") else EXIT_NOT_FAIR


def run_watch_ui(code: JoinCode, options: PeerOptions) -> int:
    """Watch in the UI; afterwards print the verdict and the transcript's path."""
    app = SpectateApp(code, options)
    app.run()
    if app.left:
        print("You stopped watching; the game goes on without you.")
    elif app.ended is not None:
        print(verdict_text(app.ended, app.watch_screen.waiting))
    return app.exit_code()
