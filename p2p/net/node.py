"""A peer's node: its listener, the lobby it hosts or joins, the mesh it forms, and the
stored rosters a restarted peer re-enters with (protocol.md, "Mesh and reconnects")."""

from __future__ import annotations

import contextlib
import logging
import socket
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from pathlib import Path

import trio

from p2p.durable import make_dirs, write_durably
from p2p.errors import LocalFileError, LocalProtocolError, P2PError, RemoteProtocolError
from p2p.identity import Identity, default_home, peer_id_of, short_id
from p2p.net import tls
from p2p.net.chat import ChatRefused
from p2p.net.chatlink import ChatLink
from p2p.net.joincode import JoinCode
from p2p.net.lobby import (
    MAX_LOBBY_MESSAGE,
    HostLobby,
    JoinerLobby,
    LobbyRefused,
    LobbyUpdate,
    TableTerms,
    answer_rejoin,
    decode_control,
    encode_control,
    refuse,
)
from p2p.net.lobbychat import LOBBY_CHAT_TYPE, LobbyChat, LobbyChatLine
from p2p.net.mesh import Mesh
from p2p.net.observers import ObserverHub
from p2p.net.reach import listen_at
from p2p.net.roster import (
    MAX_NAME_LEN,
    MIN_PLAYERS,
    Roster,
    RosterEntry,
    clean_name,
    new_game_id,
    valid_name,
)
from p2p.net.transport import Connection, ConnectionLost, NetConfig, accept_stream, dial, serve
from p2p.storage.chatlog import save_lobby_chat

log = logging.getLogger(__name__)


def roster_path(home: Path, game_id: str) -> Path:
    return Path(home) / "games" / game_id / "roster.json"


def save_roster(home: Path, roster: Roster) -> Path:
    """Store the signed roster so that a restarted peer can re-enter the mesh."""
    path = roster_path(home, roster.game_id)
    data = roster.encode()
    with contextlib.suppress(OSError):
        if path.read_bytes() == data:
            return path  # stored already (a joiner stores it on receipt, then forms the mesh)
    try:
        make_dirs(path.parent)
        write_durably(path, data)  # atomic: a crash never leaves half a roster
    except OSError as exc:
        raise LocalFileError(f"cannot write {path}: {exc.strerror or exc}") from None
    return path


def load_roster(home: Path, game_id: str) -> Roster:
    """The stored roster of ``game_id`` (re-verified: the file is not trusted blindly)."""
    path = roster_path(home, game_id)
    try:
        data = path.read_bytes()
    except FileNotFoundError as exc:
        raise LocalFileError(f"no stored roster for game {game_id} in {home}") from exc
    except OSError as exc:
        raise LocalFileError(f"cannot read {path}: {exc.strerror}") from None
    return Roster.decode(data)


def keep_lobby_chat(home: Path, game_id: str, lines: list[LobbyChatLine]) -> None:
    """Store the lobby's chat beside the roster, for the transcript (never worth failing a
    game for)."""
    try:
        save_lobby_chat(roster_path(home, game_id).parent, lines)
    except OSError as exc:
        log.warning("lobby chat not stored: %s", exc)


def saved_games(home: Path) -> list[str]:
    """Game ids with a stored roster under ``home``."""
    games = Path(home) / "games"
    if not games.is_dir():
        return []
    return sorted(p.name for p in games.iterdir() if (p / "roster.json").is_file())


# --------------------------------------------------------------------------- node


