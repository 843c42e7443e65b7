"""Whole networked games in one call: host, join or resume, then play to the end.

Used by the command line (headless bots), the terminal UI and the loopback tests. The player is
a ``Chooser``: an async function (session, legal actions) -> action.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import trio

from p2p.errors import LocalProtocolError
from p2p.identity import Identity, default_home
from p2p.net.discovery import advertise_lobby
from p2p.net.joincode import JoinCode
from p2p.net.mesh import Mesh
from p2p.net.node import HostedLobby, Node, load_roster, open_node, saved_games
from p2p.net.observers import MAX_OBSERVERS, ObserverHub
from p2p.net.runner import Chooser, EventSink, RunOptions, open_session, run_session
from p2p.net.transport import NetConfig
from p2p.session.envelope import SignedMessage
from p2p.session.events import Event
from p2p.session.machine import GameSession
from p2p.session.timing import Timing
from p2p.storage.store import GameStore


@dataclass
class PeerOptions:
    home: Path | None = None
    name: str = "player"
    bind: str = "0.0.0.0"
    port: int = 0
    advertise: str | None = None
    transcript: Path | None = None
    net: NetConfig = field(default_factory=NetConfig)
    waiting_after: float = 5.0
    # LAN discovery: off unless asked for (the command line asks by default); the interface
    # is an address (None: all LAN interfaces).
    discovery: bool = False
    discovery_interface: str | None = None
    watchers: int = MAX_OBSERVERS  # how many spectators a host admits (0: none)
    timing: Timing | None = None  # the table's clock (only the host's counts)

    @property
    def home_dir(self) -> Path:
        return Path(self.home) if self.home is not None else default_home()

    def run_options(self) -> RunOptions:
        return RunOptions(transcript=self.transcript, waiting_after=self.waiting_after,
                          timing=self.timing)


async def _play(node: Node, mesh: Mesh, choose: Chooser, on_event: EventSink,
                options: PeerOptions) -> GameSession:
    store = GameStore(options.home_dir, mesh.game_id)
    session = open_session(mesh, store)
    hub = node.observers
    if hub is not None:
        hub.set_roster(mesh.roster)
        for signed in session.msglog.messages:  # replayed from the store after a restart
            hub.publish(signed)
        store_record = session.on_record

        def record(signed: SignedMessage) -> None:
            if store_record is not None:
                store_record(signed)
            hub.publish(signed)

        session.on_record = record
    try:
        return await run_session(mesh, session, choose, store, on_event, options.run_options())
    finally:
        mesh.close()
        if hub is not None:
            await hub.drain()


class NobodyAccepted(LocalProtocolError):
    """A rematch's time limit ran out before anyone else joined it."""


async def _gather(lobby: HostedLobby, fill_within: float | None) -> Mesh:
    """The mesh of a full lobby; with ``fill_within``, of whoever joined within that time."""
    if fill_within is not None:
        with trio.move_on_after(fill_within):
            await lobby.roster_ready.wait()
        if not lobby.close_early():
            raise NobodyAccepted(f"nobody joined within {fill_within:g} s")
    return await lobby.wait_mesh()


async def host_game(players: int, choose: Chooser, on_event: EventSink, options: PeerOptions,
                    on_lobby: Callable[[HostedLobby], None] | None = None, *,
                    game_id: str | None = None, allowed: frozenset[str] | None = None,
                    fill_within: float | None = None) -> GameSession:
    """Listen, announce the join code (``on_lobby``) and, with discovery, advertise the game
    on the LAN until it ends; wait for everyone, play. A rematch (``p2p.net.rematch``) gives
    its derived ``game_id``, admits only the ``allowed`` peer ids and starts with whoever
    joined ``fill_within`` seconds."""
    identity = Identity.load_or_create(options.home_dir)
    async with open_node(identity, home=options.home_dir, bind=options.bind, port=options.port,
                         config=options.net) as node:
        lobby = node.host(players=players, name=options.name, advertise=options.advertise,
                          game_id=game_id)
        lobby.allowed = allowed
        if options.watchers > 0:
            node.observers = ObserverHub(lobby.code.game_id, options.watchers,
                                          options.net.keepalive)
            node.observers.on_note = lambda text: on_event(Event("log", text))
        if on_lobby is not None:
            on_lobby(lobby)
        async with trio.open_nursery() as nursery:
            if options.discovery:
                nursery.start_soon(advertise_lobby, lobby, options.name,
                                   options.discovery_interface,
                                   lambda text: on_event(Event("log", text)))
            mesh = await _gather(lobby, fill_within)
            session = await _play(node, mesh, choose, on_event, options)
            nursery.cancel_scope.cancel()  # the advertisement is withdrawn (shielded)
        return session


async def join_game(code: str | JoinCode, choose: Chooser, on_event: EventSink,
                    options: PeerOptions) -> GameSession:
    """Join the game of a join code, or resume it if our home holds it unfinished."""
    join_code = JoinCode.parse(code) if isinstance(code, str) else code
    store = GameStore(options.home_dir, join_code.game_id)
    if store.exists() and not store.finished:
        return await resume_game(join_code.game_id, choose, on_event, options)
    identity = Identity.load_or_create(options.home_dir)
    async with open_node(identity, home=options.home_dir, bind=options.bind, port=options.port,
                         config=options.net) as node:
        mesh = await node.join(join_code, name=options.name)
        return await _play(node, mesh, choose, on_event, options)


def unfinished_games(home: Path) -> list[str]:
    return [gid for gid in saved_games(home)
            if GameStore(home, gid).exists() and not GameStore(home, gid).finished]


async def resume_game(game_id: str, choose: Chooser, on_event: EventSink,
                      options: PeerOptions) -> GameSession:
    """Re-enter an unfinished game after a restart (same home: same identity, same port)."""
    home = options.home_dir
    identity = Identity.load_or_create(home)
    roster = load_roster(home, game_id)
    index = roster.index_of(identity.peer_id)
    port = roster.players[index].port if index is not None else options.port
    async with open_node(identity, home=home, bind=options.bind, port=port,
                         config=options.net) as node:
        mesh = await node.resume(game_id)
        return await _play(node, mesh, choose, on_event, options)


__all__ = ["NobodyAccepted", "PeerOptions", "host_game", "join_game", "resume_game",
           "unfinished_games"]
