"""``solstice host``, ``join``, ``resume``, ``transcript`` and ``verify``: serverless games on
the LAN."""

from __future__ import annotations

import errno
import json
import shlex
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import typer

from p2p.session.timing import (
    BANK_RANGE,
    DECISION_RANGE,
    INCREMENT_RANGE,
    MIN_INCREMENT,
    STEP_RANGE,
)
from p2p.session.timing import Timing as _Timing
from ui.cli.games import INTERFACE_OPTION, NO_DISCOVERY_OPTION, checked_interface, player_name
from ui.cli.rendezvous_option import RENDEZVOUS_OPTION, checked_rendezvous

DEFAULT_TIMING = _Timing()  # the defaults of the host's clock options

if TYPE_CHECKING:  # the commands import trio and p2p when they run, not at start-up
    from p2p.net.games import PeerOptions
    from p2p.net.node import HostedLobby
    from p2p.net.rematch import Again
    from p2p.net.runner import Chooser
    from p2p.session.machine import GameSession

T = TypeVar("T")

HOME_HELP = "Directory for this peer's identity and games (default: the user data directory)."
NAME_HELP = "Your name in the roster (default: player- and the start of your peer id)."
BOT_HELP = "Play headless with this bot (e.g. random, greedy, ismcts:time=1.0); without it the " \
           "terminal UI opens."


def _play(bot: str | None, mode: str, start: Callable[[Chooser], Awaitable[GameSession]],
          **ui_args: object) -> None:
    """Headless with ``bot`` (exit 0 once the audit passed, else 1), or the UI without one."""
    from bots.netseat import bot_chooser
    from bots.registry import BotSpecError, make_bot

    if bot is None:
        _run_ui(mode, **ui_args)
    try:
        choose = bot_chooser(make_bot(bot))
    except BotSpecError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    from p2p.net.games import PeerOptions
    from p2p.net.joincode import JoinCode

    options, code, game = ui_args["options"], ui_args.get("code"), ui_args.get("game")
    assert isinstance(options, PeerOptions)
    join_code = code if isinstance(code, JoinCode) else None
    game_id = str(game) if game else (join_code.game_id if join_code else None)
    hint = InterruptHint(mode, options.home_dir, bot, game_id,
                         join_code.encode() if join_code else None, options.name)
    session = run_game(_bot_game(choose, start(choose), options.home_dir, bot), hint)
    raise typer.Exit(0 if session.result is not None or session.left else 1)


class InterruptHint:
    """What a headless peer's player is told after Ctrl-C: the command that continues the
    game, looked up in the store when the key is pressed (a game can be resumed only once its
    roster is stored, that is once the table was full), or that there is nothing to resume
    and what to run instead. Every command it prints works when copied."""

    def __init__(self, mode: str, home: Path, bot: str, game: str | None = None,
                 join_code: str | None = None, name: str | None = None) -> None:
        from p2p.net.games import unfinished_games

        self.mode, self.home, self.bot, self.game, self.join_code = mode, home, bot, game, \
            join_code
        self.name = name  # a join again keeps the name the table knew
        self.before = set(unfinished_games(home))  # games this run did not start

    def stored_game(self) -> str | None:
        """The unfinished game this run played in, if it got as far as being stored."""
        from p2p.net.games import unfinished_games

        now = unfinished_games(self.home)
        if self.game is not None and self.game in now:
            return self.game
        new = [game for game in now if game not in self.before]
        return new[0] if len(new) == 1 else None

    def __call__(self) -> str:
        flags = f"--home {shlex.quote(str(self.home))} --bot {shlex.quote(self.bot)}"
        game = self.stored_game()
        if game is not None:
            return (f"interrupted; continue with: solstice resume {game} {flags} (the others "
                    "wait for this peer for a grace period; after it, every player resumes)")
        if self.mode == "join" and self.join_code is not None:
            name = f" --name {shlex.quote(self.name)}" if self.name else ""
            return ("interrupted before the game started: nothing to resume. To join again "
                    f"while the host still waits: solstice join {self.join_code} {flags}{name}")
        return "interrupted before the game started: nothing to resume (the lobby is closed)"


REMATCH_HELP = ("After the game, play once more with the same table (headless, with --bot): a "
                "new game, seats drawn again, with everyone who joins within 60 s.")


