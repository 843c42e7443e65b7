"""Deck messages as frozen values with parse/format pairs (``parse_deck_message`` / ``to_dict``).

On the wire each is a plain dict of ints and lowercase-hex strings (canonical-JSON-able).
Parsing does every check that needs no deck state: exact field set, types, hex, lengths,
point encodings (canonical, not small order), scalars in [1, L), and no two points of one
message equal or negated. Anything wrong is ``MalformedMessage`` blaming the sender.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar, NoReturn

from p2p.crypto.group import (
    InvalidPoint,
    InvalidScalar,
    all_distinct_up_to_sign,
    check_point_encoding,
    check_scalar,
)
from p2p.crypto.remask_proof import RemaskProof
from p2p.crypto.shuffle_proof import points_in_proof, proof_length
from p2p.errors import MalformedMessage
from p2p.hexfields import parse_lower_hex


def _wire(value: Any) -> Any:
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, tuple):
        return [_wire(item) for item in value]
    return value


class _Wire:
    """The wire form of a deck message: its ``TYPE`` and every field, bytes as lowercase
    hex and tuples as lists."""

    TYPE: ClassVar[str]
    __dataclass_fields__: ClassVar[dict[str, Any]]  # every subclass is a dataclass

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.TYPE, **{f.name: _wire(getattr(self, f.name))
                                      for f in fields(self)}}

    @classmethod
    def wire_fields(cls) -> set[str]:
        return {"type", *(f.name for f in fields(cls))}


@dataclass(frozen=True)
class KeyCommit(_Wire):
    """Before the game: commitment to the author's deck seed (hence all its deck keys)."""

    TYPE = "deck/commit"
    seat: int
    commitment: bytes


@dataclass(frozen=True)
class Shuffle(_Wire):
    """One shuffle layer: the batch's points, each multiplied by x and permuted."""

    TYPE = "deck/shuffle"
    seat: int
    batch: int
    cards: tuple[int, ...]
    points: tuple[bytes, ...]
    key: bytes  # W = x * T (T: the author's blind key y*B in a reshuffle batch, else B)
    # Shuffle argument (p2p.crypto.shuffle_proof): 2m points, then 2m + 5 scalars.
    proof: tuple[bytes, ...]


@dataclass(frozen=True)
class Blind(_Wire):
    """One blinding layer of a reshuffle batch (before its shuffles): input point i, the
    point of old slot ``sources[i]``, times y_b, with the author's own key on that slot
    stripped."""

    TYPE = "deck/blind"
    seat: int
    batch: int
    sources: tuple[int, ...]
    points: tuple[bytes, ...]
    key: bytes  # T = y * B
    proof: tuple[bytes, ...]  # DLEQ per position: f_i links (G_i, T) and (input_i, point_i)


@dataclass(frozen=True)
class Rekey(_Wire):
    """One re-key layer: point i times k_i * x^-1, and the slot-key commitments k_i * B."""

    TYPE = "deck/rekey"
    seat: int
    batch: int
    points: tuple[bytes, ...]
    key_commitments: tuple[bytes, ...]
    proof: tuple[bytes, ...]  # DLEQ per slot: k_i/w links (W, input_i) to (k_i*B, point_i)


@dataclass(frozen=True)
class SlotKey(_Wire):
    """Private, to seat ``to`` only: the author's key for ``slot``."""

    TYPE = "deck/slot-key"
    seat: int
    slot: int
    to: int
    key: bytes


@dataclass(frozen=True)
class Reveal(_Wire):
    """Public: the author's key for ``slot``; once every seat's is in, all see the card."""

    TYPE = "deck/reveal"
    seat: int
    slot: int
    key: bytes


@dataclass(frozen=True)
class KeyOpening(_Wire):
    """After the game: the author's deck seed and the salt of its commitment."""

    TYPE = "deck/open-keys"
    seat: int
    seed: bytes
    salt: bytes


@dataclass(frozen=True)
class Remask(_Wire):
    """Public: the author moves the cards of its slots ``old`` to fresh slots ``first``,
    ``first + 1``, ...: fresh slot i's point is r_i * (card point of old[order[i]]), proven
    (``p2p.crypto.remask_proof``)."""

    TYPE = "deck/remask"
    seat: int
    first: int
    old: tuple[int, ...]
    points: tuple[bytes, ...]
    keys: tuple[bytes, ...]  # r_f * B for every fresh slot: its opening scalar is checked
    # Its proof (p2p.crypto.remask_proof): S = c * B, the old points times c in the order
    # of ``points``, the shuffle argument of that (2m points, then 2m + 5 scalars), and the
    # m + 1 scalars proving each fresh point a known multiple of its shuffled point.
    shuffle_key: bytes
    shuffled: tuple[bytes, ...]
    argument: tuple[bytes, ...]
    proof: tuple[bytes, ...]

    def remask_proof(self) -> RemaskProof:
        return RemaskProof(self.shuffle_key, self.shuffled, self.argument, self.proof)


