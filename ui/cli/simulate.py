"""``solstice simulate``: engine-only games between in-process bots, with statistics."""

from __future__ import annotations

import json
import sys
import time

import typer


def _parse_bots(spec: str, players: int, fill: str | None = None) -> list[str]:
    from bots.lineup import expand
    from bots.registry import BotSpecError, split_bot_list

    specs = expand(split_bot_list(spec))
    if not specs:
        raise BotSpecError("--bots needs at least one bot")
    if len(specs) > players:
        raise BotSpecError(f"{len(specs)} bots given for {players} players")
    # one bot in every seat is allowed here: simulate measures the engine and the bots alike
    return specs + [fill or specs[-1]] * (players - len(specs))


def simulate(
    players: int = typer.Option(4, "--players", "-n", min=2, max=4, help="Players (2-4)."),
    bots: str = typer.Option("random", "--bots", help="Comma-separated bot specs, one per "
                             "seat (SPEC*K: K seats); the last one, or --fill, fills the "
                             "remaining seats."),
    fill: str | None = typer.Option(None, "--fill", help="The bot of the seats --bots "
                                    "leaves free."),
    games: int = typer.Option(100, "--games", "-g", min=1, help="Games to play."),
    seed: str = typer.Option("0", "--seed", "-s", help="Seed: the same seed replays the "
                             "same games."),
    as_json: bool = typer.Option(False, "--json", help="Print the statistics as JSON."),
) -> None:
    """Play engine-only games (no network) and report wins, scores, length and speed."""
    from bots.lineup import cmd_specs, fatal_fault, program_failure
    from bots.match import play_match
    from bots.registry import BotSpecError, make_bot

    try:
        specs = _parse_bots(bots, players, fill)
        seats = [make_bot(spec) for spec in specs]
    except BotSpecError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    wins = [0] * players
    totals = [0] * players
    rounds = actions = 0
    started = time.perf_counter()
    show_progress = not as_json and sys.stderr.isatty()
    for game in range(games):
        # named by number, as tournament games are (faults, trace files GAME-seatS.jsonl)
        result = play_match(seats, f"{seed}/{game}", game=str(game))
        # A program that cannot play its first game would only give statistics of random moves.
        fault = fatal_fault(result.faults, specs, cmd_specs(specs)) if game == 0 else None
        if fault is not None:
            for bot in seats:
                bot.close()
            typer.echo(f"error: {program_failure(fault, specs[fault.seat or 0])}", err=True)
            raise typer.Exit(1)
        wins[result.winner] += 1
        for seat in range(players):
            totals[seat] += result.scores[seat]
        rounds += result.rounds
        actions += result.actions
        if show_progress:
            print(f"\r{game + 1}/{games} games", end="", file=sys.stderr, flush=True)
    if show_progress:
        print(file=sys.stderr)
    elapsed = time.perf_counter() - started
    stats = {
        "games": games, "players": players, "bots": specs, "seed": seed,
        "wins": wins, "mean_score": [round(t / games, 3) for t in totals],
        "mean_rounds": round(rounds / games, 3), "mean_actions": round(actions / games, 1),
        "seconds": round(elapsed, 3), "games_per_second": round(games / elapsed, 1),
    }
    if as_json:
        typer.echo(json.dumps(stats))
        return
    typer.echo(f"{games} games, {players} players, seed {seed!r}")
    for seat in range(players):
        typer.echo(f"  seat {seat} {specs[seat]:12} wins {wins[seat]:5} "
                   f"({100 * wins[seat] / games:5.1f}%)  mean score {totals[seat] / games:6.2f}")
    typer.echo(f"  mean length {stats['mean_rounds']} rounds, {stats['mean_actions']} actions")
    typer.echo(f"  {elapsed:.2f} s, {stats['games_per_second']} games/s")


def register(app: typer.Typer) -> None:
    app.command()(simulate)