def _rematching(rematch: bool, bot: str | None, start: Callable[[Chooser], Awaitable[
        GameSession]], again: Again, options: PeerOptions) -> Callable[[Chooser], Awaitable[
        GameSession]]:
    if not rematch:
        return start
    if bot is None:
        typer.echo("error: --rematch is for headless play: add --bot SPEC", err=True)
        raise typer.Exit(2)
    from bots.netseat import bot_chooser
    from bots.registry import make_bot
    from p2p.net.rematch import with_rematch
    from ui.cli.headless import LogPrinter

    spec, home = bot, options.home_dir

    async def again_then_end(last: Any, choose: Chooser, *rest: Any) -> GameSession:
        return await _bot_game(choose, again(last, choose, *rest), home, spec)

    # the first game's bot hears its end before the rematch (``_play`` ends the rematch's)
    return with_rematch(lambda choose: _bot_game(choose, start(choose), home, spec),
                        again_then_end, lambda: bot_chooser(make_bot(spec)), LogPrinter(),
                        options)


async def _bot_game(choose: Chooser, game: Awaitable[GameSession], home: Path,
                    spec: str) -> GameSession:
    """``game``, played by the bot ``spec``: the bot hears how it ended (``finished``), and
    the game's folder notes the bot (``solstice ratings`` marks the seat as a bot's)."""
    from bots.home_ratings import note_bot
    from bots.netseat import finished

    session = await finished(choose, game)
    note_bot(home, session.game_id, spec)
    return session


def _run_ui(mode: str, **kwargs: object) -> NoReturn:
    try:
        from ui.app.app import run_network_ui
    except ImportError:
        typer.echo("error: the terminal UI is not available; use --bot SPEC to play headless",
                   err=True)
        raise typer.Exit(2) from None
    raise typer.Exit(run_network_ui(mode, **kwargs))


LEAVE_OPTION = typer.Option(
    None, "--leave-after-round", min=0, metavar="R",
    help="Leave the game when round R is over (0: once the cards are dealt), handing the seat "
         "over: every remaining player's peer plays it from then on with the ghost bot, "
         "open-handed (for scripts and tests).")


def _bank_option(clock: str, default: int, text: str) -> Any:
    """``--decision-bank`` / ``--step-bank``: a game clock's seconds."""
    return typer.Option(default, f"--{clock}-bank", min=BANK_RANGE[0], max=BANK_RANGE[1],
                        help=text)


def _increment_option(clock: str, default: int) -> Any:
    """``--decision-increment`` / ``--step-increment``: what each one gives back."""
    return typer.Option(default, f"--{clock}-increment", min=INCREMENT_RANGE[0],
                        max=INCREMENT_RANGE[1], help=f"Seconds given back to a player's {clock} "
                        f"clock after each {clock} (at least {MIN_INCREMENT}, whatever is set: "
                        "the time a message takes on a loaded machine is no player's choice).")


