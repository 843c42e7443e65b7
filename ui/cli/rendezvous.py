"""``solstice rendezvous``: run a meeting point (and relay) for games over the internet."""

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


def rendezvous(
    bind: str = typer.Option("0.0.0.0", "--bind", help="Address to listen on."),
    port: int = typer.Option(7447, "--port", min=1, max=65535, help="TCP port to listen on."),
) -> None:
    """Run a rendezvous for games over the internet: players' peers meet here, learn their
    public addresses, and are relayed through it when their routers keep them apart. It
    stores nothing, cannot read or alter the games (TLS end to end between the players) and
    is trusted with nothing: it can only delay or drop, as a bad link can."""
    import trio

    from p2p.net.rendezvous import Rendezvous
    from ui.cli.net import run_game

    async def main() -> None:
        server = Rendezvous(on_note=lambda text: print(text, flush=True))
        async with trio.open_nursery() as nursery:
            bound = await nursery.start(server.serve, bind, port)
            print(f"rendezvous listening on {bind}:{bound}", flush=True)

    try:
        run_game(main())  # type: ignore[arg-type]
    except typer.Exit as done:
        raise typer.Exit(0 if done.exit_code == 130 else done.exit_code) from None


def register(app: typer.Typer) -> None:
    app.command()(rendezvous)
