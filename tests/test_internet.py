"""Friends behind home routers play over a simulated internet (tests/netns.py): a public
host runs ``solstice rendezvous``, each player sits behind a router with NAT (full cone,
port-restricted, symmetric) and 80 ms round trips between routers. The host prints a join
code with ``--rendezvous``; the others ``join`` it; the game verifies fair. A peer behind
the full cone is dialed directly (its router forwards); one behind the symmetric NAT only
through the relay.

Skipped with one line without root, namespaces or nftables.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from netns import Net, network, unavailable, wait_for

from p2p.identity import Identity
from p2p.storage.transcript import verify_transcript

pytestmark = [pytest.mark.lan, pytest.mark.slow]
RENDEZVOUS = "203.0.113.10:7447"
BOT = ["--bot", "random", "--no-discovery"]


@pytest.fixture
def net() -> Net:
    reason = unavailable(router=True)
    if reason is not None:
        pytest.skip(reason)
    with network() as made:
        yield made


def _logs(logs: list[Path]) -> str:
    return "\n".join(f"--- {log.name}\n{log.read_text(errors='replace')}" for log in logs)


def test_three_players_behind_three_kinds_of_nat_play_a_fair_game(net: Net,
                                                                  tmp_path: Path) -> None:
    kinds = ["symmetric", "full-cone", "port-restricted"]
    public, players, internet = net.internet(kinds, seed=44)
    internet.impair(0.0, 40, 5)
    rv_log = tmp_path / "rendezvous.log"
    rv = net.start(public, ["rendezvous", "--bind", "203.0.113.10", "--port", "7447"], rv_log)
    wait_for(rv_log, "rendezvous listening", 30, rv)
    logs = [tmp_path / f"p{i}.log" for i in range(3)]
    homes = [tmp_path / f"p{i}" for i in range(3)]
    procs = [net.start(players[0], ["host", "-n", "3", "--rendezvous", RENDEZVOUS, "--home",
                                    str(homes[0]), "--name", "p0", *BOT], logs[0])]
    text = wait_for(logs[0], "join code: ", 60, procs[0])
    code = text.split("join code: ", 1)[1].split()[0]
    for i in (1, 2):
        procs.append(net.start(players[i], ["join", code, "--home", str(homes[i]), "--name",
                                            f"p{i}", *BOT], logs[i]))
        wait_for(logs[0], f"joined, {i + 1}/3", 60, procs[0])  # seats in this order
    deadline = time.monotonic() + 240
    for proc in procs:
        proc.wait(max(0.1, deadline - time.monotonic()))
    assert [p.returncode for p in procs] == [0, 0, 0], _logs([*logs, rv_log])
    results = []
    for home in homes:
        paths = sorted(home.glob("games/*/transcript.json"))
        assert len(paths) == 1 and verify_transcript(paths[0]).ok, _logs(logs)
        results.append(json.loads((paths[0].parent / "finished.json").read_text())["scores"])
    assert results[0] == results[1] == results[2]
    relayed = rv_log.read_text()
    ids = [Identity.load_or_create(home).peer_id[:8] for home in homes]
    # p1 and p2 reach the host behind the symmetric NAT only through the relay; p2 reaches
    # p1 directly, its full-cone router forwarding the port.
    assert f"to peer {ids[0]}" in relayed, relayed
    assert f"to peer {ids[1]}" not in relayed, relayed