class HostedLobby:
    """A lobby this node hosts; ``code`` is ready as soon as the node listens."""

    def __init__(self, node: Node, lobby: HostLobby, code: JoinCode) -> None:
        self._node = node
        self.lobby = lobby
        self.code = code
        self.roster: Roster | None = None
        self.roster_ready = trio.Event()
        self.allowed: frozenset[str] | None = None  # peer ids a rematch admits (None: anyone)
        # Told of every joiner admitted (True) or gone before the roster (False), as it happens.
        self.on_change: Callable[[RosterEntry, bool], None] | None = None
        self._changed = trio.Event()  # set (and replaced) whenever the table changes
        self.failure: LocalFileError | None = None  # the roster could not be stored
        self.chat = LobbyChat(lobby.game_id, node.identity)  # relayed to every joiner
        self.chat_link: ChatLink | None = None  # shows the lines we accept, says ours

    def open_chat(self, link: ChatLink | None) -> None:
        """Show the lobby's chat with ``link`` and let its player say lines here."""
        self.chat_link = link
        if link is not None:
            link.attach_lobby(self.say)

    async def say(self, text: str) -> str:
        """Sign our line and relay it to every joiner; our name (ChatRefused if it cannot
        go)."""
        if self.roster is not None:
            raise ChatRefused("the lobby has closed; chat opens when every player is connected")
        self.chat.say(text, trio.current_time())
        self._table_changed()
        return self.lobby.joined[0].name

    def hear(self, peer_key: bytes, frame: bytes) -> bool:
        """A frame a waiting joiner sent: a lobby line is checked (and kept and relayed if
        it passes); False if the joiner broke the rules (or sent anything else)."""
        note = self.chat.relay(peer_key, frame, trio.current_time())
        if note.violation:
            log.warning("%s: %s", short_id(peer_id_of(peer_key)), note.violation)
            return False
        names = {e.peer_id: e.name for e in self.lobby.joined}
        if note.line is not None:
            self._table_changed()
            if self.chat_link is not None:
                self.chat_link.heard_lobby(names.get(note.line.peer, "?"), note.line.text)
        elif note.note and self.chat_link is not None:
            self.chat_link.heard_lobby(None, note.note)
        return True

    def _table_changed(self) -> None:
        """Wake every waiting joiner's task: it sends a lobby update (or the roster)."""
        self._changed.set()
        self._changed = trio.Event()

    def _make_roster(self) -> None:
        """Sign the roster and store it (fsynced) before any joiner is sent it: a host killed
        right after sending it resumes the game like everyone else."""
        roster = self.lobby.roster(self._node.identity)
        try:
            save_roster(self._node.home, roster)
        except LocalFileError as exc:
            self.failure = exc  # raised by wait_mesh; nobody is sent an unstored roster
        else:
            keep_lobby_chat(self._node.home, roster.game_id, self.chat.lines)
            self.roster = roster
        if self.chat_link is not None:
            self.chat_link.attach_lobby(None)
        self.roster_ready.set()
        self._table_changed()

    def joined(self) -> tuple[RosterEntry, ...]:
        return self.lobby.joined

    async def wait_mesh(self) -> Mesh:
        """Wait until the lobby is full, then until the full mesh is connected."""
        with trio.fail_after(self._node.config.lobby_timeout):
            await self.roster_ready.wait()
        if self.failure is not None:
            raise self.failure
        assert self.roster is not None
        return await self._node.start_mesh(self.roster)

    def close_early(self) -> bool:
        """Start with whoever has joined (a rematch's time limit ran out); False if that is
        fewer than two players (the lobby then stays open)."""
        if self.roster is not None or self.failure is not None:
            return True
        if len(self.lobby.joined) < MIN_PLAYERS:
            return False
        self.lobby.players = len(self.lobby.joined)
        self._make_roster()
        return True


