"""The simulated network itself: the switch of tests/netwire.py forwards, floods, drops,
delays and cuts as told (pipes stand for TAP devices), and tests/netns.py says in one line
why namespace tests cannot run where they cannot."""

from __future__ import annotations

import os
import time

import netns
import pytest
from netwire import Switch

A, B, C = (bytes([2, 0, 0, 0, 0, n]) for n in (1, 2, 3))
BROADCAST = b"\xff" * 6


def _frame(dst: bytes, src: bytes, body: bytes = b"x" * 50) -> bytes:
    return dst + src + b"\x08\x00" + body


@pytest.fixture
def ports() -> dict[int, tuple[int, int]]:
    """Port -> (read end, write end) of a pipe: what the switch writes to port n is read
    from its read end."""
    made = {n: os.pipe() for n in range(3)}
    for read, _ in made.values():
        os.set_blocking(read, False)
    yield made
    for read, write in made.values():
        os.close(read)
        os.close(write)


def _switch(ports: dict[int, tuple[int, int]]) -> Switch:
    return Switch({n: write for n, (_, write) in ports.items()}, seed=1)


def _got(ports: dict[int, tuple[int, int]], port: int) -> bytes:
    try:
        return os.read(ports[port][0], 65536)
    except BlockingIOError:
        return b""


def _drain(switch: Switch, seconds: float = 0.0) -> None:
    deadline = time.monotonic() + seconds
    while True:
        switch.due()
        if not switch.queue or time.monotonic() > deadline + 1:
            return
        time.sleep(0.005)


def test_the_switch_floods_until_it_learns_then_forwards(ports: dict[int, tuple[int, int]]
                                                         ) -> None:
    switch = _switch(ports)
    switch.frame(0, _frame(B, A))  # B unknown: flooded to 1 and 2
    _drain(switch)
    assert _got(ports, 1) and _got(ports, 2) and not _got(ports, 0)
    switch.frame(1, _frame(A, B))  # A was learnt on port 0
    _drain(switch)
    assert _got(ports, 0) and not _got(ports, 2)
    switch.frame(2, _frame(BROADCAST, C))  # multicast and broadcast: everyone else
    _drain(switch)
    assert _got(ports, 0) and _got(ports, 1)


def test_a_block_is_one_way_and_heal_lifts_it(ports: dict[int, tuple[int, int]]) -> None:
    switch = _switch(ports)
    for port, mac in ((0, A), (1, B)):
        switch.frame(port, _frame(BROADCAST, mac))
    _drain(switch)
    for port in ports:
        _got(ports, port)
    assert switch.command("block 0 1") == "ok"
    switch.frame(0, _frame(B, A))
    switch.frame(1, _frame(A, B))
    _drain(switch)
    assert not _got(ports, 1) and _got(ports, 0)  # A -> B cut, B -> A not
    switch.command("heal")
    switch.frame(0, _frame(B, A))
    _drain(switch)
    assert _got(ports, 1)


def test_loss_and_delay_are_applied(ports: dict[int, tuple[int, int]]) -> None:
    switch = _switch(ports)
    switch.frame(1, _frame(BROADCAST, B))
    _drain(switch)
    _got(ports, 0)
    switch.command("impair 0.3 50 0")
    started = time.monotonic()
    for _ in range(200):
        switch.frame(0, _frame(B, A, b"y" * 10))
    assert switch.due() is not None and not _got(ports, 1)  # nothing yet: 50 ms to go
    _drain(switch, 0.2)
    assert time.monotonic() - started >= 0.05
    delivered = len(_got(ports, 1)) // len(_frame(B, A, b"y" * 10))
    assert 100 < delivered < 180, delivered  # about 70 % of 200
    assert switch.command("stats") == f"ok {switch.forwarded} {switch.dropped}"
    assert switch.command("nonsense").startswith("error")


def test_namespace_tests_say_why_they_cannot_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert netns.unavailable() == "network namespace tests need root"
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.setattr(netns.shutil, "which", lambda name: None)
    assert netns.unavailable() == "network namespace tests need `ip` (iproute2)"
