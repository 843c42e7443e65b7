"""``solstice replay``: look back at a finished game from its transcript (checked first)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer


def replay(
    path: Path = typer.Argument(..., metavar="TRANSCRIPT",
                                help="A transcript file written at the end of a game."),
    text: bool = typer.Option(False, "--text", help="Print the whole game as a plain log "
                              "(true cards named) instead of opening the viewer."),
) -> None:
    """Replay a finished game: step through every move with the true cards, after checking
    the transcript as 'solstice verify' does (an engine-only game record of the learning
    environments is replayed from its seed, with nothing to check)."""
    from p2p.storage.transcript import TranscriptUnreadable
    from ui.app.replay_data import Replay, ReplayRefused, load_replay, text_log

    record = _engine_record(path)
    game: Replay
    if record is not None:  # a learning environment's game: replayed, nothing to verify
        game = _replay_record(path, record)
    else:
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


def _engine_record(path: Path) -> dict[str, Any] | None:
    """The engine-only game record in ``path`` (``bots.rl.record``), or None."""
    if path.suffix != ".json" or not path.is_file() or path.stat().st_size > 1 << 22:
        return None
    try:
        from bots.rl.record import read_record
    except ImportError:  # no numpy: no record could have been written here either
        return None
    return read_record(path)


def _replay_record(path: Path, record: dict[str, Any]) -> Any:
    from bots.rl.record import GameRecordError
    from ui.app.replay_record import replay_record

    try:
        return replay_record(path, record)
    except GameRecordError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None


def register(app: typer.Typer) -> None:
    app.command()(replay)