def host(
    players: int = typer.Option(..., "--players", "-n", min=2, max=4, help="Players (2-4), "
                                "this peer included."),
    port: int = typer.Option(0, "--port", min=0, max=65535,
                             help="TCP port to listen on (0: any free port)."),
    bind: str = typer.Option("0.0.0.0", "--bind", help="Address to listen on."),
    name: str | None = typer.Option(None, "--name", help=NAME_HELP, callback=player_name),
    bot: str | None = typer.Option(None, "--bot", help=BOT_HELP),
    home: Path | None = typer.Option(None, "--home", help=HOME_HELP),
    transcript: Path | None = typer.Option(None, "--transcript", help="Where to write the "
                                           "transcript (default: in the game's directory)."),
    discovery_interface: str | None = INTERFACE_OPTION,
    no_discovery: bool = NO_DISCOVERY_OPTION,
    rematch: bool = typer.Option(False, "--rematch", help=REMATCH_HELP),
    decision_time: int = typer.Option(120, "--decision-time", min=DECISION_RANGE[0],
                                      max=DECISION_RANGE[1], help="Seconds each player has per "
                                      "decision (the table's clock); then a legal default is "
                                      "played."),
    step_time: int = typer.Option(30, "--step-time", min=STEP_RANGE[0], max=STEP_RANGE[1],
                                  help="Seconds a peer has for an automatic protocol step before "
                                  "it is declared to have abandoned the game."),
    decision_bank: int = _bank_option(
        "decision", DEFAULT_TIMING.decision_bank, "Each player's game clock for its decisions, "
        "in seconds (like a chess clock); a player whose clock runs out is declared to have "
        "abandoned the game (0: none)."),
    decision_increment: int = _increment_option("decision", DEFAULT_TIMING.decision_increment),
    step_bank: int = _bank_option(
        "step", DEFAULT_TIMING.step_bank, "Each player's game clock for its automatic protocol "
        "steps, in seconds (0: none)."),
    step_increment: int = _increment_option("step", DEFAULT_TIMING.step_increment),
    leave_after_round: int | None = LEAVE_OPTION,
    rendezvous: str | None = RENDEZVOUS_OPTION,
    escrow: bool = typer.Option(
        False, "--escrow", help="Escrow every player's secret (3-4 players): a player who "
        "vanishes for good (not back within 60 s) is played on by the ghost bot, open-handed, "
        "once every other player has published its share. The cost: all the other players "
        "together could open any player's cards."),
) -> None:
    """Host a game: advertise it on the LAN, print its short and long join codes, wait for the
    players, play."""
    from p2p.net.games import PeerOptions, host_game
    from p2p.net.rematch import host_rematch
    from p2p.net.shortcode import display, short_code
    from p2p.session.timing import Timing
    from ui.cli.headless import LogPrinter

    options = PeerOptions(home=home, name=name, bind=bind, port=port, transcript=transcript,
                          discovery=not no_discovery,
                          discovery_interface=checked_interface(discovery_interface),
                          timing=Timing(decision_time, step_time,
                                        decision_bank=decision_bank,
                                        decision_increment=decision_increment,
                                        step_bank=step_bank, step_increment=step_increment),
                          leave_after_round=leave_after_round, escrow=escrow)
    address = checked_rendezvous(rendezvous)
    if address is not None:
        # Over the internet the code carries our router's address and the rendezvous: a LAN
        # advertisement of it would send LAN players the long way round; they use the code.
        options.net = replace(options.net, rendezvous=address)
        options.discovery = False
    if escrow and players < 3:
        typer.echo("error: --escrow needs 3 or 4 players (with 2, the other player alone "
                   "would hold the whole secret)", err=True)
        raise typer.Exit(2)

    def on_lobby(lobby: HostedLobby) -> None:
        if options.discovery:
            short = short_code(lobby.code.host_id, lobby.code.game_id)
            print(f"short code: {display(short)}", flush=True)
        print(f"join code: {lobby.code.encode()}", flush=True)
        if escrow:
            print("escrow: on (a player who vanishes is played on by the ghost bot; all the "
                  "other players together could open any player's cards)", flush=True)
        print(f"waiting for {players - 1} more player(s)...", flush=True)

    printer = LogPrinter()
    options.chat = printer.chat_link()  # headless: received chat lines are printed
    start = _rematching(rematch, bot, lambda choose: host_game(
        players, choose, printer, options, on_lobby), host_rematch, options)
    _play(bot, "host", start, players=players, options=options)


def join(
    code: list[str] = typer.Argument(None, help="The short code or the long join code the host "
                                     "printed (pieces of a code that wrapped are joined "
                                     "together). Without one, the UI lists the LAN's games."),
    name: str | None = typer.Option(None, "--name", help=NAME_HELP, callback=player_name),
    bot: str | None = typer.Option(None, "--bot", help=BOT_HELP),
    home: Path | None = typer.Option(None, "--home", help=HOME_HELP),
    bind: str = typer.Option("0.0.0.0", "--bind", help="Address to listen on."),
    port: int = typer.Option(0, "--port", min=0, max=65535,
                             help="TCP port to listen on (0: any free port)."),
    transcript: Path | None = typer.Option(None, "--transcript", help="Where to write the "
                                           "transcript."),
    discovery_interface: str | None = INTERFACE_OPTION,
    no_discovery: bool = NO_DISCOVERY_OPTION,
    rematch: bool = typer.Option(False, "--rematch", help=REMATCH_HELP),
    leave_after_round: int | None = LEAVE_OPTION,
    accept_escrow: bool = typer.Option(
        False, "--accept-escrow", help="Agree to join a table that escrows every player's "
        "secret (if you vanish, the others together rebuild your hand and play your seat on; "
        "together they could also open it). Without it such a table is left at once."),
) -> None:
    """Join a game by its short code (found on the LAN) or its long join code (or resume it,
    if this home was already in it); without a code, pick a LAN game in the UI."""
    from p2p.net.games import PeerOptions, join_game
    from p2p.net.rematch import join_rematch
    from ui.cli.games import join_target
    from ui.cli.headless import LogPrinter

    options = PeerOptions(home=home, name=name, bind=bind, port=port,
                          transcript=transcript,
                          discovery_interface=checked_interface(discovery_interface),
                          leave_after_round=leave_after_round, accept_escrow=accept_escrow)
    if not code:
        if bot is not None or no_discovery:
            typer.echo("error: name the game to join (its short code or join code)", err=True)
            raise typer.Exit(2)
        _run_ui("browse", options=options)
    parsed = join_target("".join(code), discovery_interface, not no_discovery)
    printer = LogPrinter()
    options.chat = printer.chat_link()  # headless: received chat lines are printed
    start = _rematching(rematch, bot, lambda choose: join_game(
        parsed, choose, printer, options), join_rematch, options)
    _play(bot, "join", start, code=parsed, options=options)


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
    rendezvous: str | None = RENDEZVOUS_OPTION,
) -> None:
    """Rejoin an unfinished game after a restart (same --home); the others need not be back
    first, and a game that is over in this peer's log ends at once."""
    from p2p.net.games import PeerOptions, resume_game, transcript_game_id
    from ui.cli.headless import LogPrinter

    options = PeerOptions(home=home, bind=bind, transcript=transcript)
    address = checked_rendezvous(rendezvous)
    if address is not None:
        options.net = replace(options.net, rendezvous=address)
    if from_file is not None and bot is None:
        typer.echo("error: --from runs headless only: add --bot SPEC (the bot plays whatever "
                   "is left of the game)", err=True)
        raise typer.Exit(2)
    if game is None and from_file is not None:
        game = _or_exit(lambda: transcript_game_id(from_file))
    if game is None:
        game = _only_resumable(options.home_dir)
    chosen: str = game
    printer = LogPrinter()
    options.chat = printer.chat_link()  # headless: received chat lines are printed
    _play(bot, "resume", lambda choose: resume_game(chosen, choose, printer, options,
                                                    from_file), game=chosen, options=options)


