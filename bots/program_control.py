"""Starting a bot program, writing to it with a deadline, and making sure it stops.

The program runs without a shell, its three streams piped. Its stdin is non-blocking: a write
to a program that stopped reading waits in select() with a deadline instead of in write() for
ever (which would also block closing the pipe).
"""

from __future__ import annotations

import contextlib
import os
import select
import subprocess
import time

from bots.faults import BotGone

QUIT_GRACE = 1.0             # seconds a program has to exit after "quit" before it is killed


def start(argv: list[str], command: str) -> subprocess.Popen[bytes]:
    """The running program; BotGone (kind "start") if it cannot be started."""
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
    except OSError as exc:
        raise BotGone(f"cannot start {command!r}: {exc}", "start") from exc
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    os.set_blocking(proc.stdin.fileno(), False)
    return proc


def write_by(proc: subprocess.Popen[bytes], data: bytes, deadline: float) -> bool:
    """Write all of ``data`` to the program's stdin; False if the deadline (a
    ``time.monotonic`` value) passes first. OSError if the pipe is broken (it died)."""
    assert proc.stdin is not None
    fd = proc.stdin.fileno()
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view):]
            continue
        except BlockingIOError:
            pass
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        select.select([], [fd], [], remaining)
    return True


def exit_code(proc: subprocess.Popen[bytes], timeout: float) -> int | None:
    """The program's exit status once it exits within ``timeout`` s, else None."""
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        return None


def kill(proc: subprocess.Popen[bytes]) -> None:
    """Kill the program if it still runs."""
    if proc.poll() is None:
        proc.kill()


def terminate(proc: subprocess.Popen[bytes]) -> None:
    """Close stdin (a well-behaved bot exits on end of input), then insist."""
    with contextlib.suppress(OSError):
        if proc.stdin is not None:
            proc.stdin.close()
    try:
        proc.wait(timeout=QUIT_GRACE)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
