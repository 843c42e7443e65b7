"""A two-peer LAN game over loopback for the tests of what happens around a game (a bot
program hearing its end, the ratings of a home's games)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import trio

from p2p.net.transport import NetConfig

LOOPBACK = "127.0.0.1"
CONFIG = NetConfig(handshake_timeout=5.0, first_read_timeout=5.0, grace_period=5.0,
                   backoff_initial=0.02, backoff_max=0.2, lobby_timeout=30.0)


def two_peers(host: Callable[[Callable[[Any], None]], Awaitable[object]],
              join: Callable[[Any], Awaitable[object]]) -> None:
    """Run ``host(on_lobby)`` and, once its lobby is open, ``join(code)`` beside it."""

    async def game() -> None:
        ready = trio.Event()
        codes: list[Any] = []

        def on_lobby(lobby: Any) -> None:
            codes.append(lobby.code)
            ready.set()

        async def joiner() -> None:
            await ready.wait()
            await join(codes[0])

        with trio.fail_after(90):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(host, on_lobby)
                nursery.start_soon(joiner)

    trio.run(game)
