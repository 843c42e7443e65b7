"""Bot traces (``--record-bot DIR``): a process bot's protocol traffic, one file per game and
seat, and the reader ``solstice bot-replay`` uses.

A trace is JSON lines. Every entry has ``t`` (seconds since the trace was opened) and
``from``:

- ``{"from": "engine", "message": {...}}``: a message sent to the bot (``hello``, ``decide``,
  ``end``), exactly as sent;
- ``{"from": "bot", "line": N, "text": "..."}``: line N of the bot's stdout, as received;
- ``{"from": "engine", "decision": ID, "answer": "..." | null, "fault": "..." | null}``: what
  the engine made of decision ID: the legal action it accepted, or the fault that replaced it.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from engine.canonical import BOT_LINE_LIMITS, JSONRefused, check_limits


def trace_path(directory: Path, game: str, seat: int) -> Path:
    slug = re.sub(r"[^\w.-]+", "_", game).strip("_") or "game"
    return directory / f"{slug}-seat{seat}.jsonl"


class TraceWriter:
    """Appends one game's traffic of one seat to its trace file."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._out: TextIO = open(path, "w", encoding="utf-8", buffering=1)  # noqa: SIM115
        self._started = time.monotonic()

    def _write(self, entry: dict[str, Any]) -> None:
        if not self._out.closed:
            entry = {"t": round(time.monotonic() - self._started, 4), **entry}
            self._out.write(json.dumps(entry, separators=(",", ":")) + "\n")

    def sent(self, message: dict[str, Any]) -> None:
        self._write({"from": "engine", "message": message})

    def received(self, line: int, text: str) -> None:
        self._write({"from": "bot", "line": line, "text": text})

    def outcome(self, decision: int, answer: str | None, fault: str | None) -> None:
        self._write({"from": "engine", "decision": decision, "answer": answer, "fault": fault})

    def close(self) -> None:
        self._out.close()


class TraceError(ValueError):
    """A file that is not a bot trace (says which line is wrong)."""


@dataclass(frozen=True)
class RecordedDecision:
    message: dict[str, Any]   # the decide message as sent
    answer: str | None        # the action the engine accepted (None: replaced after a fault)
    fault: str | None


@dataclass(frozen=True)
class RecordedGame:
    hello: dict[str, Any]
    decisions: tuple[RecordedDecision, ...]
    end: dict[str, Any] | None


def read_trace(path: Path) -> RecordedGame:
    """The hello, the decisions with their recorded outcomes, and the end of a trace file."""
    hello: dict[str, Any] | None = None
    decides: dict[int, dict[str, Any]] = {}
    outcomes: dict[int, tuple[str | None, str | None]] = {}
    end = None
    for number, entry in _entries(path):
        if entry.get("from") != "engine":
            continue
        message = entry.get("message")
        if isinstance(message, dict):
            kind = message.get("type")
            if kind == "hello":
                hello = message
            elif kind == "decide" and isinstance(message.get("id"), int):
                decides[message["id"]] = message
            elif kind == "end":
                end = message
        elif isinstance(entry.get("decision"), int):
            outcomes[entry["decision"]] = (entry.get("answer"), entry.get("fault"))
        else:
            raise TraceError(f"{path}:{number}: an engine entry with neither message nor "
                             "decision")
    if hello is None:
        raise TraceError(f"{path}: no hello message: not a bot trace (--record-bot writes them)")
    decisions = tuple(RecordedDecision(m, *outcomes.get(i, (None, "no outcome recorded")))
                      for i, m in sorted(decides.items()))
    return RecordedGame(hello, decisions, end)


def _entries(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise TraceError(f"cannot read trace {path}: {exc}") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            check_limits(line, BOT_LINE_LIMITS)  # a trace may come from anyone (bot-replay)
            entry = json.loads(line)
        except JSONRefused as exc:
            raise TraceError(f"{path}:{number}: refused ({exc})") from None
        except json.JSONDecodeError as exc:
            raise TraceError(f"{path}:{number}: not JSON ({exc.msg})") from None
        if not isinstance(entry, dict):
            raise TraceError(f"{path}:{number}: not a JSON object")
        yield number, entry