class RemaskKey(SlotKey):
    """Private, to seat ``to`` only: the scalar r of a slot the author re-masked (same fields
    as a slot key; a subclass, so dispatch on the subclass first)."""

    TYPE = "deck/remask-key"


class Unmask(Reveal):
    """Public: the scalar r of a slot the author re-masked; r^-1 * point is the card."""

    TYPE = "deck/unmask"


DeckMessage = (
    KeyCommit | Blind | Shuffle | Rekey | SlotKey | Reveal | KeyOpening | Remask | RemaskKey
    | Unmask
)


class _Reader:
    """Field access that turns every defect into MalformedMessage blaming the sender."""

    def __init__(self, sender: int, data: Mapping[str, Any], fields: set[str]) -> None:
        self.sender, self.data = sender, data
        if set(data) != fields:
            self.fail(f"{data.get('type')} needs exactly the fields {sorted(fields)}")
        if self.uint("seat") != sender:
            self.fail("seat field does not name the sender")

    def fail(self, reason: str) -> NoReturn:
        raise MalformedMessage(self.sender, reason, dict(self.data))

    def uint(self, name: str) -> int:
        value = self.data[name]
        if type(value) is int and value >= 0:  # bool is an int subclass: excluded
            return value
        self.fail(f"{name} must be a non-negative integer")

    def raw(self, name: str, value: Any = None) -> bytes:
        text = self.data[name] if value is None else value
        raw = parse_lower_hex(text, 32)
        if raw is None:
            self.fail(f"{name} must be 32 bytes of lowercase hex")
        return raw

    def point(self, name: str, value: Any = None) -> bytes:
        point = self.raw(name, value)
        try:
            check_point_encoding(point)
        except InvalidPoint as exc:
            self.fail(f"{name}: {exc}")
        return point

    def scalar(self, name: str) -> bytes:
        scalar = self.raw(name)
        try:
            check_scalar(scalar)
        except InvalidScalar as exc:
            self.fail(f"{name}: {exc}")
        return scalar

    def points(self, name: str) -> tuple[bytes, ...]:
        items = self.data[name]
        if not isinstance(items, list) or not items:
            self.fail(f"{name} must be a non-empty list")
        points = tuple(self.point(name, item) for item in items)
        return points

    def proof(self, name: str, size: int) -> tuple[bytes, ...]:
        """A DLEQ proof: exactly ``size`` scalars, each canonical and non-zero."""
        items = self.data[name]
        if not isinstance(items, list) or len(items) != size:
            self.fail(f"{name} must be a list of {size} scalars")
        out = []
        for item in items:
            scalar = self.raw(name, item)
            try:
                check_scalar(scalar)
            except InvalidScalar as exc:
                self.fail(f"{name}: {exc}")
            out.append(scalar)
        return tuple(out)

    def shuffle_proof(self, name: str) -> tuple[bytes, ...]:
        """A shuffle argument: 4k + 5 entries for some k >= 1, 2k points (each passing the
        encoding checks), then 2k + 5 scalars (each canonical and non-zero). That k is the
        layer's point count is the deck's check (after the count of points itself)."""
        items = self.data[name]
        if not isinstance(items, list) or len(items) < proof_length(1) or \
                (len(items) - proof_length(0)) % 4:
            self.fail(f"{name} must be a list of 4k + 5 entries (2k points, then scalars)")
        n_points = points_in_proof((len(items) - proof_length(0)) // 4)
        out = []
        for index, item in enumerate(items):
            value = self.raw(name, item)
            try:
                if index < n_points:
                    check_point_encoding(value)
                else:
                    check_scalar(value)
            except (InvalidPoint, InvalidScalar) as exc:
                self.fail(f"{name}[{index}]: {exc}")
            out.append(value)
        return tuple(out)

    def distinct(self, name: str, points: tuple[bytes, ...]) -> None:
        # Equal or negated points cannot come from an honest layer over distinct cards.
        if not all_distinct_up_to_sign(points):
            self.fail(f"{name}: two points are equal or negations of each other")


def _key_commit(r: _Reader) -> KeyCommit:
    return KeyCommit(r.sender, r.raw("commitment"))


def _shuffle(r: _Reader) -> Shuffle:
    cards = r.data["cards"]
    if not isinstance(cards, list) or not all(type(c) is int and c >= 0 for c in cards):
        r.fail("cards must be a list of non-negative integers")
    points = r.points("points")
    r.distinct("points", points)
    return Shuffle(r.sender, r.uint("batch"), tuple(cards), points, r.point("key"),
                   r.shuffle_proof("proof"))


def _blind(r: _Reader) -> Blind:
    sources = r.data["sources"]
    if not isinstance(sources, list) or not sources or \
            not all(type(x) is int and x >= 0 for x in sources):
        r.fail("sources must be a non-empty list of slot numbers")
    if len(set(sources)) != len(sources):
        r.fail("sources names a slot twice")
    points = r.points("points")
    if len(points) != len(sources):
        r.fail("a blinding layer carries one point per source slot")
    r.distinct("points", points)
    return Blind(r.sender, r.uint("batch"), tuple(sources), points, r.point("key"),
                 r.proof("proof", len(points) + 1))


def _rekey(r: _Reader) -> Rekey:
    points = r.points("points")
    r.distinct("points", points)
    commitments = r.points("key_commitments")
    if len(commitments) != len(points):
        r.fail("a re-key carries one key commitment per point")
    return Rekey(r.sender, r.uint("batch"), points, commitments,
                 r.proof("proof", len(points) + 1))


def _slot_key(r: _Reader) -> SlotKey:
    return SlotKey(r.sender, r.uint("slot"), r.uint("to"), r.scalar("key"))


def _reveal(r: _Reader) -> Reveal:
    return Reveal(r.sender, r.uint("slot"), r.scalar("key"))


def _key_opening(r: _Reader) -> KeyOpening:
    return KeyOpening(r.sender, r.raw("seed"), r.raw("salt"))


def _remask(r: _Reader) -> Remask:
    old = r.data["old"]
    if not isinstance(old, list) or not old or not all(type(x) is int and x >= 0 for x in old):
        r.fail("old must be a non-empty list of slot numbers")
    if len(set(old)) != len(old):
        r.fail("old names a slot twice")
    points = r.points("points")
    if len(points) != len(old):
        r.fail("a re-mask carries one point per old slot")
    r.distinct("points", points)
    keys = r.points("keys")
    if len(keys) != len(old):
        r.fail("a re-mask carries one key r*B per old slot")
    shuffled = r.points("shuffled")
    if len(shuffled) != len(old):
        r.fail("a re-mask carries one shuffled point per old slot")
    r.distinct("shuffled", shuffled)
    return Remask(r.sender, r.uint("first"), tuple(old), points, keys, r.point("shuffle_key"),
                  shuffled, r.shuffle_proof("argument"), r.proof("proof", len(old) + 1))


def _remask_key(r: _Reader) -> RemaskKey:
    return RemaskKey(r.sender, r.uint("slot"), r.uint("to"), r.scalar("key"))


def _unmask(r: _Reader) -> Unmask:
    return Unmask(r.sender, r.uint("slot"), r.scalar("key"))


_PARSERS: dict[str, tuple[type[_Wire], Callable[[_Reader], DeckMessage]]] = {
    KeyCommit.TYPE: (KeyCommit, _key_commit),
    Blind.TYPE: (Blind, _blind),
    Shuffle.TYPE: (Shuffle, _shuffle),
    Rekey.TYPE: (Rekey, _rekey),
    SlotKey.TYPE: (SlotKey, _slot_key),
    Reveal.TYPE: (Reveal, _reveal),
    KeyOpening.TYPE: (KeyOpening, _key_opening),
    Remask.TYPE: (Remask, _remask),
    RemaskKey.TYPE: (RemaskKey, _remask_key),
    Unmask.TYPE: (Unmask, _unmask),
}


def parse_deck_message(sender: int, data: Any) -> DeckMessage:
    """Parse a dict received from ``sender`` (the authenticated author)."""
    kind = data.get("type") if isinstance(data, Mapping) else None
    if kind not in _PARSERS:
        raise MalformedMessage(sender, f"not a deck message type: {kind!r}", data)
    cls, parser = _PARSERS[kind]
    return parser(_Reader(sender, data, cls.wire_fields()))
