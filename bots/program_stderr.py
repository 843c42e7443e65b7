"""A bot program's stderr: shown line by line up to a cap per decision, its tail kept.

A bot that streams diagnostics must not slow the game down or fill the log: each decision may
show ``MAX_STDERR_LINES`` lines or ``MAX_STDERR_BYTES``; the excess is counted and reported as
one fault when the decision's wait ends. The last lines are kept (``STDERR_TAIL`` characters of
each) so that a program's death can be reported with its last words.

Lines are filed by when the program wrote them, not by when a thread happened to read them:
a bot writes its stderr before its answer, so when the answer has arrived everything it wrote
for that decision is already in the pipe, and ``new_window`` reads it all (``sync``) before it
closes the decision's count. A reader thread shows the lines in between; both read under one
lock, so a line is counted once, in order.
"""

from __future__ import annotations

import contextlib
import os
import select
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import IO

from bots import bot_output
from bots.faults import Fault
from bots.program_lines import MAX_LINE

MAX_STDERR_LINES = 200       # stderr lines shown per decision (the rest is counted, a fault)
MAX_STDERR_BYTES = 64 << 10  # ... and bytes
STDERR_TAIL = 200            # characters kept of each of the last stderr lines
SYNC_LIMIT = 1 << 20         # bytes one sync reads at most (a pipe holds 64 KiB by default):
                             # a program that writes without pause cannot hold the engine
POLL = 0.5                   # seconds the reader thread waits in select() before looking again


class Stderr:
    """The stderr of one program; ``read`` is the reader thread, ``show`` gets each line
    that may be shown."""

    def __init__(self, show: Callable[[str], None]) -> None:
        self._show = show
        self._last: deque[str] = deque(maxlen=20)
        self._lock = threading.Lock()
        self._stream: IO[bytes] | None = None
        self._partial = b""
        self._closed = False
        # shown since the last decision began, and what was not shown
        self._lines = self._bytes = 0
        self._dropped = self._dropped_bytes = 0

    def attach(self, stream: IO[bytes]) -> None:
        """The program's stderr, before ``read`` runs (made non-blocking: both threads read
        only what is there)."""
        os.set_blocking(stream.fileno(), False)
        self._stream = stream

    def read(self) -> None:
        """The reader thread: show the lines as they come, until the end of the stream."""
        stream = self._stream
        assert stream is not None
        while not self._closed:
            try:
                select.select([stream], [], [], POLL)
            except (OSError, ValueError):
                with self._lock:
                    self._close()
                return
            self.sync()

    def sync(self) -> None:
        """Read (and file) everything the program has written to stderr so far."""
        with self._lock:
            self._read_ready(SYNC_LIMIT)

    def finish(self, timeout: float) -> None:
        """After the program exited: read its last lines, up to the end of the stream (or
        ``timeout`` seconds, should a child of it keep the stream open)."""
        deadline = time.monotonic() + timeout
        while True:
            self.sync()
            left = deadline - time.monotonic()
            if self._closed or self._stream is None or left <= 0:
                return
            with contextlib.suppress(OSError, ValueError):
                select.select([self._stream], [], [], min(left, 0.05))

    def _read_ready(self, limit: int) -> None:
        """Read what the pipe holds now (at most ``limit`` bytes); the lock is held."""
        stream = self._stream
        if stream is None or self._closed:
            return
        taken = 0
        while taken < limit:
            try:
                data = os.read(stream.fileno(), 1 << 16)
            except BlockingIOError:
                return
            except (OSError, ValueError):
                data = b""
            if not data:
                self._close()
                return
            taken += len(data)
            self._feed(data)

    def _feed(self, data: bytes) -> None:
        *lines, self._partial = (self._partial + data).split(b"\n")
        for line in lines:
            self._line(line + b"\n")
        while len(self._partial) >= MAX_LINE:  # a line too long to wait for its end
            self._line(self._partial[:MAX_LINE])
            self._partial = self._partial[MAX_LINE:]

    def _close(self) -> None:
        if self._partial:
            self._line(self._partial)  # a last line without its newline
            self._partial = b""
        self._closed = True

    def _line(self, chunk: bytes) -> None:
        line = chunk[:4 * STDERR_TAIL].decode("utf-8", "replace").rstrip("\r\n")
        self._last.append(line[:STDERR_TAIL])  # sanitised when quoted
        self._lines += 1
        self._bytes += len(chunk)
        if self._lines > MAX_STDERR_LINES or self._bytes > MAX_STDERR_BYTES:
            self._dropped += 1
            self._dropped_bytes += len(chunk)
            return
        self._show(line)

    def new_window(self, decision: int | None) -> Fault | None:
        """A new decision's allowance, once what the program wrote for the last one is read;
        a fault for what the last one did not show."""
        with self._lock:
            self._read_ready(SYNC_LIMIT)  # what it wrote before its answer counts here
            dropped, size = self._dropped, self._dropped_bytes
            self._lines = self._bytes = 0
            self._dropped = self._dropped_bytes = 0
        if not dropped:
            return None
        return Fault("stderr", f"wrote {dropped} more stderr line(s) ({size} bytes) than the "
                     f"{MAX_STDERR_LINES} lines or {MAX_STDERR_BYTES >> 10} KiB shown per "
                     "decision; they were not shown", decision=decision)

    def tail(self) -> str:
        """The last lines, sanitised, for a report of the program's death ("" if none)."""
        return " | ".join(bot_output.sanitize(line, STDERR_TAIL) for line in self._last)
