"""What went wrong with a bot, as data: who (bot, seat), where (game, decision id), what.

Every fault the guard or a process bot reports is a ``Fault``: its text names the bot, the
seat, the game and the decision, so a bot author can find the exact exchange in a trace
(``--record-bot``), and tournaments can count faults per bot (``kind`` is a short code, the
keys of ``HINTS``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

# One line per kind on what a bot author should change (shown by ``solstice bot-check``).
HINTS: dict[str, str] = {
    "not-json": "write exactly one JSON object per line, and nothing else on stdout "
                "(diagnostics go to stderr or a 'log' message)",
    "not-object": "every line must be a JSON object with a string field 'type'",
    "multi-line": "do not pretty-print: one message per line, no line breaks inside it",
    "long-line": "keep every message under the line size limit",
    "wrong-id": "answer with the 'id' of the pending 'decide', copied as a number",
    "late": "answer within the time budget; a late answer is dropped",
    "no-action": "an 'action' message needs a string field 'action'",
    "illegal": "answer with one of the strings of 'legal', unchanged",
    "timeout": "answer every 'decide' within the time budget (and flush stdout)",
    "stray": "send nothing after 'end' until the next 'hello' has been answered with 'ready'",
    "unexpected": "answer 'hello' with 'ready' before anything else",
    "start": "make the command start (try it in a shell), then answer 'hello' with "
             "{\"type\": \"ready\"} within the handshake time",
    "protocol": "answer 'hello' with {\"type\": \"ready\", \"protocol\": 1} (or leave "
                "'protocol' out): this client speaks bot protocol 1 only",
    "gone": "keep running and reading stdin until 'quit' or end of input",
    "flood": "write one answer per 'decide' and a few 'log' lines, not a stream of output",
    "raised": "the bot raised an exception: see its message",
    "slow": "return within the time budget",
    "quit": "exit promptly (within 1 s) and with status 0 after 'quit' or end of input",
    "garbage": "answer each 'decide' with an 'action' message whose 'id' is the decision's "
               "number: a program that writes other text to stdout, or ids as strings, is not "
               "waited for",
    "stderr": "write a few diagnostic lines per decision to stderr, not a stream (the rest "
              "is not shown)",
}


# Kinds of the faults that cost the bot its move (a random legal action was played for it);
# the other kinds are noted lines the bot's answer survived. A bot that is gone ("gone",
# "flood", "start", "protocol") also plays random moves for the rest of its game unasked.
REPLACED_KINDS = frozenset({"timeout", "garbage", "no-action", "illegal", "slow", "raised",
                            "gone", "flood"})


@dataclass(frozen=True)
class Fault:
    """One reported fault. ``decision`` is the decision's id (a process bot's protocol id)."""

    kind: str
    message: str
    bot: str = ""
    seat: int | None = None
    game: str = ""
    decision: int | None = None

    def at(self, *, bot: str, seat: int, game: str) -> Fault:
        """This fault with the seat's identity filled in where it is still missing."""
        return replace(self, bot=self.bot or bot, seat=seat if self.seat is None else self.seat,
                       game=self.game or game)

    @property
    def where(self) -> str:
        parts = [f"seat {self.seat}"] if self.seat is not None else []
        if self.game:
            parts.append(f"game {self.game}")
        if self.decision is not None:
            parts.append(f"decision {self.decision}")
        return ", ".join(parts)

    def __str__(self) -> str:
        where = f" ({self.where})" if self.where else ""
        return f"bot {self.bot!r}{where} {self.message}"


class BotError(Exception):
    """A bot failed to answer one decision (garbage, timeout, ...): that move is replaced."""

    def __init__(self, message: str, kind: str = "raised", decision: int | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.decision = decision


class BotGone(BotError):
    """A bot can answer no more decisions in this game (e.g. its process died)."""

    def __init__(self, message: str, kind: str = "gone", decision: int | None = None) -> None:
        super().__init__(message, kind, decision)
