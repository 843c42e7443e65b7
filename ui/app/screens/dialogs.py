"""Modal screens: help (rules summary and card tables), the full log, leaving a game."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, RichLog, Static

from engine.cards import CARDS, FACTIONS, PLANETS, TYPES, action_card
from ui.app.commandtext import CommandText
from ui.app.lessons import LESSON_IDS, every_lesson
from ui.app.render import EVENT_STYLE, EVENT_TEXT, card_effect, faction_style

RULES_SUMMARY = """\
[b]Goal[/b]: most VP when a round ends with someone at 16+ VP or 3+ casualties.
Final score = VP − casualties (ties: fewer casualties, then turn order).

[b]Each round[/b]
[b]1. Draft[/b]: pick a card (2 on the first pick with 2 players), pass the rest
   (left in odd rounds, right in even). Draft 5 (Messenger 6, Poison 4).
   Leftovers are dealt face up to the planets, top to bottom (never the Desert).
[b]2. Dispatch[/b]: in turn, play one card face down to a planet (max 6 cards,
   Blockade 5), disclosing what the planet asks; or once per round capture a
   card as your prisoner (it comes back to your hand next round).
[b]3. Resolve[/b]: planets top to bottom; cards by initiative, low first.
   [b]Strongest[/b] / [b]favored[/b] = strictly most strength / favor on that planet.
[b]4. Check the end[/b], [b]5. Clean up[/b]: refill hands to 6; most VP goes first.

