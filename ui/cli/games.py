"""``solstice games``: the games advertised on the LAN, and the discovery options and short-code
lookup that ``host``, ``join`` and ``play`` share."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

import typer

if TYPE_CHECKING:  # discovery (zeroconf) is imported when a command runs, not at start-up
    from p2p.net.discovery import GameAd
    from p2p.net.joincode import JoinCode

INTERFACE_HELP = ("Address of the one interface to discover on, e.g. 127.0.0.1 (default: all "
                  "LAN interfaces).")
NO_DISCOVERY_HELP = "Do not use LAN discovery (mDNS): no advertisement, no browsing."
# Shared by host, join, games and watch (typer reads these as the parameters' defaults).
INTERFACE_OPTION = typer.Option(None, "--discovery-interface", help=INTERFACE_HELP)
NO_DISCOVERY_OPTION = typer.Option(False, "--no-discovery", help=NO_DISCOVERY_HELP)
SHORT_WAIT = 5.0


def player_name(value: str | None) -> str | None:
    """``--name``, without the spaces around it (a leading space was kept, and shown); one
    clear line for a name the lobby would refuse."""
    from p2p.net.roster import MAX_NAME_LEN, valid_name

    if value is None:
        return None
    name = " ".join(value.split())
    if not valid_name(name):
        raise typer.BadParameter(f"a name is 1 to {MAX_NAME_LEN} printable characters, not "
                                 f"{value!r}")
    return name

T = TypeVar("T")


def checked_interface(interface: str | None) -> str | None:
    """``--discovery-interface`` as given, or a one-line error and exit 2 if unusable."""
    from p2p.net.discovery import DiscoveryError, zeroconf_interfaces

    try:
        zeroconf_interfaces(interface)
    except DiscoveryError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    return interface


def join_target(text: str, interface: str | None, discovery: bool,
                wait: float = SHORT_WAIT, *, watch: bool = False) -> JoinCode:
    """What ``solstice join`` (or ``watch``) was given, as a join code: a long code is read as
    it is; a short code is looked up among the advertised games (the full ids must give the
    short code)."""
    from p2p.net.discovery import find_short
    from p2p.net.joincode import JOIN_CODE_PREFIX, JoinCode
    from p2p.net.shortcode import InvalidShortCode, display, parse_short_code

    if "".join(text.split()).lower().startswith(JOIN_CODE_PREFIX):
        return _or_exit(lambda: JoinCode.parse(text))
    try:
        code = parse_short_code(text)
    except InvalidShortCode as exc:
        typer.echo(f"error: neither a join code nor a short code: a join code starts with "
                   f"{JOIN_CODE_PREFIX!r}, and {exc}", err=True)
        raise typer.Exit(2) from None
    if not discovery:
        typer.echo("error: a short code is found by LAN discovery, which --no-discovery turns "
                   "off; use the long join code", err=True)
        raise typer.Exit(2)
    typer.echo(f"looking for game {display(code)} on the LAN (up to {wait:g} s)...", err=True)
    ad = _or_exit(lambda: find_short(code, checked_interface(interface), wait))
    typer.echo(f"found the game of {ad.name!r} ({ad.taken}/{ad.players} players) at "
               f"{ad.address}:{ad.port}", err=True)
    if ad.free == 0 and not watch:
        typer.echo(f"error: that game is full; watch it with: solstice watch {display(code)}",
                   err=True)
        raise typer.Exit(1)
    return ad.join_code()


def _or_exit(make: Callable[[], T]) -> T:
    from p2p.errors import LocalProtocolError
    from p2p.net.discovery import DiscoveryError
    from p2p.net.joincode import InvalidJoinCode

    try:
        return make()
    except (InvalidJoinCode, LocalProtocolError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2 if isinstance(exc, InvalidJoinCode | DiscoveryError) else 1) \
            from None


def _table(games: list[GameAd]) -> str:
    from p2p.net.shortcode import display

    lines = [f"{'SHORT':10} {'HOST NAME':32} {'PLAYERS':8} {'FREE':4}  {'HOST ID':9} TABLE"]
    for ad in games:
        free = str(ad.free) if ad.free else "full"
        lines.append(f"{display(ad.short):10} {ad.name:32} {ad.taken}/{ad.players:<6} "
                     f"{free:<4}  {ad.host_id[:8]:9} {ad.terms_text()}")
    lines.append("join one with: solstice join SHORT    watch one with: solstice watch SHORT")
    return "\n".join(lines)


def games(
    as_json: bool = typer.Option(False, "--json", help="Print a JSON list of objects (short, "
                                 "code, host, game, name, players, taken, free, address, "
                                 "port, version, escrow, clock; the last two null from a "
                                 "host that did not say them)."),
    wait: float = typer.Option(3.0, "--wait", min=0.5, max=60.0, help="Seconds to listen for "
                               "advertisements."),
    discovery_interface: str | None = INTERFACE_OPTION,
    no_discovery: bool = NO_DISCOVERY_OPTION,
) -> None:
    """List the games advertised on the LAN: those waiting for players (join them) and those
    being played (watch them)."""
    if no_discovery:
        typer.echo("error: listing games needs LAN discovery (drop --no-discovery)", err=True)
        raise typer.Exit(2)
    from p2p.net.discovery import browse

    interface = checked_interface(discovery_interface)
    if not as_json:
        typer.echo(f"listening for games on the LAN for {wait:g} s...", err=True)
    found = _or_exit(lambda: browse(interface, wait))
    if as_json:
        typer.echo(json.dumps([ad.to_json() for ad in found]))
    elif found:
        typer.echo(_table(found))
    else:
        typer.echo("no games found (the host may be on another network: use its long join "
                   "code)")


def register(app: typer.Typer) -> None:
    app.command()(games)
