"""What a bot author reads of a bot program: its lines filed under the game they belong to,
with the game in the prefix; faults kept in --bot-log; stderr capped per decision; garbage
faulted at once; a bot late on the table's clock named and counted; the hint for global
options given after a command; trace files named alike by every command."""

from __future__ import annotations

import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
import trio
from typer.testing import CliRunner

from bots import bot_output
from bots.base import Bot, GameInfo, Turn
from bots.faults import BotError, Fault
from bots.match import play_match
from bots.netseat import TABLE_MARGIN, bot_chooser
from bots.process_bot import GARBAGE_GRACE, MAX_STDERR_LINES, ProcessBot
from bots.registry import make_bot
from engine import Action, GameState, legal_actions, new_game, random_config, to_move
from engine.randomness import RandomStream
from p2p.session.seatview import SeatView
from ui.cli import app
from ui.cli.commands import main

EXAMPLES = Path(__file__).resolve().parent.parent / "bots" / "examples"
EXAMPLE = f"cmd:{sys.executable} {EXAMPLES / 'example_bot.py'}"

# MODE "talk": logs after every end; "stderr": 5,000 stderr lines per decision; "garbage":
# answers every decision with a line of garbage and nothing else; "illegal": answers "pass".
BOT = textwrap.dedent("""
    import json, sys
    MODE = sys.argv[1]
    games = 0
    for line in sys.stdin:
        m = json.loads(line)
        if m["type"] == "hello":
            games += 1
            print(json.dumps({"type": "ready", "name": "logger"}), flush=True)
        elif m["type"] == "decide":
            if MODE == "garbage":
                print("my move is the first one", flush=True)
                continue
            if MODE == "illegal":
                print(json.dumps({"type": "action", "id": m["id"], "action": "pass"}),
                      flush=True)
                continue
            if MODE == "stderr":
                sys.stderr.write("thinking very hard\\n" * 5000); sys.stderr.flush()
            print(json.dumps({"type": "action", "id": m["id"], "action": m["legal"][0]}),
                  flush=True)
        elif m["type"] == "end":
            print(json.dumps({"type": "log", "message": f"game {games} is over"}), flush=True)
""")


@pytest.fixture(autouse=True)
def _default_bot_output():
    yield
    bot_output.configure()


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "logger.py"
    path.write_text(BOT)
    return path


def _seen(lines: list[str]) -> bot_output.BotLines:
    return bot_output.BotLines(lines.append, echo=False)


def test_a_log_line_after_end_is_filed_under_that_game_even_the_last(script) -> None:
    lines: list[str] = []
    bot = ProcessBot(f"{sys.executable} {script} talk", output=_seen(lines))
    try:
        play_match([bot, make_bot("random")], "logs/1", game="1")
        play_match([make_bot("random"), bot], "logs/2", game="2")
    finally:
        bot.close()
    over = [line for line in lines if "is over" in line]
    assert over == ["[bot logger seat 0 game 1] game 1 is over",
                    "[bot logger seat 1 game 2] game 2 is over"], lines


def test_faults_are_kept_in_the_bot_log(tmp_path: Path, script) -> None:
    log_file = tmp_path / "bots.log"
    bot_output.configure(echo=False, log_file=log_file)
    bot = make_bot(f"cmd:{sys.executable} {script} illegal")
    try:
        faults = play_match([bot, make_bot("random")], "kept", game="kept").faults
    finally:
        bot.close()
    kept = [line for line in log_file.read_text().splitlines() if line.startswith("[fault] ")]
    assert faults and len(kept) == len(faults)
    assert "bot 'logger' (seat 0, game kept, decision 1)" in kept[0]
    assert "; playing " in "\n".join(kept)  # what was played instead, as on stderr


