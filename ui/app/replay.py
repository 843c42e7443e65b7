"""The replay viewer: a finished, verified game, move by move, as any seat saw it or all open.

Keys: → / n next move, ← / p previous, ] / [ next / previous round, 1-9 jump to a round,
Home / End first / last move, v whose view (each seat in turn, then every card open),
PgUp / PgDn scroll, q or Esc close.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from ui.app.render import PHASE_NAMES, card_chip, faction_style
from ui.app.replay_data import Replay, Step, open_view, seat_view
from ui.app.widgets import PhaseBar, PlanetBoard, ScoreBar, show_view

NARROW = 100  # below this width the scores and the move's log go under the board


def scores_table(replay: Replay, upto_round: int) -> Table:
    """VP of every seat after each round so far (the current round: so far)."""
    table = Table(title="VP by round", title_style="bold", expand=False, padding=(0, 1))
    table.add_column("rd", justify="right")
    for faction in replay.factions:
        table.add_column(faction[:5], justify="right", style=faction_style(faction))
    for rnd, vps in replay.scores_by_round():
        if rnd > upto_round:
            break
        table.add_row(str(rnd), *(str(v) for v in vps))
    return table


class ReplayScroll(VerticalScroll, can_focus=False):
    """Scrolled by the screen's PgUp/PgDn, so that every other key stays the viewer's."""


class ReplayScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,n", "move(1)", "Next"),
        Binding("left,p", "move(-1)", "Back"),
        Binding("right_square_bracket", "round(1)", "Round", key_display="[ ]"),
        Binding("left_square_bracket", "round(-1)", "Previous round", show=False),
        Binding("home", "jump(0)", "First", show=False),
        Binding("end", "jump(-1)", "Last", show=False),
        Binding("v", "viewpoint", "View as"),
        Binding("pageup", "scroll(-1)", "Scroll", show=False),
        Binding("pagedown", "scroll(1)", "Scroll", show=False),
        Binding("q,escape", "close", "Close"),
    ]

    def __init__(self, replay: Replay, viewer: int = 0) -> None:
        """``viewer``: the seat whose view is shown first (the player's own, from the end
        screen)."""
        super().__init__()
        self.replay = replay
        self.index = 0
        self.viewer: int | None = viewer  # a seat, or None: every card open

    def compose(self) -> ComposeResult:
        yield Static(id="replay-head")
        yield Static(id="replay-move")
        with ReplayScroll(id="replay-scroll"), Horizontal(id="replay-body"):
            with Vertical(id="replay-board"):
                yield PhaseBar(id="phase")
                yield ScoreBar(id="scores")
                yield PlanetBoard(id="board")
                yield Static(id="replay-hand")
            with Vertical(id="replay-side"):
                yield Static(id="replay-scores")
                yield Static(id="replay-log")
        yield Footer()

    def on_mount(self) -> None:
        self.show()

    def on_resize(self, event: events.Resize) -> None:
        self.set_class(event.size.width < NARROW, "narrow")

    @property
    def step(self) -> Step:
        return self.replay.steps[self.index]

    def current_view(self) -> dict[str, Any]:
        seat = self.viewer if self.viewer is not None else 0
        v = seat_view(self.step, seat) if self.viewer is not None else open_view(self.step, seat)
        v["spectator"] = True
        return v

    def show(self) -> None:
        replay, step = self.replay, self.step
        v = self.current_view()
        seen_by = ("every card open" if self.viewer is None else
                   f"as {replay.who(self.viewer)} saw it")
        head = Text()
        head.append("Replay", style="bold")
        head.append(f" · move {self.index}/{len(replay.steps) - 1} · Round {v['round']} "
                    f"{PHASE_NAMES.get(v['phase'], v['phase'])} · ")
        head.append(seen_by, style="bold #e3b341")
        self.query_one("#replay-head", Static).update(head)
        move = Text()
        if step.seat is not None:
            move.append(replay.who(step.seat) + ": ", style=faction_style(
                replay.factions[step.seat]))
        move.append(step.move.split(": ", 1)[-1] if step.seat is None else step.move,
                    style="bold")
        if step.disclosed:
            move.append("\n  disclosed: ", style="dim")
            move.append(step.disclosed, style="#9ecbff")
            move.append("   true card: ", style="dim")
            move.append(step.truth, style="bold")
        self.query_one("#replay-move", Static).update(move)
        show_view((self.query_one(PhaseBar), self.query_one(ScoreBar),
                   self.query_one(PlanetBoard)), v, replay.names)
        self.query_one("#replay-hand", Static).update(self._hand(v))
        self.query_one("#replay-scores", Static).update(scores_table(replay, v["round"]))
        log = Text("This move:\n", style="bold")
        for line in step.log or ("(nothing else happened)",):
            log.append(line + "\n", style="")
        self.query_one("#replay-log", Static).update(log)

    def _hand(self, v: dict[str, Any]) -> Text:
        if self.viewer is None:
            text = Text("Hands:", style="bold")
            for seat in range(len(self.replay.factions)):
                hand = seat_view(self.step, seat)["hand"]
                text.append(f"\n {self.replay.factions[seat]}: ",
                            style=faction_style(self.replay.factions[seat]))
                text.append_text(Text(" ").join(card_chip(c["label"]) for c in hand)
                                 if hand else Text("empty", style="dim"))
            return text
        text = Text(f"{self.replay.factions[self.viewer]}'s hand: ", style="bold")
        text.append_text(Text(" ").join(card_chip(c["label"]) for c in v["hand"])
                         if v["hand"] else Text("empty", style="dim"))
        if v["prisoner"]:
            text.append("\nPrisoner: ", style="bold")
            text.append_text(card_chip(v["prisoner"]["label"]))
        return text

    # -- keys ------------------------------------------------------------------------------

    def action_move(self, delta: int) -> None:
        self.index = max(0, min(len(self.replay.steps) - 1, self.index + delta))
        self.show()

    def action_jump(self, index: int) -> None:
        self.index = index % len(self.replay.steps)
        self.show()
        # Another place in the game: its board from the top, not at the old scroll.
        self.query_one(ReplayScroll).scroll_home(animate=False)

    def action_round(self, delta: int) -> None:
        starts = sorted(self.replay.round_starts().items())
        current = self.step.state.round
        target = current + delta
        for rnd, index in starts:
            if rnd == target:
                self.index = index
                break
        else:
            self.index = 0 if delta < 0 else len(self.replay.steps) - 1
        self.show()

    def jump_to_round(self, rnd: int) -> None:
        index = self.replay.round_starts().get(rnd)
        if index is None:
            self.notify(f"This game has no round {rnd}", severity="warning")
            return
        self.index = index
        self.show()

    def on_key(self, event: events.Key) -> None:
        if event.character and event.character.isdigit() and event.character != "0":
            event.stop()
            self.jump_to_round(int(event.character))

    def action_viewpoint(self) -> None:
        seats = len(self.replay.factions)
        if self.viewer is None:
            self.viewer = 0
        elif self.viewer + 1 < seats:
            self.viewer += 1
        else:
            self.viewer = None
        self.show()

    def action_scroll(self, direction: int) -> None:
        scroll = self.query_one(ReplayScroll)
        if direction < 0:
            scroll.scroll_page_up()
        else:
            scroll.scroll_page_down()

    def action_close(self) -> None:
        if len(self.app.screen_stack) > 2:
            self.dismiss(None)
        else:
            self.app.exit()


class ReplayApp(App[None]):
    """``solstice replay TRANSCRIPT``: the viewer on its own."""

    CSS_PATH = Path(__file__).parent / "solstice.tcss"  # absolute: subclasses live elsewhere
    TITLE = "Solstice replay"

    def __init__(self, replay: Replay, seat: int = 0) -> None:
        super().__init__()
        self.replay = replay
        self.seat = seat

    def on_mount(self) -> None:
        self.push_screen(ReplayScreen(self.replay, self.seat))
