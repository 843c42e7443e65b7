"""``solstice play --learn`` in the resolution (#29), and the clock behind a round summary (#29
item 7).

The resolution of a learning game says in one line why each card did what it did, and the first
time strongest/favored, scoring, a kill and a claim come up it stops on a lesson in the
rulebook's terms, with that very moment as the example; the reveal goes on once the player has
read it. An open round summary gives way to the game before the player's own clock runs out.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_ui_feedback import _app, _state, _text, run
from test_ui_round3 import _two_card_pick
from test_ui_snapshots import SMALL, STANDARD, ScreenFixture, _advance, _game
from textual.widgets import Static
from ui_helpers import game_note, round_end

from engine import events as ev
from engine.view import view
from ui.app.lessons import EVENT_LESSONS, event_lesson, reason
from ui.app.messages import BoardChanged
from ui.app.screens.dialogs import LessonScreen
from ui.app.screens.game import GameScreen
from ui.app.screens.summary import YIELDS_AT, RoundSummaryScreen
from ui.app.wording import describe


def round_one(seed: bytes = b"learn0") -> tuple[Any, list[ev.Event]]:
    """A 2-player first round whose resolution scores, kills and claims."""
    s, stream = _game(2, seed)
    s = _advance(s, stream, lambda s: s.round == 2)
    end = next(i for i, e in enumerate(s.events) if isinstance(e, ev.RoundScores))
    return s, list(s.events[:end + 1])


def first(events: list[ev.Event], kind: type) -> Any:
    return next(e for e in events if isinstance(e, kind))


def test_each_card_that_acts_gets_a_one_line_reason_from_its_event() -> None:
    assert reason(ev.Scored("black", 2, "Marshal", "Marshal, strongest")) == \
        "Marshal: black strongest, +2 VP"
    assert reason(ev.Scored("white", 3, "Diplomat", "Diplomat, favored")) == \
        "Diplomat: white favored, +3 VP"
    assert reason(ev.Killed("white:Duchess", "white")) == \
        "white Duchess: killed, white takes a casualty (−1 VP at the end)"
    assert reason(ev.Killed("event:Famine", None)).endswith("an event: no casualty")
    assert reason(ev.Claimed("blue", "Sentry")) == "Sentry: blue claims it; it acts next round"
    assert reason(ev.DraftOver(3)) is None


def test_the_resolution_stops_on_each_new_idea_and_gives_each_card_its_reason(
        tmp_path: Path) -> None:
    s, events = round_one()
    opened, scored = first(events, ev.PlanetOpened), first(events, ev.Scored)
    killed, claimed = first(events, ev.Killed), first(events, ev.Claimed)

    async def scenario() -> list[tuple[str, str]]:
        app = _app("play", tmp_path, learn=True, players=2)
        app.taught.update({"draft", "dispatch", "resolve"})  # the phase lessons are tested
        app.reveal_pace = 0.05
        lessons: list[tuple[str, str]] = []
        async with app.run_test(size=(140, 40)) as pilot:
            app.deliver(BoardChanged(view(s, 0)))
            await pilot.pause()
            game = app.screen
            assert isinstance(game, GameScreen)
            for event in events:
                app.deliver(game_note(event))
            for _ in range(60):
                await pilot.pause(0.1)
                if isinstance(app.screen, LessonScreen):
                    lessons.append((app.screen.title_text, app.screen.text))
                    # The reveal waits on the lesson: the round's scores are not shown yet.
                    assert app.pacer.busy and not any(
                        line.startswith("Scores after") for line in game.log_lines)
                    await pilot.press("enter")
                elif isinstance(app.screen, RoundSummaryScreen):
                    break
            assert isinstance(app.screen, RoundSummaryScreen)
            # Each card's line says what happened and why, once (issue 48: not twice).
            for event in (scored, killed):
                assert reason(event) in game.log_lines
                assert describe(event) not in game.log_lines
        return lessons

    lessons = run_and_return(scenario)
    captured = first(events, ev.Captured)  # in the dispatch, before the resolution
    assert [title for title, _ in lessons] == [
        EVENT_LESSONS[key][0] for key in ("prisoners", "strongest", "scoring", "claims",
                                          "casualties")]
    prisoners, strongest, scoring, claims, casualties = (text for _, text in lessons)
    assert "capture a prisoner" in prisoners and captured.faction in prisoners
    assert "most strength" in strongest and opened.planet in strongest
    assert f"scores {scored.vp} VP" in scoring and scored.card in scoring
    assert "Claim: place the card face up" in claims and claimed.card in claims
    assert "takes a casualty token" in casualties and killed.casualty in casualties


def test_a_narrow_learning_game_gives_the_reasons_in_the_round_summary(tmp_path: Path) -> None:
    """Below 110 columns the log pane is hidden: the summary reveals the resolution, so the
    reasons are there."""
    s, events = round_one()
    scored = first(events, ev.Scored)

    async def scenario() -> str:
        app = _app("play", tmp_path, learn=True, players=2)
        app.taught.update({"draft", "dispatch", "resolve"})
        async with app.run_test(size=(60, 20)) as pilot:
            app.deliver(BoardChanged(view(s, 0)))
            await pilot.pause()
            for event in events:
                app.deliver(game_note(event))
            for _ in range(10):
                await pilot.pause()
                if not isinstance(app.screen, LessonScreen):
                    break
                await pilot.press("enter")
            summary = app.screen
            assert isinstance(summary, RoundSummaryScreen)
            await pilot.press("space")  # the whole resolution at once
            await pilot.pause()
            return _text(summary)

    text = run_and_return(scenario)
    shown = " ".join(text.split())
    assert reason(scored) in shown and describe(scored) not in shown


def run_and_return(scenario: Any) -> Any:
    import asyncio

    return asyncio.run(scenario())


def test_a_normal_game_gives_no_reasons_and_opens_no_lessons(tmp_path: Path) -> None:
    s, events = round_one()

    async def scenario() -> None:
        app = _app("play", tmp_path, players=2)
        app.reveal_pace = 0.0
        async with app.run_test(size=(140, 40)) as pilot:
            app.deliver(BoardChanged(view(s, 0)))
            await pilot.pause()
            game = app.screen
            for event in events:
                app.deliver(game_note(event))
            await pilot.pause()
            assert isinstance(app.screen, RoundSummaryScreen)
            assert not any("↳" in line for line in game.log_lines)

    run(scenario)


@pytest.mark.parametrize("size", [STANDARD, SMALL], ids=["80x24", "60x20"])
@pytest.mark.parametrize("kind", [ev.PlanetOpened, ev.Scored, ev.Killed, ev.Claimed,
                                  ev.Captured],
                         ids=["strongest", "scoring", "casualties", "claims", "prisoners"])
def test_learn_event_lesson(snap_compare, size: tuple[int, int], kind: type) -> None:
    _, events = round_one()
    found = event_lesson(first(events, kind))
    assert found is not None
    _, title, text = found
    assert snap_compare(ScreenFixture(lambda: LessonScreen(title, text)), terminal_size=size)


# -- #29 item 7: the round summary and our decision's clock ----------------------------------

def test_the_round_summary_closes_itself_before_our_clock_runs_out(tmp_path: Path) -> None:
    app, (s, seat, _legal), _ = _two_card_pick(tmp_path)

    def clocks(left: float | None) -> tuple[float | None, ...]:
        return tuple(left if i == seat else None for i in range(2))

    async def scenario() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            app.deliver(BoardChanged(view(s, seat), (), (), clocks(60.0)))
            app.deliver(game_note(round_end(1, vp=(0, 0))))
            await pilot.pause()
            assert isinstance(app.screen, RoundSummaryScreen)
            clock = str(app.screen.query_one("#summary-clock", Static).render())
            assert "1:00 left" in clock and "closes itself at 0:20" in clock
            app.deliver(BoardChanged(view(s, seat), (), (), clocks(YIELDS_AT + 1.0)))
            await pilot.pause()
            assert isinstance(app.screen, RoundSummaryScreen)  # still time to read
            app.deliver(BoardChanged(view(s, seat), (), (), clocks(float(YIELDS_AT))))
            await pilot.pause()
            assert isinstance(app.screen, GameScreen)  # back at the decision, time left

    run(scenario)


def test_no_summary_opens_when_our_clock_is_already_nearly_out(tmp_path: Path) -> None:
    app, (s, seat, _legal), _ = _two_card_pick(tmp_path)

    async def scenario() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            app.deliver(BoardChanged(view(s, seat), (), (), tuple(
                5.0 if i == seat else None for i in range(2))))
            app.deliver(game_note(round_end(1, vp=(0, 0))))
            await pilot.pause()
            assert isinstance(app.screen, GameScreen)

    run(scenario)


def test_the_summary_stays_while_no_clock_of_ours_runs(tmp_path: Path) -> None:
    s = _state(players=2)

    async def scenario() -> None:
        app = _app("play", tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            app.deliver(BoardChanged(view(s, 0), (), (), (None, 3.0)))  # the other decides
            app.deliver(game_note(round_end(1, vp=(0, 0))))
            await pilot.pause()
            app.deliver(BoardChanged(view(s, 0), (), (), (None, 1.0)))
            await pilot.pause()
            assert isinstance(app.screen, RoundSummaryScreen)

    run(scenario)
