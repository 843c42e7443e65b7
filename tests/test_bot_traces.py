"""What bot authors see: a process bot's log and stderr lines (printed with bot and seat, kept
with --bot-log), per-bot fault counts in tournaments, --record-bot traces and bot-replay."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bots import bot_output
from bots.bot_output import BotLines
from bots.match import play_match
from bots.registry import make_bot
from bots.trace import read_trace
from ui.cli import app

EXAMPLES = Path(__file__).resolve().parent.parent / "bots" / "examples"
EXAMPLE = f"cmd:{sys.executable} {EXAMPLES / 'example_bot.py'}"
BROKEN = f"cmd:timeout=1:{sys.executable} {EXAMPLES / 'broken_bot.py'}"

# Plays the first legal action; logs once per game and writes to stderr.
FIRST = textwrap.dedent("""
    import json, sys
    for line in sys.stdin:
        m = json.loads(line)
        if m["type"] == "hello":
            print(json.dumps({"type": "log", "message": f"seat {m['seat']}: \\x1b[31mhi"}))
            print(json.dumps({"type": "ready", "name": "first"}), flush=True)
            sys.stderr.write("first: a diagnostic\\n"); sys.stderr.flush()
        elif m["type"] == "decide":
            print(json.dumps({"type": "action", "id": m["id"], "action": m["legal"][0]}),
                  flush=True)
