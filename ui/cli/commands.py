"""The ``solstice`` command line (typer). Each command group lives in its own module."""

from __future__ import annotations

import typer

from ui.cli import bots as cmd_bots
from ui.cli import games as cmd_games
from ui.cli import net as cmd_net
from ui.cli import play as cmd_play
from ui.cli import rules as cmd_rules
from ui.cli import simulate as cmd_simulate
from ui.cli import tournament as cmd_tournament
from ui.cli import watch as cmd_watch

app = typer.Typer(
    name="solstice",
    help="Solstice: a peer-to-peer card game client with fair hidden play and pluggable bots.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(cmd_rules.app, name="rules")
cmd_simulate.register(app)
cmd_net.register(app)
cmd_games.register(app)
cmd_watch.register(app)
cmd_tournament.register(app)
cmd_bots.register(app)
app.command()(cmd_play.play)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
