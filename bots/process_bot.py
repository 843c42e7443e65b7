"""Bots in other processes (any language): the JSON-lines bot protocol over stdin/stdout.

The protocol is specified in protocol.md, section "Bot protocol". In short, one JSON object per
line; the engine side (this module) sends ``hello`` at the start of every game and waits for
``ready``, sends one ``decide`` per decision and waits for the ``action`` with the same ``id``,
sends ``end`` after the game and ``quit`` when it stops the program.

Nothing the program does can hang or swamp the client:

- writes have a deadline (the pipe to a program that stops reading fills up): past it the
  program is abandoned (killed) and the seat plays random legal actions; the pipe is
  non-blocking, so closing it never waits either;
- a reader thread reads stdout in lines of at most ``MAX_LINE`` bytes (a longer line is
  skipped and reported) and at most ``MAX_PENDING_BYTES`` / ``MAX_PENDING_LINES`` wait unread;
  a program that writes more, or more than ``MAX_SKIPPED`` useless lines while one decision is
  pending, floods: it is cut off (killed) and reported once;
- every line that is not the awaited answer is skipped and reported as a ``Fault`` with its
  line number and text (see ``take_faults``), so one bad line costs no move.

A bot's ``log`` messages and stderr lines go to ``bots.bot_output`` (printed with the bot and
seat, kept with ``--bot-log``); ``--record-bot`` writes the traffic to a trace (``bots.trace``).

This module holds the conversation; its parts are ``bots.program_control`` (starting, writing
with a deadline, stopping), ``bots.program_lines`` (stdout as lines, the flood limits),
``bots.program_stderr`` (stderr shown within a cap) and ``bots.line_faults`` (skipped lines
worded and counted as faults).
"""

from __future__ import annotations

import contextlib
import json
import queue
import shlex
import subprocess
import threading
import time
import weakref
from collections.abc import Iterator
from typing import Any

from bots import bot_output
from bots.base import Bot, GameInfo, Turn
from bots.faults import BotError, BotGone, Fault
from bots.line_faults import MAX_REPORTED, LineFaults, show
from bots.program_control import QUIT_GRACE, exit_code, kill, start, terminate, write_by
from bots.program_lines import (
    EOF,
    FLOOD,
    MAX_LINE,
    MAX_PENDING_BYTES,
    MAX_PENDING_LINES,
    Inbox,
    Line,
    parse,
    read_stdout,
)
from bots.program_stderr import MAX_STDERR_BYTES, MAX_STDERR_LINES, STDERR_TAIL, Stderr
from bots.trace import TraceWriter, trace_path
from engine import Action

__all__ = [
    "DEFAULT_TIME_BUDGET", "END_QUIET", "END_SETTLE", "GARBAGE_GRACE", "HANDSHAKE_TIMEOUT",
    "MAX_JOINED_LINES", "MAX_LINE", "MAX_PENDING_BYTES", "MAX_PENDING_LINES", "MAX_REPORTED",
    "MAX_SKIPPED", "MAX_STDERR_BYTES", "MAX_STDERR_LINES", "PROTOCOL_VERSION", "QUIT_GRACE",
    "STDERR_TAIL", "ProcessBot",
]

PROTOCOL_VERSION = 1
DEFAULT_TIME_BUDGET = 10.0   # seconds per decision
HANDSHAKE_TIMEOUT = 10.0     # seconds for "ready" (interpreters can be slow to start)
MAX_SKIPPED = 1_000          # useless lines during one wait before the bot counts as flooding
MAX_JOINED_LINES = 500       # lines of one pretty-printed message that are put back together
GARBAGE_GRACE = 0.5          # seconds an answer is still waited for after a line of garbage
END_QUIET = 0.05             # after an end: silence that shows a bot has said its last words
END_SETTLE = 0.25            # ... waited for at most (then its lines go under the next game)
STDERR_FINISH = 0.5          # seconds the stderr of a program that exited is read to its end


