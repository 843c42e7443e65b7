"""Actions: small immutable values with a text form (like UCI moves) and a dict form.

Text forms (seat first, then the verb):
    ``1 pick 4 9``            seat 1 drafts the cards in slots 4 and 9
    ``0 dispatch 12 2 Duchess`` seat 0 dispatches slot 12 to planet 2 claiming "Duchess"
    ``2 capture 7``           seat 2 captures slot 7 as a prisoner
    ``2 discard 7``           seat 2 discards slot 7 (cannot dispatch nor capture)
    ``3 choose yes``          seat 3 answers its pending decision
    ``- shuffle 2,0,1``       chance: a permutation (``- shuffle hidden`` when nobody knows it)

Dispatch claims: ``up`` (face up), ``none`` (face down, nothing disclosed), ``event``, a card
type (``Assassin``) or a faction (``blue``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from engine.cards import FACTIONS, TYPES
from engine.errors import MalformedActionError

CLAIMS: tuple[str, ...] = ("up", "none", "event", *TYPES, *FACTIONS)

# Actions are created by the thousand for every search decision, so they are plain slots
# classes with hand-written __init__, __repr__, __eq__ and __hash__ (a frozen dataclass costs
# about 3.5x as much to create; a dataclass's ``verb`` class variable broke the compiled build,
# which compiles these classes: creating one from compiled code is then a C call, not a Python
# frame); treat them as immutable values all the same. Each class owns its three forms:
# ``text()``, ``to_dict()`` and ``parse(seat, rest)`` (the text after the verb); ``from_dict``
# reads the dict form through a ``field(name, type)`` checker. Hashes are those of the field
# tuples, as the dataclasses had.

Field = Callable[[str, type], Any]


def _int(text: str, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise MalformedActionError(f"{what} must be an integer, got {text!r}") from None
    if value < 0:
        raise MalformedActionError(f"{what} must not be negative, got {value}")
    return value


def _args(rest: str) -> list[str]:
    return rest.split(" ") if rest else []


class Pick:
    __slots__ = ("seat", "slots")

    seat: int
    slots: tuple[int, ...]

    def __init__(self, seat: int, slots: tuple[int, ...]) -> None:
        self.seat = seat
        self.slots = slots

    def __repr__(self) -> str:
        return f"Pick(seat={self.seat!r}, slots={self.slots!r})"

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # copy and pickle rebuild it by its constructor
        return (Pick, (self.seat, self.slots))

    verb: ClassVar[str] = "pick"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not Pick:
            return NotImplemented
        return self.seat == other.seat and self.slots == other.slots

    def __hash__(self) -> int:
        return hash((self.seat, self.slots))

    def text(self) -> str:
        return f"{self.seat} pick " + " ".join(map(str, self.slots))

    def to_dict(self) -> dict[str, Any]:
        return {"type": "pick", "seat": self.seat, "slots": list(self.slots)}

    @staticmethod
    def parse(seat: int, rest: str) -> Pick:
        args = _args(rest)
        if not args:
            raise MalformedActionError("pick needs at least one slot")
        return Pick(seat, tuple(_int(a, "slot") for a in args))

    @staticmethod
    def from_dict(data: dict[str, Any], field: Field) -> Pick:
        slots = field("slots", list)
        if not slots or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0
                                for s in slots):
            raise MalformedActionError("pick: 'slots' must be a non-empty list of slots")
        return Pick(field("seat", int), tuple(slots))


class Dispatch:
    __slots__ = ("claim", "planet", "seat", "slot")

    seat: int
    slot: int
    planet: int
    claim: str

    def __init__(self, seat: int, slot: int, planet: int, claim: str) -> None:
        self.seat = seat
        self.slot = slot
        self.planet = planet
        self.claim = claim

    def __repr__(self) -> str:
        return (f"Dispatch(seat={self.seat!r}, slot={self.slot!r}, planet={self.planet!r}, "
                f"claim={self.claim!r})")

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # copy and pickle rebuild it by its constructor
        return (Dispatch, (self.seat, self.slot, self.planet, self.claim))

    verb: ClassVar[str] = "dispatch"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not Dispatch:
            return NotImplemented
        return (self.slot == other.slot and self.planet == other.planet
                and self.claim == other.claim and self.seat == other.seat)

    def __hash__(self) -> int:
        return hash((self.seat, self.slot, self.planet, self.claim))

    def text(self) -> str:
        return f"{self.seat} dispatch {self.slot} {self.planet} {self.claim}"

    def to_dict(self) -> dict[str, Any]:
        return {"type": "dispatch", "seat": self.seat, "slot": self.slot,
                "planet": self.planet, "claim": self.claim}

    @staticmethod
    def parse(seat: int, rest: str) -> Dispatch:
        args = _args(rest)
        if len(args) != 3:
            raise MalformedActionError("dispatch needs: slot planet claim")
        if args[2] not in CLAIMS:
            raise MalformedActionError(f"unknown claim {args[2]!r}; one of {', '.join(CLAIMS)}")
        return Dispatch(seat, _int(args[0], "slot"), _int(args[1], "planet"), args[2])

    @staticmethod
    def from_dict(data: dict[str, Any], field: Field) -> Dispatch:
        claim = field("claim", str)
        if claim not in CLAIMS:
            raise MalformedActionError(f"dispatch: unknown claim {claim!r}")
        return Dispatch(field("seat", int), field("slot", int), field("planet", int), claim)


class Capture:
    __slots__ = ("seat", "slot")

    seat: int
    slot: int

    def __init__(self, seat: int, slot: int) -> None:
        self.seat = seat
        self.slot = slot

    def __repr__(self) -> str:
        return f"Capture(seat={self.seat!r}, slot={self.slot!r})"

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # copy and pickle rebuild it by its constructor
        return (Capture, (self.seat, self.slot))

    verb: ClassVar[str] = "capture"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not Capture:
            return NotImplemented
        return self.slot == other.slot and self.seat == other.seat

    def __hash__(self) -> int:
        return hash((self.seat, self.slot))

    def text(self) -> str:
        return f"{self.seat} capture {self.slot}"

    def to_dict(self) -> dict[str, Any]:
        return {"type": "capture", "seat": self.seat, "slot": self.slot}

    @staticmethod
    def parse(seat: int, rest: str) -> Capture:
        return Capture(seat, _one_slot("capture", rest))

    @staticmethod
    def from_dict(data: dict[str, Any], field: Field) -> Capture:
        return Capture(field("seat", int), field("slot", int))


class Discard:
    __slots__ = ("seat", "slot")

    seat: int
    slot: int

    def __init__(self, seat: int, slot: int) -> None:
        self.seat = seat
        self.slot = slot

    def __repr__(self) -> str:
        return f"Discard(seat={self.seat!r}, slot={self.slot!r})"

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # copy and pickle rebuild it by its constructor
        return (Discard, (self.seat, self.slot))

    verb: ClassVar[str] = "discard"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not Discard:
            return NotImplemented
        return self.slot == other.slot and self.seat == other.seat

    def __hash__(self) -> int:
        return hash((self.seat, self.slot))

    def text(self) -> str:
        return f"{self.seat} discard {self.slot}"

    def to_dict(self) -> dict[str, Any]:
        return {"type": "discard", "seat": self.seat, "slot": self.slot}

    @staticmethod
    def parse(seat: int, rest: str) -> Discard:
        return Discard(seat, _one_slot("discard", rest))

    @staticmethod
    def from_dict(data: dict[str, Any], field: Field) -> Discard:
        return Discard(field("seat", int), field("slot", int))


def _one_slot(verb: str, rest: str) -> int:
    args = _args(rest)
    if len(args) != 1:
        raise MalformedActionError(f"{verb} needs exactly one slot")
    return _int(args[0], "slot")


class Choose:
    __slots__ = ("option", "seat")

    seat: int
    option: str

    def __init__(self, seat: int, option: str) -> None:
        self.seat = seat
        self.option = option

    def __repr__(self) -> str:
        return f"Choose(seat={self.seat!r}, option={self.option!r})"

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # copy and pickle rebuild it by its constructor
        return (Choose, (self.seat, self.option))

    verb: ClassVar[str] = "choose"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not Choose:
            return NotImplemented
        return self.option == other.option and self.seat == other.seat

    def __hash__(self) -> int:
        return hash((self.seat, self.option))

    def text(self) -> str:
        return f"{self.seat} choose {self.option}"

    def to_dict(self) -> dict[str, Any]:
        return {"type": "choose", "seat": self.seat, "option": self.option}

    @staticmethod
    def parse(seat: int, rest: str) -> Choose:
        if not rest:
            raise MalformedActionError("choose needs an option")
        return Choose(seat, rest)

    @staticmethod
    def from_dict(data: dict[str, Any], field: Field) -> Choose:
        return Choose(field("seat", int), field("option", str))


class Shuffle:
    """Chance outcome: a permutation, or None when the shuffle is hidden (mental poker)."""

    __slots__ = ("perm", "seat")

    perm: tuple[int, ...] | None
    seat: None

    def __init__(self, perm: tuple[int, ...] | None, seat: None = None) -> None:
        self.perm = perm
        self.seat = seat

    def __repr__(self) -> str:
        return f"Shuffle(perm={self.perm!r}, seat={self.seat!r})"

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # copy and pickle rebuild it by its constructor
        return (Shuffle, (self.perm, self.seat))

    verb: ClassVar[str] = "shuffle"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not Shuffle:
            return NotImplemented
        return self.perm == other.perm and self.seat == other.seat

    def __hash__(self) -> int:
        return hash((self.perm, self.seat))

    def text(self) -> str:
        body = "hidden" if self.perm is None else ",".join(map(str, self.perm))
        return f"- shuffle {body}"

    def to_dict(self) -> dict[str, Any]:
        return {"type": "shuffle", "perm": None if self.perm is None else list(self.perm)}

    @staticmethod
    def parse(seat_text: str, rest: str) -> Shuffle:
        if seat_text != "-":
            raise MalformedActionError("shuffle is a chance action; its seat is '-'")
        if rest == "hidden":
            return Shuffle(None)
        perm = tuple(_int(x, "permutation entry") for x in rest.split(",")) if rest else ()
        return Shuffle(perm)

    @staticmethod
    def from_dict(data: dict[str, Any], field: Field) -> Shuffle:
        perm = data.get("perm")
        if perm is None:
            return Shuffle(None)
        if not isinstance(perm, list) or not all(
                isinstance(x, int) and not isinstance(x, bool) for x in perm):
            raise MalformedActionError("shuffle: 'perm' must be a list of integers or null")
        return Shuffle(tuple(perm))


Action = Pick | Dispatch | Capture | Discard | Choose | Shuffle

_SEATED: dict[str, Any] = {cls.verb: cls for cls in (Pick, Dispatch, Capture, Discard, Choose)}


def parse_action(text: str) -> Action:
    """Parse the text form; raise MalformedActionError naming what is wrong."""
    parts = text.strip().split(" ", 2)
    if len(parts) < 2:
        raise MalformedActionError(f"action needs a seat and a verb: {text!r}")
    seat_text, verb = parts[0], parts[1]
    rest = parts[2] if len(parts) > 2 else ""
    if verb == "shuffle":
        return Shuffle.parse(seat_text, rest)
    seat = _int(seat_text, "seat")
    cls = _SEATED.get(verb)
    if cls is None:
        raise MalformedActionError(f"unknown verb {verb!r}")
    action: Action = cls.parse(seat, rest)
    return action


def action_to_dict(action: Action) -> dict[str, Any]:
    """The dict form used on the wire and in transcripts (canonical-JSON safe)."""
    return action.to_dict()


_BY_TYPE: dict[str, Any] = {cls.verb: cls for cls in (Pick, Dispatch, Capture, Discard, Choose,
                                                      Shuffle)}


def action_from_dict(data: Any) -> Action:
    """Inverse of action_to_dict; raise MalformedActionError for anything else."""
    if not isinstance(data, dict):
        raise MalformedActionError("action must be an object")
    kind = data.get("type")

    def field(name: str, typ: type) -> Any:
        value = data.get(name)
        if not isinstance(value, typ) or (isinstance(value, bool) and typ is int):
            raise MalformedActionError(f"{kind}: field {name!r} must be {typ.__name__}")
        if isinstance(value, int) and value < 0:
            raise MalformedActionError(f"{kind}: field {name!r} must not be negative")
        return value

    cls = _BY_TYPE.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise MalformedActionError(f"unknown action type {kind!r}")
    action: Action = cls.from_dict(data, field)
    return action
