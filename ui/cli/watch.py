"""``solstice watch``: follow a game as a spectator, audit it, keep its transcript."""

from __future__ import annotations

import shlex
from pathlib import Path

import typer

from ui.cli.games import INTERFACE_OPTION, NO_DISCOVERY_OPTION, join_target, player_name
from ui.cli.net import HOME_HELP, run_game


def watch(
    code: list[str] = typer.Argument(..., help="The game's short code (found on the LAN) or "
                                     "its long join code."),
    name: str = typer.Option("watcher", "--name", help="Your name, shown to the host.",
                             callback=player_name),
    home: Path | None = typer.Option(None, "--home", help=HOME_HELP),
    transcript: Path | None = typer.Option(None, "--transcript", help="Where to write the "
                                           "transcript (default: in the game's directory)."),
    discovery_interface: str | None = INTERFACE_OPTION,
    no_discovery: bool = NO_DISCOVERY_OPTION,
    headless: bool = typer.Option(False, "--headless", help="Print the game as a plain log "
                                  "instead of opening the terminal UI."),
) -> None:
    """Watch a game as a spectator: its public moves as they happen (in the terminal UI, or
    as a log with --headless), your own audit at the end (exit 0 if fair, 1 if not or if
    the game stopped, 130 if you left) and your own transcript."""
    from p2p.net.games import PeerOptions
    from p2p.net.watch import watch_game
    from ui.cli.headless import LogPrinter

    target = join_target("".join(code), discovery_interface, not no_discovery, watch=True)
    options = PeerOptions(home=home, name=name, transcript=transcript)
    if not headless:
        try:
            from ui.app.spectate import run_watch_ui
        except ImportError:
            typer.echo("error: the terminal UI is not available; use --headless", err=True)
            raise typer.Exit(2) from None
        raise typer.Exit(run_watch_ui(target, options))
    home_flag = shlex.quote(str(options.home_dir))
    again = f"solstice watch {target.encode()} --headless --home {home_flag}"
    session = run_game(watch_game(target, LogPrinter(), options),
                       lambda: f"you stopped watching (a watcher has nothing to resume); to watch "
                       f"again: {again}")
    raise typer.Exit(0 if session.result is not None and session.result["ok"] else 1)


def register(app: typer.Typer) -> None:
    app.command()(watch)
