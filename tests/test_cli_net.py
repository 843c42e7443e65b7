"""``solstice join`` from the command line: bad input gives a clear error, never a traceback."""

from __future__ import annotations

import socket
from pathlib import Path

from typer.testing import CliRunner

from p2p.identity import Identity
from p2p.net.joincode import JoinCode
from p2p.net.roster import new_game_id
from ui.cli import app


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _code(port: int) -> str:
    return JoinCode("127.0.0.1", port, new_game_id(), Identity.generate().peer_id).encode()


def test_a_garbage_code_is_refused_with_exit_2(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["join", "hello", "--bot", "random", "--home",
                                      str(tmp_path)])
    assert result.exit_code == 2
    assert "join code starts with 'sol1-'" in result.output
    assert "Traceback" not in result.output


def test_a_host_nobody_runs_is_reported_with_exit_1(tmp_path: Path) -> None:
    port = _closed_port()
    result = CliRunner().invoke(app, ["join", _code(port), "--bot", "random", "--bind",
                                      "127.0.0.1", "--home", str(tmp_path)])
    assert result.exit_code == 1
    assert f"error: cannot connect to 127.0.0.1:{port}" in result.output
    assert "Traceback" not in result.output


def test_a_code_pasted_in_two_pieces_is_joined(tmp_path: Path) -> None:
    port = _closed_port()
    code = _code(port)
    result = CliRunner().invoke(app, ["join", code[:50], code[50:], "--bot", "random",
                                      "--bind", "127.0.0.1", "--home", str(tmp_path)])
    # The code was read (the join got as far as dialing the host's address and port).
    assert f"cannot connect to 127.0.0.1:{port}" in result.output