class Node:
    """One peer's listener, plus at most one lobby and one mesh at a time."""

    def __init__(
        self, identity: Identity, home: Path, bind: str, port: int, config: NetConfig,
        nursery: trio.Nursery,
    ) -> None:
        self.identity = identity
        self.home = home
        self.bind = bind
        self.port = port
        self.config = config
        self._nursery = nursery
        self._hosted: HostedLobby | None = None
        self._mesh: Mesh | None = None
        self._mesh_ready = trio.Event()
        self.observers: ObserverHub | None = None  # set by a host that admits spectators
        # Games whose roster the host sent us again (its lobby had closed): they may have
        # begun without our knowing.
        self.rejoined: set[str] = set()
        self.terms: dict[str, TableTerms] = {}  # game id -> what its host's welcome said
        self.public_address: str | None = None  # as the rendezvous sees us (if we use one)

    def advertised_address(self, advertise: str | None = None) -> str:
        if advertise:
            return advertise
        if self.public_address is not None:  # what the rendezvous sees: our router's
            return self.public_address
        if self.bind not in ("", "0.0.0.0", "::"):
            return self.bind
        return _guess_lan_address()

    def host(self, *, players: int, name: str, advertise: str | None = None,
             game_id: str | None = None,
             terms: TableTerms | Callable[[], TableTerms] | None = None) -> HostedLobby:
        """Open a lobby for ``players`` peers (us included) and make its join code (a fresh
        game id unless ``game_id`` is given: a rematch's is derived from the last game's)."""
        if self._hosted is not None or self._mesh is not None:
            raise LocalProtocolError("this node already hosts a lobby or runs a game")
        address = self.advertised_address(advertise)
        game_id = game_id or new_game_id()
        name = clean_name(name)
        if not valid_name(name):
            raise LocalProtocolError(f"bad player name {name!r} (1 to {MAX_NAME_LEN} printable "
                                     "characters, none invisible or combining)")
        me = RosterEntry(0, name, self.identity.public_bytes, address, self.port)
        lobby = HostLobby(game_id, players, me, terms)
        code = JoinCode(address, self.port, game_id, self.identity.peer_id,
                        self.config.rendezvous)
        self._hosted = HostedLobby(self, lobby, code)
        return self._hosted

    async def join(self, code: JoinCode | str, *, name: str,
                   on_update: Callable[[LobbyUpdate], None] | None = None,
                   chat: ChatLink | None = None) -> Mesh:
        """Join the game of ``code``: hello to the host, get the roster, form the mesh."""
        roster = await self.enter_lobby(code, name=name, on_update=on_update, chat=chat)
        if not self.listens_for(roster):
            raise LocalProtocolError(
                f"game {roster.game_id} started before we restarted and its roster has us on "
                f"another port: resume it with the stored roster (solstice resume)")
        return await self.start_mesh(roster)

    async def enter_lobby(self, code: JoinCode | str, *, name: str,
                          on_update: Callable[[LobbyUpdate], None] | None = None,
                          chat: ChatLink | None = None, accept_escrow: bool = False,
                          on_terms: Callable[[TableTerms], None] | None = None) -> Roster:
        """Hello to the code's host, show its lobby updates (``on_update``, the last one made
        from the roster), and return the roster, stored durably before it is used. While we
        wait, ``chat`` shows the lobby's chat (each line's signature checked here: the host
        relays it) and may say lines to the host.

        The host answers a peer its roster lists with that roster even after the lobby has
        closed: a joiner killed between the host sending it and its storing it gets it again
        (and then plays on the roster's port, which may not be ours: see ``listens_for``)."""
        if self._mesh is not None:
            raise LocalProtocolError("this node already runs a game")
        join_code = JoinCode.parse(code) if isinstance(code, str) else code
        joiner = JoinerLobby(join_code, self.identity, name, self.port, accept_escrow)
        conn = await dial(
            join_code.address, join_code.port, self.identity, join_code.host_id, self.config, 0
        )
        lobby_chat = LobbyChat(join_code.game_id, self.identity)
        seen: dict[str, str] = {}  # peer id -> name of everyone a lobby update has shown

        async def say(text: str) -> str:
            line = lobby_chat.say(text, trio.current_time())
            try:
                await conn.send_frame(line.frame())
            except (P2PError, OSError, trio.ClosedResourceError, trio.BrokenResourceError):
                raise ChatRefused("not sent: the lobby connection has closed") from None
            return name

        try:
            await conn.send_frame(encode_control(joiner.hello()))
            joiner.on_welcome(await conn.receive_first_frame())
            if joiner.terms is not None:
                # What we agreed to: the host's setup must say the same (the session checks).
                self.terms[join_code.game_id] = joiner.terms
                if on_terms is not None:
                    on_terms(joiner.terms)
            if chat is not None:
                chat.attach_lobby(say)
            with trio.fail_after(self.config.lobby_timeout):
                while True:
                    try:
                        frame = await conn.receive_frame()
                    except ConnectionLost:
                        frame = None  # a host gone without a clean close (killed) says the same
                    if frame is None:
                        raise RemoteProtocolError(
                            0, "the host closed the lobby before the game started")
                    if (len(frame) <= MAX_LOBBY_MESSAGE
                            and decode_control(frame, 0)["type"] == LOBBY_CHAT_TYPE):
                        note = lobby_chat.hear(frame, seen)
                        if chat is not None and note.line is not None:
                            chat.heard_lobby(seen[note.line.peer], note.line.text)
                        elif chat is not None and note.note:
                            chat.heard_lobby(None, note.note)
                        continue
                    got = joiner.on_message(frame)
                    if isinstance(got, Roster):
                        break
                    seen.update((s.peer_id, s.name) for s in got.seated)
                    if on_update is not None:
                        on_update(got)
        finally:
            if chat is not None:
                chat.attach_lobby(None)
            await conn.aclose()
        if got.game_id in saved_games(self.home) and load_roster(self.home, got.game_id) != got:
            raise RemoteProtocolError(0, f"the host sent a roster of game {got.game_id} other "
                                         f"than the one stored in {self.home}")
        save_roster(self.home, got)  # fsynced: a crash from now on resumes with it
        if joiner.started:
            self.rejoined.add(got.game_id)
        keep_lobby_chat(self.home, got.game_id, lobby_chat.lines)
        if on_update is not None:
            on_update(LobbyUpdate.from_roster(got))
        return got

    def listens_for(self, roster: Roster) -> bool:
        """This node listens on the port the roster gives us (it can form the mesh)."""
        index = roster.index_of(self.identity.peer_id)
        return index is not None and roster.players[index].port == self.port

    async def resume(self, game_id: str) -> Mesh:
        """Re-enter the mesh of a game whose roster is stored in our home directory. Returns
        at once: a restarted peer replays its log and talks to whoever is reachable."""
        if self._mesh is not None:
            raise LocalProtocolError("this node already runs a game")
        roster = load_roster(self.home, game_id)
        index = roster.index_of(self.identity.peer_id)
        if index is None:
            raise LocalProtocolError(f"{self.identity.short_id} is not in game {game_id}")
        if roster.players[index].port != self.port:
            raise LocalProtocolError(
                f"the roster says we listen on port {roster.players[index].port}, "
                f"but this node listens on {self.port}"
            )
        return await self.start_mesh(roster, wait=False)

    async def start_mesh(self, roster: Roster, wait: bool = True) -> Mesh:
        """Store the roster, then form its mesh (``wait``: until every peer is connected)."""
        save_roster(self.home, roster)
        mesh = Mesh(roster, self.identity, self.config, self._nursery)
        self._mesh = mesh
        self._mesh_ready.set()
        mesh._start()
        if wait:
            await mesh.wait_all_connected()
        return mesh

    async def _on_connection(self, conn: Connection) -> None:
        """Every incoming connection: a lobby hello or a mesh hello decides what it is."""
        first = await conn.receive_first_frame()
        kind = decode_control(first)["type"]
        try:
            if kind == "hello":
                started = self._started_roster(first)
                if started is not None:
                    for reply in answer_rejoin(started, conn.peer_key, first):
                        await conn.send_frame(encode_control(reply))
                    log.info("sent the roster again to %s", short_id(conn.peer_id))
                else:
                    await self._lobby_member(conn, first)
            elif kind == "mesh-hello":
                with trio.move_on_after(self.config.first_read_timeout):
                    await self._mesh_ready.wait()  # a fast peer may dial before we have it
                if self._mesh is None:
                    raise LobbyRefused(None, "no game is running here yet")
                await self._mesh._accept(conn, first)
            elif kind == "watch-hello":
                if self.observers is None:
                    raise LobbyRefused(None, "nobody may watch a game here")
                await self.observers.serve(conn, first)
            else:
                raise LobbyRefused(None, f"unexpected first message {kind!r}")
        except LobbyRefused as exc:
            log.info("refused %r: %s", conn, exc.reason)
            with contextlib.suppress(P2PError, OSError):
                await conn.send_frame(encode_control(refuse(exc.reason)))
            raise

    def _started_roster(self, hello: bytes) -> Roster | None:
        """The roster of the game a hello names, if its lobby has closed here (we host it
        and the roster is out, or we play in it)."""
        game = decode_control(hello).get("game")
        hosted = self._hosted.roster if self._hosted is not None else None
        playing = self._mesh.roster if self._mesh is not None else None
        for roster in (hosted, playing):
            if roster is not None and roster.game_id == game:
                return roster
        return None

    async def _lobby_member(self, conn: Connection, hello: bytes) -> None:
        hosted = self._hosted
        if hosted is None or hosted.roster is not None:
            raise LobbyRefused(None, "no lobby is open here")
        if hosted.allowed is not None and conn.peer_id not in hosted.allowed:
            raise LobbyRefused(None, "this rematch is for the players of the last game only")
        entry = hosted.lobby.on_hello(conn.peer_key, conn.remote_address, hello)
        log.info("%s (%s) joined the lobby", entry.name, short_id(entry.peer_id))
        if hosted.on_change is not None:
            hosted.on_change(entry, True)
        await conn.send_frame(encode_control(hosted.lobby.welcome(entry)))
        if hosted.lobby.full:
            # Made here, with no await since the welcome, so that nobody can leave between
            # "the lobby is full" and "the roster lists these players".
            hosted._make_roster()
        else:
            hosted._table_changed()
        gone = False

        def leave() -> None:
            nonlocal gone
            if hosted.roster is None and not gone:
                gone = True
                hosted.lobby.leave(conn.peer_id)
                log.info("%s left the lobby", entry.name)
                if hosted.on_change is not None:
                    hosted.on_change(entry, False)
                hosted._table_changed()
            watch.cancel()

        with trio.CancelScope() as watch:

            async def notice_leaving() -> None:
                # A waiting joiner may send lobby chat; anything else, a line that breaks the
                # rules, or EOF means it left (or misbehaved).
                with contextlib.suppress(P2PError, OSError):
                    while (frame := await conn.receive_frame()) is not None:
                        if not hosted.hear(conn.peer_key, frame):
                            break
                leave()

            async with trio.open_nursery() as nursery:
                nursery.start_soon(notice_leaving)
                sent, told = b"", 0  # the last update and how many lines it was sent

                async def tell() -> None:
                    # The table, then every line so far of those at it (a late joiner reads
                    # what was said) but its own. Once the roster is out, the update goes only
                    # ahead of lines (it shows the joiner who came last their authors).
                    nonlocal sent, told
                    update = encode_control(hosted.lobby.update())
                    seated = {e.peer_id for e in hosted.lobby.joined} - {conn.peer_id}
                    lines = [line.frame() for line in hosted.chat.lines[told:]
                             if line.peer in seated]
                    told = len(hosted.chat.lines)
                    if update != sent and (hosted.roster is None or lines):
                        await conn.send_frame(update)
                        sent = update
                    for frame in lines:
                        await conn.send_frame(frame)

                while hosted.roster is None:
                    changed = hosted._changed
                    try:
                        await tell()
                    except (P2PError, OSError):
                        leave()  # cancels this scope: a joiner we cannot reach has left
                    await changed.wait()
                await tell()  # what was said since, and to the last joiner all of it
                await conn.send_frame(encode_control(HostLobby.roster_message(hosted.roster)))
                nursery.cancel_scope.cancel()


