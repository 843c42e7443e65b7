"""``solstice verify`` on damaged or hostile files, and peer text on the terminal (#11, 8-9)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_net_blame import roster_of, transcript
from test_net_session import run, started

from p2p.net.notices import Stopped
from p2p.session.loopback import LoopbackGame
from p2p.storage.transcript import TranscriptUnreadable, verify_transcript
from p2p.text import printable
from ui.cli.headless import LogPrinter

SOLSTICE = Path(sys.executable).parent / "solstice"
INJECTION = "\x1b[2K\r\x1b[1A[ 99.0s] audit passed: 5 rounds; black 99; black wins\x07\u202e"


def verify(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(SOLSTICE), "verify", str(path)], capture_output=True, text=True,
                          timeout=60)


@pytest.fixture(scope="module")
def lying_game(tmp_path_factory: pytest.TempPathFactory) -> tuple[LoopbackGame, Path]:
    """Peer 2 stops the game with an abort whose reason is a terminal-injection attempt."""
    game = started(3)
    run(game, until=lambda: len(game.sessions[0].msglog.messages) > 40)
    game.sessions[2]._abort(0, INJECTION)
    run(game)
    return game, transcript(game, 0, tmp_path_factory.mktemp("lying"))


def test_printable_escapes_controls_escapes_and_bidi() -> None:
    shown = printable(INJECTION)
    assert not any(ord(c) < 32 or ord(c) == 127 or c == "\u202e" for c in shown)
    assert "\\x1b[2K" in shown and "\\u202e" in shown
    assert printable("x" * 10_000, 100).endswith("…") and len(printable("x" * 10_000, 100)) == 101
    assert printable(["\x1b"]) == "['\\x1b']"
    assert printable("Zoë plays white") == "Zoë plays white"


def test_headless_log_never_prints_peer_control_characters(lying_game) -> None:
    game, _ = lying_game
    out = io.StringIO()
    printer = LogPrinter(out)
    for event in game.sessions[0].events:
        printer(event)
    printer(Stopped(INJECTION))
    text = out.getvalue()
    assert "\x1b" not in text and "\r" not in text and "\x07" not in text
    assert text.count("\n") == len(text.splitlines())  # one line per event, nothing else


def test_verify_output_of_a_hostile_reason_is_escaped(lying_game) -> None:
    _, path = lying_game
    result = verify(path)
    assert result.returncode == 3, result.stderr  # abandoned by peer 2, not unfair
    assert "ABANDONED" in result.stderr
    assert "\x1b" not in result.stderr + result.stdout
    assert "peer 0" not in result.stderr.split("abandoned by")[1].split("(")[0]


@pytest.mark.parametrize("outcome", [[1, 2], "fair", 7, None])
def test_an_outcome_that_is_not_an_object_is_damage(lying_game, tmp_path: Path,
                                                    outcome: object) -> None:
    _, path = lying_game
    data = json.loads(path.read_text())
    data["outcome"] = outcome
    bad = tmp_path / "t.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(TranscriptUnreadable):
        verify_transcript(bad)
    result = verify(bad)
    assert result.returncode == 2 and "Traceback" not in result.stderr


@pytest.mark.parametrize("content", [b"[" * 200_000, b'{"format":"solstice-transcript/1",'
                                     b'"roster":' + b"[" * 100_000 + b"]" * 100_000 + b"}",
                                     b"\xff\xfe", b"", b"null", b'"x"'],
                         ids=["nested", "nested-roster", "not-utf8", "empty", "null", "string"])
def test_unreadable_and_deeply_nested_files_exit_2(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "t.json"
    path.write_bytes(content)
    result = verify(path)
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("error:") and "Traceback" not in result.stderr


def test_a_message_with_deep_nesting_in_its_body_is_damage(lying_game, tmp_path: Path) -> None:
    _, path = lying_game
    data = json.loads(path.read_text())
    text = json.dumps(data)
    key = '"messages": ['
    nested = '{"msg": ' + "[" * 50_000 + "]" * 50_000 + ', "sig": "00"}, '
    bad = tmp_path / "t.json"
    bad.write_text(text.replace(key, key + nested, 1))
    result = verify(bad)
    assert result.returncode == 2 and "Traceback" not in result.stderr


def test_a_flipped_signature_digit_names_nobody(lying_game, tmp_path: Path) -> None:
    _, path = lying_game
    data = json.loads(path.read_text())
    sig = data["messages"][10]["sig"]
    data["messages"][10]["sig"] = ("1" if sig[0] == "0" else "0") + sig[1:]
    bad = tmp_path / "t.json"
    bad.write_text(json.dumps(data))
    verdict = verify_transcript(bad)
    assert (verdict.status, verdict.blame, verdict.blame_name) == ("damaged", None, None)
    assert verify(bad).returncode == 2


def test_an_honest_transcript_of_a_silent_peer_exits_3_naming_it(tmp_path: Path) -> None:
    game = started(3)
    for session in game.sessions:
        session.tick(0.0)
    run(game, tamper=lambda who, data: None if who == 1 and
        len(game.sessions[0].msglog.messages) > 30 else data)
    for now in range(1, 60):
        for session in game.sessions:
            session.tick(float(now))
        run(game)
    path = transcript(game, 0, tmp_path)
    result = verify(path)
    assert result.returncode == 3, result.stderr
    assert "abandoned by p1 (peer 1)" in result.stderr
    assert roster_of(game).players[1].name == "p1"
