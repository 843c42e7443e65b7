"""A table of real ``solstice`` processes on 127.0.0.1, one of which is killed (SIGKILL) at a
chosen moment and restarted with the same home. Used by tests/test_net_crash.py (a few
trials) and bench/bench_crash.py (many)."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from p2p.net.joincode import JoinCode
from p2p.storage.transcript import verify_transcript

SOLSTICE = Path(sys.executable).parent / "solstice"
KILLPOINT = Path(__file__).with_name("killpoint.py")  # solstice with a kill point
LOOPBACK = "127.0.0.1"
BOT = ["--bot", "random", "--bind", LOOPBACK]

# The log line that starts each phase (seen by the victim); "lobby" kills a joiner soon after
# it starts, before or while it joins; "roster" kills it as soon as the host shows the table
# full: the roster is made and on its way, and the victim has most likely not stored it yet.
PHASES: dict[str, str | None] = {
    "lobby": None,
    "roster": None,
    "setup": "Players:",
    "draft": "draft passes",
    "dispatch": "Dispatch:",
    "resolution": "Resolve planets",
    "audit": "Game over:",
}


@dataclass
class Trial:
    root: Path
    players: int
    homes: list[Path] = field(default_factory=list)
    logs: list[Path] = field(default_factory=list)
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)
    code: str = ""
    killed_at: str = ""
    roster_stored: bool = False  # the victim had stored the roster when it was killed

    grace: float | None = None  # the mesh's grace period (None: the default 60 s)

    def start(self, index: int, args: list[str], kill_at: str | None = None) -> None:
        """Start peer ``index``; ``kill_at``: with a kill point (``tests/killpoint.py``)."""
        handle = self.logs[index].open("ab")
        tuned = {"SOLSTICE_KILL_AT": kill_at or "",
                 "SOLSTICE_GRACE": "" if self.grace is None else str(self.grace)}
        plain = kill_at is None and self.grace is None
        command = [str(SOLSTICE)] if plain else [sys.executable, str(KILLPOINT)]
        env = None if plain else {**os.environ, **tuned}
        proc = subprocess.Popen([*command, *args], stdout=handle, stderr=subprocess.STDOUT,
                                env=env)
        if index < len(self.procs):
            self.procs[index] = proc
        else:
            self.procs.append(proc)

    def log(self, index: int) -> str:
        return self.logs[index].read_text(errors="replace") if self.logs[index].exists() else ""

    def wait_for(self, index: int, text: str, timeout: float, after: int = 0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.log(index)[after:]:
                return
            if self.procs[index].poll() is not None:
                break
            time.sleep(0.02)
        raise AssertionError(f"{text!r} not seen in {self.logs[index]}:\n{self.log(index)}")

    def kill_all(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)

    def all_logs(self) -> str:
        return "\n\n".join(f"--- {log.name}\n{self.log(i)}" for i, log in enumerate(self.logs))


@contextmanager
def finishing(trial: Trial) -> Iterator[None]:
    """A table that does not finish (a wait timed out, a line never came) is killed, and
    the failure shows every peer's log."""
    try:
        yield
    except (subprocess.TimeoutExpired, AssertionError):
        trial.kill_all()
        raise AssertionError(f"the table did not finish:\n{trial.all_logs()}") from None


def wait_all(trial: Trial, deadline: float) -> None:
    for proc in trial.procs:
        proc.wait(max(0.1, deadline - time.monotonic()))


def open_table(trial: Trial, extra: dict[int, list[str]] | None = None
               ) -> dict[int, list[str]]:
    """Start the host (its lobby open, its join code known) and return each joiner's
    ``join`` command; ``extra``: more arguments of a peer's command."""
    extra = extra or {}
    for i in range(trial.players):
        trial.homes.append(trial.root / f"peer{i}")
        trial.logs.append(trial.root / f"peer{i}.log")
    trial.start(0, ["host", "--players", str(trial.players), "--home", str(trial.homes[0]),
                    *BOT, *extra.get(0, [])])
    trial.wait_for(0, "join code: ", 60)
    trial.code = trial.log(0).split("join code: ", 1)[1].split()[0]
    return {i: ["join", trial.code, "--home", str(trial.homes[i]), *BOT, *extra.get(i, [])]
            for i in range(1, trial.players)}


