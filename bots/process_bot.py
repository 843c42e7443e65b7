"""Bots in other processes (any language): the JSON-lines bot protocol over stdin/stdout.

The protocol is specified in protocol.md, section "Bot protocol". In short, one JSON object per
line; the engine side (this module) sends ``hello`` at the start of every game and waits for
``ready``, sends one ``decide`` per decision and waits for the ``action`` with the same ``id``,
sends ``end`` after the game and ``quit`` when it stops the program.

Timeouts are enforced here: a reader thread queues the program's lines, and the engine waits
at most ``time_budget`` seconds per decision. A late answer carries an old ``id`` and is dropped.
"""

from __future__ import annotations

import collections
import contextlib
import json
import logging
import queue
import shlex
import subprocess
import threading
import time
import weakref
from typing import Any

from bots.base import Bot, GameInfo, Turn
from bots.guard import BotError, BotGone
from engine import Action

PROTOCOL_VERSION = 1
DEFAULT_TIME_BUDGET = 10.0   # seconds per decision
HANDSHAKE_TIMEOUT = 10.0     # seconds for "ready" (interpreters can be slow to start)

log = logging.getLogger("solstice.bots.process")

_EOF = object()  # the reader thread's marker: the program closed its stdout


class ProcessBot(Bot):
    """Runs ``command`` (a shell-like command line, split with shlex; no shell) as a bot."""

    description = "a bot program speaking the JSON-lines bot protocol (cmd:COMMAND)"

    def __init__(self, command: str, timeout: float = DEFAULT_TIME_BUDGET,
                 handshake_timeout: float = HANDSHAKE_TIMEOUT) -> None:
        self.command = command
        self.argv = shlex.split(command)
        if not self.argv:
            raise ValueError("cmd: needs a command to run")
        self.name = f"cmd:{command}"
        self.time_budget = float(timeout)
        self.handshake_timeout = float(handshake_timeout)
        self._proc: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[object] = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque(maxlen=20)
        self._next_id = 0
        self._dead: str | None = None
        self._finalizer: weakref.finalize | None = None

    # -- process management ----------------------------------------------------------------

    def _spawn(self) -> None:
        try:
            proc = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True, encoding="utf-8", errors="replace",
                bufsize=1)
        except OSError as exc:
            raise BotGone(f"cannot start {self.command!r}: {exc}") from exc
        self._proc = proc
        # Killing the child when the bot object goes away keeps crashed runs from leaving
        # orphaned bot programs behind.
        self._finalizer = weakref.finalize(self, _terminate, proc)
        threading.Thread(target=_pump, args=(proc.stdout, self._lines), daemon=True).start()
        threading.Thread(target=_drain, args=(proc.stderr, self._stderr, self.name),
                         daemon=True).start()

    def _died(self, what: str) -> BotGone:
        proc = self._proc
        code = None
        if proc is not None:
            try:
                code = proc.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                code = None
        time.sleep(0.05)  # let the stderr thread catch the program's last words
        detail = f"exit code {code}" if code is not None else "still running"
        tail = " | ".join(self._stderr)
        self._dead = f"{what} ({detail})" + (f"; its stderr ends: {tail}" if tail else "")
        return BotGone(self._dead)

    def _send(self, message: dict[str, Any]) -> None:
        if self._dead is not None:
            raise BotGone(self._dead)
        proc = self._proc
        assert proc is not None and proc.stdin is not None
        try:
            proc.stdin.write(json.dumps(message, separators=(",", ":")) + "\n")
            proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError) as exc:
            raise self._died(f"the bot program {self.command!r} died ({exc})") from None

    def _receive(self, deadline: float, waiting_for: str) -> dict[str, Any]:
        """The next message object, or BotError on timeout / garbage, BotGone on death."""
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise BotError(f"no {waiting_for} within {self._budget_text(waiting_for)}")
            try:
                line = self._lines.get(timeout=remaining)
            except queue.Empty:
                continue
            if line is _EOF:
                raise self._died(f"the bot program {self.command!r} died (closed its output)")
            assert isinstance(line, str)
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except json.JSONDecodeError:
                raise BotError(f"answered garbage (not JSON): {line[:200]!r}") from None
            if not isinstance(message, dict):
                raise BotError(f"answered garbage (not a JSON object): {line[:200]!r}")
            if message.get("type") == "log":
                log.info("%s says: %s", self.name, message.get("message"))
                continue
            return message

    def _budget_text(self, waiting_for: str) -> str:
        budget = self.handshake_timeout if waiting_for == "ready" else self.time_budget
        return f"{budget:g} s"

    # -- the Bot interface -----------------------------------------------------------------

    def start(self, info: GameInfo) -> None:
        super().start(info)
        if self._dead is not None:
            raise BotGone(self._dead)
        if self._proc is None:
            self._spawn()
        self._send({"type": "hello", "protocol": PROTOCOL_VERSION, "seat": info.seat,
                    "config": info.config.to_dict(), "seed": info.seed.hex()})
        deadline = time.monotonic() + self.handshake_timeout
        while True:
            message = self._receive(deadline, "ready")
            if message.get("type") == "ready":
                break
            # anything else before "ready" (e.g. a stale answer) is ignored, as the spec says
        name = message.get("name")
        if isinstance(name, str) and name.strip():
            self.name = name.strip()[:60]
        version = message.get("protocol", PROTOCOL_VERSION)
        if version != PROTOCOL_VERSION:
            raise BotGone(f"speaks bot protocol {version!r}, the engine speaks "
                          f"{PROTOCOL_VERSION}")

    def choose(self, turn: Turn) -> Action:
        self._next_id += 1
        ident = self._next_id
        by_text = {a.text(): a for a in turn.legal}
        self._send({"type": "decide", "id": ident, "view": turn.view,
                    "legal": list(by_text)})
        deadline = time.monotonic() + self.time_budget
        while True:
            message = self._receive(deadline, "action")
            if message.get("type") != "action" or message.get("id") != ident:
                continue  # a late answer to an earlier decision, or an unknown message type
            text = message.get("action")
            if not isinstance(text, str):
                raise BotError(f"answered garbage: 'action' must be a string, got {text!r}")
            action = by_text.get(text.strip())
            if action is None:
                raise BotError(f"answered {text!r}, which is not one of the legal actions")
            return action

    def end(self, result: dict[str, Any]) -> None:
        if self._dead is None and self._proc is not None:
            with contextlib.suppress(BotGone):  # already reported; a dead program hears nothing
                self._send({"type": "end", **result})

    def close(self) -> None:
        proc = self._proc
        if proc is None:
            return
        if self._dead is None and proc.poll() is None:
            with contextlib.suppress(BotGone):
                self._send({"type": "quit"})
        if self._finalizer is not None:
            self._finalizer()


def _pump(stream: Any, lines: queue.Queue[object]) -> None:
    try:
        for line in stream:
            lines.put(line)
    except (OSError, ValueError):
        pass
    lines.put(_EOF)


def _drain(stream: Any, tail: collections.deque[str], name: str) -> None:
    try:
        for line in stream:
            line = line.rstrip("\n")
            tail.append(line)
            log.debug("%s stderr: %s", name, line)
    except (OSError, ValueError):
        pass


def _terminate(proc: subprocess.Popen[str]) -> None:
    """Close stdin (a well-behaved bot exits on end of input), then insist."""
    try:
        if proc.stdin is not None:
            proc.stdin.close()
    except OSError:
        pass
    try:
        proc.wait(timeout=1.0)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
