"""CLI texts from issue 29 item 10: a bad --bind or a busy port is said in words with the
option that fixes it (never a bare "[Errno 98]"); the short code keeps its hyphen in
``games --json`` and in the not-found error."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from p2p.identity import Identity
from p2p.net.discovery import ShortCodeNotFound, find_short
from p2p.net.roster import new_game_id
from p2p.net.shortcode import display, short_code

SOLSTICE = Path(sys.executable).parent / "solstice"


def _host(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(SOLSTICE), "host", "-n", "2", "--bot", "random",
                           "--no-discovery", "--home", str(tmp_path), *args],
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("bind,says", [
    ("999.1.1.1", "neither an IP address nor a known host name (check --bind"),
    ("10.213.99.77", "no network interface of this machine has the --bind address"),
])
def test_a_bad_bind_address_is_said_in_words(tmp_path: Path, bind: str, says: str) -> None:
    done = _host(tmp_path, "--bind", bind)
    assert done.returncode == 1
    assert says in done.stderr and "[Errno" not in done.stderr, done.stderr


def test_a_busy_port_names_the_option_that_fixes_it(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = _host(tmp_path, "--bind", "127.0.0.1", "--port", str(port))
    assert done.returncode == 1
    assert "the port is already in use" in done.stderr and "--port" in done.stderr
    assert "[Errno" not in done.stderr


def test_the_not_found_error_shows_the_short_code_with_its_hyphen() -> None:
    code = short_code(Identity.generate().peer_id, new_game_id())
    with pytest.raises(ShortCodeNotFound) as caught:
        find_short(code, "127.0.0.1", 0.3, settle=0.1)
    assert display(code) in str(caught.value) and "-" in display(code)


def _commands() -> list[list[str]]:
    import typer

    from ui.cli.commands import app

    root = typer.main.get_command(app)
    out = []
    for name, command in root.commands.items():  # type: ignore[attr-defined]
        out.append([name])
        for sub in getattr(command, "commands", {}):
            out.append([name, sub])
    return out


def test_every_help_page_uses_one_style_for_arguments_and_types() -> None:
    """No ``<int range>``, ``<list[str]>``, ``{code}...`` or ``{TRANSCRIPT}`` in any --help."""
    from typer.testing import CliRunner

    from ui.cli.commands import app

    commands = _commands()
    assert ["join"] in commands and ["watch"] in commands and len(commands) > 10
    bad = {}
    for words in commands:
        result = CliRunner().invoke(app, [*words, "--help"], terminal_width=100)
        assert result.exit_code == 0, (words, result.output)
        found = re.findall(r"<\w+ range>|<list\[\w+\]>|\{\w+\}(?:\.\.\.)?|\[[a-z]\w*\]\.\.\.",
                           result.output)
        if found:
            bad[" ".join(words)] = found
    assert not bad, bad
