"""``solstice bot-check`` and ``solstice bot-replay``: tools for bot authors (the logic is in
``bots.conformance`` and ``bots.replay``)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:  # the bots are imported when a command runs, not at start-up
    from bots.base import Bot


def _bot(spec: str) -> Bot:
    from bots.registry import BotSpecError, make_bot

    try:
        return make_bot(spec)
    except BotSpecError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None


def bot_check(
    spec: str = typer.Argument(..., help="The bot to check, as for --bot: 'cmd:node "
                               "mybot.js', 'cmd:timeout=2:python3 mybot.py', "
                               "path/to/file.py:Class, greedy, ..."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Do not print the bot's own log "
                               "and stderr lines while it is checked."),
) -> None:
    """Check a bot against the bot protocol (every decision kind; ready, ids, quit).

    Puts decisions of every kind and phase of 2, 3 and 4 player games to the bot and checks
    every answer, the handshake, ids, an unknown message type, the time budget, nothing
    written after 'end', and the exit after 'quit'. Exit 0 when clean, 1 otherwise."""
    from bots import bot_output
    from bots.conformance import check_bot

    if quiet:
        bot_output.set_echo(False)
    bot = _bot(spec)

    def progress(text: str) -> None:
        if sys.stderr.isatty():
            print(f"\rchecking: {text:60}", end="", file=sys.stderr, flush=True)

    report = check_bot(bot, spec, progress=progress)
    if sys.stderr.isatty():
        print("\r" + " " * 72 + "\r", end="", file=sys.stderr, flush=True)
    typer.echo(report.render())
    if not report.ok:
        raise typer.Exit(1)


def bot_replay(
    trace: Path = typer.Argument(..., help="A trace written by --record-bot DIR (one game "
                                 "and seat: DIR/GAME-seatN.jsonl)."),
    spec: str = typer.Argument(..., help="The bot to replay it to: a cmd: bot, e.g. "
                               "'cmd:node mybot.js'."),
) -> None:
    """Replay a recorded game's decisions to a bot and show where its answers differ.

    Exit 0 when every answer is the same as recorded, 1 otherwise."""
    from bots.process_bot import ProcessBot
    from bots.replay import replay_trace
    from bots.trace import TraceError

    bot = _bot(spec)
    if not isinstance(bot, ProcessBot):
        bot.close()
        typer.echo("error: bot-replay needs a cmd: bot (a trace holds protocol messages)",
                   err=True)
        raise typer.Exit(2)
    try:
        report = replay_trace(trace, bot)
    except TraceError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    typer.echo(report.render())
    if not report.same:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("bot-check")(bot_check)
    app.command("bot-replay")(bot_replay)
