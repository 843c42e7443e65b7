"""Table chat: short signed messages between the players of one game, outside the game itself.

A chat message is ``{"game", "author", "n", "text"}``: the game id, the author's peer index
(roster join order), the author's own counter ``n`` (strictly increasing; gaps are allowed,
since a frame in flight when a connection broke is not sent again) and at most
``MAX_TEXT`` characters of text. Its author signs ``CHAT_DOMAIN + canonical_json(chat)`` with
the identity key; the wire form is the frame ``FRAME_CHAT + canonical_json({"chat": chat,
"sig": hex})`` (protocol.md, "Chat").

Chat never enters the game's lockstep: it is not a session message, has no place in any
author's chain and no part in the state hash, so a chat can neither stall nor change a game.
Each peer sends its own chat to every other peer directly (the mesh is complete; nobody
relays chat). ``ChatRoom`` is sans-IO: ``say`` signs our next line, ``receive`` checks one
frame from a connected peer. A frame that does not check (malformed, another game, an author
other than the connection's peer, a bad signature) is a protocol violation of that peer; a
counter not above the author's last one is dropped quietly (a duplicate); more than
``BURST`` lines at once or more than ``RATE`` a second on average are dropped with a local
note. Accepted lines (ours and theirs) are kept, in the order this peer saw them, for the
transcript's ``chat`` list, which ``solstice verify`` checks without it ever changing the
verdict on the game.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from engine.canonical import canonical_json
from p2p.errors import LocalProtocolError, RemoteProtocolError
from p2p.identity import Identity, verify_signature
from p2p.wire import parse_from

FRAME_CHAT = b"C"
CHAT_DOMAIN = b"solstice/chat/v1\n"
MAX_TEXT = 200      # characters of one line
BURST = 5           # lines a peer may send at once...
RATE = 1.0          # ... then this many per second on average
_KEYS = frozenset({"game", "author", "n", "text"})
_HEX = frozenset("0123456789abcdef")


class ChatRefused(LocalProtocolError):
    """Our own line cannot be sent (empty, too long, too fast); the message says which."""


@dataclass(frozen=True)
class ChatLine:
    """One signed chat message. ``author`` is a peer index of the game's roster."""

    game: str
    author: int
    n: int
    text: str
    sig: bytes

    def body(self) -> dict[str, Any]:
        return {"game": self.game, "author": self.author, "n": self.n, "text": self.text}

    def signing_bytes(self) -> bytes:
        return CHAT_DOMAIN + canonical_json(self.body())

    def to_json(self) -> dict[str, Any]:
        return {"chat": self.body(), "sig": self.sig.hex()}

    def frame(self) -> bytes:
        return FRAME_CHAT + canonical_json(self.to_json())

    def verify(self, public_key: bytes) -> bool:
        return verify_signature(public_key, self.sig, self.signing_bytes())

    @classmethod
    def from_json(cls, obj: object, blame: int | None = None) -> ChatLine:
        """Check the structure of a decoded chat message (not its signature)."""
        if not isinstance(obj, dict) or set(obj) != {"chat", "sig"}:
            raise RemoteProtocolError(blame, "chat must have exactly 'chat' and 'sig'")
        body, sig = obj["chat"], obj["sig"]
        if not isinstance(body, dict) or set(body) != _KEYS:
            raise RemoteProtocolError(blame, f"chat body must have exactly the keys "
                                             f"{sorted(_KEYS)}")
        game, author, n, text = body["game"], body["author"], body["n"], body["text"]
        if not isinstance(game, str) or not game or not set(game) <= _HEX:
            raise RemoteProtocolError(blame, "chat game id is not lowercase hex")
        for key, value in (("author", author), ("n", n)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise RemoteProtocolError(blame, f"chat {key} is not a non-negative integer")
        if not isinstance(text, str) or not 0 < len(text) <= MAX_TEXT:
            raise RemoteProtocolError(blame, f"chat text is not a string of 1 to {MAX_TEXT} "
                                             "characters")
        if not isinstance(sig, str) or len(sig) != 128 or not set(sig) <= _HEX:
            raise RemoteProtocolError(blame, "chat sig is not 64 bytes of lowercase hex")
        return cls(game, author, n, text, bytes.fromhex(sig))

    @classmethod
    def decode(cls, frame: bytes, blame: int | None = None) -> ChatLine:
        """Parse a chat frame (tag included); the JSON must be exactly canonical."""
        if frame[:1] != FRAME_CHAT:
            raise RemoteProtocolError(blame, "not a chat frame")
        obj = parse_from(frame[1:], blame, "chat")
        line = cls.from_json(obj, blame)
        if line.frame() != frame:
            raise RemoteProtocolError(blame, "chat is not canonically encoded")
        return line


def sign_chat(identity: Identity, game: str, author: int, n: int, text: str) -> ChatLine:
    unsigned = ChatLine(game, author, n, text, b"")
    return ChatLine(game, author, n, text, identity.sign(unsigned.signing_bytes()))


def check_chat(game: str, keys: Sequence[bytes], line: ChatLine,
               blame: int | None = None) -> None:
    """Raise RemoteProtocolError unless ``line`` is for ``game`` and signed by its author."""
    if line.game != game:
        raise RemoteProtocolError(blame, f"chat for game {line.game[:8]}, not this game")
    if line.author >= len(keys):
        raise RemoteProtocolError(blame, f"chat from peer {line.author}: no such peer")
    if not line.verify(keys[line.author]):
        raise RemoteProtocolError(blame, f"bad signature on chat {line.n} of peer "
                                         f"{line.author}")


class TokenBucket:
    """``take(now)`` is False once more than ``burst`` came faster than ``rate`` a second."""

    def __init__(self, rate: float = RATE, burst: int = BURST) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = float(burst)
        self.last: float | None = None

    def take(self, now: float) -> bool:
        if self.last is not None:
            self.tokens = min(self.burst, self.tokens + max(0.0, now - self.last) * self.rate)
        self.last = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


@dataclass(frozen=True)
class ChatNote:
    """What ``ChatRoom.receive`` made of a frame: a ``line`` shown to the player, a ``note``
    about a dropped line (shown locally), or a ``violation`` of the sending peer."""

    line: ChatLine | None = None
    note: str = ""
    violation: str = ""


class ChatRoom:
    """The chat of one game at one peer (sans-IO; the caller passes the time)."""

    def __init__(self, game: str, keys: Sequence[bytes], me: int, identity: Identity,
                 names: Sequence[str], kept: Sequence[ChatLine] = (),
                 on_keep: Callable[[ChatLine], None] | None = None) -> None:
        if identity.public_bytes != keys[me]:
            raise LocalProtocolError(f"identity {identity.short_id} is not peer {me}")
        self.game, self.keys, self.me, self.identity = game, tuple(keys), me, identity
        self.names = tuple(names)
        self.lines: list[ChatLine] = []
        self.last: dict[int, int] = {}
        self._buckets = [TokenBucket() for _ in self.keys]
        self._noted: set[int] = set()  # peers whose current flood was already noted
        self.on_keep = on_keep
        for line in kept:  # replayed from our store after a restart
            self._keep(line, store=False)

    def name(self, peer: int) -> str:
        return self.names[peer] if 0 <= peer < len(self.names) else f"peer {peer}"

    def say(self, text: str, now: float) -> ChatLine:
        """Sign our next line (surrounding blanks removed); ChatRefused if it cannot go."""
        text = text.strip()
        if not text:
            raise ChatRefused("nothing to say")
        if len(text) > MAX_TEXT:
            raise ChatRefused(f"a chat line has at most {MAX_TEXT} characters, not {len(text)}")
        # Our own limit is the one the others apply: a line past it would be dropped there.
        if not self._buckets[self.me].take(now):
            raise ChatRefused(f"not sent: at most {BURST} lines at once, then {RATE:g} a second")
        line = sign_chat(self.identity, self.game, self.me, self.last.get(self.me, -1) + 1, text)
        self._keep(line)
        return line

    def receive(self, sender: int, frame: bytes, now: float) -> ChatNote:
        try:
            line = ChatLine.decode(frame, sender)
            if line.author != sender:
                raise RemoteProtocolError(sender, f"sent a chat line of peer {line.author} "
                                                  "(chat is never relayed)")
            check_chat(self.game, self.keys, line, sender)
        except RemoteProtocolError as exc:
            return ChatNote(violation=f"chat: {exc.reason}")
        if line.n <= self.last.get(sender, -1):
            return ChatNote()  # a duplicate: nothing to show
        if not self._buckets[sender].take(now):
            if sender in self._noted:
                return ChatNote()
            self._noted.add(sender)
            return ChatNote(note=f"chat from {self.name(sender)} dropped: more than {BURST} "
                                 f"lines at once or {RATE:g} a second")
        self._noted.discard(sender)
        self._keep(line)
        return ChatNote(line=line)

    def transcript(self) -> list[dict[str, Any]]:
        return [line.to_json() for line in self.lines]

    def _keep(self, line: ChatLine, store: bool = True) -> None:
        self.lines.append(line)
        self.last[line.author] = line.n
        if store and self.on_keep is not None:
            self.on_keep(line)


@dataclass(frozen=True)
class ChatCheck:
    """What ``solstice verify`` found in a transcript's chat (never part of the verdict)."""

    count: int
    problems: tuple[str, ...] = ()


def verify_chat(game: str, keys: Sequence[bytes], entries: object) -> ChatCheck:
    """Check every chat line of a transcript: form, game id, signature, counters."""
    if entries is None:
        return ChatCheck(0)
    if not isinstance(entries, list):
        return ChatCheck(0, ("'chat' is not a list",))
    problems: list[str] = []
    last: dict[int, int] = {}
    for index, entry in enumerate(entries):
        try:
            line = ChatLine.from_json(entry)
            check_chat(game, keys, line)
        except RemoteProtocolError as exc:
            problems.append(f"chat {index} does not check ({exc.reason})")
            continue
        if line.n <= last.get(line.author, -1):
            problems.append(f"chat {index}: counter {line.n} of peer {line.author} is not above "
                            f"its previous one")
        last[line.author] = max(line.n, last.get(line.author, -1))
    return ChatCheck(len(entries), tuple(problems))
