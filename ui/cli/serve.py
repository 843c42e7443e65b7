"""``solstice serve``: the same Textual app in a web browser (textual-serve), for a player
without a terminal habit: each browser tab runs its own ``solstice play`` (the start screen:
bots, the learning game, the LAN's games to join).

Bound to loopback unless ``--bind`` says otherwise; on any other address the page and its
websocket need the per-run token that the printed URL carries (a cookie keeps it for the
websocket), so that nobody else on the LAN opens a game in this player's home.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from aiohttp import web

COOKIE = "solstice_token"
LOOPBACK = "127.0.0.1"


def is_loopback(bind: str) -> bool:
    try:
        return ipaddress.ip_address(bind).is_loopback
    except ValueError:
        return bind == "localhost"


def url_host(bind: str) -> str:
    """The address a browser uses: the LAN's for a wildcard bind."""
    if bind in ("0.0.0.0", "::", ""):
        from p2p.net.node import _guess_lan_address

        return _guess_lan_address()
    return f"[{bind}]" if ":" in bind else bind


def serve_url(bind: str, port: int, token: str | None) -> str:
    return f"http://{url_host(bind)}:{port}/" + (f"?token={token}" if token else "")


def play_command(home: Path | None, players: int | None = None,
                 bots: tuple[str, ...] = ()) -> str:
    """What each browser session runs: ``solstice play`` with this interpreter."""
    argv = [sys.executable, "-m", "ui.cli", "play"]
    if home is not None:
        argv += ["--home", str(home)]
    if players is not None:
        argv += ["--players", str(players)]
    for spec in bots:
        argv += ["--bot", spec]
    return shlex.join(argv)


def make_server(bind: str, port: int, home: Path | None, token: str | None,
                players: int | None = None, bots: tuple[str, ...] = ()) -> Any:
    """A textual-serve server for ``solstice play`` (against ``bots``, ``players`` at the
    table, when given) that lets in only ``token``'s holders (None: everyone, on loopback)."""
    from aiohttp import web
    from textual_serve.server import Server

    class TokenServer(Server):
        async def _make_app(self) -> web.Application:
            app = await super()._make_app()
            if token is not None:
                app.middlewares.append(guard)
            return app

        async def on_startup(self, app: web.Application) -> None:
            pass  # our own line says where (textual-serve's banner names the command)

    @web.middleware
    async def guard(request: web.Request, handler: Any) -> web.StreamResponse:
        assert token is not None
        given = request.query.get("token") or request.cookies.get(COOKIE) or ""
        if not request.path.startswith("/static/") and not hmac.compare_digest(given, token):
            raise web.HTTPForbidden(text="solstice serve: this page needs the URL with its "
                                         "token, as printed where the server was started\n")
        response: web.StreamResponse = await handler(request)
        if request.path == "/":
            response.set_cookie(COOKIE, token, httponly=True, samesite="Strict")
        return response

    public = f"http://{url_host(bind)}:{port}"
    return TokenServer(play_command(home, players, bots), host=bind, port=port, title="Solstice",
                       public_url=public)


def serve(
    port: int = typer.Option(8000, "--port", min=1, max=65535, help="TCP port to serve on."),
    bind: str = typer.Option(LOOPBACK, "--bind", help="Address to listen on (default: this "
                             "machine only; any other address needs the printed URL's token)."),
    home: Path | None = typer.Option(None, "--home", help="Directory for the player's "
                                     "identity and games (default: <user data dir>/play)."),
    players: int = typer.Option(3, "--players", "-n", min=2, max=4, help="Players (2-4) at "
                                "the start screen's game against bots, you included."),
    bot: list[str] = typer.Option([], "--bot", help="Opponent bot spec for that game (repeat "
                                  "or comma-separate, one per opponent; default greedy)."),
) -> None:
    """Play in a web browser: serve the terminal UI over HTTP and print its URL (each browser
    tab gets its own game: bots, the learning game, or a LAN game to join)."""
    try:
        import textual_serve  # noqa: F401
    except ImportError:
        typer.echo("error: serving to a browser needs textual-serve: pip install textual-serve",
                   err=True)
        raise typer.Exit(2) from None
    from bots.registry import BotSpecError, make_bot
    from ui.cli.play import bot_specs

    specs = bot_specs(bot, players - 1)
    for spec in specs:
        try:
            make_bot(spec)  # a bad spec is said here, not in every browser tab
        except BotSpecError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
    token = None if is_loopback(bind) else secrets.token_urlsafe(16)
    typer.echo(f"Solstice in your browser: {serve_url(bind, port, token)}", err=False)
    typer.echo("(Ctrl-C stops the server)")
    try:
        make_server(bind, port, home, token, players, specs).serve()
    except OSError as exc:
        from ui.cli.net import error_text

        typer.echo(f"error: {error_text(exc)}", err=True)
        raise typer.Exit(1) from None


def register(app: typer.Typer) -> None:
    app.command()(serve)
