"""Every command a headless peer prints after Ctrl-C works when copied: the host's and the
joiner's lobby, a game under way (``resume`` with the same ``--home`` and ``--bot``) and
``watch --headless``. Real processes over loopback TLS; each printed command is run and
checked to do what the hint says."""

from __future__ import annotations

import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

SOLSTICE = Path(sys.executable).parent / "solstice"
LOOPBACK = ["--bind", "127.0.0.1", "--no-discovery"]


def _ctrl_c_on() -> None:
    """In the child: SIGINT as a terminal gives it. A child inherits an ignored or blocked
    SIGINT from the process that starts it (Python then installs no KeyboardInterrupt), and
    in full ``make test`` runs these commands ignored the Ctrl-C sent to them."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Peer:
    def __init__(self, args: list[str], log: Path) -> None:
        self.log = log
        with log.open("ab") as out:
            self.proc = subprocess.Popen([str(SOLSTICE), *args], stdout=out,
                                         stderr=subprocess.STDOUT, preexec_fn=_ctrl_c_on)

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_for(self, pattern: str, timeout: float = 60) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = re.search(pattern, self.text())
            if found:
                return found
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError(f"{pattern!r} not seen in {self.log}:\n{self.text()}")

    def interrupt(self) -> str:
        """Ctrl-C; the command printed after it."""
        self.proc.send_signal(signal.SIGINT)
        assert self.proc.wait(30) == 130, self.text()
        return self.text()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)


def _command(text: str, after: str) -> list[str]:
    """The command printed after ``after``, split as a shell would (it is copied there)."""
    line = text.split(after, 1)[1].splitlines()[0]
    words = shlex.split(line.split(" (")[0])
    assert words[0] == "solstice", line
    return words[1:]


def test_a_host_interrupted_in_its_lobby_is_told_there_is_nothing_to_resume(
        tmp_path: Path) -> None:
    host = Peer(["host", "--players", "2", "--home", str(tmp_path / "host"), "--bot",
                 "random", *LOOPBACK], tmp_path / "host.log")
    try:
        host.wait_for("waiting for 1 more")
        out = host.interrupt()
    finally:
        host.stop()
    assert "nothing to resume" in out and "solstice resume" not in out, out


@pytest.mark.slow
def test_every_command_printed_after_ctrl_c_does_what_it_says(tmp_path: Path) -> None:
    homes = {name: tmp_path / name for name in ("host", "ann", "bob", "eve")}
    bot = ["--bot", "random"]
    peers = [Peer(["host", "--players", "3", "--home", str(homes["host"]), "--name", "hal",
                   *bot, *LOOPBACK], tmp_path / "host.log")]
    host = peers[0]
    try:
        code = host.wait_for(r"join code: (\S+)").group(1)
        # A watcher leaves and comes back with the printed command.
        eve = Peer(["watch", code, "--headless", "--home", str(homes["eve"])],
                   tmp_path / "eve.log")
        peers.append(eve)
        eve.wait_for("watching; waiting for the players")
        again = _command(eve.interrupt(), "to watch again: ")
        assert again == ["watch", code, "--headless", "--home", str(homes["eve"])]
        eve = Peer(again, tmp_path / "eve2.log")
        peers.append(eve)
        eve.wait_for("watching; waiting for the players")
        # A joiner leaves the lobby and joins again with the printed command.
        ann = Peer(["join", code, "--name", "ann", "--home", str(homes["ann"]), *bot,
                    *LOOPBACK], tmp_path / "ann.log")
        peers.append(ann)
        ann.wait_for("at the table")
        out = ann.interrupt()
        assert "nothing to resume" in out and "solstice resume" not in out, out
        rejoin = _command(out, "while the host still waits: ")
        assert rejoin[:2] == ["join", code] and "random" in rejoin
        ann = Peer(rejoin, tmp_path / "ann2.log")
        peers.append(ann)
        ann.wait_for("at the table")
        bob = Peer(["join", code, "--name", "bob", "--home", str(homes["bob"]), *bot,
                    *LOOPBACK], tmp_path / "bob.log")
        peers.append(bob)
        # A player leaves the game under way and resumes it with the printed command.
        bob.wait_for("Round 2")
        resume = _command(bob.interrupt(), "continue with: ")
        assert resume[0] == "resume" and resume[2:] == ["--home", str(homes["bob"]), "--bot",
                                                        "random"], resume
        bob = Peer(resume, tmp_path / "bob2.log")
        peers.append(bob)
        for peer in (host, ann, bob):
            assert peer.proc.wait(120) == 0, peer.text()
            assert "audit passed" in peer.text()
        assert eve.proc.wait(60) == 0, eve.text()
    finally:
        for peer in peers:
            peer.stop()