class ProcessBot(Bot):
    """Runs ``command`` (a shell-like command line, split with shlex; no shell) as a bot."""

    description = "a bot program speaking the JSON-lines bot protocol (cmd:COMMAND)"
    time_budget: float  # always a limit: the program's answers are waited for so long

    def __init__(self, command: str, timeout: float = DEFAULT_TIME_BUDGET,
                 handshake_timeout: float = HANDSHAKE_TIMEOUT,
                 output: bot_output.BotLines | None = None) -> None:
        self.command = command
        self.argv = shlex.split(command)
        if not self.argv:
            raise ValueError("cmd: needs a command to run")
        self.name = f"cmd:{command}"
        self.time_budget = float(timeout)
        self.handshake_timeout = float(handshake_timeout)
        self.output = output or bot_output.BotLines()
        self._proc: subprocess.Popen[bytes] | None = None
        self._inbox: Inbox | None = None
        self._stderr = Stderr(self._show_stderr)
        self._next_id = 0
        self._dead: str | None = None
        self._dead_kind = "gone"
        self._faults = LineFaults()
        self._garbage = 0  # lines of the current wait that no answer can be (see _saw_garbage)
        self._bad_ids = 0  # ... of them answers whose id is no number
        self._garbage_since = 0.0
        self._timed_out: set[int] = set()
        self._seat: int | None = None
        self._game = ""  # the game the bot's lines are filed under (until the next hello)
        self._ended_game: str | None = None
        self._trace: TraceWriter | None = None
        self._finalizer: weakref.finalize[[subprocess.Popen[bytes]], ProcessBot] | None = None
        self.exit_code: int | None = None  # after ``quit``: the program's status (None: killed)

    # -- process management ----------------------------------------------------------------

    def _spawn(self) -> None:
        proc = start(self.argv, self.command)
        assert proc.stdout is not None and proc.stderr is not None
        self._proc = proc
        self._inbox = Inbox(proc)
        # Killing the child when the bot object goes away keeps crashed runs from leaving
        # orphaned bot programs behind.
        self._finalizer = weakref.finalize(self, terminate, proc)
        threading.Thread(target=read_stdout, args=(proc.stdout, self._inbox),
                         daemon=True).start()
        self._stderr.attach(proc.stderr)
        threading.Thread(target=self._stderr.read, daemon=True).start()

    def _show_stderr(self, line: str) -> None:
        self.output.emit(self.name, self._seat, " stderr", line, self._game)

    def _died(self, what: str, kind: str = "gone", decision: int | None = None) -> BotGone:
        proc = self._proc
        code = exit_code(proc, 1.0) if proc is not None else None
        if code is not None:
            self._stderr.finish(STDERR_FINISH)  # its last words, to the end of its stderr
        else:
            self._stderr.sync()
        detail = f"exit code {code}" if code is not None else "still running"
        tail = self._stderr.tail()
        self._dead = f"{what} ({detail})" + (f"; its stderr ends: {tail}" if tail else "")
        self._dead_kind = kind
        return BotGone(self._dead, kind, decision)

    def _abandon(self, what: str, kind: str, decision: int | None = None) -> BotGone:
        if self._proc is not None:
            kill(self._proc)
        return self._died(what, kind, decision)

    def _send(self, message: dict[str, Any], timeout: float) -> None:
        if self._dead is not None:
            raise BotGone(self._dead, self._dead_kind)
        proc = self._proc
        assert proc is not None
        data = (json.dumps(message, separators=(",", ":")) + "\n").encode()
        if self._trace is not None:
            self._trace.sent(message)
        try:
            written = write_by(proc, data, time.monotonic() + timeout)
        except OSError as exc:
            raise self._died(f"the bot program {self.command!r} died ({exc})") from None
        if not written:
            raise self._abandon(f"stopped reading its input: a {message['type']!r} message "
                                f"was not taken within {timeout:g} s; the program was "
                                "stopped", "gone")

    def _note(self, kind: str, message: str, decision: int | None) -> None:
        self._faults.note(kind, message, decision)

    @contextlib.contextmanager
    def _waiting(self, decision: int | None) -> Iterator[None]:
        """One wait for an answer (or for ``ready``): its skipped lines are counted together,
        for the flood limit and so that only the first few are reported one by one; it opens
        a new stderr allowance."""
        self._garbage = self._bad_ids = 0
        with self._faults.wait(decision):
            try:
                yield
            finally:
                self._faults.add(self._stderr.new_window(decision))

    def _lines(self, deadline: float) -> object:
        """The next item from the reader thread, or None at the deadline."""
        assert self._inbox is not None
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return None
        try:
            return self._inbox.get(timeout=remaining)
        except queue.Empty:
            return None

    def _receive(self, deadline: float, waiting_for: str,
                 decision: int | None) -> dict[str, Any]:
        """The next message object; skipped lines are noted as faults (counted per wait, see
        ``_waiting``). BotError on timeout, BotGone on death or flooding."""
        joined: list[Line] = []  # the lines of a message that may be pretty-printed
        # Lines that are no message at all (or answers with an id that is no number): an
        # answer to a decision gets a short grace after them, not the rest of its budget (the
        # handshake keeps its time: a program may print a banner while it starts).
        while True:
            if self._garbage and decision is not None:
                deadline = min(deadline, self._garbage_since + GARBAGE_GRACE)
            item = self._lines(deadline)
            if item is None:
                if joined:
                    self._faults.note_unparsed(joined, decision)
                what = ("no answer to decision " + str(decision) if decision is not None
                        else f"no {waiting_for}")
                if self._garbage and decision is not None:
                    raise BotError(f"{what}: {self._garbage_text()} instead, and nothing valid "
                                   f"within {GARBAGE_GRACE:g} s of them", "garbage", decision)
                raise BotError(f"{what} within {self._budget_text(waiting_for)}", "timeout",
                               decision)
            if item is EOF:
                raise self._died(f"the bot program {self.command!r} died (closed its output)",
                                 "gone", decision)
            if item is FLOOD:
                raise self._died(f"flooded its output (more than {MAX_PENDING_LINES} lines or "
                                 f"{MAX_PENDING_BYTES >> 20} MiB unread); it was cut off",
                                 "flood", decision)
            self._faults.skipped += 1
            if self._faults.skipped > MAX_SKIPPED:
                raise self._abandon(f"flooded its output ({MAX_SKIPPED} lines without the "
                                    f"awaited {waiting_for}); it was cut off", "flood",
                                    decision)
            assert isinstance(item, Line)
            if self._trace is not None:
                self._trace.received(item.number, item.text if item.text is not None else
                                     f"(a line of {item.size} bytes, dropped)")
            if item.text is None:
                self._note("long-line", f"wrote line {item.number} of {item.size} bytes, over "
                           f"the {MAX_LINE >> 20} MiB limit; skipped", decision)
                self._saw_garbage()
                continue
            if not item.text.strip():
                continue
            message = parse(item.text)
            if message is None and (joined or item.text.lstrip().startswith("{")):
                joined.append(item)
                message = parse("\n".join(line.text or "" for line in joined))
                if message is None:
                    if len(joined) >= MAX_JOINED_LINES:
                        self._faults.note_unparsed(joined, decision)
                        joined = []
                        self._saw_garbage()
                    continue
                first, last = joined[0].number, joined[-1].number
                if first != last:
                    self._note("multi-line", f"wrote one message over lines {first}-{last} "
                               "(pretty-printed JSON); the protocol wants one message per "
                               "line", decision)
                joined = []
            elif joined:
                self._faults.note_unparsed(joined, decision)
                joined = []
                self._saw_garbage()
            if message is None:
                self._note("not-json", f"wrote line {item.number}, which is not JSON: "
                           f"{show(item.text)}; skipped", decision)
                self._saw_garbage()
                continue
            if not isinstance(message, dict):
                self._note("not-object", f"wrote line {item.number}, which is not a JSON "
                           f"object: {show(item.text)}; skipped", decision)
                self._saw_garbage()
                continue
            if message.get("type") == "log":
                self.output.emit(self.name, self._seat, "", str(message.get("message", "")),
                                 self._game)
                self._faults.skipped -= 1  # a bot may log freely, within the pending-lines limit
                continue
            message["_line"] = item.number
            return message

    def _saw_garbage(self) -> None:
        """One more line in this wait that no answer can be; the first starts the grace
        period."""
        if not self._garbage:
            self._garbage_since = time.monotonic()
        self._garbage += 1

    def _garbage_text(self) -> str:
        other = self._garbage - self._bad_ids
        parts = [f"{other} line(s) that are not protocol messages"] if other else []
        if self._bad_ids:
            parts.append(f"{self._bad_ids} answer(s) whose id is not a number")
        return "it wrote " + " and ".join(parts)

    def _budget_text(self, waiting_for: str) -> str:
        budget = self.handshake_timeout if waiting_for == "ready" else self.time_budget
        return f"{budget:g} s"

    def _drain_stray(self, settle: bool = False) -> None:
        """Lines that arrived since the last game's ``end`` (or the last answer): reported as
        stray, never taken for a later answer. ``settle``: first give a bot that was just
        told the game ended a moment (until ``END_QUIET`` of silence, at most ``END_SETTLE``)
        to write what it writes then, so its words are filed under that game."""
        inbox = self._inbox
        if inbox is None:
            return
        with self._waiting(None):
            if settle:
                limit = time.monotonic() + END_SETTLE
                while (left := limit - time.monotonic()) > 0:
                    try:
                        item = inbox.get(timeout=min(END_QUIET, left))
                    except queue.Empty:
                        break  # quiet: the bot is waiting for the next game
                    inbox.put_back(item)
                    self._drain_lines()
                    if not isinstance(item, Line):
                        break
            self._drain_lines()

    def _drain_to_end(self) -> None:
        """After the program exited (or was killed): its last lines, up to end of output
        (briefly: the reader thread may still be reading them)."""
        inbox = self._inbox
        if inbox is None:
            return
        deadline = time.monotonic() + 0.2
        with self._waiting(None):
            while True:
                self._drain_lines()
                try:
                    item = inbox.get(timeout=max(0.0, deadline - time.monotonic()))
                except queue.Empty:
                    return
                if not isinstance(item, Line):
                    return  # end of output (or a flood marker): nothing more will come
                inbox.put_back(item)

    def _drain_lines(self) -> None:
        assert self._inbox is not None
        while True:
            try:
                item = self._inbox.get_nowait()
            except queue.Empty:
                return
            if not isinstance(item, Line):
                self._inbox.put_back(item)  # EOF / flood: seen by the next receive
                return
            if self._trace is not None and item.text is not None:
                self._trace.received(item.number, item.text)
            message = parse(item.text or "")
            if isinstance(message, dict) and message.get("type") == "log":
                self.output.emit(self.name, self._seat, "", str(message.get("message", "")),
                                 self._game)
                continue
            if item.text is not None and not item.text.strip():
                continue
            after = (f"after the end of game {self._ended_game}" if self._ended_game
                     else "after its last answer")
            self._note("stray", f"wrote line {item.number} {after}, with no decision "
                       f"pending: {show(item.text or '')}; skipped", None)

    # -- the protocol ----------------------------------------------------------------------

    def start(self, info: GameInfo) -> None:
        super().start(info)
        if self._dead is not None:
            self._seat, self._game = info.seat, info.game
            raise BotGone(self._dead, self._dead_kind)
        if self._proc is None:
            self._spawn()
        # The lines written since the last game's end belong to it (log lines are filed
        # under that game): read them before this game's hello.
        self._drain_stray(settle=self._ended_game is not None)
        self._seat, self._game = info.seat, info.game
        directory = bot_output.record_dir()
        if directory is not None:
            self._trace = TraceWriter(trace_path(directory, info.game or "game", info.seat))
        self._send({"type": "hello", "protocol": PROTOCOL_VERSION, "seat": info.seat,
                    "config": info.config.to_dict(), "seed": info.seed.hex()},
                   self.handshake_timeout)
        deadline = time.monotonic() + self.handshake_timeout
        with self._waiting(None):
            message = self._await_ready(deadline)
        name = message.get("name")
        if isinstance(name, str) and name.strip():
            self.name = bot_output.sanitize(name.strip()[:60])
        version = message.get("protocol", PROTOCOL_VERSION)
        if version != PROTOCOL_VERSION:
            raise BotGone(f"speaks bot protocol {version!r}, the engine speaks "
                          f"{PROTOCOL_VERSION}", "protocol")

    def _await_ready(self, deadline: float) -> dict[str, Any]:
        while True:
            message = self._receive(deadline, "ready", None)
            if message.get("type") == "ready":
                return message
            if message.get("type") == "action" and self._ended_game:
                self._note("stray", f"wrote line {message['_line']} after the end of game "
                           f"{self._ended_game} (an 'action' before the 'ready' of the next "
                           "game); skipped", None)
            elif message.get("type") == "action":
                self._note("unexpected", f"wrote line {message['_line']}, an 'action' "
                           "message, while 'ready' was awaited; skipped", None)

    def next_id(self, skip: int = 0) -> int:
        """The id of the next decision; ``skip`` leaves a gap (ids only need to increase, and
        ``bot-check`` makes sure a bot copies them rather than counting)."""
        self._next_id += 1 + skip
        return self._next_id

    def ask(self, view: dict[str, Any], legal: list[str], ident: int | None = None) -> str:
        """Send one ``decide`` and return the bot's answer, one of ``legal``."""
        if ident is None:
            ident = self.next_id()
        try:
            answer = self._ask(view, legal, ident)
        except BotError as exc:
            if exc.kind in ("timeout", "garbage"):
                self._timed_out.add(ident)
            if self._trace is not None:
                self._trace.outcome(ident, None, str(exc))
            raise
        if self._trace is not None:
            self._trace.outcome(ident, answer, None)
        return answer

    def _ask(self, view: dict[str, Any], legal: list[str], ident: int) -> str:
        self._send({"type": "decide", "id": ident, "view": view, "legal": legal},
                   self.time_budget)
        deadline = time.monotonic() + self.time_budget
        with self._waiting(ident):
            message = self._await_answer(deadline, ident)
        text = message.get("action")
        line = message["_line"]
        if not isinstance(text, str):
            raise BotError(f"answered without a string 'action' (got {text!r}) on line {line}",
                           "no-action", ident)
        if text.strip() not in legal:
            raise BotError(f"answered {text!r} on line {line}, which is not one of the legal "
                           "actions", "illegal", ident)
        return text.strip()

    def _await_answer(self, deadline: float, ident: int) -> dict[str, Any]:
        while True:
            message = self._receive(deadline, "action", ident)
            kind, line = message.get("type"), message["_line"]
            if kind == "ready":
                self._note("unexpected", f"wrote line {line}, a 'ready' message, while decision "
                           f"{ident} was pending; skipped", ident)
            if kind != "action":
                continue  # an unknown message type: ignored, as the protocol says
            got = message.get("id")
            if got == ident and isinstance(got, int) and not isinstance(got, bool):
                return message
            if isinstance(got, int) and got in self._timed_out:
                self._note("late", f"answered decision {got} on line {line}, after its time "
                           "was up; dropped", ident)
            elif isinstance(got, int) and not isinstance(got, bool):
                self._note("wrong-id", f"answered with id {got} on line {line}, but the "
                           f"pending decision is {ident}; skipped", ident)
            else:
                # an id that is no number (a string, most often) will not be right next time
                # either: the answer gets the short grace of garbage, not the whole budget
                self._note("wrong-id", f"answered with id {got!r} on line {line} (ids are "
                           f"numbers: the pending decision is {ident}); skipped", ident)
                self._bad_ids += 1
                self._saw_garbage()

    def notify(self, message: dict[str, Any]) -> None:
        """Send a message that needs no answer (``bot-check`` sends an unknown type)."""
        with contextlib.suppress(BotGone):
            self._send(message, QUIT_GRACE)

    def collect_stray(self) -> None:
        """Note, as faults, the lines written since the last answer or ``end``."""
        self._drain_stray()

    @property
    def started(self) -> bool:
        """Whether the program was started (a missing program never is)."""
        return self._proc is not None

    @property
    def gone_reason(self) -> str | None:
        """Why the program can play no more (it died, stopped reading, flooded), or None."""
        return self._dead

    def take_faults(self) -> list[Fault]:
        return self._faults.take()

    # -- the Bot interface -----------------------------------------------------------------

    def choose(self, turn: Turn) -> Action:
        by_text = {a.text(): a for a in turn.legal}
        return by_text[self.ask(turn.view, list(by_text))]

    def end(self, result: dict[str, Any]) -> None:
        if self._dead is None and self._proc is not None:
            with contextlib.suppress(BotGone):  # already reported; a dead program hears nothing
                self._send({"type": "end", **result}, QUIT_GRACE)
        self._ended_game = self._game or "?"
        if self._trace is not None:
            self._trace.close()
            self._trace = None

    def quit(self) -> int | None:
        """Send ``quit`` and give the program ``QUIT_GRACE`` seconds to exit; then make sure
        it is gone. The program's exit status, or None when it had to be killed."""
        proc = self._proc
        if proc is None:
            return None
        self._drain_stray(settle=self._ended_game is not None)  # it belongs to the last game
        if self._dead is None and proc.poll() is None:
            with contextlib.suppress(BotGone):
                self._send({"type": "quit"}, QUIT_GRACE)
        self.exit_code = exit_code(proc, QUIT_GRACE)
        self._drain_to_end()
        if self._finalizer is not None:
            self._finalizer()  # (kills it if it did not exit)
        self._stderr.finish(STDERR_FINISH)  # its last words, to the end of its stderr
        return self.exit_code

    def close(self) -> None:
        self.quit()
