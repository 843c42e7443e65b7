"""Real networks: one 3-player game of random bots (real ``solstice`` processes) per network
profile, timing from ``join`` to the first stage of the game (the joiner's log shows the
players) and the wall time per round (from that moment to the last round's scores, divided
by the rounds), against loopback.

Profiles: loopback (127.0.0.1, one machine); a LAN of network namespaces with no loss; the
same with 5 % loss and 100 +- 50 ms on every link (reordered); a simulated internet: the
players behind port-restricted NAT routers, 80 ms round trip between routers, through
``solstice rendezvous`` (tests/netns.py builds them). The namespace profiles need root and
``/dev/net/tun`` (and nftables for the internet); without them they are skipped, saying why.

    python bench/bench_lan.py
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from netns import SOLSTICE, Host, network, unavailable, wait_for

PLAYERS = 3
BOT = ["--bot", "random", "--no-discovery"]
STAMP = re.compile(r"\[\s*([0-9.]+)s\] (.*)")
Starter = Callable[[int, list[str], Path], subprocess.Popen[bytes]]


def _at(log: Path, text: str) -> float:
    """The seconds stamp of the first line of ``log`` containing ``text``."""
    for line in log.read_text(errors="replace").splitlines():
        match = STAMP.match(line)
        if match and text in match.group(2):
            return float(match.group(1))
    raise AssertionError(f"{text!r} not in {log}")


def _game(root: Path, start: Starter, host_args: list[str]) -> tuple[float, float]:
    logs = [root / f"p{i}.log" for i in range(PLAYERS)]
    procs = [start(0, ["host", "-n", str(PLAYERS), "--home", str(root / "p0"), *BOT,
                       *host_args], logs[0])]
    code = wait_for(logs[0], "join code: ", 60, procs[0]).split("join code: ", 1)[1].split()[0]
    for i in range(1, PLAYERS):
        procs.append(start(i, ["join", code, "--home", str(root / f"p{i}"), *BOT], logs[i]))
    for proc in procs:
        proc.wait(300)
    if any(proc.returncode for proc in procs):
        raise AssertionError("a peer failed:\n" + "\n".join(log.read_text() for log in logs))
    first = _at(logs[1], "Players:")  # seconds since the joiner started
    host_first = _at(logs[0], "Players:")
    rounds = len(re.findall(r"Scores after round", logs[0].read_text()))
    last = _at(logs[0], f"Scores after round {rounds}")
    return first, (last - host_first) / rounds


def _loopback(root: Path) -> tuple[float, float]:
    procs: list[subprocess.Popen[bytes]] = []

    def start(i: int, args: list[str], log: Path) -> subprocess.Popen[bytes]:
        with log.open("ab") as handle:
            proc = subprocess.Popen([str(SOLSTICE), *args, "--bind", "127.0.0.1"],
                                    stdout=handle, stderr=subprocess.STDOUT)
        procs.append(proc)
        return proc

    try:
        return _game(root, start, [])
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()


def _lan(root: Path, loss: float, delay: float, jitter: float) -> tuple[float, float]:
    with network() as net:
        lan = net.lan(PLAYERS, seed=1)
        lan.impair(loss, delay, jitter)
        return _game(root, lambda i, args, log: net.start(lan.hosts[i], args, log), [])


def _internet(root: Path) -> tuple[float, float]:
    with network() as net:
        public, players, internet = net.internet(["port-restricted"] * PLAYERS, seed=1)
        internet.impair(0.0, 40, 0)
        rv_log = root / "rendezvous.log"
        rv = net.start(public, ["rendezvous", "--bind", "203.0.113.10"], rv_log)
        wait_for(rv_log, "rendezvous listening", 30, rv)
        hosts: list[Host] = players
        return _game(root, lambda i, args, log: net.start(hosts[i], args, log),
                     ["--rendezvous", "203.0.113.10:7447"])


def main() -> int:
    profiles: list[tuple[str, Callable[[Path], tuple[float, float]], str | None]] = [
        ("loopback 127.0.0.1", _loopback, None),
        ("LAN of namespaces, no loss", lambda r: _lan(r, 0.0, 0, 0), unavailable()),
        ("LAN, 5 % loss, 100 +- 50 ms", lambda r: _lan(r, 0.05, 100, 50), unavailable()),
        ("internet: NAT + rendezvous, 80 ms RTT", _internet, unavailable(router=True)),
    ]
    print(f"{PLAYERS} players, random bots, one game per profile (real processes)")
    print(f"{'profile':40} {'join -> first stage':>20} {'per round':>10}")
    status = 0
    for name, run, missing in profiles:
        if missing is not None:
            print(f"{name:40} skipped: {missing}")
            continue
        t0 = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="solstice-lan-") as root:
            try:
                first, per_round = run(Path(root))
            except AssertionError as exc:
                print(f"{name:40} FAILED: {str(exc)[-2000:]}")
                status = 1
                continue
        print(f"{name:40} {first:>19.1f}s {per_round:>9.1f}s   "
              f"(game {time.monotonic() - t0:.0f} s)", flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
