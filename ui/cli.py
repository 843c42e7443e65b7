"""The ``solstice`` command line (typer). Each command group lives in its own module."""

from __future__ import annotations

from pathlib import Path

import typer

from bots import bot_output
from ui import cmd_botcheck, cmd_bots, cmd_net, cmd_play, cmd_rules, cmd_simulate, cmd_tournament

app = typer.Typer(
    name="solstice",
    help="Solstice: a peer-to-peer card game client with fair hidden play and pluggable bots.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _bot_output(
    bot_log: Path | None = typer.Option(None, "--bot-log", metavar="FILE", help="Append the "
                                        "log messages and stderr of process bots to FILE "
                                        "(they are also printed, prefixed with bot and seat)."),
    record_bot: Path | None = typer.Option(None, "--record-bot", metavar="DIR", help="Write "
                                           "each process bot's protocol traffic to DIR, one "
                                           "file per game and seat (for solstice bot-replay)."),
) -> None:
    """Solstice: a peer-to-peer card game client with fair hidden play and pluggable bots."""
    if bot_log is not None and bot_log.is_dir():
        raise typer.BadParameter(f"{bot_log} is a directory", param_hint="--bot-log")
    if record_bot is not None and record_bot.exists() and not record_bot.is_dir():
        raise typer.BadParameter(f"{record_bot} is not a directory", param_hint="--record-bot")
    try:
        bot_output.configure(log_file=bot_log, record_dir=record_bot)
    except OSError as exc:
        raise typer.BadParameter(str(exc), param_hint="--bot-log / --record-bot") from None


app.add_typer(cmd_rules.app, name="rules")
cmd_simulate.register(app)
cmd_net.register(app)
cmd_tournament.register(app)
cmd_bots.register(app)
cmd_botcheck.register(app)
app.command()(cmd_play.play)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
