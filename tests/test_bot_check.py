"""``solstice bot-check``: the shipped example bots pass, the deliberately broken one fails
with a report naming each of its faults, and the script reaches every decision kind."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bots import bot_output
from bots.conformance import DECISION_KINDS, check_bot, scripted_decisions
from bots.registry import make_bot
from ui.cli import app

EXAMPLES = Path(__file__).resolve().parent.parent / "bots" / "examples"
NODE = shutil.which("node")


@pytest.fixture(autouse=True)
def _default_bot_output():
    yield
    bot_output.configure()


@pytest.fixture(scope="module")
def script():
    return scripted_decisions()


def test_the_script_puts_every_decision_kind_to_the_bot(script) -> None:
    assert {(s.phase, s.kind) for s in script} == DECISION_KINDS
    for players in (2, 3, 4):  # every phase, at every table size
        assert {s.phase for s in script if s.players == players} == \
            {"draft", "dispatch", "resolve"}


@pytest.mark.parametrize("command, name", [
    pytest.param(f"{sys.executable} {EXAMPLES / 'example_bot.py'}", "example", id="python"),
    pytest.param(f"{NODE} {EXAMPLES / 'example_bot.js'}", "example-js", id="javascript",
                 marks=pytest.mark.skipif(NODE is None, reason="node (Node.js) is not "
                                          "installed")),
])
def test_the_example_bots_pass(command: str, name: str) -> None:
    result = CliRunner().invoke(app, ["bot-check", f"cmd:{command}"])
    assert result.exit_code == 0, result.output
    assert f"ready: answered 'hello' as {name!r}" in result.output
    # 43: two decisions with a single legal option are no longer asked (ruling 41)
    assert "OK: 43 decisions of 17 kinds" in result.output
    assert "quit: exited with status 0" in result.output


def test_an_in_process_bot_is_checked_on_its_answers(script) -> None:
    report = check_bot(make_bot("greedy"), "greedy", script)
    assert report.ok, report.render()
    assert report.decisions == len(script)


def test_the_broken_bot_fails_with_each_fault_named() -> None:
    spec = f"cmd:timeout=1:{sys.executable} {EXAMPLES / 'broken_bot.py'}"
    result = CliRunner().invoke(app, ["bot-check", "--quiet", spec])
    assert result.exit_code == 1
    out = result.output
    # one entry per mistake the broken bot makes, each with the fix
    for kind in ("not-json", "multi-line", "wrong-id", "illegal", "garbage", "stray", "quit"):
        assert f"[{kind}]" in out, (kind, out)
    assert "(seat 0, game check-2-0, decision 2) wrote line 2, which is not JSON: " \
           "'thinking about decision 2...'; skipped" in out
    assert "wrote one message over lines 6-10 (pretty-printed JSON)" in out
    assert "answered with id 9 on line 11, but the pending decision is 8" in out
    assert "answered 'pass' on line 15, which is not one of the legal actions" in out
    assert "answered with id '17' on line 18 (ids are numbers" in out
    assert "after the end of game check-2-0" in out
    assert "did not exit within 1 s of 'quit'; it was killed" in out
    assert "fix: answer with the 'id' of the pending 'decide', copied as a number" in out
    assert "FAIL: " in out


def test_a_bad_spec_is_a_one_line_error() -> None:
    result = CliRunner().invoke(app, ["bot-check", "nosuchbot"])
    assert result.exit_code == 2 and "unknown bot 'nosuchbot'" in result.output


def test_a_wrong_protocol_version_gets_its_own_hint(tmp_path: Path) -> None:
    """Issue 46: a bot that answered 'hello' with another protocol version was told to "make
    the command start"."""
    bot = tmp_path / "future.py"
    bot.write_text("import json, sys\n"
                   "for line in sys.stdin:\n"
                   "    if json.loads(line)['type'] == 'hello':\n"
                   "        print(json.dumps({'type': 'ready', 'protocol': 2}), flush=True)\n")
    result = CliRunner().invoke(app, ["bot-check", "--quiet", f"cmd:{sys.executable} {bot}"])
    assert result.exit_code == 1
    assert "[protocol] fix: answer 'hello' with {\"type\": \"ready\", \"protocol\": 1}" in \
        result.output, result.output
    assert "speaks bot protocol 2, the engine speaks 1" in result.output
    assert "make the command start" not in result.output
