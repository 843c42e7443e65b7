"""``solstice bots``: list the bots ``--bot`` can name (built-ins and installed plugins)."""

from __future__ import annotations

import typer


def bots() -> None:
    """List the available bots with a one-line description each."""
    from bots.registry import ENTRY_POINT_GROUP, available_bots

    entries = available_bots()
    width = max(len(e.name) for e in entries)
    for entry in entries:
        typer.echo(f"{entry.name:{width}}  {entry.origin:10}  {entry.description}")
    typer.echo("")
    typer.echo("Also: package.module:Class, path/to/file.py:Class, 'cmd:COMMAND' (a program "
               "speaking the bot protocol); options as NAME:key=value,key=value. Plugins "
               f"register an entry point in the group '{ENTRY_POINT_GROUP}'.")


def register(app: typer.Typer) -> None:
    app.command()(bots)
