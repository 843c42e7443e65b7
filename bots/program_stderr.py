"""A bot program's stderr: shown line by line up to a cap per decision, its tail kept.

A bot that streams diagnostics must not slow the game down or fill the log: each decision may
show ``MAX_STDERR_LINES`` lines or ``MAX_STDERR_BYTES``; the excess is counted and reported as
one fault when the next decision begins. The last lines are kept (``STDERR_TAIL`` characters of
each) so that a program's death can be reported with its last words.
"""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Callable
from typing import IO

from bots import bot_output
from bots.faults import Fault
from bots.program_lines import MAX_LINE

MAX_STDERR_LINES = 200       # stderr lines shown per decision (the rest is counted, a fault)
MAX_STDERR_BYTES = 64 << 10  # ... and bytes
STDERR_TAIL = 200            # characters kept of each of the last stderr lines


class Stderr:
    """The stderr of one program; ``read`` is the reader thread, ``show`` gets each line
    that may be shown."""

    def __init__(self, show: Callable[[str], None]) -> None:
        self._show = show
        self._last: deque[str] = deque(maxlen=20)
        # shown since the last decision began, and what was not shown
        self._lines = self._bytes = 0
        self._dropped = self._dropped_bytes = 0

    def read(self, stream: IO[bytes]) -> None:
        with contextlib.suppress(OSError, ValueError):
            while chunk := stream.readline(MAX_LINE):
                line = chunk[:4 * STDERR_TAIL].decode("utf-8", "replace").rstrip("\r\n")
                self._last.append(line[:STDERR_TAIL])  # sanitised when quoted
                self._lines += 1
                self._bytes += len(chunk)
                if self._lines > MAX_STDERR_LINES or self._bytes > MAX_STDERR_BYTES:
                    self._dropped += 1
                    self._dropped_bytes += len(chunk)
                    continue
                self._show(line)

    def new_window(self, decision: int | None) -> Fault | None:
        """A new decision's allowance; a fault for what the last one did not show."""
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
