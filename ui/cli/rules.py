"""``solstice rules``: check rulings without playing a game."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer

app = typer.Typer(help="Rules tools: resolve a planet scenario, show the card tables.",
                 rich_markup_mode=None,
                  no_args_is_help=True)


@app.command()
def resolve(file: Path = typer.Argument(..., help="Scenario JSON file (see the rulings' "
                                                  "'Scenario format'); '-' reads stdin.")) -> None:
    """Resolve the planets of a scenario and print the result as JSON."""
    from engine.canonical import CanonicalEncodingError
    from engine.scenario import ScenarioError, resolve_scenario

    try:
        text = sys.stdin.read() if str(file) == "-" else file.read_text(encoding="utf-8")
    except OSError as exc:
        typer.echo(f"error: cannot read {file}: {exc.strerror}", err=True)
        raise typer.Exit(2) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        typer.echo(f"error: {file} is not valid JSON: {exc}", err=True)
        raise typer.Exit(2) from None
    try:
        result = resolve_scenario(data)
    except (ScenarioError, CanonicalEncodingError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    typer.echo(json.dumps(result, indent=2))


@app.command()
def cards() -> None:
    """Print the action cards, events and planets with their numbers."""
    from engine.cards import CARDS, PLANETS

    for card in CARDS:
        typer.echo(f"{card.label:28} {card.describe()}")
    for planet in PLANETS.values():
        typer.echo(f"planet:{planet.name:20} {planet.vp} VP; {planet.rule_text()}")
