"""Sans-IO lobby: the control messages of the lobby and of the mesh handshake.

Control messages are canonical-JSON objects with a ``"type"``, one per frame, exchanged only
in the lobby and at the start of a mesh connection (the channel is already authenticated by TLS
pinning, so they need no signature). The roster is different: every peer keeps it and a
restarted peer reloads it, so the host signs it. See protocol.md, "Lobby and join codes"
and "Mesh and reconnects".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.canonical import CONTROL_LIMITS, canonical_json
from p2p.errors import LocalProtocolError, RemoteProtocolError
from p2p.identity import Identity, is_peer_id, peer_id_of, short_id
from p2p.net.joincode import JoinCode
from p2p.net.roster import (
    MAX_NAME_LEN,
    MAX_PLAYERS,
    MIN_PLAYERS,
    Roster,
    RosterEntry,
    clashing_names,
    clean_name,
    is_index,
    is_port,
    names_clash,
    tagged_name,
    valid_name,
)
from p2p.session.timing import Timing, parse_clock
from p2p.text import printable
from p2p.wire import parse_from

PROTOCOL_VERSION = 1
# A lobby update or a roster is at most a few hundred bytes per player: anything larger from
# the host is refused before it is parsed.
MAX_LOBBY_MESSAGE = 8192


class LobbyRefused(RemoteProtocolError):
    """The other side refused us (or we refuse it), with a human-readable reason."""


def encode_control(obj: Mapping[str, Any]) -> bytes:
    return canonical_json(dict(obj))


def decode_control(data: bytes, blame: int | None = None) -> dict[str, Any]:
    """A control message: a JSON object with a string ``type``, within the parser limits of
    a control message (UnreadableInput, naming ``blame``, if not)."""
    obj = parse_from(data, blame, "control message", CONTROL_LIMITS)
    if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
        raise RemoteProtocolError(blame, "control message is not an object with a 'type'")
    return obj


def refuse(reason: str) -> dict[str, Any]:
    return {"type": "refuse", "reason": reason}


@dataclass(frozen=True)
class LobbySeat:
    """Someone at the table in the lobby, as the host's lobby updates show them."""

    name: str
    peer_id: str

    def label(self, me: str | None = None) -> str:
        """"NAME (short id)": the id tells apart two players who chose the same name."""
        mine = ", you" if self.peer_id == me else ""
        return f"{printable(self.name, MAX_NAME_LEN)} ({short_id(self.peer_id)}{mine})"


@dataclass(frozen=True)
class LobbyUpdate:
    """Who is at the table so far (the host first, then in join order) and how many seats
    the game has: what a waiting joiner is shown."""

    players: int
    seated: tuple[LobbySeat, ...]

    @classmethod
    def of(cls, players: int, entries: tuple[RosterEntry, ...]) -> LobbyUpdate:
        return cls(players, tuple(LobbySeat(e.name, e.peer_id) for e in entries))

    @classmethod
    def from_roster(cls, roster: Roster) -> LobbyUpdate:
        """The full table, once the roster is in."""
        return cls.of(len(roster.players), roster.players)

    def to_json(self) -> dict[str, Any]:
        return {"players": self.players,
                "seated": [{"name": s.name, "peer": s.peer_id} for s in self.seated]}


def lobby_changes(before: LobbyUpdate | None, after: LobbyUpdate, me: str) -> list[str]:
    """What a joiner is told when the table changes from ``before`` to ``after``: the whole
    table the first time, then one line per arrival or departure (the host's own log says
    the same: "NAME (id) joined, 2/3")."""
    count = f"{len(after.seated)}/{after.players}"
    if before is None:
        missing = after.players - len(after.seated)
        waiting = f", waiting for {missing} more" if missing > 0 else ""
        return [f"at the table: {', '.join(s.label(me) for s in after.seated)}; "
                f"{count}{waiting}"]
    earlier = {s.peer_id: s for s in before.seated}
    now = {s.peer_id for s in after.seated}
    lines = [f"{s.label(me)} left the lobby, {count}"
             for s in before.seated if s.peer_id not in now]
    for s in after.seated:
        if s.peer_id not in earlier:
            lines.append(f"{s.label(me)} joined, {count}")
        elif earlier[s.peer_id].name != s.name:  # another chose the same name: both tagged
            lines.append(f"{earlier[s.peer_id].label(me)} is now {printable(s.name, MAX_NAME_LEN)}"
                         " (another player chose the same name)")
    return lines


