"""``solstice host``, ``join``, ``resume``, ``transcript`` and ``verify``: serverless games on
the LAN."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import trio
import typer

from bots.netseat import bot_chooser
from bots.registry import BotSpecError, make_bot
from p2p.errors import P2PError
from p2p.net.games import (
    PeerOptions,
    host_game,
    join_game,
    resume_game,
    transcript_game_id,
    unfinished_games,
)
from p2p.net.joincode import InvalidJoinCode, JoinCode
from p2p.net.node import HostedLobby
from p2p.net.runner import Chooser
from p2p.session.machine import GameSession
from p2p.storage.rebuild import rebuild_transcript
from p2p.storage.transcript import TranscriptUnreadable, verify_transcript
from ui.cli.headless import LogPrinter

T = TypeVar("T")

HOME_HELP = "Directory for this peer's identity and games (default: the user data directory)."
NAME_HELP = "Your name in the roster (default: player- and the start of your peer id)."
BOT_HELP = "Play headless with this bot (e.g. random, greedy, ismcts:time=1.0); without it the " \
           "terminal UI opens."


def _play(bot: str | None, mode: str, start: Callable[[Chooser], Awaitable[GameSession]],
          **ui_args: object) -> None:
    """Headless with ``bot`` (exit 0 once the audit passed, else 1), or the UI without one."""
    if bot is None:
        _run_ui(mode, **ui_args)
    try:
        choose = bot_chooser(make_bot(bot))
    except BotSpecError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    options = ui_args.get("options")
    home = options.home_dir if isinstance(options, PeerOptions) else "<same home>"
    session = _run(start(choose), f"solstice resume --home {home}")
    raise typer.Exit(0 if session.result is not None else 1)


def _run_ui(mode: str, **kwargs: object) -> None:
    try:
        from ui.app.app import run_network_ui
    except ImportError:
        typer.echo("error: the terminal UI is not available; use --bot SPEC to play headless",
                   err=True)
        raise typer.Exit(2) from None
    raise typer.Exit(run_network_ui(mode, **kwargs))


def host(
    players: int = typer.Option(..., "--players", "-n", min=2, max=4, help="Players (2-4), "
                                "this peer included."),
    port: int = typer.Option(0, "--port", help="TCP port to listen on (0: any free port)."),
    bind: str = typer.Option("0.0.0.0", "--bind", help="Address to listen on."),
    name: str | None = typer.Option(None, "--name", help=NAME_HELP),
    bot: str | None = typer.Option(None, "--bot", help=BOT_HELP),
    home: Path | None = typer.Option(None, "--home", help=HOME_HELP),
    transcript: Path | None = typer.Option(None, "--transcript", help="Where to write the "
                                           "transcript (default: in the game's directory)."),
) -> None:
    """Host a game: print a join code, wait for the players, play."""
    options = PeerOptions(home=home, name=name, bind=bind, port=port, transcript=transcript)

    def on_lobby(lobby: HostedLobby) -> None:
        print(f"join code: {lobby.code.encode()}", flush=True)
        print(f"waiting for {players - 1} more player(s)...", flush=True)

    _play(bot, "host", lambda choose: host_game(players, choose, LogPrinter(), options,
                                                on_lobby), players=players, options=options)


def join(
    code: list[str] = typer.Argument(..., help="The join code the host printed (pieces of a "
                                          "code that wrapped are joined together)."),
    name: str | None = typer.Option(None, "--name", help=NAME_HELP),
    bot: str | None = typer.Option(None, "--bot", help=BOT_HELP),
    home: Path | None = typer.Option(None, "--home", help=HOME_HELP),
    bind: str = typer.Option("0.0.0.0", "--bind", help="Address to listen on."),
    port: int = typer.Option(0, "--port", help="TCP port to listen on (0: any free port)."),
    transcript: Path | None = typer.Option(None, "--transcript", help="Where to write the "
                                           "transcript."),
) -> None:
    """Join a game with its join code (or resume it, if this home was already in it)."""
    try:
        parsed = JoinCode.parse("".join(code))
    except InvalidJoinCode as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    options = PeerOptions(home=home, name=name, bind=bind, port=port, transcript=transcript)
    _play(bot, "join", lambda choose: join_game(parsed, choose, LogPrinter(), options),
          code=parsed, options=options)


def resume(
    game: str | None = typer.Argument(None, help="Game id (default: the only unfinished "
                                                 "game in this home)."),
    bot: str | None = typer.Option(None, "--bot", help=BOT_HELP),
    home: Path | None = typer.Option(None, "--home", help=HOME_HELP),
    transcript: Path | None = typer.Option(None, "--transcript", help="Where to write the "
                                           "transcript."),
    bind: str = typer.Option("0.0.0.0", "--bind", help="Address to listen on (the port is "
                             "the one this peer had in the game)."),
    from_file: Path | None = typer.Option(None, "--from", help="Another player's transcript "
                                          "of this game: finish the game from it (when the "
                                          "others have already left)."),
) -> None:
    """Rejoin an unfinished game after a restart (same --home); the others need not be back
    first, and a game that is over in this peer's log ends at once."""
    options = PeerOptions(home=home, bind=bind, transcript=transcript)
    if from_file is not None and bot is None:
        typer.echo("error: --from runs headless only: add --bot SPEC (the bot plays whatever "
                   "is left of the game)", err=True)
        raise typer.Exit(2)
    if game is None and from_file is not None:
        game = _or_exit(lambda: transcript_game_id(from_file))
    if game is None:
        games = unfinished_games(options.home_dir)
        if len(games) != 1:
            listing = ", ".join(games) or "none"
            typer.echo(f"error: name the game to resume; unfinished games in "
                       f"{options.home_dir}: {listing}", err=True)
            raise typer.Exit(2)
        game = games[0]
    chosen: str = game
    _play(bot, "resume", lambda choose: resume_game(chosen, choose, LogPrinter(), options,
                                                    from_file), game=chosen, options=options)


