"""A bot program's stdout as lines: read by a thread, queued within the flood limits.

The reader thread cuts the output into lines of at most ``MAX_LINE`` bytes (a longer line is
skipped whole and queued as a ``Line`` without text, so it can be reported) and queues them in
an ``Inbox``; a program that leaves more than ``MAX_PENDING_LINES`` lines or
``MAX_PENDING_BYTES`` unread is killed and the inbox gets ``FLOOD``; the end of the output is
``EOF``. ``parse`` reads one line as JSON within the bot protocol's nesting and size limits.
"""

from __future__ import annotations

import contextlib
import json
import queue
import subprocess
import threading
from dataclasses import dataclass
from typing import IO, Any

from engine.canonical import BOT_LINE_LIMITS, check_limits

MAX_LINE = 1 << 20           # bytes in one line from a bot (a decide's answer is ~50)
MAX_PENDING_LINES = 10_000   # lines waiting unread before the bot counts as flooding
MAX_PENDING_BYTES = 16 << 20


@dataclass(frozen=True, slots=True)
class Line:
    number: int
    text: str | None   # None: the line was longer than MAX_LINE and was dropped
    size: int


EOF = object()    # the reader thread's markers: the program closed its stdout ...
FLOOD = object()  # ... or wrote more than may wait unread


class Inbox:
    """The queue between the reader thread and the engine, with the flood limits."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self._queue: queue.Queue[object] = queue.Queue()
        self._front: list[object] = []
        self._bytes = 0
        self._lock = threading.Lock()
        self._proc = proc

    def put(self, item: object) -> bool:
        """Queue a line; False (and the program killed) when it floods."""
        size = _held(item)
        with self._lock:
            self._bytes += size
            flooded = (self._queue.qsize() >= MAX_PENDING_LINES or
                       self._bytes > MAX_PENDING_BYTES)
        if flooded:
            with contextlib.suppress(OSError):
                self._proc.kill()
            self._queue.put(FLOOD)
            return False
        self._queue.put(item)
        return True

    def _taken(self, item: object) -> object:
        with self._lock:
            self._bytes -= _held(item)
        return item

    def get(self, timeout: float) -> object:
        if self._front:
            return self._front.pop()
        return self._taken(self._queue.get(timeout=timeout))

    def get_nowait(self) -> object:
        if self._front:
            return self._front.pop()
        return self._taken(self._queue.get_nowait())

    def put_back(self, item: object) -> None:
        self._front.append(item)


def _held(item: object) -> int:
    """Bytes of memory a queued item holds (a line over the limit was dropped: none)."""
    return len(item.text) if isinstance(item, Line) and item.text is not None else 0


def read_stdout(stream: IO[bytes], inbox: Inbox) -> None:
    """The reader thread: every line of ``stream`` into ``inbox`` until the end or a flood."""
    number = 0
    with contextlib.suppress(OSError, ValueError):
        while chunk := stream.readline(MAX_LINE + 1):
            number += 1
            if len(chunk) > MAX_LINE and not chunk.endswith(b"\n"):
                size = len(chunk)
                while (more := stream.readline(MAX_LINE + 1)) and size < (1 << 62):
                    size += len(more)
                    if more.endswith(b"\n"):
                        break
                line = Line(number, None, size)
            else:
                line = Line(number, chunk.decode("utf-8", "replace").rstrip("\r\n"),
                            len(chunk))
            if not inbox.put(line):
                return
    inbox.put(EOF)


def parse(text: str) -> Any:
    """The JSON value of a line (any JSON: the caller checks it is an object), or None."""
    try:
        check_limits(text, BOT_LINE_LIMITS)  # nesting and size bounded before json sees it
        return json.loads(text)
    except (ValueError, RecursionError):
        return None
