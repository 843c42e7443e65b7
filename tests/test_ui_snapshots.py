"""Snapshots of the screens, rendered from deterministic local engine states (no network).

Regenerate after an intended change with ``pytest tests/test_ui_snapshots.py
--snapshot-update`` and look at the SVGs in ``__snapshots__`` before committing them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rich.text import Text
from textual.app import App

from engine import (
    CHANCE,
    GameState,
    RandomStream,
    apply,
    is_over,
    legal_actions,
    new_game,
    random_chance,
    random_config,
    to_move,
)
from engine.cleanup import final_scores, ranking
from engine.view import view
from ui.app import widgets
from ui.app.messages import AskHuman, GameEnded, RosterLine
from ui.app.render import scores_line
from ui.app.replay import ReplayScreen
from ui.app.replay_data import Replay, build_steps
from ui.app.screens.game import GameScreen
from ui.app.screens.lobby import LobbyScreen
from ui.app.screens.summary import EndScreen, RoundSummaryScreen, resolution_lines
from ui.app.wording import describe

CSS = "../ui/app/solstice.tcss"
NAMES3 = ("", "greedy-1", "random-2")
SMALL, STANDARD, WIDE = (60, 20), (80, 24), (160, 50)


@pytest.fixture(autouse=True)
def frozen_status_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """The spinner and the time waited come from this clock: frozen, snapshots are stable."""
    monkeypatch.setattr(widgets, "now", lambda: 1000.0)


def _game(players: int, seed: bytes) -> tuple[GameState, RandomStream]:
    stream = RandomStream(seed)
    config = random_config(players, stream)
    order = stream.sample(config.card_ids(), len(config.card_ids()))
    return new_game(config, deck_order=order), stream


def _step(s: GameState, stream: RandomStream) -> GameState:
    """One scripted move: chance from the stream, players a stream-chosen legal action."""
    movers = to_move(s)
    if movers == [CHANCE]:
        return apply(s, random_chance(s, stream))
    legal = legal_actions(s, movers[0])
    return apply(s, legal[stream.randbelow(len(legal))])


def _advance(s: GameState, stream: RandomStream, until) -> GameState:
    for _ in range(2000):
        if until(s):
            return s
        s = _step(s, stream)
    raise AssertionError("fixture state not reached")


class GameFixture(App[None]):
    """Shows the game screen with one seat's view and, optionally, its prompt."""

    CSS_PATH = CSS

    def __init__(self, s: GameState, seat: int, ask: bool = True) -> None:
        super().__init__()
        self.state, self.seat, self.ask = s, seat, ask

    def on_mount(self) -> None:
        screen = GameScreen()
        self.push_screen(screen)
        v = view(self.state, self.seat)
        screen.show_board(v, NAMES3[: self.state.n], ("random-2",) if not self.ask else ())
        for event in self.state.events[-12:]:
            screen.add_log(describe(event))
        if self.ask:
            legal = tuple(legal_actions(self.state, self.seat))
            screen.ask_human(AskHuman(1, v, legal, NAMES3[: self.state.n]))


class ScreenFixture(App[None]):
    CSS_PATH = CSS

    def __init__(self, screen_factory) -> None:
        super().__init__()
        self.screen_factory = screen_factory

    def on_mount(self) -> None:
        self.push_screen(self.screen_factory())


def test_lobby(snap_compare) -> None:
    def lobby() -> LobbyScreen:
        screen = LobbyScreen("Solstice — hosting a 3-player game")

        def fill() -> None:
            screen.show_code("sol1-" + "abcdefgh" * 12, 3)
            screen.show_roster(3, (RosterLine("host", "1f2e3d4c5b6a"),
                                   RosterLine("bob", "a1b2c3d4e5f6")))
            screen.show_status("waiting for 1 more player…")

        screen.call_after_refresh(fill)
        return screen

    assert snap_compare(ScreenFixture(lobby), terminal_size=(80, 24))


def test_draft(snap_compare) -> None:
    s, _ = _game(3, b"snapshot-draft")
    assert snap_compare(GameFixture(s, 0), terminal_size=(80, 24))


def test_draft_two_card_pick_marked(snap_compare) -> None:
    s, _ = _game(2, b"snapshot-draft2")
    assert snap_compare(GameFixture(s, 0), press=["enter"], terminal_size=(80, 24))


def _dispatch_state() -> tuple[GameState, int]:
    s, stream = _game(3, b"snapshot-dispatch")
    s = _advance(s, stream, lambda s: s.phase.value == "dispatch" and s.decision is None
                 and sum(len(p) for p in s.planets) >= 6 and to_move(s) != [CHANCE])
    return s, to_move(s)[0]


def test_dispatch_choose_planet(snap_compare) -> None:
    s, seat = _dispatch_state()
    # Enter chooses the highlighted card; the screen then offers the legal destinations.
    assert snap_compare(GameFixture(s, seat), press=["enter"], terminal_size=(80, 24))


def test_dispatch_wide_terminal_with_log(snap_compare) -> None:
    s, seat = _dispatch_state()
    assert snap_compare(GameFixture(s, seat), terminal_size=(160, 50))


def test_draft_fifth_pick_on_a_small_terminal_still_lists_the_cards(snap_compare) -> None:
    s, stream = _game(3, b"snapshot-draft5")
    s = _advance(s, stream, lambda s: len(s.drafted[0]) == 4 and s.picks[0] is None
                 and to_move(s) != [CHANCE])
    assert snap_compare(GameFixture(s, 0), terminal_size=SMALL)


def test_dispatch_choose_planet_small_terminal(snap_compare) -> None:
    s, seat = _dispatch_state()
    assert snap_compare(GameFixture(s, seat), press=["enter"], terminal_size=SMALL)