def _guess_lan_address() -> str:
    """The address our default route would use (a UDP connect sends no packet)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: never routed, nothing is sent
            return str(probe.getsockname()[0])
        except OSError:
            return "127.0.0.1"


@contextlib.asynccontextmanager
async def open_node(
    identity: Identity,
    *,
    home: Path | str | None = None,
    bind: str = "0.0.0.0",
    port: int = 0,
    config: NetConfig | None = None,
) -> AsyncIterator[Node]:
    """Listen on ``bind:port`` and yield a Node; leaving the block closes everything."""
    cfg = config or NetConfig()
    home_path = Path(home) if home is not None else default_home()
    async with trio.open_nursery() as nursery:
        node_box: list[Node] = []

        async def handler(conn: Connection) -> None:
            await node_box[0]._on_connection(conn)

        bound = await nursery.start(
            lambda task_status: serve(
                identity, handler, bind=bind, port=port, config=cfg, task_status=task_status
            )
        )
        if cfg.rendezvous is not None:
            cfg = replace(cfg, local_port=bound)  # hole punching dials from our port
        node = Node(identity, home_path, bind, bound, cfg, nursery)
        node_box.append(node)
        if cfg.rendezvous is not None:
            ctx = tls.server_context(identity)

            async def relayed(tcp: trio.SocketStream, remote: str) -> None:
                await accept_stream(tcp, ctx, handler, cfg, remote)

            punch = (bound, cfg.punch_timeout) if cfg.punch_timeout > 0 else None
            seen = await nursery.start(listen_at, cfg.rendezvous, identity, relayed, punch)
            node.public_address = seen[0]
        try:
            yield node
        finally:
            nursery.cancel_scope.cancel()


