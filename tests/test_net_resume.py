"""A peer killed mid-game (SIGKILL) and restarted with the same home resumes the game; all three
peers finish it and every transcript verifies. Real processes over loopback TLS."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine import Action
from p2p.session.loopback import LoopbackGame
from p2p.session.machine import GameSession
from p2p.session.seatview import SeatView
from p2p.storage.transcript import verify_transcript

SOLSTICE = Path(sys.executable).parent / "solstice"
LOOPBACK = "127.0.0.1"


def _start(args: list[str], log: Path) -> subprocess.Popen[bytes]:
    handle = log.open("ab")
    return subprocess.Popen([str(SOLSTICE), *args], stdout=handle, stderr=subprocess.STDOUT)


def _wait_for(log: Path, text: str, proc: subprocess.Popen[bytes], timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        content = log.read_text(errors="replace") if log.exists() else ""
        if text in content:
            return content
        if proc.poll() is not None:
            break
        time.sleep(0.02)
    raise AssertionError(f"{text!r} not seen in {log}:\n{log.read_text(errors='replace')}")


def _transcripts(home: Path) -> list[Path]:
    return sorted(home.glob("games/*/transcript.json"))


def _play_with_a_crash(root: Path) -> tuple[list[subprocess.Popen[bytes]], list[Path], str]:
    homes = [root / name for name in ("host", "joiner1", "joiner2")]
    logs = [root / f"{name}.log" for name in ("host", "joiner1", "joiner2")]
    bot = ["--bot", "random", "--bind", LOOPBACK]
    procs = [_start(["host", "--players", "3", "--home", str(homes[0]), *bot], logs[0])]
    content = _wait_for(logs[0], "join code: ", procs[0], 30)
    code = content.split("join code: ", 1)[1].split()[0]
    for i in (1, 2):
        procs.append(_start(["join", code, "--home", str(homes[i]), *bot], logs[i]))
    # kill joiner 2 once the game is under way
    _wait_for(logs[2], "Round 2", procs[2], 60)
    procs[2].send_signal(signal.SIGKILL)
    procs[2].wait(10)
    killed_at = logs[2].read_text(errors="replace")
    assert (homes[2] / "games").exists()
    assert not _transcripts(homes[2]), "killed before the end"
    with logs[2].open("a") as handle:
        handle.write("\n--- restarted ---\n")
    # restart it with the same home: `join CODE` on a home holding the unfinished game resumes
    procs[2] = _start(["join", code, "--home", str(homes[2]), *bot], logs[2])
    deadline = time.monotonic() + 45
    for proc in procs:
        try:
            proc.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            for other in procs:
                other.kill()
                other.wait(10)
    return procs, homes, killed_at


def test_a_killed_peer_resumes_and_the_game_finishes(tmp_path: Path) -> None:
    root = tmp_path
    procs, homes, killed_at = _play_with_a_crash(root)
    logs = [(root / f"{n}.log").read_text(errors="replace")
            for n in ("host", "joiner1", "joiner2")]
    assert [p.returncode for p in procs] == [0, 0, 0], "\n\n".join(logs)
    assert "Round 2" in killed_at and "audit passed" not in killed_at
    restarted = logs[2].split("--- restarted ---", 1)[1]
    assert "audit passed" in restarted
    results = []
    for home in homes:
        (path,) = _transcripts(home)
        verdict = verify_transcript(path)
        assert verdict.ok, verdict.summary
        results.append((verdict.result["scores"], verdict.result["winner"]))
        assert json.loads((path.parent / "finished.json").read_text())["ok"] is True
    assert all(r == results[0] for r in results)


@pytest.mark.parametrize("after", [5, 30, 60])
def test_a_session_rebuilt_from_its_stored_log_finishes_the_game(after: int) -> None:
    """Sans-IO: peer 1 is replaced mid-game by a session replaying its stored log (as
    ``runner.open_session`` does after a restart); it catches up by resync and the game ends
    with the audit passing everywhere (the audit opens the deck commitment made before)."""
    rng = random.Random(after)

    def choose(view: SeatView) -> Action:
        return view.legal[rng.randrange(len(view.legal))]

    game = LoopbackGame(3)
    for session in game.sessions:
        session.start()
    for _ in range(after):
        game.deliver()
        for session in game.sessions:
            view = session.seat_view()
            if view is not None and view.legal:
                session.submit(choose(view))
    stored = list(game.sessions[1].msglog.messages)
    keys = [identity.public_bytes for identity in game.identities]
    restarted = GameSession(game.game_id, keys, 1, game.identities[1], game.masters[1])
    restarted.replaying = True
    for signed in stored:
        restarted.accept(signed, direct=False)
    restarted.replaying = False
    restarted.outbox.clear()
    assert restarted.msglog.messages == tuple(stored)
    game.sessions[1] = restarted
    for peer in (0, 2):  # both ways, as on reconnecting: what each side missed
        other = game.sessions[peer]
        for frame in other.sync_reply(restarted.sync_request()):
            restarted.receive(peer, frame)
        for frame in restarted.sync_reply(other.sync_request()):
            other.receive(1, frame)
    game.play(choose)
    summaries = {s.result["summary"] for s in game.sessions if s.result is not None}
    assert all(s.aborted is None for s in game.sessions), [s.aborted for s in game.sessions]
    assert len(summaries) == 1 and summaries.pop().startswith("audit passed")
    # the restarted peer signed nothing twice: its log is the one the others hold
    assert restarted.msglog.get(1, 0) == game.sessions[0].msglog.get(1, 0)
