"""The start screen: the games advertised on the LAN, kept current, to join with Enter (and,
for ``solstice play``, a first entry to play against local bots instead).

Browsing blocks (python-zeroconf), so it runs in a worker thread that hands each new list to
the UI thread; the screen never dials anything itself: it answers with a ``NetSetup``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, Protocol

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from p2p.errors import LocalProtocolError
from p2p.net.discovery import Browser, GameAd
from p2p.net.games import PeerOptions
from p2p.net.shortcode import display
from ui.app.netgame import NetSetup

BOTS_OPTION = "bots"
LEARN_OPTION = "learn"
LEARN_LABEL = "Learn the game: 2 players against a gentle bot, each phase explained"


class GameSource(Protocol):
    """What the screen needs of a browser (``p2p.net.discovery.Browser`` or a test's fake)."""

    games: dict[str, GameAd]

    def poll(self, timeout: float) -> bool: ...

    def close(self) -> None: ...


@dataclass
class LanStart:
    """What the start screen offers: join a discovered game with ``join_options``, or (when
    ``bots`` is set) play the local game against bots."""

    join_options: PeerOptions
    bots: NetSetup | None = None
    bots_label: str = "Play against bots"
    learn: NetSetup | None = None  # "Learn the game": a 2-player game that explains itself
    source: Callable[[], GameSource] | None = None  # None: the real browser
    # A host killed without a goodbye stays in a browser's cache for minutes (the record's
    # time to live): every ``sweep`` seconds a fresh browser, its cache empty, gathers for
    # ``gather`` seconds and replaces the old one, so only hosts that still answer are listed.
    sweep: float = 10.0
    gather: float = 2.0

    def open_source(self) -> GameSource:
        if self.source is not None:
            return self.source()
        return Browser(self.join_options.discovery_interface)


def game_label(ad: GameAd) -> Text:
    text = Text()
    text.append(f"{display(ad.short)}  ", style="bold")
    text.append(ad.name, style="bold #7ee787")  # a valid roster name: printable, <= 32 chars
    text.append(f"  {ad.taken}/{ad.players} players, {ad.free} free", style="")
    text.append(f"  host {ad.host_id[:8]}", style="dim")
    return text


class StartScreen(Screen[tuple[NetSetup, str] | None]):
    """Answers (the setup to run, the lobby title), or None if the human quit."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit_start", "Quit"),
        Binding("escape", "quit_start", "Quit", show=False),
    ]

    def __init__(self, start: LanStart) -> None:
        super().__init__()
        self.start = start
        self.games: dict[str, GameAd] = {}  # option id -> game

    def compose(self) -> ComposeResult:
        with Vertical(id="start-box"):
            yield Static(Text("Solstice — games on the LAN", style="bold"), id="start-title")
            yield OptionList(id="lan-games")
            yield Static(Text("Looking for games on the LAN…", style="#e3b341"),
                         id="start-status")
        yield Footer()

    def on_mount(self) -> None:
        self.show_games([])
        self.query_one("#lan-games", OptionList).focus()
        self.run_worker(self._browse, thread=True, exclusive=True, group="discovery")

    def _browse(self) -> None:
        worker = get_current_worker()
        try:
            source = self.start.open_source()
        except LocalProtocolError as exc:
            self.app.call_from_thread(self._status, f"LAN discovery is unavailable: {exc}")
            return
        try:
            next_sweep = time.monotonic() + self.start.sweep
            while not worker.is_cancelled:
                changed = source.poll(0.2)
                if time.monotonic() >= next_sweep:
                    source = self._swept(source)
                    next_sweep, changed = time.monotonic() + self.start.sweep, True
                if changed:
                    found = list(source.games.values())
                    for ad in found:
                        _ = ad.short  # the slow hash runs here, not on the UI thread (cached)
                    self.app.call_from_thread(self.show_games, found)
        finally:
            source.close()

    def _swept(self, old: GameSource) -> GameSource:
        """A fresh source that gathered for a while (the old one stays if it cannot open)."""
        try:
            fresh = self.start.open_source()
        except LocalProtocolError:
            return old
        deadline = time.monotonic() + self.start.gather
        while (left := deadline - time.monotonic()) > 0:
            fresh.poll(min(left, 0.2))
        if fresh is not old:
            old.close()
        return fresh

    def show_games(self, found: list[GameAd]) -> None:
        """Rebuild the list, keeping the highlight on the same entry."""
        options = self.query_one("#lan-games", OptionList)
        kept = options.highlighted_option.id if options.highlighted_option else None
        entries: list[Option] = []
        if self.start.bots is not None:
            entries.append(Option(Text(self.start.bots_label, style="bold"), id=BOTS_OPTION))
        if self.start.learn is not None:
            entries.append(Option(Text(LEARN_LABEL, style="bold #7ee787"), id=LEARN_OPTION))
        self.games = {}
        for ad in sorted(found, key=lambda a: (a.name, a.short)):
            option_id = f"{ad.host_id}:{ad.game_id}"
            self.games[option_id] = ad
            entries.append(Option(game_label(ad), id=option_id, disabled=ad.free == 0))
        options.set_options(entries)
        ids = [e.id for e in entries]
        if kept in ids:
            options.highlighted = ids.index(kept)
        elif entries:
            options.highlighted = 0
        count = len(found)
        self._status(f"{count} game(s) found; Enter joins the highlighted one" if count else
                     "No games found yet; still looking…")

    def _status(self, text: str) -> None:
        self.query_one("#start-status", Static).update(Text(text, style="#e3b341"))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id == BOTS_OPTION and self.start.bots is not None:
            self.dismiss((self.start.bots, self.start.bots_label))
            return
        if event.option.id == LEARN_OPTION and self.start.learn is not None:
            self.dismiss((self.start.learn, "Solstice — a learning game"))
            return
        ad = self.games.get(event.option.id or "")
        if ad is None:
            return
        setup = NetSetup("join", self.start.join_options, code=ad.join_code())
        self.dismiss((setup, f"Solstice — joining the game of {ad.name}"))

    def action_quit_start(self) -> None:
        self.dismiss(None)
