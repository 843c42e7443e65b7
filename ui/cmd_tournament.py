"""``solstice tournament``: engine-only games between bots with seats rotated, win rates with
95 % confidence intervals (Wilson) and mean scores per bot."""

from __future__ import annotations

import json
import sys
import time

import typer


def _progress_bar(started: float):
    def show(done: int, total: int) -> None:
        width = 30
        filled = width * done // total
        elapsed = time.perf_counter() - started
        eta = elapsed / done * (total - done) if done else 0.0
        print(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} games "
              f"{elapsed:6.0f} s elapsed, ~{eta:.0f} s left", end="", file=sys.stderr,
              flush=True)
        if done == total:
            print(file=sys.stderr)
    return show


def tournament(
    bots: str = typer.Option(..., "--bots", help="Comma-separated bot specs (2-4 distinct "
                             "bots; the last one fills the remaining seats). A spec with "
                             "options uses ':' (ismcts:time=1.0); quote cmd: specs."),
    games: int = typer.Option(100, "--games", "-g", min=1, help="Games to play (use a "
                              "multiple of --players so every bot plays every seat equally)."),
    seed: str = typer.Option("0", "--seed", "-s", help="Seed: the same seed deals the same "
                             "games."),
    workers: int = typer.Option(1, "--workers", "-w", min=1, help="Worker processes."),
    players: int = typer.Option(2, "--players", "-n", min=2, max=4, help="Players (2-4)."),
    as_json: bool = typer.Option(False, "--json", help="Print only the results as JSON."),
) -> None:
    """Play a tournament between bots and report wins, win rate (95 % CI) and mean score."""
    from bots.registry import BotSpecError, split_bot_list
    from bots.tournament import run_tournament, wilson_interval

    specs = split_bot_list(bots)
    started = time.perf_counter()
    progress = None if as_json else _progress_bar(started)
    try:
        result = run_tournament(specs, games=games, players=players, seed=seed,
                                workers=workers, progress=progress)
    except BotSpecError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    if as_json:
        typer.echo(json.dumps(result.to_json()))
        return
    elapsed = time.perf_counter() - started
    typer.echo(f"{games} games, {players} players, seed {seed!r}, {workers} worker(s), "
               f"{elapsed:.1f} s")
    for bot, s in result.stats().items():
        lo, hi = wilson_interval(s.wins, games)
        typer.echo(f"  {bot:28} wins {s.wins:5} ({100 * s.wins / games:5.1f}%, 95% CI "
                   f"{100 * lo:5.1f}-{100 * hi:5.1f}%)  mean score "
                   f"{s.score_total / max(1, s.seat_games):6.2f}  seats {s.seats}")
    faults = result.faults
    if faults:
        typer.echo(f"  {len(faults)} bot fault(s) replaced by random moves; first: {faults[0]}")


def register(app: typer.Typer) -> None:
    app.command()(tournament)
