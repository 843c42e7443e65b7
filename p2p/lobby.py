"""Sans-IO lobby: join codes, the signed roster, and the control messages of lobby and mesh.

Control messages are canonical-JSON objects with a ``"type"``, one per frame, exchanged only
at the start of a connection (the channel is already authenticated by TLS pinning, so they need
no signature). The roster is different: every peer keeps it and a restarted peer reloads it,
so the host signs it. See protocol.md, "Lobby and join codes" and "Mesh and reconnects".
"""

from __future__ import annotations

import base64
import hashlib
import ipaddress
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.canonical import CanonicalEncodingError, canonical_json, parse_json
from p2p.errors import LocalProtocolError, RemoteProtocolError
from p2p.identity import Identity, is_peer_id, peer_id_of, short_id, verify_signature

PROTOCOL_VERSION = 1
MIN_PLAYERS = 2
MAX_PLAYERS = 4
MAX_NAME_LEN = 32
GAME_ID_BYTES = 16
JOIN_CODE_PREFIX = "sol1-"
ROSTER_DOMAIN = b"solstice/roster/v1\n"
_CHECKSUM_BYTES = 4
_HEX = frozenset("0123456789abcdef")
_BASE32 = frozenset("abcdefghijklmnopqrstuvwxyz234567")


class InvalidJoinCode(ValueError):
    """A join code could not be read (typo, truncation, or not a Solstice code)."""


class LobbyRefused(RemoteProtocolError):
    """The other side refused us (or we refuse it), with a human-readable reason."""


def new_game_id() -> str:
    """A fresh random game id: 16 random bytes as lowercase hex."""
    return secrets.token_hex(GAME_ID_BYTES)


def _is_game_id(value: object) -> bool:
    return isinstance(value, str) and len(value) == 2 * GAME_ID_BYTES and set(value) <= _HEX


