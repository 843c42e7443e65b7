"""The signed roster: the players of one game in join order, and the checks on its fields.

Every peer keeps the roster and a restarted peer reloads it, so the host signs it
(protocol.md, "Lobby and join codes")."""

from __future__ import annotations

import functools
import hashlib
import ipaddress
import secrets
import unicodedata
from dataclasses import dataclass
from typing import Any, TypeGuard

from engine.canonical import CONTROL_LIMITS, canonical_json
from p2p.errors import LocalProtocolError, RemoteProtocolError
from p2p.identity import SHORT_ID_LEN, Identity, peer_id_of, short_id, verify_signature
from p2p.wire import parse_from

MIN_PLAYERS = 2
MAX_PLAYERS = 4
MAX_NAME_LEN = 32
GAME_ID_BYTES = 16
ROSTER_DOMAIN = b"solstice/roster/v1\n"
HEX_DIGITS = frozenset("0123456789abcdef")


def new_game_id() -> str:
    """A fresh random game id: 16 random bytes as lowercase hex."""
    return secrets.token_hex(GAME_ID_BYTES)


def is_game_id(value: object) -> bool:
    return isinstance(value, str) and len(value) == 2 * GAME_ID_BYTES and set(value) <= HEX_DIGITS


def is_port(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value < 65536


def is_index(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


# Characters a name may not hold: invisible ones (format characters such as zero-width
# joiners) and combining marks (after NFC, a precomposed letter has none): each can make two
# different names print alike.
_HIDDEN_CATEGORIES = frozenset({"Cf", "Mn", "Me"})


def valid_name(name: object) -> bool:
    """Display names: 1-32 printable characters (no control characters to spoof a UI), none
    invisible or combining, no leading or trailing space (``clean_name`` makes one)."""
    return (isinstance(name, str) and 0 < len(name) <= MAX_NAME_LEN and name.isprintable()
            and name == name.strip()
            and not any(unicodedata.category(c) in _HIDDEN_CATEGORIES for c in name))


def clean_name(name: str) -> str:
    """A name as typed, made what it is sent as: NFC, leading and trailing space trimmed."""
    return unicodedata.normalize("NFC", name).strip()


@functools.cache
def _prototypes() -> dict[str, str]:
    """The Latin letter or digit each look-alike character reads as, from the confusables
    of Unicode TR39 (via ``confusable_homoglyphs``): Cyrillic "р" and Greek "ρ" read as "p"
    (fullwidth and other compatibility forms are NFKC's). ASCII itself is left as it is."""
    from confusable_homoglyphs.confusables import confusables_data

    table: dict[str, str] = {}

    def read_as(char: str, ascii_char: str) -> None:
        for form in {char, char.casefold()}:
            if len(form) == 1 and not form.isascii():
                table[form] = min(table.get(form, ascii_char), ascii_char)

    for char, homoglyphs in confusables_data.items():
        for glyph in homoglyphs:
            other = glyph["c"].strip("\u200e")  # the data marks right-to-left ones
            for a, b in ((char, other), (other, char)):
                if len(b) == 1 and b.isascii() and b.isalnum():
                    read_as(a, b.casefold())
    return table


def skeleton(name: str) -> str:
    """What a name looks like to a reader: compatibility forms folded (NFKC), case and
    spacing ignored, and every character replaced by its confusable prototype (in the
    manner of the TR39 skeleton), so that look-alike names compare equal."""
    table = _prototypes()
    folded = unicodedata.normalize("NFKC", name).casefold()
    return " ".join("".join(table.get(c, c) for c in folded).split())


def name_base(name: str) -> str:
    """What a name says to a reader (``skeleton``), a trailing "#" and short peer id left
    out (so that nobody can choose another player's tagged name)."""
    head, sep, tail = name.rpartition("#")
    if sep and len(tail) == SHORT_ID_LEN and set(tail) <= HEX_DIGITS:
        name = head
    return skeleton(name)


def names_clash(a: str, b: str) -> bool:
    return name_base(a) == name_base(b)


def tagged_name(name: str, peer_id: str) -> str:
    """``name`` with ``#`` and the peer's short id appended (within MAX_NAME_LEN): what a
    player is called at a table where another chose the same name (protocol.md, "Names")."""
    head, sep, tail = name.rpartition("#")
    if sep and len(tail) == SHORT_ID_LEN and set(tail) <= HEX_DIGITS:
        name = head
    suffix = "#" + short_id(peer_id)
    return name[:MAX_NAME_LEN - len(suffix)].rstrip() + suffix


def clashing_names(names: list[str]) -> bool:
    """True if two of ``names`` read the same (``skeleton``): what a host that keeps the
    name rule never sends."""
    read = [skeleton(n) for n in names]
    return len(set(read)) != len(read)


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
        if not (isinstance(key_hex, str) and len(key_hex) == 64 and set(key_hex) <= HEX_DIGITS):
            raise RemoteProtocolError(blame, "roster entry key is not 32 bytes of hex")
        entry_key = bytes.fromhex(key_hex)
        if obj["peer"] != peer_id_of(entry_key):
            raise RemoteProtocolError(blame, "roster entry peer id does not match its key")
        if not is_index(obj["index"]) or not valid_name(obj["name"]):
            raise RemoteProtocolError(blame, "roster entry has a bad index or name")
        if not isinstance(obj["address"], str) or not is_port(obj["port"]):
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
        if not is_game_id(inner["game"]):
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
        if not (isinstance(sig_hex, str) and len(sig_hex) == 128 and set(sig_hex) <= HEX_DIGITS):
            raise RemoteProtocolError(blame, "roster signature is not 64 bytes of hex")
        roster = cls(inner["game"], players, bytes.fromhex(sig_hex))
        if host_id is not None and roster.host_id != host_id:
            raise RemoteProtocolError(blame, "roster entry 0 is not the host of the join code")
        if not verify_signature(players[0].key, roster.sig, roster.signing_bytes()):
            raise RemoteProtocolError(blame, "roster signature does not verify")
        return roster

    @classmethod
    def decode(cls, data: bytes, *, host_id: str | None = None) -> Roster:
        obj = parse_from(data, None, "roster", CONTROL_LIMITS)
        return cls.from_signed_json(obj, host_id=host_id)


# --------------------------------------------------------------------------- control messages