def check_hello(data: bytes, game_id: str) -> dict[str, Any]:
    """A joiner's hello for the game ``game_id``; LobbyRefused says what is wrong with it."""
    obj = decode_control(data)
    if obj["type"] != "hello" or set(obj) != {"type", "version", "game", "name", "port"}:
        raise LobbyRefused(None, "expected a hello message")
    if obj["version"] != PROTOCOL_VERSION:
        raise LobbyRefused(None, f"protocol version {obj['version']!r} is not supported")
    if obj["game"] != game_id:
        raise LobbyRefused(None, "this is not the game of your join code")
    if isinstance(obj["name"], str):
        obj["name"] = clean_name(obj["name"])  # an older joiner's spaces trimmed here
    if not valid_name(obj["name"]) or not is_port(obj["port"]):
        raise LobbyRefused(None, "bad name or port in hello (a name is 1 to "
                                 f"{MAX_NAME_LEN} printable characters, none invisible or "
                                 "combining)")
    return obj


def _raise_if_refused(obj: Mapping[str, Any], blame: int | None, who: str) -> None:
    if obj["type"] == "refuse":
        reason = obj.get("reason")
        raise LobbyRefused(blame, f"{who} refused us: {reason if isinstance(reason, str) else '?'}")


ESCROW_TERMS = ("this table escrows every player's secret: if a player vanishes, the others "
                "together rebuild its hand and play its seat on (so all the other players "
                "together could open your hand)")


class EscrowNotAccepted(LocalProtocolError):
    """The table escrows and we did not agree to it: we leave its lobby."""


@dataclass(frozen=True)
class TableTerms:
    """What a joiner agrees to by joining: the table's clock and whether it escrows. The
    host's welcome says them; its setup/commit must then say the same."""

    timing: Timing
    escrow: bool

    def to_json(self) -> dict[str, Any]:
        return {"clock": self.timing.to_json(), "escrow": self.escrow}

    @classmethod
    def from_json(cls, obj: object, blame: int | None) -> TableTerms:
        if not isinstance(obj, dict) or set(obj) != {"clock", "escrow"} \
                or not isinstance(obj["escrow"], bool):
            raise RemoteProtocolError(blame, "the welcome's table must be {'clock': ..., "
                                             "'escrow': true or false}")
        return cls(parse_clock(blame if blame is not None else 0, obj["clock"], Timing()),
                   obj["escrow"])

    def describe(self) -> str:
        return self.timing.describe() + ("; " + ESCROW_TERMS if self.escrow else "; no escrow")