def _only_resumable(home: Path) -> str:
    """The one game of ``home`` that can be resumed; else every game folder is listed with
    what resume can do with it and why, and we exit: 0 when every game is over (nothing is
    left to do), 2 when there are several to choose from or none at all, else 1."""
    from p2p.net.games import saved_game_states

    states = saved_game_states(home)
    resumable = [s for s in states if s.resumable]
    if len(resumable) == 1:
        return resumable[0].game_id
    if not states:
        typer.echo(f"error: name the game to resume; unfinished games in {home}: none (it "
                   "holds no game)", err=True)
        raise typer.Exit(2)
    over = all(s.why.startswith("over") for s in states)
    head = (f"nothing to resume in {home}: every game in it is over" if over else
            f"error: name the game to resume (solstice resume GAME --home {home}); games "
            f"in {home}:" if resumable else f"error: nothing in {home} can be resumed:")
    typer.echo(head, err=not over)
    for state in states:
        label = "can be resumed" if state.resumable else "cannot be resumed"
        typer.echo(f"  {state.game_id}: {label}: {state.why}", err=not over)
    raise typer.Exit(0 if over else 2 if resumable else 1)


def transcript(
    game: str = typer.Argument(..., help="Game id (see the game's directory under HOME/games)."),
    home: Path | None = typer.Option(None, "--home", help=HOME_HELP),
    out: Path | None = typer.Option(None, "--out", help="Where to write it (default: "
                                    "transcript.json in the game's directory)."),
) -> None:
    """Rebuild the transcript of a finished game from this peer's log (for example when
    writing it failed at the end of the game)."""
    from p2p.net.games import PeerOptions
    from p2p.storage.rebuild import rebuild_transcript

    options = PeerOptions(home=home)
    typer.echo("replaying the game from this peer's log (the audit included)...", err=True)
    path = _or_exit(lambda: rebuild_transcript(options.home_dir, game, out))
    typer.echo(f"transcript written to {path}")


def _or_exit(work: Callable[[], T]) -> T:
    """``work()``, or its P2PError as a one-line error and exit status 1."""
    from p2p.errors import P2PError

    try:
        return work()
    except P2PError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None


