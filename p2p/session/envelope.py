"""Signed game messages and the sans-IO log that verifies them.

A message is ``{"game", "seat", "seq", "prev", "type", "body"}``; its author signs
``MSG_DOMAIN + canonical_json(message)`` with Ed25519, and the wire form is the canonical JSON of
``{"msg": message, "sig": hex signature}``. The message hash is the SHA-256 of that wire form.
The domain prefix keeps a message signature from ever being valid for another signed object
(the roster uses its own prefix).

``MessageLog`` accepts messages from all seats and rejects, naming the blamed seat and the
reason: malformed or non-canonical encodings, wrong game id, unknown seat, a sender relaying
another seat's message, bad signatures, replays and gaps in an author's sequence numbers.
Two different validly signed messages with the same (author, seq) are an equivocation:
``CheatDetected`` carries both, which proves it to anyone holding the roster's keys.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from engine.canonical import CanonicalEncodingError, canonical_json
from p2p.errors import CheatDetected, LocalProtocolError, RemoteProtocolError
from p2p.hexfields import is_lower_hex
from p2p.identity import Identity, verify_signature
from p2p.wire import parse_from

MSG_DOMAIN = b"solstice/msg/v1\n"
# ``prev`` of a message that builds on nothing yet (the session may choose another anchor,
# e.g. the roster hash, by passing ``genesis`` to MessageLog).
GENESIS = "0" * 64
_MSG_KEYS = frozenset({"game", "seat", "seq", "prev", "type", "body"})


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class Message:
    """The signed part of a game message. ``body`` must be canonical-JSON encodable."""

    game: str
    seat: int
    seq: int
    prev: str
    type: str
    body: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "seat": self.seat,
            "seq": self.seq,
            "prev": self.prev,
            "type": self.type,
            "body": dict(self.body),
        }

    def signing_bytes(self) -> bytes:
        return MSG_DOMAIN + self.canonical

    @cached_property
    def canonical(self) -> bytes:
        """``canonical_json`` of the message, computed once (a message is never changed
        after it is made; ``dataclasses.replace`` makes a new one)."""
        return canonical_json(self.to_json())

    @classmethod
    def from_json(cls, obj: object, blame: int | None = None) -> Message:
        """Validate the structure of a decoded message (not its signature or order)."""
        if not isinstance(obj, dict) or set(obj) != _MSG_KEYS:
            keys = sorted(_MSG_KEYS)
            raise RemoteProtocolError(blame, f"message must have exactly the keys {keys}")
        if not is_lower_hex(obj["game"]):
            raise RemoteProtocolError(blame, "game id is not lowercase hex")
        if not _is_int(obj["seat"]) or obj["seat"] < 0:
            raise RemoteProtocolError(blame, "seat is not a non-negative integer")
        if not _is_int(obj["seq"]) or obj["seq"] < 0:
            raise RemoteProtocolError(blame, "seq is not a non-negative integer")
        if not is_lower_hex(obj["prev"], 32):
            raise RemoteProtocolError(blame, "prev is not a 64-digit lowercase hex hash")
        if not isinstance(obj["type"], str) or not obj["type"]:
            raise RemoteProtocolError(blame, "type is not a non-empty string")
        if not isinstance(obj["body"], dict):
            raise RemoteProtocolError(blame, "body is not an object")
        return cls(obj["game"], obj["seat"], obj["seq"], obj["prev"], obj["type"], obj["body"])


@dataclass(frozen=True)
class SignedMessage:
    """A message with its author's signature; ``encode()`` is the wire form."""

    msg: Message
    sig: bytes

    def to_json(self) -> dict[str, Any]:
        return {"msg": self.msg.to_json(), "sig": self.sig.hex()}

    def encode(self) -> bytes:
        return self.wire

    @cached_property
    def wire(self) -> bytes:
        """The wire form, computed once: a message is encoded for every frame, relay and
        hash, and hashed for every message after it."""
        return b'{"msg":' + self.msg.canonical + b',"sig":"' + self.sig.hex().encode() + b'"}'

    @cached_property
    def hash(self) -> str:
        """Hex SHA-256 of the wire form: what ``prev`` of later messages refers to."""
        return hashlib.sha256(self.wire).hexdigest()

    def verify(self, public_key: bytes) -> bool:
        return verify_signature(public_key, self.sig, self.msg.signing_bytes())

    @classmethod
    def decode(cls, data: bytes, blame: int | None = None) -> SignedMessage:
        """Parse the wire form (structure only); the bytes must be exactly canonical."""
        obj = parse_from(data, blame, "message")
        if not isinstance(obj, dict) or set(obj) != {"msg", "sig"}:
            raise RemoteProtocolError(blame, "signed message must have exactly 'msg' and 'sig'")
        if not is_lower_hex(obj["sig"], 64):
            raise RemoteProtocolError(blame, "sig is not 64 bytes of lowercase hex")
        signed = cls(Message.from_json(obj["msg"], blame), bytes.fromhex(obj["sig"]))
        # Canonical bytes only: a second implementation's encoding bug shows up at once instead
        # of as a hash mismatch much later, and duplicate keys cannot hide a second meaning.
        if signed.encode() != data:
            raise RemoteProtocolError(blame, "message is not canonically encoded")
        return signed