class HostLobby:
    """The host's side of the lobby: admits joiners in order until the game is full."""

    def __init__(self, game_id: str, players: int, host: RosterEntry,
                 terms: TableTerms | Callable[[], TableTerms] | None = None) -> None:
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise LocalProtocolError(f"a game has {MIN_PLAYERS}-{MAX_PLAYERS} players")
        self.game_id = game_id
        self.players = players
        self.terms = terms
        self._entries: list[RosterEntry] = [host]

    @property
    def full(self) -> bool:
        return len(self._entries) == self.players

    @property
    def joined(self) -> tuple[RosterEntry, ...]:
        return tuple(self._entries)

    def on_hello(self, peer_key: bytes, remote_address: str, data: bytes) -> RosterEntry:
        """Admit the peer whose certificate key is ``peer_key``; LobbyRefused says why not.

        The joiner's address is the one its connection came from (what the host can reach),
        its port the one it announces; its identity comes from its certificate, never from the
        message.
        """
        obj = check_hello(data, self.game_id)
        peer_id = peer_id_of(peer_key)
        if any(e.peer_id == peer_id for e in self._entries):
            raise LobbyRefused(None, f"peer {short_id(peer_id)} has already joined")
        if self.full:
            raise LobbyRefused(None, "the game is full")
        entry = RosterEntry(len(self._entries), self._unique_name(obj["name"], peer_id),
                            peer_key, remote_address, obj["port"])
        self._entries.append(entry)
        return entry

    def _unique_name(self, name: str, peer_id: str) -> str:
        """Names are unique at a table: on a clash the newcomer and every player already
        called so (the host too) get their short peer id appended, so none of them speaks
        under a name another can wear (protocol.md, "Names")."""
        clash = [i for i, e in enumerate(self._entries) if names_clash(e.name, name)]
        for i in clash:
            e = self._entries[i]
            self._entries[i] = RosterEntry(e.index, tagged_name(e.name, e.peer_id), e.key,
                                           e.address, e.port)
        return tagged_name(name, peer_id) if clash else name

    def welcome(self, entry: RosterEntry) -> dict[str, Any]:
        welcome = {"type": "welcome", "game": self.game_id, "players": self.players}
        # (A callable: the terms as the host's player has them now, e.g. the UI's escrow
        # toggle before anyone joined.)
        terms = self.terms() if callable(self.terms) else self.terms
        if terms is not None:
            welcome["table"] = terms.to_json()
        return welcome

    def update(self) -> dict[str, Any]:
        """The lobby update every admitted joiner gets whenever the table changes."""
        return {"type": "lobby", "game": self.game_id,
                **LobbyUpdate.of(self.players, self.joined).to_json()}

    def leave(self, peer_id: str) -> None:
        """A joiner left before the roster was sent: drop it and renumber the later ones."""
        kept = [e for e in self._entries if e.peer_id != peer_id]
        self._entries = [
            RosterEntry(i, e.name, e.key, e.address, e.port) for i, e in enumerate(kept)
        ]

    def roster(self, host: Identity) -> Roster:
        if not self.full:
            raise LocalProtocolError("the roster is made only when the game is full")
        return Roster(self.game_id, tuple(self._entries)).sign(host)

    @staticmethod
    def roster_message(roster: Roster) -> dict[str, Any]:
        return {"type": "roster", "roster": roster.signed_json()}


def answer_rejoin(roster: Roster, peer_key: bytes, data: bytes) -> list[dict[str, Any]]:
    """A hello for a game whose lobby has closed (the roster is out): a peer the roster lists
    gets a welcome and the same signed roster again (it crashed before it stored it);
    anyone else is refused."""
    check_hello(data, roster.game_id)
    peer_id = peer_id_of(peer_key)
    if roster.index_of(peer_id) is None:
        raise LobbyRefused(None, f"game {roster.game_id[:8]} has started without you: its "
                                 f"roster does not list your peer id {short_id(peer_id)}")
    # "started": the game may have begun, so a joiner with no records of it signs nothing
    # before the others re-sent what they hold of its messages (p2p.storage.recovery).
    return [{"type": "welcome", "game": roster.game_id, "players": len(roster.players),
             "started": True}, HostLobby.roster_message(roster)]