def verify(
    path: Path = typer.Argument(..., help="A transcript file written at the end of a game."),
    as_json: bool = typer.Option(False, "--json", help="Print the verdict as JSON."),
) -> None:
    """Re-check a finished game offline: signatures, every shuffle and key, every move, every
    accusation. Exit status: 0 fair, 1 unfair (a cheat is proven), 2 unreadable or damaged
    file (nobody is named), 3 abandoned or incomplete game."""
    from p2p.storage.transcript import TranscriptUnreadable, verify_transcript
    from p2p.text import printable

    try:
        verdict = verify_transcript(path)
    except TranscriptUnreadable as exc:
        typer.echo(f"error: {printable(exc)}", err=True)
        raise typer.Exit(2) from None
    if as_json:
        typer.echo(json.dumps(verdict.to_json()))  # JSON escapes every control character
    elif verdict.ok:
        result = verdict.result
        typer.echo("fair: " + printable(result["summary"]))
        for player in result["players"]:
            faction = player["faction"]
            typer.echo(f"  {printable(player['name'], 40):16} {faction:6} score "
                       f"{result['scores'][faction]:3}  (VP {result['vp'][faction]}, casualties "
                       f"{result['casualties'][faction]})"
                       + (f"  left at round {left['round']}, stage {left['stage']}; seat "
                          f"played by the {left['bot']} ghost"
                          if (left := result.get("left", {}).get(faction)) else ""))
        typer.echo(f"  winner: {result['winner']}")
    else:
        label = {"unfair": "NOT fair", "damaged": "DAMAGED", "abandoned": "ABANDONED",
                 "incomplete": "INCOMPLETE"}[verdict.status]
        typer.echo(f"{label}: {printable(verdict.summary, 2000)}", err=True)
    for label, check in (("lobby chat", verdict.lobby_chat), ("chat", verdict.chat)):
        if as_json or not (check.count or check.problems):
            continue
        # The chat is no part of the game: it is reported, and never changes the exit status.
        checked = "every signature checks" if not check.problems else \
            f"{len(check.problems)} do not check (not part of the game's verdict)"
        typer.echo(f"{label}: {check.count} line(s), {checked}")
        for problem in check.problems[:10]:
            typer.echo(f"  {printable(problem)}")
    raise typer.Exit(verdict.exit_status)


def default_name(home: Path | None) -> str:
    """``player-`` and the first characters of this home's peer id: two players who both
    keep the default still tell apart in the roster."""
    from p2p.identity import Identity
    from p2p.net.games import PeerOptions

    options = PeerOptions(home=home)
    return options.name_for(Identity.load_or_create(options.home_dir))


def _leaves(exc: BaseException) -> list[BaseException]:
    """The errors inside (nested) exception groups: trio nurseries wrap what their tasks
    raise."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


def run_game(coro: Awaitable[GameSession], interrupted: Callable[[], str] | None = None
             ) -> GameSession:
    """Run a headless game; on Ctrl-C print ``interrupted()`` (what to run next) and exit 130."""
    import trio

    from p2p.errors import P2PError

    try:
        return trio.run(lambda: coro)
    except BaseException as exc:
        leaves = _leaves(exc)
        if any(isinstance(e, KeyboardInterrupt) for e in leaves):
            typer.echo(interrupted() if interrupted is not None else "interrupted", err=True)
            raise typer.Exit(130) from None
        expected = [e for e in leaves if isinstance(e, P2PError | OSError | trio.TooSlowError)]
        if not expected or len(expected) != len(leaves):
            raise  # a bug: keep its traceback
        typer.echo(f"error: {error_text(expected[0])}", err=True)
        raise typer.Exit(1) from None


# What a failed bind or connect means for the user, by errno (the bare "[Errno 98] Address
# already in use" names neither the option nor the fix).
_OS_ERRORS = {
    errno.EADDRINUSE: "the port is already in use by another program (or another solstice "
                      "game): choose another --port, or 0 for any free port",
    errno.EADDRNOTAVAIL: "no network interface of this machine has the --bind address: use "
                         "one of its own addresses, or 0.0.0.0 for all of them",
    errno.EACCES: "not allowed to listen on that port (ports below 1024 need root): choose "
                  "another --port, or 0 for any free port",
    errno.ECONNREFUSED: "nothing answers at the game's address and port: the host may have "
                        "stopped (ask it for its current code)",
}


def error_text(exc: BaseException) -> str:
    """One line for an expected failure: an OSError in words with the option that fixes it,
    a protocol error as it is."""
    import socket

    from p2p.errors import P2PError

    if isinstance(exc, socket.gaierror):
        return ("the address is neither an IP address nor a known host name (check --bind, "
                f"or the code's address): {exc.strerror or exc}")
    if isinstance(exc, OSError) and not isinstance(exc, P2PError) and exc.errno in _OS_ERRORS:
        return f"{_OS_ERRORS[exc.errno]} ({exc.strerror})"
    from ui.app.notes import error_words

    return error_words(exc)


def register(app: typer.Typer) -> None:
    for command in (host, join, resume, transcript, verify):
        app.command()(command)
