"""``solstice play``: you in the terminal UI against local bots, over the real protocol.

Every bot is a real peer on loopback (its own identity in a temporary home) joining the game
the UI hosts, so this exercises the whole system: lobby, TLS mesh, mental-poker deck, audit.
"""

from __future__ import annotations

from pathlib import Path

import typer

from ui.cli.games import INTERFACE_OPTION, NO_DISCOVERY_HELP, checked_interface, player_name

LEARN_BOT = "random"  # gentle: it plays any legal move


def bot_specs(bots: list[str], opponents: int) -> tuple[str, ...]:
    """One spec per opponent: ``--bot a --bot b`` or ``--bot a,b``; the last one repeats."""
    from bots.registry import split_bot_list

    specs = [s for spec in bots for s in split_bot_list(spec)] or ["greedy"]
    if len(specs) > opponents:
        raise typer.BadParameter(f"{len(specs)} bots given for {opponents} opponent(s)")
    return tuple(specs + [specs[-1]] * (opponents - len(specs)))


def play(
    players: int = typer.Option(3, "--players", "-n", min=2, max=4,
                                help="Players (2-4), you included."),
    bot: list[str] = typer.Option([], "--bot", help="Opponent bot spec (repeat or "
                                  "comma-separate, one per opponent; default greedy)."),
    seed: str | None = typer.Option(None, "--seed", help="Seed for the bots' own choices."),
    name: str | None = typer.Option(None, "--name", callback=player_name, help="Your name in "
                                    "the roster (default: \"you\" against bots; in a game "
                                    "joined on the LAN, player- and the start of your peer "
                                    "id)."),
    home: Path | None = typer.Option(None, "--home", help="Directory for your identity and "
                                     "games (default: <user data dir>/play)."),
    discovery_interface: str | None = INTERFACE_OPTION,
    no_discovery: bool = typer.Option(False, "--no-discovery", help=NO_DISCOVERY_HELP + " "
                                      "(Without it the start screen also lists the games "
                                      "waiting on the LAN, to join instead.)"),
    learn: bool = typer.Option(False, "--learn", help="A first game that teaches: 2 players "
                               "against a gentle bot (random unless --bot), dealt the same "
                               "curated way every time so that every lesson comes up, each "
                               "phase explained the first time it comes up, the resolution "
                               "shown slowly."),
) -> None:
    """Play against bots in the terminal UI (each bot is a real peer on loopback), or join a
    game found on the LAN from the start screen."""
    from bots.registry import BotSpecError, make_bot
    from p2p.identity import default_home
    from p2p.net.games import PeerOptions
    from ui.app.netgame import NetSetup

    interface = checked_interface(discovery_interface)
    if learn:
        players, bot = 2, bot or [LEARN_BOT]
    specs = bot_specs(bot, players - 1)
    for spec in specs:
        try:
            make_bot(spec)
        except BotSpecError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
    options = PeerOptions(home=home or default_home() / "play", name=name or "you",
                          bind="127.0.0.1", port=0, waiting_after=2.0)
    setup = NetSetup("play", options, players=players, bots=specs, seed=seed, learn=learn)
    from ui.app.app import run_app
    from ui.app.screens.start import LanStart

    label = ", ".join(specs)
    title = f"Solstice — you against {label}"
    if learn:
        raise typer.Exit(run_app(setup, f"Solstice — a learning game against {label}"))
    if no_discovery:
        raise typer.Exit(run_app(setup, title))
    # A LAN game is a real game: your usual home (identity, resumable), reachable by others.
    lan = PeerOptions(home=home, name=name, discovery_interface=interface)
    learning = NetSetup("play", options, players=2, bots=(LEARN_BOT,), seed=seed, learn=True)
    start = LanStart(lan, bots=setup, bots_label=f"Play against {label} ({players} players)",
                     learn=learning)
    raise typer.Exit(run_app(None, title, start))
