"""The UI reads the engine's events, never its sentences (#26 item 3).

Every engine event's log text is swapped for other words here; the UI must still pace the
resolution, open the round's summary with the right round and lines, and word each event from
its fields. And nothing in ``ui/`` (outside the wording of events) holds an engine sentence to
match a line against.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
from test_ui_feedback import _app, _text, run
from test_ui_snapshots import _advance, _game
from ui_helpers import game_note

from engine import events as ev
from engine.view import view
from ui.app.messages import BoardChanged
from ui.app.screens.game import GameScreen
from ui.app.screens.summary import RoundSummaryScreen
from ui.app.wording import describe

ROOT = Path(__file__).resolve().parent.parent
EVENT_CLASSES = [cls for _, cls in inspect.getmembers(ev, inspect.isclass)
                 if issubclass(cls, ev.Event) and cls is not ev.Event]


@pytest.fixture
def other_sentences(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every event's log text in words the UI has never seen."""
    for cls in EVENT_CLASSES:
        monkeypatch.setattr(cls, "text", property(lambda self: f"~{type(self).__name__}~"))


def round_one():
    """A 3-player game's first round, played to its end (with its events)."""
    s, stream = _game(3, b"ui-events")
    s = _advance(s, stream, lambda s: s.round == 2)
    events = list(s.events)
    end = next(i for i, e in enumerate(events) if isinstance(e, ev.RoundScores))
    return s, events[:end + 1]


def test_pacing_and_the_summary_follow_the_events_whatever_their_sentences(
        tmp_path: Path, other_sentences: None) -> None:
    s, events = round_one()
    assert events[-1].text == "~RoundScores~"  # the fixture is in force
    start = next(i for i, e in enumerate(events) if isinstance(e, ev.ResolveStarted))
    resolved = events[start + 1:-1]
    assert any(isinstance(e, ev.PlanetOpened) for e in resolved)

    async def scenario() -> None:
        app = _app("play", tmp_path)
        app.reveal_pace = 1.0
        async with app.run_test(size=(140, 40)) as pilot:
            app.deliver(BoardChanged(view(s, 0)))
            await pilot.pause()
            assert isinstance(app.screen, GameScreen)
            game = app.screen
            for event in events:
                app.deliver(game_note(event))
            await pilot.pause()
            # Paced: the resolution's first step is shown, the rest held back.
            assert app.pacer.busy and not isinstance(app.screen, RoundSummaryScreen)
            assert describe(events[start]) in game.log_lines
            assert describe(resolved[-1]) not in game.log_lines
            await pilot.press("space")
            await pilot.pause()
            summary = app.screen
            assert isinstance(summary, RoundSummaryScreen)
            assert summary.round_number == 1 and summary.lines == resolved
            text = _text(summary)
            assert "~" not in text and "~" not in "".join(game.log_lines)
            first_planet = next(e for e in resolved if isinstance(e, ev.PlanetOpened))
            assert first_planet.planet in text

    run(scenario)


# Sentences (or their starts) the engine's log says; the UI once matched lines against them.
ENGINE_SENTENCES = ("Scores after round", "Resolve planets", "Game over:", "draft passes",
                    " is killed", " scores ", "strongest none")


def test_no_ui_module_matches_an_engine_sentence() -> None:
    wording = ROOT / "ui" / "app" / "wording.py"  # words events from their fields
    found = []
    for path in sorted((ROOT / "ui").rglob("*.py")):
        if path == wording:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#", 1)[0]
            found += [f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
                      for sentence in ENGINE_SENTENCES if f'"{sentence}' in code
                      or f"'{sentence}" in code]
    assert not found, "\n".join(found)


def test_every_engine_event_has_its_own_words() -> None:
    from ui.app.wording import _WORDS

    assert set(EVENT_CLASSES) <= set(_WORDS)
