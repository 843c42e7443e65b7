"""A userspace Ethernet switch between TAP interfaces: the "cable" of the namespace LAN
(tests/netns.py), with loss, delay, jitter (and so reordering) and cuts on every link.

Why not ``tc netem``: kernels built without ``sch_netem`` (this project's CI machine is one)
refuse it, and a test that needs it would skip where it matters most. A switch in a process
of its own impairs every frame the same way on any kernel that has TAP devices.

Run as ``python netwire.py FD:PORT ...`` with the TAP file descriptors inherited; commands
come one a line on stdin and each is answered ``ok`` (or ``error ...``) on stdout:

    impair LOSS DELAY_MS JITTER_MS   every link: drop LOSS (0..1), delay DELAY +- JITTER ms
    block SRC DST                    frames from port SRC to port DST are dropped (one way)
    unblock SRC DST
    heal                             no blocks
    stats                            frames forwarded and dropped so far
"""

from __future__ import annotations

import heapq
import os
import random
import select
import sys
import time

_MTU_FRAME = 65536


class Switch:
    def __init__(self, ports: dict[int, int], seed: int) -> None:
        self.ports = ports  # port number -> TAP fd
        self.macs: dict[bytes, int] = {}  # learnt: source MAC -> port
        self.loss, self.delay, self.jitter = 0.0, 0.0, 0.0
        self.blocked: set[tuple[int, int]] = set()
        self.queue: list[tuple[float, int, int, bytes]] = []
        self.seq = 0
        self.random = random.Random(seed)
        self.forwarded = self.dropped = 0

    def command(self, line: str) -> str:
        words = line.split()
        if not words:
            return "ok"
        verb, args = words[0], words[1:]
        if verb == "impair":
            self.loss, self.delay, self.jitter = float(args[0]), float(args[1]) / 1000, \
                float(args[2]) / 1000
        elif verb == "block":
            self.blocked.add((int(args[0]), int(args[1])))
        elif verb == "unblock":
            self.blocked.discard((int(args[0]), int(args[1])))
        elif verb == "heal":
            self.blocked.clear()
        elif verb == "stats":
            return f"ok {self.forwarded} {self.dropped}"
        else:
            return f"error unknown command {verb!r}"
        return "ok"

    def frame(self, port: int, data: bytes) -> None:
        if len(data) < 14:
            return
        dst, src = data[0:6], data[6:12]
        self.macs[src] = port
        known = self.macs.get(dst) if not dst[0] & 1 else None  # group bit: flood
        targets = [known] if known is not None else [p for p in self.ports if p != port]
        now = time.monotonic()
        for target in targets:
            if target == port:
                continue
            if (port, target) in self.blocked or self.random.random() < self.loss:
                self.dropped += 1
                continue
            wait = max(0.0, self.delay + self.random.uniform(-self.jitter, self.jitter))
            self.seq += 1
            heapq.heappush(self.queue, (now + wait, self.seq, target, data))

    def due(self) -> float | None:
        now = time.monotonic()
        while self.queue and self.queue[0][0] <= now:
            _, _, target, data = heapq.heappop(self.queue)
            try:
                os.write(self.ports[target], data)
                self.forwarded += 1
            except OSError:  # the interface is down (a cut cable): the frame is lost
                self.dropped += 1
        return self.queue[0][0] - now if self.queue else None


def main(argv: list[str]) -> int:
    ports = {}
    for spec in argv:
        fd, port = spec.split(":")
        ports[int(port)] = int(fd)
        os.set_blocking(int(fd), False)
    switch = Switch(ports, seed=int(os.environ.get("NETWIRE_SEED", "0")))
    by_fd = {fd: port for port, fd in ports.items()}
    stdin = sys.stdin.fileno()
    pending = b""
    print("ok", flush=True)
    while True:
        wait = switch.due()
        readable, _, _ = select.select([stdin, *by_fd], [], [], 0.5 if wait is None else wait)
        for fd in readable:
            if fd == stdin:
                chunk = os.read(stdin, 4096)
                if not chunk:
                    return 0  # the test closed our stdin: the LAN is being torn down
                pending += chunk
                while b"\n" in pending:
                    line, pending = pending.split(b"\n", 1)
                    print(switch.command(line.decode()), flush=True)
                continue
            for _ in range(64):  # drain a burst without starving the others
                try:
                    data = os.read(fd, _MTU_FRAME)
                except (BlockingIOError, OSError):
                    break
                switch.frame(by_fd[fd], data)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