def sign_message(identity: Identity, msg: Message) -> SignedMessage:
    """Sign ``msg`` with ``identity`` (the caller is responsible for seat and seq)."""
    try:
        signature = identity.sign(msg.signing_bytes())
    except CanonicalEncodingError as exc:
        raise LocalProtocolError(f"message body cannot be encoded: {exc}") from exc
    return SignedMessage(msg, signature)


class MessageLog:
    """Verifies and records the signed messages of one game, seat by seat.

    ``keys[seat]`` is the raw Ed25519 public key of that seat. Messages are accepted per author
    strictly in sequence (0, 1, 2, ...). ``prev`` is only checked for form: messages from
    different authors travel on different connections and may arrive in another order than they
    were written, so causal ordering is the session's job (``get_by_hash`` helps).
    """

    def __init__(self, game_id: str, keys: Sequence[bytes], genesis: str = GENESIS) -> None:
        if not is_lower_hex(game_id):
            raise LocalProtocolError("game id must be lowercase hex")
        self.game_id = game_id
        self.keys = tuple(keys)
        self.genesis = genesis
        self._by_seat: list[list[SignedMessage]] = [[] for _ in self.keys]
        self._by_hash: dict[str, SignedMessage] = {}
        self._order: list[SignedMessage] = []

    @property
    def messages(self) -> tuple[SignedMessage, ...]:
        """Every accepted message, in the order this peer accepted them."""
        return tuple(self._order)

    @property
    def head(self) -> str:
        """Hash of the last accepted message (the genesis value if there is none)."""
        return self._order[-1].hash if self._order else self.genesis

    def next_seq(self, seat: int) -> int:
        return len(self._by_seat[seat])

    def get(self, seat: int, seq: int) -> SignedMessage | None:
        chain = self._by_seat[seat]
        return chain[seq] if 0 <= seq < len(chain) else None

    def get_by_hash(self, digest: str) -> SignedMessage | None:
        return self._by_hash.get(digest)

    def create(
        self,
        identity: Identity,
        seat: int,
        type: str,
        body: Mapping[str, Any],
        prev: str | None = None,
    ) -> SignedMessage:
        """Sign our own next message for ``seat`` and record it (``prev`` defaults to head)."""
        if not 0 <= seat < len(self.keys) or self.keys[seat] != identity.public_bytes:
            raise LocalProtocolError(f"identity {identity.short_id} does not hold seat {seat}")
        msg = Message(self.game_id, seat, self.next_seq(seat), prev or self.head, type, body)
        signed = sign_message(identity, msg)
        self._record(signed)
        return signed

    def receive(self, data: bytes | SignedMessage, sender: int | None = None) -> SignedMessage:
        """Verify a message and record it; raise naming the blamed seat and the reason.

        ``sender`` is the seat whose connection delivered the bytes, if known: such a peer is
        blamed for what it sent, and it may only send messages it authored itself.
        """
        signed = data if isinstance(data, SignedMessage) else SignedMessage.decode(data, sender)
        msg = signed.msg
        blame = sender if sender is not None else msg.seat
        if msg.game != self.game_id:
            raise RemoteProtocolError(blame, f"message for game {msg.game[:8]}, not this game")
        if msg.seat >= len(self.keys):
            raise RemoteProtocolError(blame, f"no seat {msg.seat} in a {len(self.keys)}-seat game")
        if sender is not None and sender != msg.seat:
            raise RemoteProtocolError(sender, f"sent a message authored by seat {msg.seat}")
        if not signed.verify(self.keys[msg.seat]):
            raise RemoteProtocolError(blame, f"bad signature on seq {msg.seq} of seat {msg.seat}")
        # From here on the author provably wrote the message: blame the author.
        expected = self.next_seq(msg.seat)
        if msg.seq < expected:
            earlier = self._by_seat[msg.seat][msg.seq]
            if earlier.msg == msg:
                raise RemoteProtocolError(msg.seat, f"replayed seq {msg.seq}")
            raise CheatDetected(
                msg.seat,
                f"equivocation: two different signed messages with seq {msg.seq}",
                evidence=(earlier, signed),
            )
        if msg.seq > expected:
            raise RemoteProtocolError(msg.seat, f"seq {msg.seq} out of order, expected {expected}")
        self._record(signed)
        return signed

    def _record(self, signed: SignedMessage) -> None:
        self._by_seat[signed.msg.seat].append(signed)
        self._by_hash[signed.hash] = signed
        self._order.append(signed)