class JoinerLobby:
    """The joiner's side of the lobby: hello, then wait for the welcome and the roster."""

    def __init__(self, code: JoinCode, identity: Identity, name: str, port: int,
                 accept_escrow: bool = False) -> None:
        name = clean_name(name)
        if not valid_name(name):
            raise LocalProtocolError(f"bad player name {name!r} (1 to {MAX_NAME_LEN} printable "
                                     "characters, none invisible or combining)")
        self.code = code
        self.identity = identity
        self.name = name
        self.port = port
        self.started = False  # the welcome said the game's roster is out already
        self.accept_escrow = accept_escrow
        self.terms: TableTerms | None = None  # what the welcome said the table is

    def hello(self) -> dict[str, Any]:
        return {
            "type": "hello",
            "version": PROTOCOL_VERSION,
            "game": self.code.game_id,
            "name": self.name,
            "port": self.port,
        }

    def on_welcome(self, data: bytes) -> None:
        obj = decode_control(data, 0)
        _raise_if_refused(obj, None, "the host")
        if obj["type"] != "welcome" or obj.get("game") != self.code.game_id:
            raise RemoteProtocolError(None, "host did not answer the hello with a welcome")
        self.started = obj.get("started") is True
        if "table" in obj:
            self.terms = TableTerms.from_json(obj["table"], 0)
            if self.terms.escrow and not self.accept_escrow and not self.started:
                raise EscrowNotAccepted(
                    f"not joined: {ESCROW_TERMS}; to agree, join again with --accept-escrow")

    def on_message(self, data: bytes) -> LobbyUpdate | Roster:
        """What the host sends while we wait: lobby updates, then the roster."""
        if len(data) > MAX_LOBBY_MESSAGE:
            raise RemoteProtocolError(0, f"lobby message of {len(data)} bytes (at most "
                                         f"{MAX_LOBBY_MESSAGE})")
        obj = decode_control(data, 0)
        if obj["type"] == "lobby":
            return self._update(obj)
        return self.on_roster(data)

    def _update(self, obj: dict[str, Any]) -> LobbyUpdate:
        if set(obj) != {"type", "game", "players", "seated"} or obj["game"] != self.code.game_id:
            raise RemoteProtocolError(0, "malformed lobby update")
        players, seated = obj["players"], obj["seated"]
        if not (is_index(players) and MIN_PLAYERS <= players <= MAX_PLAYERS
                and isinstance(seated, list) and 0 < len(seated) <= players):
            raise RemoteProtocolError(0, "lobby update has a bad player count")
        seats = []
        for seat in seated:
            if not (isinstance(seat, dict) and set(seat) == {"name", "peer"}
                    and valid_name(seat["name"]) and is_peer_id(seat["peer"])):
                raise RemoteProtocolError(0, "lobby update has a bad seat")
            seats.append(LobbySeat(seat["name"], seat["peer"]))
        peers = [s.peer_id for s in seats]
        if peers[0] != self.code.host_id or len(set(peers)) != len(peers):
            raise RemoteProtocolError(0, "lobby update does not start with the host or "
                                         "lists a peer twice")
        if self.identity.peer_id not in peers:
            raise RemoteProtocolError(0, "lobby update does not list us")
        if clashing_names([s.name for s in seats]):
            raise RemoteProtocolError(0, "lobby update gives two players the same name")
        return LobbyUpdate(players, tuple(seats))

    def on_roster(self, data: bytes) -> Roster:
        """Verify the roster: signed by the code's host, for this game, listing us. It may
        list us with another name or port than ours now: a roster made before we restarted,
        sent again (the caller then plays under the roster's)."""
        obj = decode_control(data, 0)
        _raise_if_refused(obj, None, "the host")
        if obj["type"] != "roster" or set(obj) != {"type", "roster"}:
            raise RemoteProtocolError(0, "expected the roster")
        roster = Roster.from_signed_json(obj["roster"], host_id=self.code.host_id, blame=0)
        if roster.game_id != self.code.game_id:
            raise RemoteProtocolError(0, "roster is for another game")
        if roster.index_of(self.identity.peer_id) is None:
            raise RemoteProtocolError(0, "roster does not list us")
        if clashing_names([p.name for p in roster.players]):
            raise RemoteProtocolError(0, "roster gives two players the same name")
        return roster


def mesh_hello(game_id: str, index: int) -> dict[str, Any]:
    return {"type": "mesh-hello", "game": game_id, "index": index}


def mesh_welcome(game_id: str, index: int) -> dict[str, Any]:
    return {"type": "mesh-welcome", "game": game_id, "index": index}


def check_mesh_hello(data: bytes, roster: Roster, my_index: int, peer_id: str) -> int:
    """Validate a dialer's mesh hello; return its index. The rule: higher index dials lower."""
    obj = decode_control(data)
    if obj["type"] != "mesh-hello" or set(obj) != {"type", "game", "index"}:
        raise LobbyRefused(None, "expected a mesh-hello")
    if obj["game"] != roster.game_id:
        raise LobbyRefused(None, "not the game of this peer")
    index = obj["index"]
    if not is_index(index) or not my_index < index < len(roster.players):
        raise LobbyRefused(None, f"index {index!r} may not dial index {my_index}")
    expected = roster.players[index].peer_id
    if peer_id != expected:
        raise LobbyRefused(
            index,
            f"identity {short_id(peer_id)} is not the roster's {short_id(expected)} for {index}",
        )
    return index


def check_mesh_welcome(data: bytes, roster: Roster, index: int) -> None:
    obj = decode_control(data, index)
    _raise_if_refused(obj, index, f"peer {index}")
    if obj != mesh_welcome(roster.game_id, index):
        raise RemoteProtocolError(index, "expected a mesh-welcome")
