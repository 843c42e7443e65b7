"""The ``solstice`` command line (typer). Each command group lives in its own module."""

from __future__ import annotations

import typer

from ui import cmd_bots, cmd_net, cmd_play, cmd_rules, cmd_simulate, cmd_tournament

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
cmd_tournament.register(app)
cmd_bots.register(app)
app.command()(cmd_play.play)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