def test_board_while_waiting_small_terminal(snap_compare) -> None:
    s, seat = _dispatch_state()
    assert snap_compare(GameFixture(s, (seat + 1) % 3, ask=False), terminal_size=SMALL)


def _decision_state() -> GameState:
    s, stream = _game(3, b"snapshot-decision")
    return _advance(s, stream, lambda s: s.decision is not None)


@pytest.mark.parametrize("size", [STANDARD, SMALL], ids=["80x24", "60x20"])
def test_decision_prompt(snap_compare, size: tuple[int, int]) -> None:
    s = _decision_state()
    assert snap_compare(GameFixture(s, s.decision.seat), terminal_size=size)


@pytest.mark.parametrize("size", [STANDARD, SMALL], ids=["80x24", "60x20"])
def test_resolution_summary(snap_compare, size: tuple[int, int]) -> None:
    s, stream = _game(3, b"snapshot-resolution")
    s = _advance(s, stream, lambda s: s.round == 2)
    v = view(s, 0)
    lines = resolution_lines(s.events)
    assert lines, "round 1 resolved nothing"
    assert snap_compare(ScreenFixture(lambda: RoundSummaryScreen(1, lines, scores_line(
        v, NAMES3))), terminal_size=size)


def _end_result(s: GameState) -> dict[str, Any]:
    factions = s.config.factions
    scores = final_scores(s)
    return {"ok": True, "scores": dict(zip(factions, scores, strict=True)),
            "winner": factions[ranking(s)[0]], "rounds": s.round,
            "vp": dict(zip(factions, s.vp, strict=True)),
            "casualties": dict(zip(factions, s.casualties, strict=True)),
            "ranking": [factions[i] for i in ranking(s)],
            "summary": f"audit passed: {s.round} rounds"}


@pytest.mark.parametrize("size", [STANDARD, SMALL], ids=["80x24", "60x20"])
def test_end_screen(snap_compare, size: tuple[int, int]) -> None:
    s, stream = _game(3, b"snapshot-end")
    s = _advance(s, stream, is_over)
    ended = GameEnded(_end_result(s), transcript="/home/me/.local/share/solstice/games/"
                      "0123abcd/transcript.json", game_id="0123abcd")
    names = {s.config.factions[0]: "you", s.config.factions[1]: "greedy-1",
             s.config.factions[2]: "random-2"}
    assert snap_compare(ScreenFixture(lambda: EndScreen(ended, names, can_rematch=True)),
                        terminal_size=size)


def test_stopped_game_screen(snap_compare) -> None:
    ended = GameEnded(None, "game stopped: white revealed a key that does not match its "
                            "commitment (blame: white)", game_id="0123abcd")
    assert snap_compare(ScreenFixture(lambda: EndScreen(
        ended, resume_hint="Resume it later with: solstice resume 0123abcd")),
        terminal_size=(80, 24))


def test_scores_line_marks_you_and_casualties() -> None:
    s, stream = _game(3, b"snapshot-end")
    s = _advance(s, stream, is_over)
    text: Text = scores_line(view(s, 0), NAMES3)
    assert "(you)" in text.plain and "greedy-1" in text.plain
    for seat in range(3):
        assert f"{s.vp[seat]}VP {s.casualties[seat]}✝" in text.plain


def _replay() -> Replay:
    """A whole seeded engine game as the replay viewer shows it (no transcript needed)."""
    s, stream = _game(4, b"snapshot-replay")
    start = s.clone()
    actions = []
    for _ in range(5000):
        if is_over(s):
            break
        movers = to_move(s)
        action = (random_chance(s, stream) if movers == [CHANCE] else
                  legal_actions(s, movers[0])[stream.randbelow(len(legal_actions(s, movers[0])))])
        actions.append(action)
        s = apply(s, action)
    steps = build_steps(start, actions)
    return Replay(Path("transcript.json"), "0123abcd" * 4, ("ana", "bob", "cy", "dee"),
                  tuple(s.config.factions), steps, _end_result(s))


class ReplayFixture(App[None]):
    CSS_PATH = CSS

    def __init__(self, replay: Replay, index: int, viewer: int | None) -> None:
        super().__init__()
        self.replay, self.index, self.viewer = replay, index, viewer

    def on_mount(self) -> None:
        screen = ReplayScreen(self.replay)
        screen.index, screen.viewer = self.index, self.viewer
        self.push_screen(screen)


def _hidden_dispatch(replay: Replay) -> int:
    return next(i for i, step in enumerate(replay.steps) if step.disclosed
                and step.state.round == 2)


@pytest.mark.parametrize("size", [STANDARD, SMALL], ids=["80x24", "60x20"])
def test_replay_viewer_as_a_seat_saw_it(snap_compare, size: tuple[int, int]) -> None:
    replay = _replay()
    assert snap_compare(ReplayFixture(replay, _hidden_dispatch(replay), 0), terminal_size=size)


def test_replay_viewer_all_open_wide(snap_compare) -> None:
    replay = _replay()
    assert snap_compare(ReplayFixture(replay, _hidden_dispatch(replay), None),
                        terminal_size=WIDE)


@pytest.mark.parametrize("size", [STANDARD, SMALL], ids=["80x24", "60x20"])
@pytest.mark.parametrize("phase", ["draft", "dispatch", "resolve"])
def test_learn_lesson(snap_compare, size: tuple[int, int], phase: str) -> None:
    from ui.app.lessons import lesson
    from ui.app.screens.dialogs import LessonScreen

    s, _ = _game(2, b"snapshot-draft2")
    found = lesson(phase, view(s, 0))
    assert found is not None
    assert snap_compare(ScreenFixture(lambda: LessonScreen(*found)), terminal_size=size)
