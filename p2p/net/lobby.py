"""Sans-IO lobby: the control messages of the lobby and of the mesh handshake.

Control messages are canonical-JSON objects with a ``"type"``, one per frame, exchanged only
at the start of a connection (the channel is already authenticated by TLS pinning, so they need
no signature). The roster is different: every peer keeps it and a restarted peer reloads it,
so the host signs it. See protocol.md, "Lobby and join codes" and "Mesh and reconnects".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.canonical import CanonicalEncodingError, canonical_json, parse_json
from p2p.errors import LocalProtocolError, RemoteProtocolError
from p2p.identity import Identity, peer_id_of, short_id
from p2p.net.joincode import JoinCode
from p2p.net.roster import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    Roster,
    RosterEntry,
    is_index,
    is_port,
    valid_name,
)

PROTOCOL_VERSION = 1


class LobbyRefused(RemoteProtocolError):
    """The other side refused us (or we refuse it), with a human-readable reason."""


def encode_control(obj: Mapping[str, Any]) -> bytes:
    return canonical_json(dict(obj))


def decode_control(data: bytes, blame: int | None = None) -> dict[str, Any]:
    """A control message: a JSON object with a string ``type``."""
    try:
        obj = parse_json(data)
    except (ValueError, CanonicalEncodingError) as exc:
        raise RemoteProtocolError(blame, f"control message is not valid JSON: {exc}") from exc
    if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
        raise RemoteProtocolError(blame, "control message is not an object with a 'type'")
    return obj


def refuse(reason: str) -> dict[str, Any]:
    return {"type": "refuse", "reason": reason}


def _raise_if_refused(obj: Mapping[str, Any], blame: int | None, who: str) -> None:
    if obj["type"] == "refuse":
        reason = obj.get("reason")
        raise LobbyRefused(blame, f"{who} refused us: {reason if isinstance(reason, str) else '?'}")


class HostLobby:
    """The host's side of the lobby: admits joiners in order until the game is full."""

    def __init__(self, game_id: str, players: int, host: RosterEntry) -> None:
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise LocalProtocolError(f"a game has {MIN_PLAYERS}-{MAX_PLAYERS} players")
        self.game_id = game_id
        self.players = players
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
        obj = decode_control(data)
        if obj["type"] != "hello" or set(obj) != {"type", "version", "game", "name", "port"}:
            raise LobbyRefused(None, "expected a hello message")
        if obj["version"] != PROTOCOL_VERSION:
            raise LobbyRefused(None, f"protocol version {obj['version']!r} is not supported")
        if obj["game"] != self.game_id:
            raise LobbyRefused(None, "this is not the game of your join code")
        if not valid_name(obj["name"]) or not is_port(obj["port"]):
            raise LobbyRefused(None, "bad name or port in hello")
        peer_id = peer_id_of(peer_key)
        if any(e.peer_id == peer_id for e in self._entries):
            raise LobbyRefused(None, f"peer {short_id(peer_id)} has already joined")
        if self.full:
            raise LobbyRefused(None, "the game is full")
        entry = RosterEntry(len(self._entries), obj["name"], peer_key, remote_address, obj["port"])
        self._entries.append(entry)
        return entry

    def welcome(self, entry: RosterEntry) -> dict[str, Any]:
        return {"type": "welcome", "game": self.game_id, "players": self.players}

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


class JoinerLobby:
    """The joiner's side of the lobby: hello, then wait for the welcome and the roster."""

    def __init__(self, code: JoinCode, identity: Identity, name: str, port: int) -> None:
        if not valid_name(name):
            raise LocalProtocolError(f"bad player name {name!r}")
        self.code = code
        self.identity = identity
        self.name = name
        self.port = port

    def hello(self) -> dict[str, Any]:
        return {
            "type": "hello",
            "version": PROTOCOL_VERSION,
            "game": self.code.game_id,
            "name": self.name,
            "port": self.port,
        }

    def on_welcome(self, data: bytes) -> None:
        obj = decode_control(data)
        _raise_if_refused(obj, None, "the host")
        if obj["type"] != "welcome" or obj.get("game") != self.code.game_id:
            raise RemoteProtocolError(None, "host did not answer the hello with a welcome")

    def on_roster(self, data: bytes) -> Roster:
        """Verify the roster: signed by the code's host, for this game, listing us as we are."""
        obj = decode_control(data)
        _raise_if_refused(obj, None, "the host")
        if obj["type"] != "roster" or set(obj) != {"type", "roster"}:
            raise RemoteProtocolError(0, "expected the roster")
        roster = Roster.from_signed_json(obj["roster"], host_id=self.code.host_id, blame=0)
        if roster.game_id != self.code.game_id:
            raise RemoteProtocolError(0, "roster is for another game")
        index = roster.index_of(self.identity.peer_id)
        if index is None:
            raise RemoteProtocolError(0, "roster does not list us")
        me = roster.players[index]
        if me.port != self.port or me.name != self.name:
            raise RemoteProtocolError(0, "roster lists us with another name or port")
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
