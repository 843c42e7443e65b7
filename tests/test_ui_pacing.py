"""A round's resolution revealed step by step in the log pane (#15, live feedback): each
planet and effect shows before the next, space shows the rest, the summary comes after."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from test_ui_feedback import RESOLVE, _app, _result, _state, run
from ui_helpers import game_note, game_over, round_end

from engine.events import DispatchedFaceDown, RoundStarted, SiegeStopsDuchess
from engine.view import view
from ui.app.messages import BoardChanged, GameEnded
from ui.app.pacing import PACE_ENV, Pacer, pace_from_env
from ui.app.screens.game import GameScreen
from ui.app.screens.summary import EndScreen, RoundSummaryScreen

SCORES = round_end(1)
NEXT_ROUND = RoundStarted(2, "right")


def texts(events: list[Any]) -> list[str]:
    return [e.text for e in events]


class Clock:
    """Timers run by hand: ``later`` records, ``fire`` runs the next one."""

    def __init__(self) -> None:
        self.pending: list[Any] = []

    def later(self, seconds: float, callback: Any) -> Any:
        clock = self

        class Timer:
            def stop(self) -> None:
                clock.pending.remove(entry)

        entry = (seconds, callback, Timer())
        self.pending.append(entry)
        return entry[2]

    def fire(self) -> None:
        _, callback, _ = self.pending.pop(0)
        callback()


def pacer(pace: float = 0.5) -> tuple[Pacer[str], list[str], Clock, list[bool]]:
    shown: list[str] = []
    idle: list[bool] = []
    clock = Clock()
    return Pacer(shown.append, clock.later, pace, lambda: idle.append(True)), shown, clock, idle


def test_lines_outside_a_resolution_pass_at_once() -> None:
    p, shown, clock, _ = pacer()
    lines = [RoundStarted(1, "left"), DispatchedFaceDown("black", "Water", "none")]
    for event in lines:
        p.push(event.text, event)
    assert shown == [e.text for e in lines]
    assert not clock.pending and not p.busy


def test_each_step_of_a_resolution_waits_for_the_pace() -> None:
    p, shown, clock, idle = pacer()
    for event in [*RESOLVE, SCORES, NEXT_ROUND]:
        p.push(event.text, event)
    assert shown == texts(RESOLVE[:1]) and p.busy
    assert clock.pending[0][0] == 0.5
    clock.fire()
    assert shown == texts(RESOLVE[:2])
    for _ in range(3):
        clock.fire()
    # The scores end the resolution: they and what follows pass without a wait.
    assert shown == texts([*RESOLVE, SCORES, NEXT_ROUND])
    assert not p.busy and idle == [True]


def test_skip_shows_the_rest_of_the_resolution_at_once() -> None:
    p, shown, clock, idle = pacer()
    for event in RESOLVE:
        p.push(event.text, event)
    p.skip()
    assert shown == texts(RESOLVE) and not clock.pending and idle == [True]
    p.push(SiegeStopsDuchess().text, SiegeStopsDuchess())
    assert not clock.pending  # still the skipped resolution
    p.push(SCORES.text, SCORES)
    p.push(RESOLVE[0].text, RESOLVE[0])  # the next round's resolution is paced again
    assert clock.pending


def test_no_pace_and_notes_that_are_no_log_line_are_never_held() -> None:
    p, shown, clock, _ = pacer(pace=0)
    for event in RESOLVE:
        p.push(event.text, event)
    assert shown == texts(RESOLVE) and not clock.pending
    p, shown, clock, _ = pacer()
    p.push("waiting for white", None)
    assert shown == ["waiting for white"] and not clock.pending


def test_the_pace_comes_from_the_environment(monkeypatch) -> None:
    monkeypatch.setenv(PACE_ENV, "0.25")
    assert pace_from_env() == 0.25
    for bad in ("fast", "-1", "99"):
        monkeypatch.setenv(PACE_ENV, bad)
        assert pace_from_env(0.6) == 0.6


async def board_shown(app: Any, pilot: Any, s: Any) -> GameScreen:
    """The game screen, wide enough for the log pane, showing ``s`` as seat 0 sees it."""
    app.deliver(BoardChanged(view(s, 0)))
    await pilot.pause()
    assert isinstance(app.screen, GameScreen)
    return app.screen


def test_the_log_pane_shows_the_first_effect_before_the_later_ones_and_space_shows_all(
        tmp_path: Path) -> None:
    s = _state()

    async def scenario() -> None:
        app = _app("play", tmp_path)
        app.reveal_pace = 1.0
        async with app.run_test(size=(140, 40)) as pilot:
            game = await board_shown(app, pilot, s)
            for event in [*RESOLVE, SCORES]:
                app.deliver(game_note(event))
            await pilot.pause()
            assert "Resolve planets" in game.log_lines
            assert not any("scores 3 VP" in line for line in game.log_lines)
            assert not isinstance(app.screen, RoundSummaryScreen)  # the summary comes after
            await pilot.pause(1.3)  # one step: the first planet, not yet the third line
            assert any(line.startswith("Desert") for line in game.log_lines)
            assert not any("scores 3 VP" in line for line in game.log_lines)
            await pilot.press("space")
            await pilot.pause()
            assert any("scores 3 VP" in line for line in game.log_lines)
            assert isinstance(app.screen, RoundSummaryScreen)
            assert app.screen.shown == len(app.screen.lines)  # watched already: all at once

    run(scenario)


def test_the_end_screen_waits_for_the_last_reveal_and_its_summary(tmp_path: Path) -> None:
    s = _state()

    async def scenario() -> None:
        app = _app("play", tmp_path)
        app.reveal_pace = 1.0
        async with app.run_test(size=(140, 40)) as pilot:
            await board_shown(app, pilot, s)
            for event in [*RESOLVE, round_end(5), game_over()]:
                app.deliver(game_note(event))
            app.deliver(GameEnded(_result(s), transcript=None))
            await pilot.pause()
            assert isinstance(app.screen, GameScreen)
            await pilot.press("space")
            await pilot.pause()
            assert isinstance(app.screen, RoundSummaryScreen)
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, EndScreen)

    run(scenario)
