"""``solstice rendezvous``: run a meeting point (and relay) for games over the internet."""

from __future__ import annotations

import typer


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
