"""Lobby chat: short signed lines while the table fills, relayed by the host.

In the lobby the joiners are connected only to the host and do not know each other's keys,
so, unlike the table chat (``p2p.net.chat``), a lobby line names its author by peer id and
carries the author's public key. Its body is ``{"game", "peer", "n", "text"}`` (the game id,
the author's peer id, the author's own strictly increasing counter, at most ``MAX_TEXT``
characters); the author signs ``LOBBY_CHAT_DOMAIN + canonical_json(body)`` with its identity
key (a domain of its own: a lobby line is never a game message nor a table chat line). The
wire form is the lobby control message ``{"type": "lobby-chat", "line": body, "key": hex,
"sig": hex}`` (protocol.md, "Lobby chat").

A joiner sends its lines to the host; the host checks each (``LobbyChat.relay``: the author is
the peer of that TLS connection, this game, a counter above the last, the in-game rate limit,
at most ``MAX_PER_PEER`` lines per peer and ``MAX_LINES`` in all) and relays it unchanged to
every other admitted joiner, who checks the signature itself (``LobbyChat.hear``): the host can
withhold a line, never forge one. Accepted lines are kept, in the order this peer saw them, for
the transcript's ``lobby_chat`` list, which ``solstice verify`` checks (never changing the
verdict on the game).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from engine.canonical import CONTROL_LIMITS, canonical_json
from p2p.errors import RemoteProtocolError
from p2p.hexfields import is_lower_hex
from p2p.identity import Identity, is_peer_id, peer_id_of, short_id, verify_signature
from p2p.net.chat import BURST, MAX_TEXT, RATE, ChatCheck, ChatRefused, TokenBucket
from p2p.wire import parse_from

LOBBY_CHAT_DOMAIN = b"solstice/lobby-chat/v1\n"
LOBBY_CHAT_TYPE = "lobby-chat"
MAX_FRAME = 2048     # bytes of one lobby chat message (200 characters of 4 UTF-8 bytes fit)
MAX_PER_PEER = 40    # lines of one peer in one lobby
MAX_LINES = 160      # lines kept (and relayed) in one lobby
_KEYS = frozenset({"game", "peer", "n", "text"})


@dataclass(frozen=True)
class LobbyChatLine:
    """One signed lobby line; ``peer`` is the author's peer id, ``key`` its public key."""

    game: str
    peer: str
    n: int
    text: str
    key: bytes
    sig: bytes

    def body(self) -> dict[str, Any]:
        return {"game": self.game, "peer": self.peer, "n": self.n, "text": self.text}

    def signing_bytes(self) -> bytes:
        return LOBBY_CHAT_DOMAIN + canonical_json(self.body())

    def to_json(self) -> dict[str, Any]:
        return {"type": LOBBY_CHAT_TYPE, "line": self.body(), "key": self.key.hex(),
                "sig": self.sig.hex()}

    def frame(self) -> bytes:
        return canonical_json(self.to_json())

    def verify(self) -> bool:
        """Signed by the key it carries, which is the author's (its hash is the peer id)."""
        return (peer_id_of(self.key) == self.peer
                and verify_signature(self.key, self.sig, self.signing_bytes()))

    @classmethod
    def from_json(cls, obj: object, blame: int | None = None) -> LobbyChatLine:
        """Check the structure of a decoded lobby line (not its signature)."""
        if not isinstance(obj, dict) or set(obj) != {"type", "line", "key", "sig"} \
                or obj["type"] != LOBBY_CHAT_TYPE:
            raise RemoteProtocolError(blame, "lobby chat must have exactly 'type', 'line', "
                                             "'key' and 'sig'")
        body, key, sig = obj["line"], obj["key"], obj["sig"]
        if not isinstance(body, dict) or set(body) != _KEYS:
            raise RemoteProtocolError(blame, f"lobby chat line must have exactly the keys "
                                             f"{sorted(_KEYS)}")
        game, peer, n, text = body["game"], body["peer"], body["n"], body["text"]
        if not is_lower_hex(game):
            raise RemoteProtocolError(blame, "lobby chat game id is not lowercase hex")
        if not is_peer_id(peer):
            raise RemoteProtocolError(blame, "lobby chat peer is not a peer id")
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise RemoteProtocolError(blame, "lobby chat n is not a non-negative integer")
        if not isinstance(text, str) or not 0 < len(text) <= MAX_TEXT:
            raise RemoteProtocolError(blame, f"lobby chat text is not a string of 1 to "
                                             f"{MAX_TEXT} characters")
        if not is_lower_hex(key, 32) or not is_lower_hex(sig, 64):
            raise RemoteProtocolError(blame, "lobby chat key or sig is not lowercase hex of "
                                             "32 / 64 bytes")
        return cls(game, peer, n, text, bytes.fromhex(key), bytes.fromhex(sig))

    @classmethod
    def decode(cls, frame: bytes, blame: int | None = None) -> LobbyChatLine:
        """Parse a lobby chat message; at most ``MAX_FRAME`` bytes of canonical JSON."""
        if len(frame) > MAX_FRAME:
            raise RemoteProtocolError(blame, f"lobby chat of {len(frame)} bytes (at most "
                                             f"{MAX_FRAME})")
        obj = parse_from(frame, blame, "lobby chat", CONTROL_LIMITS)
        line = cls.from_json(obj, blame)
        if line.frame() != frame:
            raise RemoteProtocolError(blame, "lobby chat is not canonically encoded")
        return line


def sign_lobby_chat(identity: Identity, game: str, n: int, text: str) -> LobbyChatLine:
    unsigned = LobbyChatLine(game, identity.peer_id, n, text, identity.public_bytes, b"")
    return LobbyChatLine(game, identity.peer_id, n, text, identity.public_bytes,
                         identity.sign(unsigned.signing_bytes()))


