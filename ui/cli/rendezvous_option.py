"""The ``--rendezvous`` option of ``host``, ``join`` and ``resume`` (apart from the
``rendezvous`` command, which runs a game loop from ``ui.cli.net``: no import circle)."""

from __future__ import annotations

import typer

RENDEZVOUS_HELP = ("Play over the internet through this rendezvous (ADDRESS:PORT, e.g. "
                   "203.0.113.5:7447, run by anyone with `solstice rendezvous`): the join code "
                   "then carries it, and peers that cannot reach each other directly (home "
                   "routers) are relayed through it.")
RENDEZVOUS_OPTION = typer.Option(None, "--rendezvous", metavar="ADDR:PORT",
                                 help=RENDEZVOUS_HELP)


def checked_rendezvous(text: str | None) -> tuple[str, int] | None:
    """``--rendezvous`` as an (address, port), or a one-line error and exit 2."""
    if text is None:
        return None
    from p2p.net.reach import parse_address

    try:
        return parse_address(text)
    except ValueError as exc:
        typer.echo(f"error: --rendezvous {exc}", err=True)
        raise typer.Exit(2) from None
