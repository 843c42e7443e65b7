"""Where a process bot's own words go: its ``log`` messages and its stderr lines.

By default they are printed to stderr, each line prefixed with the bot, its seat and the game
(``[bot example seat 1 game 7] ...``); ``--bot-log FILE`` appends them, and every bot fault
(``[fault] ...``), to a file as well, and the
terminal UI passes a ``listener`` instead of printing (the screen is the UI's). ``record_dir``
(``--record-bot DIR``) makes every process bot write its protocol traffic there, one file per
game and seat (see ``bots.trace``).

The settings are per process; tournament workers get the parent's settings through
``settings()`` / ``configure(**...)``.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, TextIO

MAX_SHOWN = 500  # characters of one bot line shown (the rest is cut: a bot cannot flood a log)


@dataclass(frozen=True)
class OutputSettings:
    echo: bool = True              # print bot lines to stderr
    log_file: str | None = None    # also append them to this file
    record_dir: str | None = None  # write protocol traces here


_settings = OutputSettings()
_lock = threading.Lock()
_file: TextIO | None = None


def configure(echo: bool = True, log_file: str | Path | None = None,
              record_dir: str | Path | None = None) -> None:
    """Set where bot lines and traces go for this process (the CLI calls this once)."""
    global _settings, _file
    with _lock:
        if _file is not None:
            _file.close()
            _file = None
        _settings = OutputSettings(echo, str(log_file) if log_file else None,
                                   str(record_dir) if record_dir else None)
        if log_file:
            Path(log_file).parent.mkdir(parents=True, exist_ok=True)
            _file = open(log_file, "a", encoding="utf-8", buffering=1)  # noqa: SIM115
        if record_dir:
            Path(record_dir).mkdir(parents=True, exist_ok=True)


def set_echo(echo: bool) -> None:
    """Print bot lines to stderr or not, keeping the log file and trace settings."""
    global _settings
    with _lock:
        _settings = replace(_settings, echo=echo)


def settings() -> dict[str, Any]:
    """The current settings as keyword arguments for ``configure`` (for worker processes)."""
    return asdict(_settings)


def record_dir() -> Path | None:
    return Path(_settings.record_dir) if _settings.record_dir else None


def sanitize(text: str, limit: int = MAX_SHOWN) -> str:
    """Printable text only (no terminal escapes from a bot), cut at ``limit`` characters."""
    clean = "".join(ch if ch.isprintable() else "?" for ch in text.replace("\t", " "))
    return clean if len(clean) <= limit else clean[:limit] + f"... ({len(clean)} chars)"


Listener = Callable[[str], None]


class BotLines:
    """The sink of one bot's lines: prefixes, sanitises, and sends them where configured."""

    def __init__(self, listener: Listener | None = None, echo: bool | None = None) -> None:
        self.listener = listener
        self.echo = echo  # None: the process-wide setting

    def emit(self, bot: str, seat: int | None, source: str, text: str,
             game: str = "") -> None:
        where = f" seat {seat}" if seat is not None else ""
        if game:
            where += f" game {sanitize(game, 60)}"
        line = f"[bot {sanitize(bot, 60)}{where}{source}] {sanitize(text)}"
        if self.listener is not None:
            self.listener(line)
        echo = _settings.echo if self.echo is None else self.echo
        with _lock:
            if echo:
                print(line, file=sys.stderr, flush=True)
            if _file is not None:
                _file.write(line + "\n")


def fault(text: str) -> None:
    """Keep a bot fault in the ``--bot-log`` file too (it is logged to stderr already), so the
    file holds a bot's words and its faults in the order they happened."""
    with _lock:
        if _file is not None:
            _file.write(f"[fault] {sanitize(text, 2 * MAX_SHOWN)}\n")
