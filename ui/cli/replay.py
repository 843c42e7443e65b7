"""``solstice replay``: look back at a finished game from its transcript (checked first)."""

from __future__ import annotations

from pathlib import Path

import typer


def replay(
    path: Path = typer.Argument(..., metavar="TRANSCRIPT",
                                help="A transcript file written at the end of a game."),
    text: bool = typer.Option(False, "--text", help="Print the whole game as a plain log "
                              "(true cards named) instead of opening the viewer."),
) -> None:
    """Replay a finished game: step through every move with the true cards, after checking
    the transcript as 'solstice verify' does."""
    from p2p.storage.transcript import TranscriptUnreadable
    from ui.app.replay_data import ReplayRefused, load_replay, text_log

    if not text:  # verifying a long game takes seconds: never a blank screen meanwhile
        typer.echo(f"checking the transcript {path}...", err=True)
    try:
        game = load_replay(path)
    except TranscriptUnreadable as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    except ReplayRefused as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    if text:
        for line in text_log(game):
            typer.echo(line)
        return
    from ui.app.replay import ReplayApp
    from ui.app.replay_data import own_seat

    ReplayApp(game, own_seat(game) or 0).run()  # as the file's own player saw it


def register(app: typer.Typer) -> None:
    app.command()(replay)