def play_with_a_crash(root: Path, victim: int, phase: str, delay: float, players: int = 4,
                      timeout: float = 150.0, lose_folder: bool = False) -> Trial:
    """Start a table, kill ``victim`` ``delay`` seconds after it shows ``phase``, restart it
    (``join CODE`` for a joiner, ``resume`` for the host) and wait until every process exits.
    ``lose_folder``: the victim's game folder is deleted before the restart."""
    trial = Trial(root, players)
    with finishing(trial):
        for i, command in open_table(trial).items():
            trial.start(i, command)
        marker = PHASES[phase]
        if phase == "roster":
            trial.wait_for(0, f"joined, {players}/{players}", timeout)
        elif marker is not None:
            trial.wait_for(victim, marker, timeout)
        time.sleep(delay)
        trial.procs[victim].send_signal(signal.SIGKILL)
        trial.procs[victim].wait(10)
        trial.killed_at = trial.log(victim)
        trial.roster_stored = any(trial.homes[victim].glob("games/*/roster.json"))
        if lose_folder:
            for folder in trial.homes[victim].glob("games/*"):
                shutil.rmtree(folder)
        with trial.logs[victim].open("a") as handle:
            handle.write("\n--- restarted ---\n")
        if victim == 0:  # killed at the very end its game is finished: name it
            game_id = JoinCode.parse(trial.code).game_id
            restart = ["resume", game_id, "--home", str(trial.homes[0]), *BOT]
        else:
            restart = ["join", trial.code, "--home", str(trial.homes[victim]), *BOT]
        trial.start(victim, restart)
        wait_all(trial, time.monotonic() + timeout)
    return trial


def play_with_kill_points(root: Path, kills: dict[int, str], back: dict[int, str],
                          players: int = 3, extra: dict[int, list[str]] | None = None,
                          grace: float | None = None, timeout: float = 150.0) -> Trial:
    """Start a table whose joiners in ``kills`` run with those kill points
    (``tests/killpoint.py``). One that died of its kill point is started again, with the
    same ``join CODE`` command and no kill point, once the host's log shows ``back[peer]``
    ("": at once); one not in ``back`` stays dead (gone for good). Then wait until every
    process exits. ``extra``: more arguments of a peer's command; ``grace``: the mesh's
    grace period of every peer."""
    trial = Trial(root, players, grace=grace)
    waiting = dict(back)
    with finishing(trial):
        join = open_table(trial, extra or {})
        for i, command in join.items():
            trial.start(i, command, kills.get(i))
        deadline = time.monotonic() + timeout
        while waiting:
            for i, text in list(waiting.items()):
                if trial.procs[i].poll() is not None and text in trial.log(0):
                    trial.killed_at = trial.log(i)
                    with trial.logs[i].open("a") as handle:
                        handle.write("\n--- restarted ---\n")
                    trial.start(i, join[i])
                    del waiting[i]
            if time.monotonic() > deadline:
                raise AssertionError("a peer was not started again")
            time.sleep(0.05)
        wait_all(trial, deadline)
    return trial


def check_trial(trial: Trial) -> list[tuple[object, object]]:
    """Every process exited 0 and wrote a transcript; all verify and agree."""
    codes = [p.returncode for p in trial.procs]
    assert codes == [0] * trial.players, f"exit codes {codes}\n{trial.all_logs()}"
    results = []
    for home in trial.homes:
        paths = sorted(home.glob("games/*/transcript.json"))
        assert len(paths) == 1, f"{home}: {paths}\n{trial.all_logs()}"
        verdict = verify_transcript(paths[0])
        assert verdict.ok, f"{paths[0]}: {verdict.summary}\n{trial.all_logs()}"
        assert json.loads((paths[0].parent / "finished.json").read_text())["ok"] is True
        results.append((verdict.result["scores"], verdict.result["winner"]))
    assert all(r == results[0] for r in results), results
    return results


def random_trial(root: Path, rng: random.Random, phase: str | None = None,
                 players: int = 4) -> tuple[str, int, float, Trial]:
    """One trial at a random phase (or ``phase``), victim and delay; checked."""
    phase = phase or rng.choice(list(PHASES))
    victim = rng.randrange(1 if phase in ("lobby", "roster") else 0, players)
    delay = rng.uniform(0.0, {"lobby": 1.5, "audit": 1.5, "roster": 0.05}.get(phase, 1.0))
    trial = play_with_a_crash(root, victim, phase, delay, players)
    check_trial(trial)
    return phase, victim, delay, trial
