"""Whole networked games in one call: host, join or resume, then play to the end.

Used by the command line (headless bots), the terminal UI and the loopback tests. The player is
a ``Chooser``: an async function (``SeatView``) -> action.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import trio

from engine.canonical import canonical_json
from p2p.errors import LocalFileError, LocalProtocolError, P2PError
from p2p.identity import Identity, default_home, short_id
from p2p.net.chatlink import ChatLink
from p2p.net.discovery import advertise_lobby
from p2p.net.joincode import JoinCode
from p2p.net.lobby import LobbyUpdate, TableTerms, lobby_changes
from p2p.net.mesh import Mesh
from p2p.net.node import (
    HostedLobby,
    Node,
    load_roster,
    open_node,
    roster_path,
    save_roster,
    saved_games,
)
from p2p.net.notices import EventSink, StoreRepaired, TableFilling
from p2p.net.observers import MAX_OBSERVERS, ObserverHub
from p2p.net.roster import Roster, RosterEntry
from p2p.net.runner import Chooser, RunOptions, open_session, run_session
from p2p.net.transport import NetConfig
from p2p.net.watchers import watchers_event
from p2p.session.envelope import SignedMessage
from p2p.session.events import LogLine
from p2p.session.machine import GameSession
from p2p.session.timing import Timing
from p2p.storage.paths import check_transcript_target
from p2p.storage.recovery import RecordsLost, refused_before
from p2p.storage.store import GameStore
from p2p.storage.transcript import TranscriptUnreadable, load_transcript
from p2p.text import printable


class GameStopped(P2PError):
    """The game cannot go on now; the message says who, what and how to continue."""


@dataclass
class PeerOptions:
    home: Path | None = None
    name: str | None = None  # None: "player-" and the first 4 hex digits of our peer id
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
    # Handed the session as soon as it is open (for a resumed game: replayed from the store),
    # before the runner plays on: a UI can show the board without waiting for a decision.
    on_session: Callable[[GameSession], None] | None = None
    chat: ChatLink | None = None  # the player's side of the table chat (p2p.net.chatlink)
    leave_after_round: int | None = None  # hand our seat over to a ghost when it is over
    escrow: bool = False  # if we host: every player's secret is escrowed (3-4 players)
    accept_escrow: bool = False  # if we join: we agree to a table that escrows
    linger: float = 60.0  # after the end, seconds we answer a peer not done yet at most
    # Our master secret from this seed, not our identity (``secrets.fixed_master``): only in
    # a game whose every peer runs in this process (``play --learn`` and its own bots).
    fixed_secrets: bytes | None = None

    @property
    def home_dir(self) -> Path:
        return Path(self.home) if self.home is not None else default_home()

    def name_for(self, identity: Identity) -> str:
        return self.name or f"player-{identity.peer_id[:4]}"

    def resume_command(self, game_id: str) -> str:
        return f"solstice resume {game_id} --home {shlex.quote(str(self.home_dir))}"

    def run_options(self, game_id: str = "") -> RunOptions:
        return RunOptions(transcript=self.transcript, waiting_after=self.waiting_after,
                          resume_command=self.resume_command(game_id), timing=self.timing,
                          chat=self.chat, leave_after_round=self.leave_after_round,
                          escrow=self.escrow, linger=self.linger)


def _prepare(options: PeerOptions) -> Identity:
    """Check every local path before the game starts (a game must never die at its end for
    a transcript directory that is a file), then load or create the identity."""
    identity = Identity.load_or_create(options.home_dir)
    if options.transcript is not None:
        check_transcript_target(options.transcript)
    return identity


async def _play(node: Node, mesh: Mesh, choose: Chooser, on_event: EventSink,
                options: PeerOptions,
                opened: tuple[GameSession, bool, GameStore] | None = None) -> GameSession:
    """Run the game on ``mesh``: the session ``opened`` already (resume), or a new one (held
    until resynced if the host sent us the roster again: ``open_session``); the node's
    spectators (if any) get every signed message."""
    if opened is None:
        store = GameStore(options.home_dir, mesh.game_id)
        started = mesh.game_id in node.rejoined
        if started and not store.exists():
            on_event(_no_records(store))
        session, resumed = open_session(mesh.roster, mesh.identity, store, started,
                                        options.fixed_secrets)
        session.agreed_terms = node.terms.get(mesh.game_id)
    else:
        session, resumed, store = opened
    if options.on_session is not None:
        options.on_session(session)
    hub = node.observers
    if hub is not None:
        _feed_observers(hub, mesh, session)
    try:
        return await run_session(mesh, session, choose, store, on_event,
                                 options.run_options(mesh.game_id), resumed)
    finally:
        mesh.close()
        store.close()
        if hub is not None:
            await hub.drain()


def _feed_observers(hub: ObserverHub, mesh: Mesh, session: GameSession) -> None:
    hub.set_roster(mesh.roster)
    for signed in session.msglog.messages:  # replayed from the store after a restart
        hub.publish(signed)
    store_record = session.on_record

    def record(signed: SignedMessage) -> None:
        if store_record is not None:
            store_record(signed)
        hub.publish(signed)

    session.on_record = record


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


async def _start(wait: Callable[[], Awaitable[Mesh]], game_id: str,
                 options: PeerOptions) -> Mesh:
    """Form the mesh; a peer that never came says who, and how to go on with the game."""
    try:
        return await wait()
    except P2PError as exc:
        if not roster_path(options.home_dir, game_id).exists():
            raise
        raise GameStopped(f"{exc}; to continue, every player runs 'solstice resume {game_id} "
                          f"--home THEIR_HOME' (here: '{options.resume_command(game_id)}')"
                          ) from exc


async def host_game(players: int, choose: Chooser, on_event: EventSink, options: PeerOptions,
                    on_lobby: Callable[[HostedLobby], None] | None = None, *,
                    game_id: str | None = None, allowed: frozenset[str] | None = None,
                    fill_within: float | None = None) -> GameSession:
    """Listen, announce the join code (``on_lobby``) and, with discovery, advertise the game
    on the LAN until it ends; wait for everyone, play. A rematch (``p2p.net.rematch``) gives
    its derived ``game_id``, admits only the ``allowed`` peer ids and starts with whoever
    joined ``fill_within`` seconds."""
    identity = _prepare(options)
    name = options.name_for(identity)
    async with open_node(identity, home=options.home_dir, bind=options.bind, port=options.port,
                         config=options.net) as node:
        lobby = node.host(players=players, name=name, advertise=options.advertise,
                          game_id=game_id, terms=lambda: TableTerms(
                              options.timing or Timing(), options.escrow and players >= 3))
        lobby.allowed = allowed
        lobby.on_change = lambda entry, came: on_event(arrival_event(lobby, entry, came))
        lobby.open_chat(options.chat)
        if options.watchers > 0:
            node.observers = ObserverHub(lobby.code.game_id, options.watchers,
                                          options.net.keepalive)
            node.observers.on_note = lambda text: on_event(LogLine(text))
        if on_lobby is not None:
            on_lobby(lobby)
        async with trio.open_nursery() as nursery:
            if options.discovery:
                nursery.start_soon(advertise_lobby, lobby, name, options.discovery_interface,
                                   lambda text: on_event(LogLine(text)))
            mesh = await _start(lambda: _gather(lobby, fill_within), lobby.code.game_id,
                                options)
            if node.observers is not None:
                nursery.start_soon(node.observers.announce, mesh.broadcast, identity,
                                   lambda now: on_event(watchers_event(
                                       now, [p.name for p in mesh.roster.players])))
            session = await _play(node, mesh, choose, on_event, options)
            nursery.cancel_scope.cancel()  # the advertisement is withdrawn (shielded)
        return session


def arrival_event(lobby: HostedLobby, entry: RosterEntry, came: bool) -> LogLine:
    """The host's log line for a joiner who came into (or left) the lobby: "NAME (shortid)
    joined, 2/3"."""
    count = f"{len(lobby.joined())}/{lobby.lobby.players}"
    what = "joined" if came else "left the lobby"
    return LogLine(f"{entry.name} ({short_id(entry.peer_id)}) {what}, {count}")