Kill: the card is discarded; an action card gives its owner a casualty.
Legions may be sacrificed instead of another of your cards on its planet.
"""

LEGEND = """\
[b]Symbols[/b]: S strength · F favor · i initiative (low resolves first) · VP victory points ·
✝ casualties (−1 VP each at the end) · ⛓ holds a prisoner (a captured card) ·
▒ a face-down card · deck N: cards left in the deck (the next round's draft is dealt from it) ·
Claimed: an event card a player claimed; it acts in the round named, then is discarded ·
an Assassin kills one enemy Duchess (strongest Assassin first) and scores only if it does
"""

KEYS = """\
[b]Keys[/b]: arrows / mouse move · Enter choose · Esc back a step · l log ·
[ and ] (or PgUp / PgDn) scroll the board · F1 or ? this help · c copy the join code (lobby) ·
t chat with the table (in the lobby too) · space show the rest of a round's resolution at once
"""


def action_table() -> Table:
    table = Table(title="Action cards (S strength, F favor, VP)", expand=False,
                  title_style="bold")
    table.add_column("card (init.)")
    for faction in FACTIONS:
        table.add_column(faction, style=faction_style(faction))
    for card_type in TYPES:
        first = action_card(FACTIONS[0], card_type)
        row = [f"{card_type} ({first.initiative})"]
        for faction in FACTIONS:
            card = action_card(faction, card_type)
            row.append(f"S{card.strength} F{card.favor} · {card_effect(card)}")
        table.add_row(*row)
    return table


def event_table(in_play: tuple[str, ...] = ()) -> Table:
    table = Table(title="Events (* in this game)", expand=False, title_style="bold")
    table.add_column("event", style=EVENT_STYLE)
    table.add_column("init")
    table.add_column("kind")
    table.add_column("effect")
    for card in CARDS:
        if card.is_event:
            mark = "*" if card.name in in_play else ""
            table.add_row(card.name + mark, str(card.initiative), card.event_kind or "",
                          EVENT_TEXT.get(card.name, ""))
    return table


def planet_table() -> Table:
    table = Table(title="Planets", expand=False, title_style="bold")
    table.add_column("planet")
    table.add_column("VP")
    table.add_column("disclosure when a card is played")
    for planet in PLANETS.values():
        table.add_row(planet.name, str(planet.vp), planet.rule_text())
    return table


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f1,question_mark,q", "close", "Close"),
        *(Binding(str(n + 1), f"lesson({n})", "Lesson", show=False)
          for n in range(len(LESSON_IDS))),
    ]

    def __init__(self, in_play: tuple[str, ...] = (), leave: str = "q leave the game",
                 view: dict[str, Any] | None = None) -> None:
        super().__init__()
        self.in_play = in_play
        self.leave = leave
        self.lessons = every_lesson(view)  # the current board's cards as the examples

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-body"):
            text = Text.from_markup(RULES_SUMMARY + "\n" + LEGEND + "\n" + KEYS)
            text.append(self.leave + "\n")
            text.append("\nLessons", style="bold")
            text.append(" (those of a learning game; a number opens one): " + " · ".join(
                f"{n + 1} {title}" for n, (title, _) in enumerate(self.lessons)) + "\n")
            yield Static(text)
            yield Static(planet_table())
            yield Static(action_table())
            yield Static(event_table(self.in_play))
        yield Footer()

    def action_close(self) -> None:
        self.dismiss(None)

    def action_lesson(self, index: int) -> None:
        self.app.push_screen(LessonScreen(*self.lessons[index]))


class LogScreen(ModalScreen[None]):
    """The whole game log (on narrow terminals the side log is hidden)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,l,q", "close", "Close")]

    def __init__(self, lines: list[str]) -> None:
        super().__init__()
        self.lines = lines

    def compose(self) -> ComposeResult:
        log = RichLog(id="full-log", wrap=True, markup=False, min_width=20)
        yield log
        yield Footer()

    def on_mount(self) -> None:
        log = self.query_one(RichLog)
        for line in self.lines:
            log.write(line)

    def action_close(self) -> None:
        self.dismiss(None)


class LeaveScreen(ModalScreen[bool | str]):
    """Confirm leaving; says whether and how the game can be resumed. ``hand_over``: offer to
    leave for good with the seat handed to the ghost bot (answered with ``"handover"``)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Leave"),
        Binding("h", "hand_over", "Hand over"),
        Binding("n,escape", "answer(False)", "Stay"),
    ]

    def __init__(self, how_to_resume: str, hand_over: bool = False) -> None:
        super().__init__()
        self.how_to_resume = how_to_resume
        self.hand_over = hand_over

    def compose(self) -> ComposeResult:
        with Vertical(id="leave-box"):
            yield Static(Text("Leave the game?", style="bold"))
            yield CommandText(self.how_to_resume, id="leave-text")
            if self.hand_over:
                yield Static("Or hand your seat over (h): the game goes on without you, "
                             "your seat played by the ghost bot on every other player's "
                             "peer, open-handed (they all see your cards); it cannot be "
                             "resumed.", id="handover-text")
            with Horizontal(id="leave-buttons"):
                yield Button("Leave (y)", id="leave", variant="error")
                if self.hand_over:
                    yield Button("Hand over (h)", id="handover", variant="warning")
                yield Button("Stay (n)", id="stay", variant="primary")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "handover":
            self.dismiss("handover")
        else:
            self.dismiss(event.button.id == "leave")

    def action_answer(self, leave: bool) -> None:
        self.dismiss(leave)

    def action_hand_over(self) -> None:
        if self.hand_over:
            self.dismiss("handover")


class EscrowScreen(ModalScreen[bool]):
    """Agree to join a table that escrows every player's secret, or not."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Join"),
        Binding("n,escape", "answer(False)", "Do not join"),
    ]

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(id="leave-box"):
            yield Static(Text("This table escrows your secret", style="bold"))
            yield Static(self.text, id="escrow-text")
            with Horizontal(id="leave-buttons"):
                yield Button("Join (y)", id="join", variant="warning")
                yield Button("Do not join (n)", id="stay", variant="primary")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "join")

    def action_answer(self, join: bool) -> None:
        self.dismiss(join)


class LessonScreen(ModalScreen[None]):
    """A ``--learn`` lesson: one phase explained, the current cards as the example."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,escape,space", "close", "Got it"),
        Binding("f1", "app.help", "Full rules"),
    ]

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.title_text, self.text = title, text

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="lesson-box") as box:
            box.border_title = self.title_text
            yield Static(self.text, id="lesson-text")
            yield Static(Text("Enter: got it · F1: the full rules", style="dim"))
        yield Footer()

    def action_close(self) -> None:
        self.dismiss(None)