def test_stderr_is_shown_up_to_a_cap_per_decision_and_the_excess_is_a_fault(script) -> None:
    lines: list[str] = []
    bot = ProcessBot(f"{sys.executable} {script} stderr", output=_seen(lines))
    try:
        result = play_match([bot, make_bot("random")], "chatty", game="chatty")
    finally:
        bot.close()
    decisions = result.decisions[0]
    shown = [line for line in lines if " stderr] " in line]
    # every decision writes 5,000 lines; each may show MAX_STDERR_LINES (one window may
    # straddle an answer: at most twice that)
    assert len(shown) <= 2 * MAX_STDERR_LINES * decisions
    floods = [f for f in result.faults if f.kind == "stderr"]
    assert floods and "than the 200 lines" in floods[0].message
    assert all(" game chatty stderr] " in line for line in shown)


# Writes 300 stderr lines before its first answer and 150 before each later one, and 50 when
# told to quit.
TALKER = textwrap.dedent("""
    import json, sys
    count = 0
    for line in sys.stdin:
        m = json.loads(line)
        if m["type"] == "hello":
            print(json.dumps({"type": "ready", "name": "talker"}), flush=True)
        elif m["type"] == "decide":
            count += 1
            sys.stderr.write(f"decision {m['id']}\\n" * (300 if count == 1 else 150))
            sys.stderr.flush()
            print(json.dumps({"type": "action", "id": m["id"], "action": m["legal"][0]}),
                  flush=True)
        elif m["type"] == "quit":
            sys.stderr.write("last words\\n" * 50); sys.stderr.flush()
            break
""")


def _slow_sink(lines: list[str]) -> bot_output.BotLines:
    """A log that takes 2 ms a line: the stderr thread falls well behind the answers."""

    def keep(line: str) -> None:
        time.sleep(0.002)
        lines.append(line)

    return bot_output.BotLines(keep, echo=False)


def test_stderr_counts_for_the_decision_it_was_written_in_and_the_last_lines_are_kept(
        tmp_path: Path) -> None:
    """Issue 46: stderr lines were counted by when the reader thread got to them, so a
    decision's excess was blamed on later ones (a fault at decision 8 named 1,406 lines), and
    what a bot wrote on its way out after ``quit`` could be lost."""
    script = tmp_path / "talker.py"
    script.write_text(TALKER)
    lines: list[str] = []
    bot = ProcessBot(f"{sys.executable} {script}", output=_slow_sink(lines))
    turn = _turn()
    try:
        bot.start(GameInfo(turn.seat, turn._full.config, b"t", game="t"))
        for ident in (1, 2, 3):
            assert bot.ask(turn.view, turn.legal_texts, ident) == turn.legal_texts[0]
    finally:
        bot.close()
    [fault] = bot.take_faults()  # only the first decision wrote more than it may show
    assert fault.kind == "stderr" and fault.decision == 1
    assert "wrote 100 more stderr line(s)" in fault.message
    shown = [line.rsplit("] ", 1)[1] for line in lines if " stderr] " in line]
    assert shown == ["decision 1"] * MAX_STDERR_LINES + ["decision 2"] * 150 + \
        ["decision 3"] * 150 + ["last words"] * 50


def _first_decision(seed: str) -> tuple[GameState, int, tuple[Action, ...]]:
    """A new two-seat game dealt from ``seed``: its state, the seat to move, its legal actions."""
    stream = RandomStream(seed)
    config = random_config(2, stream)
    deck = list(config.card_ids())
    stream.shuffle(deck)
    state = new_game(config, deck)
    seat = to_move(state)[0]
    return state, seat, tuple(legal_actions(state, seat))


def _turn() -> Turn:
    state, seat, legal = _first_decision("garbage-turn")
    return Turn(state, seat, list(legal))


def test_a_bot_that_writes_garbage_is_faulted_at_once_not_after_its_budget(script) -> None:
    """Issue 33: a bot writing only garbage cost its whole 10 s budget on every decision."""
    bot = ProcessBot(f"{sys.executable} {script} garbage", timeout=10)
    turn = _turn()
    try:
        bot.start(GameInfo(turn.seat, turn._full.config, b"g", game="g"))
        for _ in range(3):
            started = time.monotonic()
            with pytest.raises(BotError) as caught:
                bot.choose(turn)
            assert caught.value.kind == "garbage"
            assert time.monotonic() - started < GARBAGE_GRACE + 1.5
        assert "not protocol messages" in str(caught.value)
        assert any(f.kind == "not-json" for f in bot.take_faults())
    finally:
        bot.close()