async def join_game(code: str | JoinCode, choose: Chooser, on_event: EventSink,
                    options: PeerOptions) -> GameSession:
    """Join the game of a join code, or resume it if our home holds it already (the same
    command again after a crash, at any moment: a game over in our log just ends)."""
    join_code = JoinCode.parse(code) if isinstance(code, str) else code
    game_id = join_code.game_id
    if join_code.rendezvous is not None and options.net.rendezvous is None:
        # The host plays over the internet: we listen at its rendezvous too, and relay
        # through it to whoever we cannot reach directly (and they to us).
        options.net = replace(options.net, rendezvous=join_code.rendezvous)
    if game_id in saved_games(options.home_dir):
        return await resume_game(game_id, choose, on_event, options)
    identity = _prepare(options)
    async with open_node(identity, home=options.home_dir, bind=options.bind, port=options.port,
                         config=options.net) as node:
        roster = await node.enter_lobby(
            join_code, name=options.name_for(identity),
            on_update=lobby_reporter(identity, on_event), chat=options.chat,
            accept_escrow=options.accept_escrow,
            on_terms=lambda terms: on_event(LogLine(f"the table: {terms.describe()}")))
        if node.listens_for(roster):
            mesh = await _start(lambda: node.start_mesh(roster), game_id, options)
            return await _play(node, mesh, choose, on_event, options)
    # The roster was made before we restarted (we crashed before storing it) and has us on
    # another port: it is stored now, so the game goes on as any resumed one.
    on_event(LogLine("the game started before our restart: resuming it"))
    return await resume_game(game_id, choose, on_event, options)


