"""``solstice ratings``: rate the players of a home's finished LAN games (openskill,
Plackett-Luce), each game's transcript verified first."""

from __future__ import annotations

import json
from pathlib import Path

import typer


def ratings(
    home: Path | None = typer.Option(None, "--home", help="The home whose games are rated "
                                     "(default: the user data directory)."),
    as_json: bool = typer.Option(False, "--json", help="Print the ratings as JSON."),
) -> None:
    """Rate the players of this home's finished LAN games from their finishing order: every
    game's transcript is verified first, only fair games count; players are told apart by
    peer id, and marked as bots where this home knows it."""
    from bots.home_ratings import home_ratings, shown
    from bots.ratings import MODEL
    from p2p.net.games import PeerOptions
    from p2p.text import printable

    folder = PeerOptions(home=home).home_dir
    if not folder.is_dir():
        typer.echo(f"error: {folder} is no directory (give the home of a player with "
                   "--home DIR)", err=True)
        raise typer.Exit(2)
    result = home_ratings(folder)
    if as_json:
        typer.echo(json.dumps(result.to_json()))
        return
    if not result.games:
        typer.echo(f"no finished game in {folder} can be rated" +
                   (":" if result.skipped else " (it holds no game)"))
    else:
        typer.echo(f"{len(result.games)} finished game(s) in {folder}, rated with {MODEL} "
                   "(mu +- sigma, ranked by mu - 3 sigma):")
        for place, player in enumerate(result.players, 1):
            typer.echo(f"  {place:3}. {printable(shown(player), 200):40} "
                       f"{player.rating.text()}  {player.games} game(s), {player.wins} won")
        if result.skipped:
            typer.echo(f"not rated ({len(result.skipped)}):")
    for game, why in result.skipped:
        typer.echo(f"  {game}: {printable(why, 300)}")


def register(app: typer.Typer) -> None:
    app.command()(ratings)