""")


@pytest.fixture(autouse=True)
def _default_bot_output():
    yield
    bot_output.configure()


@pytest.fixture
def first_bot(tmp_path: Path) -> str:
    path = tmp_path / "first_bot.py"
    path.write_text(FIRST)
    return f"cmd:{sys.executable} {path}"


def test_bot_log_and_stderr_are_printed_with_bot_and_seat_and_kept(first_bot, tmp_path,
                                                                    capsys) -> None:
    log_file = tmp_path / "logs" / "bots.log"
    bot_output.configure(log_file=log_file)
    bot = make_bot(first_bot)
    try:
        play_match([make_bot("random"), bot], "visible")
    finally:
        bot.close()
    printed = capsys.readouterr().err
    # sanitised, with the game the line belongs to
    assert "[bot cmd:" in printed and " seat 1 game visible] seat 1: ?[31mhi" in printed
    # (stderr is read by its own thread: the line may come before or after 'ready' renames it)
    assert " seat 1 game visible stderr] first: a diagnostic" in printed
    kept = log_file.read_text()
    assert " seat 1 game visible] seat 1: ?[31mhi" in kept
    assert " seat 1 game visible stderr] first: a diagnostic" in kept


def test_a_listener_gets_the_lines_instead_of_the_terminal(capsys) -> None:
    seen: list[str] = []
    BotLines(seen.append, echo=False).emit("mybot", 2, "", "thinking")
    assert seen == ["[bot mybot seat 2] thinking"]
    assert capsys.readouterr().err == ""


def test_tournament_json_and_summary_count_faults_per_bot() -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["tournament", "--bots", f"random,{BROKEN}", "--games", "2",
                                 "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["results"]["random"]["faults"] == 0
    assert data["results"][BROKEN]["faults"] >= 5  # one of each of its mistakes at least
    text = runner.invoke(app, ["tournament", "--bots", f"random,{BROKEN}", "--games", "2"])
    assert f"bot fault(s) ({BROKEN} {data['results'][BROKEN]['faults']}); first: bot " \
           "'broken' (seat 1, game 0, decision" in text.stdout


def test_record_bot_writes_a_trace_per_game_and_seat(tmp_path) -> None:
    traces = tmp_path / "traces"
    result = CliRunner().invoke(app, ["--record-bot", str(traces), "tournament", "--bots",
                                      f"random,{EXAMPLE}", "--games", "2"])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in traces.iterdir()) == ["0-seat1.jsonl", "1-seat0.jsonl"]
    game = read_trace(traces / "0-seat1.jsonl")
    assert game.hello["seat"] == 1 and game.end is not None
    assert len(game.decisions) > 10
    for decision in game.decisions:
        assert decision.fault is None and decision.answer in decision.message["legal"]


def _trace(tmp_path: Path) -> Path:
    bot_output.configure(record_dir=tmp_path)
    bot = make_bot(EXAMPLE)
    try:
        play_match([bot, make_bot("random")], "replayed", game="replayed")
    finally:
        bot.close()
    bot_output.configure()
    return tmp_path / "replayed-seat0.jsonl"


def test_replaying_to_the_same_bot_shows_no_difference(tmp_path) -> None:
    trace = _trace(tmp_path)
    result = CliRunner().invoke(app, ["bot-replay", str(trace), EXAMPLE])
    assert result.exit_code == 0, result.output
    count = len(read_trace(trace).decisions)
    assert f"{count} decisions replayed" in result.output
    assert f"{count} same, 0 differ" in result.output


def test_replaying_to_a_changed_bot_shows_each_difference(tmp_path, first_bot) -> None:
    trace = _trace(tmp_path)
    game = read_trace(trace)
    expected = [d for d in game.decisions if d.answer != d.message["legal"][0]]
    assert expected  # the example bot does not always play the first option
    result = CliRunner().invoke(app, ["bot-replay", str(trace), first_bot])
    assert result.exit_code == 1
    assert f"{len(expected)} differ" in result.output
    first = expected[0]
    assert (f"decision {first.message['id']} (round {first.message['view']['round']}, "
            f"{first.message['view']['phase']}/") in result.output
    assert f"recorded {first.answer!r} [" in result.output


def test_a_difference_names_the_cards_and_planets_of_its_slots(tmp_path, first_bot) -> None:
    """Issue 46: bot-replay listed differences by slot number only, and slots are places
    that change between decisions."""
    trace = _trace(tmp_path)
    result = CliRunner().invoke(app, ["bot-replay", str(trace), first_bot])
    lines = result.output.splitlines()
    checked = set()
    for decision in read_trace(trace).decisions:
        now = decision.message["legal"][0]
        if decision.answer == now:
            continue
        view = decision.message["view"]
        [line] = [x for x in lines if x.startswith(f"  decision {decision.message['id']} ")]
        for answer in (decision.answer, now):
            words = answer.split()
            if words[1] == "pick":
                cards = ", ".join(view["known"][slot] for slot in words[2:])
                assert f"{answer!r} [{cards}]" in line, line
            elif words[1] == "dispatch":
                card = view["known"][words[2]]
                planet = view["planets"][int(words[3])]["name"]
                assert f"{answer!r} [{card} to {planet}]" in line, line
            checked.add(words[1])
    assert {"pick", "dispatch"} <= checked


def test_replay_of_a_file_that_is_no_trace_is_a_clear_error(tmp_path) -> None:
    bad = tmp_path / "notes.jsonl"
    bad.write_text('{"from": "bot", "line": 1, "text": "x"}\nnot json\n')
    result = CliRunner().invoke(app, ["bot-replay", str(bad), EXAMPLE])
    assert result.exit_code == 2 and f"{bad}:2: not JSON" in result.output
    assert CliRunner().invoke(app, ["bot-replay", str(bad), "greedy"]).exit_code == 2


def test_replay_of_a_deeply_nested_trace_line_is_a_clear_error(tmp_path) -> None:
    deep = tmp_path / "deep.jsonl"
    deep.write_text("[" * 100_000 + "]" * 100_000 + "\n")
    result = CliRunner().invoke(app, ["bot-replay", str(deep), EXAMPLE])
    assert result.exit_code == 2 and f"{deep}:1: refused" in result.output, result.output


def test_tournament_workers_keep_bot_lines_and_traces_too(first_bot, tmp_path) -> None:
    from bots.tournament import run_tournament

    log_file, traces = tmp_path / "bots.log", tmp_path / "traces"
    bot_output.configure(echo=False, log_file=log_file, record_dir=traces)
    result = run_tournament(["random", first_bot], games=2, players=2, seed="w", workers=2)
    assert result.faults == []
    assert log_file.read_text().count("[31mhi") == 2  # one hello per game, from either worker
    assert sorted(p.name for p in traces.iterdir()) == ["0-seat1.jsonl", "1-seat0.jsonl"]