def transcript(
    game: str = typer.Argument(..., help="Game id (see the game's directory under HOME/games)."),
    home: Path | None = typer.Option(None, "--home", help=HOME_HELP),
    out: Path | None = typer.Option(None, "--out", help="Where to write it (default: "
                                    "transcript.json in the game's directory)."),
) -> None:
    """Rebuild the transcript of a finished game from this peer's log (for example when
    writing it failed at the end of the game)."""
    options = PeerOptions(home=home)
    typer.echo("replaying the game from this peer's log (the audit included)...", err=True)
    path = _or_exit(lambda: rebuild_transcript(options.home_dir, game, out))
    typer.echo(f"transcript written to {path}")


def _or_exit(work: Callable[[], T]) -> T:
    """``work()``, or its P2PError as a one-line error and exit status 1."""
    try:
        return work()
    except P2PError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None


def verify(
    path: Path = typer.Argument(..., help="A transcript file written at the end of a game."),
    as_json: bool = typer.Option(False, "--json", help="Print the verdict as JSON."),
) -> None:
    """Re-check a finished game offline: signatures, every shuffle and key, every move."""
    try:
        verdict = verify_transcript(path)
    except TranscriptUnreadable as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    if as_json:
        typer.echo(json.dumps(verdict.to_json()))
    elif verdict.ok:
        result = verdict.result
        typer.echo("fair: " + result["summary"])
        for player in result["players"]:
            faction = player["faction"]
            typer.echo(f"  {player['name']:16} {faction:6} score {result['scores'][faction]:3}"
                       f"  (VP {result['vp'][faction]}, casualties "
                       f"{result['casualties'][faction]})")
        typer.echo(f"  winner: {result['winner']}")
    else:
        typer.echo(f"NOT fair: {verdict.summary}", err=True)
    raise typer.Exit(0 if verdict.ok else 1)


def _leaves(exc: BaseException) -> list[BaseException]:
    """The errors inside (nested) exception groups: trio nurseries wrap what their tasks
    raise."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


def _run(coro: Awaitable[GameSession], resume: str = "solstice resume") -> GameSession:
    try:
        return trio.run(lambda: coro)
    except BaseException as exc:
        leaves = _leaves(exc)
        if any(isinstance(e, KeyboardInterrupt) for e in leaves):
            typer.echo(f"interrupted; continue with: {resume} (the others wait for this "
                       "peer for a grace period; after it, every player resumes)", err=True)
            raise typer.Exit(130) from None
        expected = [e for e in leaves if isinstance(e, P2PError | OSError | trio.TooSlowError)]
        if not expected or len(expected) != len(leaves):
            raise  # a bug: keep its traceback
        typer.echo(f"error: {expected[0]}", err=True)
        raise typer.Exit(1) from None


def register(app: typer.Typer) -> None:
    for command in (host, join, resume, transcript, verify):
        app.command()(command)
