"""``solstice rules``: check rulings without playing a game."""

from __future__ import annotations

import json
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import typer

app = typer.Typer(help="Rules tools: resolve planets or play a game position from a scenario, "
                       "show the card tables and the scenario schema.",
                  rich_markup_mode=None,
                  no_args_is_help=True)

_FILE_HELP = "Scenario JSON file (README, 'Rules scenarios'); '-' reads stdin."


def _read(file: Path) -> Any:
    try:
        text = sys.stdin.read() if str(file) == "-" else file.read_text(encoding="utf-8")
    except OSError as exc:
        typer.echo(f"error: cannot read {file}: {exc.strerror}", err=True)
        raise typer.Exit(2) from None
    except UnicodeDecodeError:
        typer.echo(f"error: {file} is not UTF-8 text", err=True)
        raise typer.Exit(2) from None
    from engine.canonical import FILE_LIMITS, JSONRefused, check_limits

    try:
        check_limits(text, FILE_LIMITS)  # a deeply nested file would exhaust json's recursion
        return json.loads(text)
    except JSONRefused as exc:
        typer.echo(f"error: {file} is refused: {exc}", err=True)
        raise typer.Exit(2) from None
    except json.JSONDecodeError as exc:
        typer.echo(f"error: {file} is not valid JSON: {exc}", err=True)
        raise typer.Exit(2) from None


@app.command()
def resolve(file: Path = typer.Argument(..., help=_FILE_HELP)) -> None:
    """Resolve the planets of a scenario and print the result as JSON."""
    from engine.canonical import CanonicalEncodingError
    from engine.scenario import ScenarioError, resolve_scenario

    data = _read(file)
    try:
        result = resolve_scenario(data)
    except (ScenarioError, CanonicalEncodingError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    typer.echo(json.dumps(result, indent=2))


@app.command()
def play(file: Path = typer.Argument(..., help=_FILE_HELP)) -> None:
    """Set up a game position from a scenario, apply its actions in order and print JSON: each
    action's log lines, then the position (public state, each seat's view, who must act and
    their legal actions, scores, whether and why the game ended).

    Exit status: 0 when every action went as the scenario said (an action it marks "refused"
    was refused), 1 when one did not (the run stops there; "stopped" says why), 2 for a file
    that is not a valid scenario."""
    from engine.scenario import ScenarioError
    from engine.scenario_play import play_scenario

    data = _read(file)
    try:
        result = play_scenario(data)
    except ScenarioError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    typer.echo(json.dumps(result, indent=2))
    if result["stopped"] is not None:
        stop = result["stopped"]
        typer.echo(f"stopped at actions[{stop['index']}] {stop['action']!r}: {stop['reason']}",
                   err=True)
        raise typer.Exit(1)


def schema_text() -> str:
    """The JSON Schema of both scenario formats, as shipped in the package."""
    return resources.files("engine").joinpath("scenario.schema.json").read_text(
        encoding="utf-8")


@app.command()
def schema() -> None:
    """Print the JSON Schema of the scenario formats (resolve and play)."""
    typer.echo(schema_text(), nl=False)


@app.command()
def cards() -> None:
    """Print the action cards, events and planets with their numbers."""
    from engine.cards import CARDS, PLANETS

    for card in CARDS:
        typer.echo(f"{card.label:28} {card.describe()}")
    for planet in PLANETS.values():
        typer.echo(f"planet:{planet.name:20} {planet.vp} VP; {planet.rule_text()}")
