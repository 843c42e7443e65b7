"""The game screen: board, scores, the action panel for the current prompt, the log.

The action panel is one OptionList whose options change with the prompt (draft pick,
dispatch card -> destination -> disclosure, or a decision), so the keys are always the same:
arrows/mouse to move, Enter to choose, Esc to go back a step.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, OptionList, RichLog, Static
from textual.widgets.option_list import Option, OptionDoesNotExist

from engine import Action
from engine.disclosure import describe_claim
from ui.app.chat import ChatInput
from ui.app.choices import Destination, DispatchChoices, DraftChoices, decision_options, prompt_kind
from ui.app.messages import AskHuman
from ui.app.render import card_chip, card_line, option_text, planet_header
from ui.app.widgets import (
    PhaseBar,
    PlanetBoard,
    ScoreBar,
    SideScores,
    StatusLine,
    picked_line,
    show_view,
)
from ui.app.wording import card_name, readable

NARROW = 110  # below this width the log moves to its own screen (key l), scores on top
PANEL_SHARE = 0.65  # the action panel's max-height (solstice.tcss #panel)
PANEL_CHROME = 3  # its border (2 rows) and the key hint (1)


class GameScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", show=False),  # the prompt's hint names Esc
        Binding("f1", "app.help", "Help"),
        Binding("question_mark", "app.help", "Help", show=False),
        Binding("l", "show_log", "Log"),
        Binding("t", "chat", "Chat", show=False),  # in F1 help and README (footer kept)
        Binding("space", "app.skip_reveal", "Show all", show=False),  # a paced resolution
        Binding("pageup", "scroll_board(-1)", "Board ↑", show=False),
        Binding("pagedown", "scroll_board(1)", "Board ↓", show=False),
        Binding("left_square_bracket", "scroll_board(-1)", "Scroll board", key_display="[ ]"),
        Binding("right_square_bracket", "scroll_board(1)", "Board ↓", show=False),
        Binding("q", "app.leave", "Quit"),
    ]

    class Answered(Message):
        """The human chose ``action`` for the prompt ``serial``."""

        def __init__(self, serial: int, action: Action) -> None:
            super().__init__()
            self.serial = serial
            self.action = action

    def __init__(self) -> None:
        super().__init__()
        self.view: dict[str, Any] | None = None
        self.names: tuple[str, ...] = ()
        self.waiting: tuple[str, ...] = ()
        self.ask: AskHuman | None = None
        self.log_lines: list[str] = []
        # prompt state
        self.draft: DraftChoices | None = None
        self.marked: list[int] = []
        self.dispatch: DispatchChoices | None = None
        self.step: tuple[Any, ...] = ()
        self._pending: list[Callable[[], None]] = []
        self._ready = False  # set in on_mount (``is_mounted`` is only true after it)
        self._prompt_text = ""

    def compose(self) -> ComposeResult:
        # The status line sits right under the phase bar so that "Your move." and the wait
        # never scroll away; the board takes what the panel leaves and scrolls with [ ].
        with Horizontal(id="columns"):
            with Vertical(id="main"):
                yield PhaseBar(id="phase")
                yield StatusLine(id="status")
                yield ScoreBar(id="scores")
                yield PlanetBoard(id="board")
                with Vertical(id="panel"):
                    yield Static(id="prompt")
                    yield OptionList(id="choices")
                    yield Static(id="hint")
            with Vertical(id="side"):
                yield SideScores(id="side-scores")
                yield RichLog(id="log", wrap=True, markup=False, min_width=20)
        yield ChatInput()
        yield Footer()

    def on_mount(self) -> None:
        # Data may arrive between push_screen and mount; it waits here until the widgets exist.
        self._ready = True
        pending, self._pending = self._pending, []
        self._refresh_panel()
        self.query_one("#choices", OptionList).focus()
        for call in pending:
            call()

    def on_resize(self, event: events.Resize) -> None:
        self.set_class(event.size.width < NARROW, "narrow")
        if self._ready:
            self._fit_choices()

    def _fit_choices(self) -> None:
        """Give the choices only the rows the panel has left, so that they scroll instead of
        pushing the last option and the key hint out of a short terminal (60x20)."""
        main = self.query_one("#main").size
        height, width = main.height, main.width
        if not height or not width:
            return
        prompt = str(self._prompt_text)
        # Word wrap takes a little more than the characters' share: one row of slack.
        lines = sum(1 + len(line) // max(1, width - 4) for line in prompt.split("\n")) + 1
        room = int(height * PANEL_SHARE) - PANEL_CHROME - min(5, lines)
        self.query_one("#choices", OptionList).styles.max_height = max(2, min(12, room))

    # -- data in ----------------------------------------------------------------------------

    def show_board(self, view: dict[str, Any], names: tuple[str, ...] = (),
                   waiting: tuple[str, ...] = (),
                   clocks: tuple[float | None, ...] | None = None) -> None:
        """``clocks``: seconds left per seat on the decision clock (None: keep the shown ones)."""
        if not self._ready:
            self._pending.append(lambda: self.show_board(view, names, waiting, clocks))
            return
        self.view, self.names, self.waiting = view, names, waiting
        show_view((self.query_one(PhaseBar), self.query_one("#scores", ScoreBar),
                   self.query_one(SideScores), self.query_one(PlanetBoard)), view, names)
        if self.ask is None:
            self._refresh_panel()
        elif self.draft is not None:
            # Who has committed this pick changes while we choose: keep the cursor and marks.
            self._refresh_panel(highlight=self.query_one("#choices", OptionList).highlighted or 0)
        status = self.query_one(StatusLine)
        status.show_waiting(view, waiting, self.ask is not None)
        if clocks is None:
            return
        # Every board from the session says who is on the clock now: none clears the old ones.
        status.show_clocks({view["factions"][seat]: left for seat, left in enumerate(clocks)
                            if left is not None})

    def ask_human(self, ask: AskHuman) -> None:
        if not self._ready:
            self._pending.append(lambda: self.ask_human(ask))
            return
        self.ask = ask
        self.show_board(ask.view, ask.names or self.names, ())
        kind = prompt_kind(ask.legal)
        self.draft = DraftChoices(ask.legal) if kind == "draft" else None
        self.dispatch = DispatchChoices(ask.legal) if kind == "dispatch" else None
        self.marked = []
        self.step = ("card",) if kind == "dispatch" else ()
        self._refresh_panel()
        if not self.query_one(ChatInput).display:  # never pull the keys away from a chat line
            self.query_one("#choices", OptionList).focus()

    def add_log(self, line: str | Text, style: str = "") -> None:
        """A line for the log pane (a ``Text`` is shown as it is: a chat line)."""
        if not self._ready:
            self._pending.append(lambda: self.add_log(line, style))
            return
        text = line if isinstance(line, Text) else Text(readable(line), style=style)
        self.log_lines.append(text.plain)
        self.query_one("#log", RichLog).write(text)

    # -- the action panel -------------------------------------------------------------------

    def _set_options(self, prompt: Text | str, options: list[tuple[str, Text]],
                     hint: str, *, disabled: bool = False, highlight: int = 0) -> None:
        self.query_one("#prompt", Static).update(prompt)
        self._prompt_text = prompt.plain if isinstance(prompt, Text) else prompt
        self._fit_choices()
        self.query_one("#hint", Static).update(Text(hint, style="dim"))
        choices = self.query_one("#choices", OptionList)
        choices.clear_options()
        choices.add_options([Option(text, id=key, disabled=disabled) for key, text in options])
        if options and not disabled:
            choices.highlighted = min(highlight, len(options) - 1)

    def _refresh_panel(self, highlight: int = 0) -> None:
        view = self.view
        if view is None:
            self._set_options("Setting up: seats, planets and the shuffled deck…", [], "")
            return
        if self.ask is None:
            self._show_hand(view)
        elif self.draft is not None:
            self._show_draft(view, highlight)
        elif self.dispatch is not None:
            self._show_dispatch(view, highlight)
        else:
            self._show_decision(view)

    def _hand_labels(self, view: dict[str, Any]) -> dict[int, str | None]:
        return {c["slot"]: c["label"] for c in view["hand"]}

    def _show_hand(self, view: dict[str, Any]) -> None:
        title = "Your hand" if view["phase"] != "draft" else "Cards you are drafting from"
        drafted = [c["label"] for c in view["drafted"]]
        prompt = Text(f"{title} — not your turn")
        if view["phase"] == "draft":
            prompt.append(f" · drafted so far: {len(drafted)}")
        options = [(f"hand-{c['slot']}", card_line(c["label"])) for c in view["hand"]]
        if view["phase"] == "draft" and drafted:
            options += [(f"drafted-{i}", Text("✓ ").append_text(card_line(label)))
                        for i, label in enumerate(drafted)]
        self._set_options(prompt, options, "F1 rules and cards · l log · q quit",
                          disabled=True)

    def _show_draft(self, view: dict[str, Any], highlight: int) -> None:
        assert self.draft is not None
        labels = self._hand_labels(view)
        need = self.draft.count
        prompt = Text()
        prompt.append(f"Draft: pick {need} card{'s' if need > 1 else ''}", style="bold")
        prompt.append(f" (passing {view['direction']}; drafted "
                      f"{len(view['drafted'])} so far). ")
        prompt.append_text(picked_line(view, self.names))
        if view["drafted"]:
            prompt.append("\nDrafted: ", style="dim")
            prompt.append(", ".join(card_name(c["label"]) if c["label"] else "?"
                                    for c in view["drafted"]), style="dim")
        if need > 1:
            marked = ", ".join(card_name(labels.get(slot) or "?") for slot in self.marked)
            prompt.append(f"\nMarked {len(self.marked)} of {need}" +
                          (f": {marked}" if marked else ""), style="bold #7ee787")
        options = []
        for slot in self.draft.slots:
            mark = "[x] " if slot in self.marked else ("[ ] " if need > 1 else "")
            options.append((f"slot-{slot}", Text(mark).append_text(card_line(labels.get(slot)))))
        hint = ("Enter: pick this card" if need == 1 else
                f"↑↓ then Enter: mark/unmark (sent when {need} are marked)") + \
            " · F1 rules and cards"
        self._set_options(prompt, options, hint, highlight=highlight)

    def _show_dispatch(self, view: dict[str, Any], highlight: int) -> None:
        assert self.dispatch is not None
        labels = self._hand_labels(view)
        step = self.step
        if step[0] == "card":
            prompt = Text("Your turn to dispatch: choose a card", style="bold")
            options = [(f"slot-{slot}", card_line(labels.get(slot)))
                       for slot in self.dispatch.cards()]
            self._set_options(prompt, options, "Enter: choose · F1 rules and cards",
                              highlight=highlight)
            return
        slot = step[1]
        chosen = card_chip(labels.get(slot))
        if step[0] == "dest":
            prompt = Text("Play ", style="bold").append_text(chosen)
            prompt.append(" to…", style="bold")
            options = []
            for dest in self.dispatch.destinations(slot):
                options.append((self._dest_key(dest), self._dest_text(dest, view)))
            self._set_options(prompt, options, "Enter: choose · Esc: another card",
                              highlight=highlight)
            return
        planet = step[2]
        prompt = Text("Play ", style="bold").append_text(chosen)
        prompt.append(f" to {view['planets'][planet]['name']}: what do you disclose?",
                      style="bold")
        options = [(f"claim-{claim}", Text(describe_claim(claim)))
                   for claim in self.dispatch.claims(slot, planet)]
        self._set_options(prompt, options, "Enter: choose · Esc: another planet",
                          highlight=highlight)

    @staticmethod
    def _dest_key(dest: Destination) -> str:
        return f"planet-{dest.planet}" if dest.kind == "planet" else dest.kind

    def _dest_text(self, dest: Destination, view: dict[str, Any]) -> Text:
        if dest.kind == "capture":
            return Text("Capture it as your prisoner (once per round; back in your hand "
                        "next round)", style="bold")
        if dest.kind == "discard":
            return Text("Discard it (every planet is full)", style="bold")
        planet = view["planets"][dest.planet]
        return planet_header(planet, view, self.names)

    def _show_decision(self, view: dict[str, Any]) -> None:
        assert self.ask is not None
        decision = view.get("decision") or {}
        prompt = Text(decision.get("prompt") or "Choose", style="bold")
        options = [(f"opt-{i}", option_text(choice.option, view, self.names))
                   for i, choice in enumerate(decision_options(self.ask.legal))]
        self._set_options(prompt, options, "Enter: choose · F1 rules and cards")

    # -- choosing ---------------------------------------------------------------------------

    @on(OptionList.OptionSelected, "#choices")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        if self.ask is None or self.view is None:
            return
        key = event.option.id or ""
        index = event.option_index
        if not self._current_option(index, key):
            return  # a second Enter queued before the first replaced the list: a stale pick
        if self.draft is not None:
            self._choose_draft(int(key.removeprefix("slot-")), index)
        elif self.dispatch is not None:
            self._choose_dispatch(key)
        else:
            self._answer(decision_options(self.ask.legal)[index])

    def _current_option(self, index: int, key: str) -> bool:
        """The list shows ``key`` at ``index`` now (a redraw of the same choices keeps it)."""
        try:
            return self.query_one("#choices", OptionList).get_option_at_index(index).id == key
        except OptionDoesNotExist:
            return False

    def _choose_draft(self, slot: int, index: int) -> None:
        assert self.draft is not None
        if slot in self.marked:
            self.marked.remove(slot)
        else:
            self.marked.append(slot)
        if len(self.marked) == self.draft.count:
            action = self.draft.action_for(self.marked)
            if action is not None:
                self._answer(action)
                return
            self.marked = []
        # The cursor stays on the card just (un)marked: a highlight that moved on by itself
        # made players mark a card they never looked at. The prompt says what is marked.
        self._refresh_panel(highlight=index)

    def _choose_dispatch(self, key: str) -> None:
        assert self.dispatch is not None
        step = self.step
        if step[0] == "card":
            self.step = ("dest", int(key.removeprefix("slot-")))
        elif step[0] == "dest":
            slot = step[1]
            if key.startswith("planet-"):
                planet = int(key.removeprefix("planet-"))
                claims = self.dispatch.claims(slot, planet)
                if len(claims) == 1:  # nothing to decide: the rule fixes the disclosure
                    self._answer(self.dispatch.action_for(slot, Destination("planet", planet),
                                                          claims[0]))
                    return
                self.step = ("claim", slot, planet)
            else:
                self._answer(self.dispatch.action_for(slot, Destination(key)))
                return
        else:
            _, slot, planet = step
            self._answer(self.dispatch.action_for(slot, Destination("planet", planet),
                                                  key.removeprefix("claim-")))
            return
        self._refresh_panel()

    def action_back(self) -> None:
        if self.ask is None:
            return
        if self.dispatch is not None and len(self.step) > 1:
            self.step = ("card",) if self.step[0] == "dest" else ("dest", self.step[1])
            self._refresh_panel()
        elif self.draft is not None and self.marked:
            self.marked.pop()
            self._refresh_panel()

    def _answer(self, action: Action) -> None:
        assert self.ask is not None
        serial = self.ask.serial
        self.ask = None
        self.draft = self.dispatch = None
        self.post_message(self.Answered(serial, action))
        self._refresh_panel()
        self.query_one(StatusLine).show_waiting(self.view, self.waiting, False)

    def action_chat(self) -> None:
        self.query_one(ChatInput).open()

    def on_chat_input_closed(self, _message: ChatInput.Closed) -> None:
        self.query_one("#choices", OptionList).focus()

    def action_show_log(self) -> None:
        from ui.app.screens.dialogs import LogScreen

        self.app.push_screen(LogScreen(self.log_lines))

    def action_scroll_board(self, direction: int) -> None:
        board = self.query_one(PlanetBoard)
        if direction < 0:
            board.scroll_page_up()
        else:
            board.scroll_page_down()