def lobby_reporter(identity: Identity, on_event: EventSink) -> Callable[[LobbyUpdate], None]:
    """A joiner's log lines as the table fills up; each event carries the whole table for a
    screen that lists it."""
    last: LobbyUpdate | None = None

    def report(update: LobbyUpdate) -> None:
        nonlocal last
        for line in lobby_changes(last, update, identity.peer_id):
            on_event(TableFilling(line, update.players,
                                  tuple((s.name, s.peer_id) for s in update.seated)))
        last = update

    return report


def unfinished_games(home: Path) -> list[str]:
    """Games with a stored roster that did not end (a crash, a lost peer, a stop)."""
    return [gid for gid in saved_games(home) if not GameStore(home, gid).finished]


@dataclass(frozen=True)
class SavedGame:
    """A game folder under ``HOME/games`` and whether ``solstice resume`` can go on with it."""

    game_id: str
    resumable: bool
    why: str


def saved_game_states(home: Path) -> list[SavedGame]:
    """Every game folder in ``home``, each with what resume can do with it and why (for
    ``solstice resume`` without a game id)."""
    games = Path(home) / "games"
    folders = sorted(p.name for p in games.iterdir() if p.is_dir()) if games.is_dir() else []
    return [_state_of(Path(home), game_id) for game_id in folders]


def _state_of(home: Path, game_id: str) -> SavedGame:
    store = GameStore(home, game_id)
    if store.finished:
        return SavedGame(game_id, False, _finished_text(store))
    refused = refused_before(store)
    if refused is not None:
        return SavedGame(game_id, False, refused)
    if not roster_path(home, game_id).is_file():
        return SavedGame(game_id, False, f"no roster in {store.dir}: a joiner gets it again "
                                         "with its 'solstice join CODE'; or, with another "
                                         f"player's transcript, 'solstice resume {game_id} "
                                         f"--home {shlex.quote(str(home))} --from FILE'")
    try:
        roster = load_roster(home, game_id)
    except P2PError as exc:
        return SavedGame(game_id, False, str(exc))
    players = ", ".join(p.name for p in roster.players)
    if not store.exists():
        return SavedGame(game_id, True, f"with {players}; no secret stored (lost?): what the "
                                        "others hold of ours is fetched and checked first")
    return SavedGame(game_id, True, f"with {players}; not over: resume plays on")