class Sleeper(Bot):
    """Takes longer than the table's clock allows, well within its own budget; counts the
    calls that run at once."""

    name = "sleeper"
    time_budget = 30.0

    def __init__(self) -> None:
        self.active = self.most = 0
        self.lock = threading.Lock()

    def choose(self, turn: Turn) -> Action:
        with self.lock:
            self.active += 1
            self.most = max(self.most, self.active)
        time.sleep(1.0)
        with self.lock:
            self.active -= 1
        return turn.legal[0]


def test_a_bot_late_on_the_table_clock_is_named_and_counted_as_a_timeout(capsys) -> None:
    state, seat, legal = _first_decision("late")
    config = state.config
    faults: list[Fault] = []
    out = sys.stderr

    async def scenario() -> tuple[Action, float]:
        choose = bot_chooser(Sleeper(), out, faults)
        deadline = trio.current_time() + TABLE_MARGIN + 0.5
        view = SeatView.of("g", 0, seat, config, state, (0, 1), 1, legal, deadline)
        started = trio.current_time()
        action = await choose(view)
        return action, trio.current_time() - started

    action, took = trio.run(scenario)
    assert action in legal and took < 1.5
    assert [f.kind for f in faults] == ["timeout"]
    assert "table's decision clock" in faults[0].message and faults[0].bot == "sleeper"
    assert "bot sleeper (seat" in capsys.readouterr().err


def test_after_a_cut_the_next_decision_waits_for_the_bot_to_finish_the_last() -> None:
    state, seat, legal = _first_decision("late-twice")
    config = state.config
    bot, faults = Sleeper(), []

    async def scenario() -> None:
        choose = bot_chooser(bot, sys.stderr, faults)
        for _ in range(2):
            deadline = trio.current_time() + TABLE_MARGIN + 0.3
            await choose(SeatView.of("g", 0, seat, config, state, (0, 1), 1, legal,
                                     deadline))
        await trio.sleep(1.2)  # had a second call been made, it would show now

    trio.run(scenario)
    assert bot.most == 1  # never asked twice at once
    assert [f.kind for f in faults] == ["timeout", "timeout"]


def test_a_global_option_after_the_command_gets_a_hint(capsys) -> None:
    assert main(["tournament", "--bot-log", "x.log", "--bots", "greedy,random"]) == 2
    err = capsys.readouterr().err
    assert "No such option: --bot-log" in err
    assert "put it before the command" in err and "solstice --bot-log FILE tournament" in err


def test_trace_files_are_named_alike_by_every_command(tmp_path: Path) -> None:
    for command in ("tournament", "simulate"):
        traces = tmp_path / command
        args = ["--record-bot", str(traces), command, "--bots", f"random,{EXAMPLE}",
                "--games", "2"]
        if command == "simulate":
            args += ["--players", "2"]
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.output
        names = sorted(p.name for p in traces.iterdir())
        assert all(name.split("-seat")[0].isdigit() for name in names), names


BANNER = textwrap.dedent("""
    import json, sys, time
    print("MyBot v1 starting up", flush=True)  # not protocol: skipped and reported
    time.sleep(1.0)
    for line in sys.stdin:
        m = json.loads(line)
        if m["type"] == "hello":
            print(json.dumps({"type": "ready", "name": "banner"}), flush=True)
        elif m["type"] == "decide":
            print(json.dumps({"type": "action", "id": m["id"], "action": m["legal"][0]}),
                  flush=True)
""")


def test_a_banner_while_starting_does_not_cut_the_handshake_short(tmp_path: Path) -> None:
    path = tmp_path / "banner.py"
    path.write_text(BANNER)
    bot = make_bot(f"cmd:{sys.executable} {path}")
    try:
        faults = play_match([bot, make_bot("random")], "banner", game="banner").faults
    finally:
        bot.close()
    assert [f.kind for f in faults] == ["not-json"]  # reported, and the game played normally
