"""Rematch: the same table plays again (protocol.md, "Rematch").

Nothing is negotiated over the finished game's links: the rematch's game id is derived from the
last one, so every peer of the last roster knows the rematch's join code (the host's address,
port and id, the derived game id). The host re-opens its lobby on the same port for the last
roster's peers only and starts with whoever joined within the time limit; a joiner dials until
the host listens again. Seats and the first player are drawn again by the new session.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from dataclasses import replace

import trio

from p2p.net.games import PeerOptions, host_game, join_game
from p2p.net.joincode import JoinCode
from p2p.net.lobby import LobbyRefused
from p2p.net.node import HostedLobby, load_roster
from p2p.net.notices import EventSink
from p2p.net.roster import GAME_ID_BYTES, Roster
from p2p.net.runner import Chooser
from p2p.net.transport import ConnectionLost
from p2p.session.events import LogLine
from p2p.session.machine import GameSession

REMATCH_DOMAIN = b"solstice/rematch/v1\n"
ACCEPT_WITHIN = 60.0  # seconds the others have to accept, and a joiner waits for the host
_REDIAL_SECONDS = 0.5


def rematch_game_id(game_id: str) -> str:
    return hashlib.sha256(REMATCH_DOMAIN + bytes.fromhex(game_id)).digest()[:GAME_ID_BYTES].hex()


def rematch_code(last: Roster) -> JoinCode:
    host = last.players[0]
    return JoinCode(host.address, host.port, rematch_game_id(last.game_id), host.peer_id)


async def host_rematch(last: Roster, choose: Chooser, on_event: EventSink,
                       options: PeerOptions, accept_within: float = ACCEPT_WITHIN,
                       on_lobby: Callable[[HostedLobby], None] | None = None) -> GameSession:
    """Host the rematch of ``last`` (we were its host) on the same port; ``on_lobby`` as for
    ``host_game`` (the UI shows the rematch lobby's codes and who has come back)."""
    return await host_game(
        len(last.players), choose, on_event, replace(options, port=last.players[0].port),
        on_lobby,
        game_id=rematch_game_id(last.game_id),
        allowed=frozenset(p.peer_id for p in last.players), fill_within=accept_within)


async def join_rematch(last: Roster, choose: Chooser, on_event: EventSink,
                       options: PeerOptions, accept_within: float = ACCEPT_WITHIN) -> GameSession:
    """Join the rematch of ``last``, dialing until its host listens again (its last game's
    node, still answering the others for a moment, refuses us until then)."""
    code = rematch_code(last)
    deadline = trio.current_time() + accept_within
    while True:
        try:
            return await join_game(code, choose, on_event, options)
        except* (ConnectionLost, LobbyRefused):
            if trio.current_time() >= deadline:
                raise
        await trio.sleep(_REDIAL_SECONDS)


Again = Callable[[Roster, Chooser, EventSink, PeerOptions, float], Awaitable[GameSession]]


def with_rematch(first: Callable[[Chooser], Awaitable[GameSession]], again: Again,
                 new_chooser: Callable[[], Chooser], on_event: EventSink, options: PeerOptions,
                 accept_within: float = ACCEPT_WITHIN) -> Callable[[Chooser], Awaitable[
                     GameSession]]:
    """``first``, then (if it ended with a result) one rematch with a fresh player: a bot
    binds itself to its seat, and the rematch draws seats again."""

    async def run(choose: Chooser) -> GameSession:
        session = await first(choose)
        if session.result is None:
            return session
        on_event(LogLine(f"rematch: same table, new game; the others have "
                         f"{accept_within:g} s to join"))
        last = load_roster(options.home_dir, session.game_id)
        return await again(last, new_chooser(), on_event, options, accept_within)

    return run