def check_lobby_chat(game: str, line: LobbyChatLine, blame: int | None = None) -> None:
    """Raise RemoteProtocolError unless ``line`` is for ``game`` and signed by its author."""
    if line.game != game:
        raise RemoteProtocolError(blame, f"lobby chat for game {line.game[:8]}, not this game")
    if not line.verify():
        raise RemoteProtocolError(blame, f"bad signature on lobby chat {line.n} of "
                                         f"{short_id(line.peer)}")


@dataclass(frozen=True)
class LobbyNote:
    """What ``relay``/``hear`` made of a frame: a ``line`` to show (and, at the host, to
    relay), a ``note`` about a dropped line (shown locally), or a ``violation`` of the
    sender."""

    line: LobbyChatLine | None = None
    note: str = ""
    violation: str = ""


class LobbyChat:
    """The lobby chat of one game at one peer, host or joiner (sans-IO; the caller passes
    the time)."""

    def __init__(self, game: str, identity: Identity) -> None:
        self.game, self.identity = game, identity
        self.lines: list[LobbyChatLine] = []
        self.last: dict[str, int] = {}
        self._counts: dict[str, int] = {}
        self._buckets: dict[str, TokenBucket] = {}
        self._noted: set[str] = set()  # peers whose current flood was already noted

    def say(self, text: str, now: float) -> LobbyChatLine:
        """Sign our next line (surrounding blanks removed); ChatRefused if it cannot go."""
        text = text.strip()
        if not text:
            raise ChatRefused("nothing to say")
        if len(text) > MAX_TEXT:
            raise ChatRefused(f"a chat line has at most {MAX_TEXT} characters, not {len(text)}")
        me = self.identity.peer_id
        if self._full(me):
            raise ChatRefused(f"not sent: the lobby keeps at most {MAX_PER_PEER} lines of a "
                              f"player and {MAX_LINES} in all")
        if not self._bucket(me).take(now):
            raise ChatRefused(f"not sent: at most {BURST} lines at once, then {RATE:g} a second")
        line = sign_lobby_chat(self.identity, self.game, self.last.get(me, -1) + 1, text)
        self._keep(line)
        return line

    def relay(self, peer_key: bytes, frame: bytes, now: float) -> LobbyNote:
        """The host's check of a line a joiner sent on its own connection (``peer_key``: the
        key of that TLS connection). An accepted line is kept: relay it to the others."""
        try:
            line = LobbyChatLine.decode(frame)
            if line.key != peer_key:
                raise RemoteProtocolError(None, f"sent a lobby line of {short_id(line.peer)} "
                                                "(only its own)")
            check_lobby_chat(self.game, line)
        except RemoteProtocolError as exc:
            return LobbyNote(violation=f"lobby chat: {exc.reason}")
        return self._admit(line, self._bucket(line.peer).take(now))

    def hear(self, frame: bytes, seated: Collection[str]) -> LobbyNote:
        """A joiner's check of a line the host relayed: its author must be a peer the lobby
        updates have shown (``seated``) and must have signed it; the host may be the one
        lying, so a line that does not check is refused with a note, never shown."""
        try:
            line = LobbyChatLine.decode(frame, 0)
            check_lobby_chat(self.game, line, 0)
        except RemoteProtocolError as exc:
            return LobbyNote(note=f"lobby chat from the host refused: {exc.reason}")
        if line.peer not in seated:
            return LobbyNote(note=f"lobby chat from the host refused: "
                                  f"{short_id(line.peer)} is not at the table")
        return self._admit(line, True)  # the host applied the rate limit

    def _admit(self, line: LobbyChatLine, in_rate: bool) -> LobbyNote:
        if line.n <= self.last.get(line.peer, -1):
            return LobbyNote()  # a duplicate: nothing to show
        if self._full(line.peer) or not in_rate:
            if line.peer in self._noted:
                return LobbyNote()
            self._noted.add(line.peer)
            return LobbyNote(note=f"lobby chat from {short_id(line.peer)} dropped: more than "
                                  f"{BURST} lines at once, {RATE:g} a second, "
                                  f"{MAX_PER_PEER} in all or {MAX_LINES} in the lobby")
        self._noted.discard(line.peer)
        self._keep(line)
        return LobbyNote(line=line)

    def _full(self, peer: str) -> bool:
        return len(self.lines) >= MAX_LINES or self._counts.get(peer, 0) >= MAX_PER_PEER

    def _bucket(self, peer: str) -> TokenBucket:
        return self._buckets.setdefault(peer, TokenBucket())

    def _keep(self, line: LobbyChatLine) -> None:
        self.lines.append(line)
        self.last[line.peer] = line.n
        self._counts[line.peer] = self._counts.get(line.peer, 0) + 1


def verify_lobby_chat(game: str, entries: object) -> ChatCheck:
    """Check every lobby line of a transcript: form, game id, signature, counters. The authors
    need not be in the roster (a player may have left the lobby before the game)."""
    if entries is None:
        return ChatCheck(0)
    if not isinstance(entries, list):
        return ChatCheck(0, ("'lobby_chat' is not a list",))
    problems: list[str] = []
    last: dict[str, int] = {}
    for index, entry in enumerate(entries):
        try:
            line = LobbyChatLine.from_json(entry)
            check_lobby_chat(game, line)
        except RemoteProtocolError as exc:
            problems.append(f"lobby chat {index} does not check ({exc.reason})")
            continue
        if line.n <= last.get(line.peer, -1):
            problems.append(f"lobby chat {index}: counter {line.n} of {short_id(line.peer)} is "
                            "not above its previous one")
        last[line.peer] = max(line.n, last.get(line.peer, -1))
    return ChatCheck(len(entries), tuple(problems))