def _is_port(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value < 65536


def _is_index(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def valid_name(name: object) -> bool:
    """Display names: 1-32 printable characters (no control characters to spoof a UI)."""
    return isinstance(name, str) and 0 < len(name) <= MAX_NAME_LEN and name.isprintable()


# --------------------------------------------------------------------------- join codes


@dataclass(frozen=True)
class JoinCode:
    """What a joiner needs: where the host listens, which game, and the host's peer id.

    Text form: ``sol1-`` + lowercase unpadded base32 of
    ``family(1: 4 or 6) | address(4 or 16) | port(2, BE) | game id(16) | host id(32) | checksum(4)``
    where the checksum is the first 4 bytes of SHA-256 of everything before it.
    """

    address: str
    port: int
    game_id: str
    host_id: str

    def __post_init__(self) -> None:
        try:
            ipaddress.ip_address(self.address)
        except ValueError as exc:
            raise LocalProtocolError(f"join code address must be an IP address: {exc}") from exc
        if not _is_port(self.port):
            raise LocalProtocolError(f"bad port {self.port}")
        if not _is_game_id(self.game_id) or not is_peer_id(self.host_id):
            raise LocalProtocolError("bad game id or host id")

    def encode(self) -> str:
        ip = ipaddress.ip_address(self.address)
        raw = (
            bytes([ip.version])
            + ip.packed
            + self.port.to_bytes(2, "big")
            + bytes.fromhex(self.game_id)
            + bytes.fromhex(self.host_id)
        )
        raw += hashlib.sha256(raw).digest()[:_CHECKSUM_BYTES]
        return JOIN_CODE_PREFIX + base64.b32encode(raw).decode("ascii").rstrip("=").lower()

    @classmethod
    def parse(cls, text: str) -> JoinCode:
        """Read a code as typed or pasted: case and white space anywhere are ignored, so a
        code copied from a terminal where it wrapped over two lines still reads."""
        code = "".join(text.split()).lower()
        if not code.startswith(JOIN_CODE_PREFIX):
            raise InvalidJoinCode(f"a join code starts with {JOIN_CODE_PREFIX!r}")
        body = code[len(JOIN_CODE_PREFIX) :]
        if not body:
            raise InvalidJoinCode("the join code is empty")
        if not set(body) <= _BASE32:
            raise InvalidJoinCode("the join code contains characters it cannot hold")
        try:
            raw = base64.b32decode(body.upper() + "=" * (-len(body) % 8))
        except ValueError as exc:  # a length no encoder produces
            raise InvalidJoinCode("the join code is truncated or too long") from exc
        addr_len = {4: 4, 6: 16}.get(raw[0])
        if addr_len is None:
            raise InvalidJoinCode("the join code is damaged (unknown address family)")
        expected = 1 + addr_len + 2 + GAME_ID_BYTES + 32 + _CHECKSUM_BYTES
        if len(raw) != expected:
            raise InvalidJoinCode("the join code is truncated or too long")
        payload, checksum = raw[:-_CHECKSUM_BYTES], raw[-_CHECKSUM_BYTES:]
        if hashlib.sha256(payload).digest()[:_CHECKSUM_BYTES] != checksum:
            raise InvalidJoinCode("the join code is mistyped (checksum mismatch)")
        pos = 1 + addr_len
        address = str(ipaddress.ip_address(payload[1:pos]))
        port = int.from_bytes(payload[pos : pos + 2], "big")
        game_id = payload[pos + 2 : pos + 2 + GAME_ID_BYTES].hex()
        host_id = payload[pos + 2 + GAME_ID_BYTES :].hex()
        try:
            parsed = cls(address, port, game_id, host_id)
        except LocalProtocolError as exc:
            raise InvalidJoinCode(f"the join code is damaged: {exc}") from exc
        # The last character carries unused bits; one code, one spelling.
        if parsed.encode() != code:
            raise InvalidJoinCode("the join code is mistyped (unused bits set)")
        return parsed

    def __str__(self) -> str:
        return self.encode()


# --------------------------------------------------------------------------- roster


@dataclass(frozen=True)
class RosterEntry:
    """One peer of a game, in join order (``index`` 0 is the host)."""

    index: int
    name: str
    key: bytes  # raw Ed25519 public key
    address: str
    port: int

    @property
    def peer_id(self) -> str:
        return peer_id_of(self.key)

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "name": self.name,
            "peer": self.peer_id,
            "key": self.key.hex(),
            "address": self.address,
            "port": self.port,
        }

    @classmethod
    def from_json(cls, obj: object, blame: int | None = None) -> RosterEntry:
        keys = {"index", "name", "peer", "key", "address", "port"}
        if not isinstance(obj, dict) or set(obj) != keys:
            raise RemoteProtocolError(blame, f"roster entry must have exactly {sorted(keys)}")
        key_hex = obj["key"]
        if not (isinstance(key_hex, str) and len(key_hex) == 64 and set(key_hex) <= _HEX):
            raise RemoteProtocolError(blame, "roster entry key is not 32 bytes of hex")
        entry_key = bytes.fromhex(key_hex)
        if obj["peer"] != peer_id_of(entry_key):
            raise RemoteProtocolError(blame, "roster entry peer id does not match its key")
        if not _is_index(obj["index"]) or not valid_name(obj["name"]):
            raise RemoteProtocolError(blame, "roster entry has a bad index or name")
        if not isinstance(obj["address"], str) or not _is_port(obj["port"]):
            raise RemoteProtocolError(blame, "roster entry has a bad address or port")
        try:
            ipaddress.ip_address(obj["address"])
        except ValueError as exc:
            raise RemoteProtocolError(blame, "roster entry address is not an IP") from exc
        return cls(obj["index"], obj["name"], entry_key, obj["address"], obj["port"])


@dataclass(frozen=True)
class Roster:
    """The players of one game in join order, as signed by the host (entry 0)."""

    game_id: str
    players: tuple[RosterEntry, ...]
    sig: bytes = b""

    def to_json(self) -> dict[str, Any]:
        """The signed object (without the signature)."""
        return {"game": self.game_id, "players": [p.to_json() for p in self.players]}

    def signing_bytes(self) -> bytes:
        return ROSTER_DOMAIN + canonical_json(self.to_json())

    def signed_json(self) -> dict[str, Any]:
        return {"roster": self.to_json(), "sig": self.sig.hex()}

    def encode(self) -> bytes:
        """Canonical JSON of the signed roster (stored in the home dir, sent in the lobby)."""
        return canonical_json(self.signed_json())

    @property
    def hash(self) -> str:
        """SHA-256 of ``encode()``: a value every peer agrees on once the mesh is formed."""
        return hashlib.sha256(self.encode()).hexdigest()

    @property
    def host_id(self) -> str:
        return self.players[0].peer_id

    def sign(self, host: Identity) -> Roster:
        if host.public_bytes != self.players[0].key:
            raise LocalProtocolError("only the host (roster entry 0) signs the roster")
        return Roster(self.game_id, self.players, host.sign(self.signing_bytes()))

    def index_of(self, peer_id: str) -> int | None:
        for entry in self.players:
            if entry.peer_id == peer_id:
                return entry.index
        return None

    @classmethod
    def from_signed_json(
        cls, obj: object, *, host_id: str | None = None, blame: int | None = None
    ) -> Roster:
        """Parse and verify a signed roster: shape, consistency and the host's signature.

        ``host_id`` is the host's peer id when the caller knows it independently (from the join
        code); entry 0 must then carry it.
        """
        if not isinstance(obj, dict) or set(obj) != {"roster", "sig"}:
            raise RemoteProtocolError(blame, "signed roster must have exactly 'roster' and 'sig'")
        inner, sig_hex = obj["roster"], obj["sig"]
        if not isinstance(inner, dict) or set(inner) != {"game", "players"}:
            raise RemoteProtocolError(blame, "roster must have exactly 'game' and 'players'")
        if not _is_game_id(inner["game"]):
            raise RemoteProtocolError(blame, "roster game id is malformed")
        raw_players = inner["players"]
        if not isinstance(raw_players, list) or not (
            MIN_PLAYERS <= len(raw_players) <= MAX_PLAYERS
        ):
            wanted = f"{MIN_PLAYERS}-{MAX_PLAYERS}"
            raise RemoteProtocolError(blame, f"roster must list {wanted} players")
        players = tuple(RosterEntry.from_json(p, blame) for p in raw_players)
        if [p.index for p in players] != list(range(len(players))):
            raise RemoteProtocolError(blame, "roster indexes are not 0, 1, 2, ... in order")
        if len({p.peer_id for p in players}) != len(players):
            raise RemoteProtocolError(blame, "roster lists the same peer twice")
        if not (isinstance(sig_hex, str) and len(sig_hex) == 128 and set(sig_hex) <= _HEX):
            raise RemoteProtocolError(blame, "roster signature is not 64 bytes of hex")
        roster = cls(inner["game"], players, bytes.fromhex(sig_hex))
        if host_id is not None and roster.host_id != host_id:
            raise RemoteProtocolError(blame, "roster entry 0 is not the host of the join code")
        if not verify_signature(players[0].key, roster.sig, roster.signing_bytes()):
            raise RemoteProtocolError(blame, "roster signature does not verify")
        return roster

    @classmethod
    def decode(cls, data: bytes, *, host_id: str | None = None) -> Roster:
        try:
            obj = parse_json(data)
        except (ValueError, CanonicalEncodingError) as exc:
            raise RemoteProtocolError(None, f"roster is not valid JSON: {exc}") from exc
        return cls.from_signed_json(obj, host_id=host_id)


# --------------------------------------------------------------------------- control messages


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
        if not valid_name(obj["name"]) or not _is_port(obj["port"]):
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
    if not _is_index(index) or not my_index < index < len(roster.players):
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