def _finished_text(store: GameStore) -> str:
    try:
        outcome = json.loads(store.finished_path.read_text())
    except (OSError, ValueError):
        outcome = {}
    outcome = outcome if isinstance(outcome, dict) else {}
    verdict = printable(str(outcome.get("verdict", "?")), 20)
    what = printable(str(outcome.get("summary") or outcome.get("reason") or ""), 200)
    transcript = store.dir / "transcript.json"
    where = (f"; its transcript: {transcript}" if transcript.is_file() else
             f"; its transcript is where --transcript said, or rebuild it with 'solstice "
             f"transcript {store.game_id} --home {shlex.quote(str(store.dir.parent.parent))}'")
    return f"over ({verdict}{': ' + what if what else ''}): nothing to resume{where}"


async def resume_game(game_id: str, choose: Chooser, on_event: EventSink,
                      options: PeerOptions, from_file: Path | None = None) -> GameSession:
    """Re-enter an unfinished game after a restart (same home: same identity, same port).

    Our log is replayed first: a game that is over in it ends here without waiting for anyone.
    ``from_file``: another peer's transcript of this game, whose messages are taken as if
    that peer had re-sent them (to finish a game whose other players have all left)."""
    home = options.home_dir
    identity = _prepare(options)
    if from_file is not None:
        _roster_from_transcript(home, game_id, from_file, identity)
    roster = load_roster(home, game_id)
    index = roster.index_of(identity.peer_id)
    if index is None:
        raise LocalFileError(f"this home's identity ({identity.short_id}) is not a player of "
                             f"game {game_id}")
    store = GameStore(home, game_id)
    refused = refused_before(store)
    if refused is not None:
        raise RecordsLost(refused)
    if not store.exists():
        on_event(_no_records(store))
    session, resumed = open_session(roster, identity, store, started=True)
    for text in store.repairs:
        on_event(StoreRepaired(text))
    if store.log_missing or store.repairs:
        on_event(LogLine(f"{store.messages_path} was "
                         f"{'missing' if store.log_missing else 'damaged'}: what it lacks "
                         "is fetched from the other peers before we play on"))
    if from_file is not None:
        _take_transcript(session, from_file)
    async with open_node(identity, home=home, bind=options.bind,
                         port=roster.players[index].port, config=options.net) as node:
        mesh = await node.resume(game_id)
        return await _play(node, mesh, choose, on_event, options, (session, resumed, store))


def _no_records(store: GameStore) -> LogLine:
    return LogLine(f"no records of game {store.game_id} in {store.dir} (lost or never "
                   "written): what the other players hold of ours is fetched and checked "
                   "before we sign anything")


def _roster_from_transcript(home: Path, game_id: str, path: Path, identity: Identity) -> None:
    """A transcript carries the signed roster: restore ours from it if it is missing."""
    roster, _, _ = _read_transcript(path, game_id)
    if not roster_path(home, game_id).exists() and roster.index_of(identity.peer_id) is not None:
        save_roster(home, roster)


def _read_transcript(path: Path, game_id: str) -> tuple[Roster, list[object], dict[str, object]]:
    try:
        roster, messages, outcome = load_transcript(path)
    except TranscriptUnreadable as exc:
        raise LocalFileError(str(exc)) from None
    if roster.game_id != game_id:
        raise LocalFileError(f"{path} is the transcript of game {roster.game_id}, not {game_id}")
    return roster, messages, outcome


def _take_transcript(session: GameSession, path: Path) -> None:
    """Accept every message of another peer's transcript (each is checked as if relayed)."""
    _, messages, _ = _read_transcript(path, session.game_id)
    replaying = session.replaying
    session.replaying = True  # we sign nothing before the others re-sent what we lack
    for data in messages:
        try:
            signed = SignedMessage.decode(canonical_json(data))
        except (P2PError, ValueError, TypeError) as exc:
            raise LocalFileError(f"{path} holds a malformed message: {exc}") from None
        session.accept(signed, direct=False)
    session.replaying = replaying


def transcript_game_id(path: Path) -> str:
    """The game id of a transcript file (for ``resume --from`` without a game id)."""
    try:
        return load_transcript(path)[0].game_id
    except TranscriptUnreadable as exc:
        raise LocalFileError(str(exc)) from None


__all__ = ["GameStopped", "NobodyAccepted", "PeerOptions", "SavedGame", "host_game", "join_game",
           "resume_game", "saved_game_states", "transcript_game_id", "unfinished_games"]
