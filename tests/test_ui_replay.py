"""``solstice replay``: a verified 4-player game, stepped through in the viewer and as text."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from textual.widgets import Static
from ui_transcript import write_finished_game

from ui.app.replay import ReplayApp, ReplayScreen
from ui.app.replay_data import Replay, ReplayRefused, load_replay, text_log
from ui.cli.commands import main


@pytest.fixture(scope="module")
def transcript(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # The viewer test jumps to round 3, so the game must have reached it.
    return write_finished_game(tmp_path_factory.mktemp("replay") / "transcript.json",
                               min_rounds=3)


@pytest.fixture(scope="module")
def replay(transcript: Path) -> Replay:
    return load_replay(transcript)


def _text(screen: ReplayScreen, widget_id: str) -> str:
    return str(screen.query_one(widget_id, Static).render())


def test_the_replay_has_every_move_of_all_four_players(replay: Replay) -> None:
    assert len(replay.factions) == 4
    assert sorted(replay.names) == ["ana", "bob", "cy", "dee"]
    movers = {step.seat for step in replay.steps[1:]}
    assert movers == {0, 1, 2, 3}
    assert replay.steps[0].seat is None
    last = replay.steps[-1].state
    assert last.round == replay.result["rounds"]
    assert replay.scores_by_round()[-1][1] == tuple(replay.result["vp"][f]
                                                    for f in replay.factions)


def test_viewer_steps_by_move_and_round_and_changes_viewpoint(replay: Replay) -> None:
    async def scenario() -> None:
        app = ReplayApp(replay)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, ReplayScreen)
            assert "move 0/" in _text(screen, "#replay-head")
            await pilot.press("right", "right", "right")
            assert screen.index == 3
            assert replay.steps[3].move in _text(screen, "#replay-move").replace("\n", " ")
            await pilot.press("left")
            assert screen.index == 2
            await pilot.press("right_square_bracket")
            assert screen.step.state.round == 2
            assert screen.index == replay.round_starts()[2]
            await pilot.press("left_square_bracket")
            assert screen.step.state.round == 1
            await pilot.press("3")
            assert screen.index == replay.round_starts()[3]
            assert "Round 3" in _text(screen, "#replay-head")
            await pilot.press("end")
            assert screen.index == len(replay.steps) - 1
            # The viewpoint cycles through the seats, then every card open.
            assert "as " + replay.who(0) in _text(screen, "#replay-head")
            for seat in (1, 2, 3):
                await pilot.press("v")
                assert "as " + replay.who(seat) in _text(screen, "#replay-head")
            await pilot.press("v")
            assert screen.viewer is None and "every card open" in _text(screen, "#replay-head")
            await pilot.press("q")
        assert app.return_code is not None or not app.is_running

    asyncio.run(scenario())


def test_a_hidden_dispatch_shows_its_disclosure_beside_the_true_card(replay: Replay) -> None:
    index, step = next((i, s) for i, s in enumerate(replay.steps) if s.disclosed)

    async def scenario() -> None:
        app = ReplayApp(replay)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, ReplayScreen)
            screen.action_jump(index)
            await pilot.pause()
            move = _text(screen, "#replay-move")
            assert f"disclosed: {step.disclosed}" in move
            assert f"true card: {step.truth}" in move

    asyncio.run(scenario())


def test_every_card_open_shows_what_the_seat_view_hides(replay: Replay) -> None:
    from ui.app.replay_data import open_view, seat_view

    def hidden(step) -> list[dict]:
        return [c for p in seat_view(step, 0)["planets"] for c in p["cards"]
                if c["label"] is None]

    step = next((s for s in replay.steps if hidden(s)), None)
    assert step is not None, "seat 0 knew every face-down card all game"
    opened = [c for p in open_view(step, 0)["planets"] for c in p["cards"]]
    assert all(c["label"] is not None for c in opened)


def test_text_log_tells_the_whole_game_with_true_cards(replay: Replay, capsys,
                                                       transcript: Path) -> None:
    lines = text_log(replay)
    assert lines[0].startswith(f"Game {replay.game_id}")
    assert sum(line.startswith("== Round ") for line in lines) == replay.result["rounds"]
    assert not any(":" in word and word.split(":")[0] in ("white", "black", "blue", "green",
                                                            "event")
                   for line in lines for word in line.split())
    assert main(["replay", str(transcript), "--text"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == lines


def test_a_transcript_that_does_not_verify_is_not_replayed(transcript: Path,
                                                           tmp_path: Path, capsys) -> None:
    data = json.loads(transcript.read_text())
    data["outcome"]["winner"] = "nobody"
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(data))
    with pytest.raises(ReplayRefused):
        load_replay(forged)
    assert main(["replay", str(forged), "--text"]) == 1
    assert capsys.readouterr().err.startswith("error: the transcript does not verify")
    assert main(["replay", str(tmp_path / "missing.json")]) == 2


def test_a_decision_prompt_names_cards_not_labels() -> None:
    """A random game only sometimes asks a Prophecy question, so the wording is pinned here."""
    from types import SimpleNamespace

    from engine.actions import Choose
    from ui.app.replay_data import describe_move

    state = SimpleNamespace(config=SimpleNamespace(factions=("black", "white")),
                            decision=SimpleNamespace(
                                prompt="Prophecy: choose the planet for black:Diplomat"))
    move, _, _ = describe_move(state, Choose(0, "Jungle"))  # type: ignore[arg-type]
    assert "black:Diplomat" not in move and "Diplomat" in move
