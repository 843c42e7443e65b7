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

from dataclasses import dataclass
from typing import Any

from engine.cards import FACTIONS, TYPES
from engine.errors import MalformedActionError

CLAIMS: tuple[str, ...] = ("up", "none", "event", *TYPES, *FACTIONS)


@dataclass(frozen=True, slots=True)
class Pick:
    seat: int
    slots: tuple[int, ...]

    def text(self) -> str:
        return f"{self.seat} pick " + " ".join(map(str, self.slots))


@dataclass(frozen=True, slots=True)
class Dispatch:
    seat: int
    slot: int
    planet: int
    claim: str

    def text(self) -> str:
        return f"{self.seat} dispatch {self.slot} {self.planet} {self.claim}"


@dataclass(frozen=True, slots=True)
class Capture:
    seat: int
    slot: int

    def text(self) -> str:
        return f"{self.seat} capture {self.slot}"


@dataclass(frozen=True, slots=True)
class Discard:
    seat: int
    slot: int

    def text(self) -> str:
        return f"{self.seat} discard {self.slot}"


@dataclass(frozen=True, slots=True)
class Choose:
    seat: int
    option: str

    def text(self) -> str:
        return f"{self.seat} choose {self.option}"


@dataclass(frozen=True, slots=True)
class Shuffle:
    """Chance outcome: a permutation, or None when the shuffle is hidden (mental poker)."""

    perm: tuple[int, ...] | None
    seat: None = None

    def text(self) -> str:
        body = "hidden" if self.perm is None else ",".join(map(str, self.perm))
        return f"- shuffle {body}"


Action = Pick | Dispatch | Capture | Discard | Choose | Shuffle


def _int(text: str, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise MalformedActionError(f"{what} must be an integer, got {text!r}") from None
    if value < 0:
        raise MalformedActionError(f"{what} must not be negative, got {value}")
    return value


def parse_action(text: str) -> Action:
    """Parse the text form; raise MalformedActionError naming what is wrong."""
    parts = text.strip().split(" ", 2)
    if len(parts) < 2:
        raise MalformedActionError(f"action needs a seat and a verb: {text!r}")
    seat_text, verb = parts[0], parts[1]
    rest = parts[2] if len(parts) > 2 else ""
    if verb == "shuffle":
        if seat_text != "-":
            raise MalformedActionError("shuffle is a chance action; its seat is '-'")
        if rest == "hidden":
            return Shuffle(None)
        perm = tuple(_int(x, "permutation entry") for x in rest.split(",")) if rest else ()
        return Shuffle(perm)
    seat = _int(seat_text, "seat")
    args = rest.split(" ") if rest else []
    if verb == "pick":
        if not args:
            raise MalformedActionError("pick needs at least one slot")
        return Pick(seat, tuple(_int(a, "slot") for a in args))
    if verb == "dispatch":
        if len(args) != 3:
            raise MalformedActionError("dispatch needs: slot planet claim")
        if args[2] not in CLAIMS:
            raise MalformedActionError(f"unknown claim {args[2]!r}; one of {', '.join(CLAIMS)}")
        return Dispatch(seat, _int(args[0], "slot"), _int(args[1], "planet"), args[2])
    if verb in ("capture", "discard"):
        if len(args) != 1:
            raise MalformedActionError(f"{verb} needs exactly one slot")
        cls = Capture if verb == "capture" else Discard
        return cls(seat, _int(args[0], "slot"))
    if verb == "choose":
        if not rest:
            raise MalformedActionError("choose needs an option")
        return Choose(seat, rest)
    raise MalformedActionError(f"unknown verb {verb!r}")


def action_to_dict(action: Action) -> dict[str, Any]:
    """The dict form used on the wire and in transcripts (canonical-JSON safe)."""
    if isinstance(action, Pick):
        return {"type": "pick", "seat": action.seat, "slots": list(action.slots)}
    if isinstance(action, Dispatch):
        return {"type": "dispatch", "seat": action.seat, "slot": action.slot,
                "planet": action.planet, "claim": action.claim}
    if isinstance(action, Capture):
        return {"type": "capture", "seat": action.seat, "slot": action.slot}
    if isinstance(action, Discard):
        return {"type": "discard", "seat": action.seat, "slot": action.slot}
    if isinstance(action, Choose):
        return {"type": "choose", "seat": action.seat, "option": action.option}
    return {"type": "shuffle", "perm": None if action.perm is None else list(action.perm)}


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

    if kind == "pick":
        slots = field("slots", list)
        if not slots or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0
                                for s in slots):
            raise MalformedActionError("pick: 'slots' must be a non-empty list of slots")
        return Pick(field("seat", int), tuple(slots))
    if kind == "dispatch":
        claim = field("claim", str)
        if claim not in CLAIMS:
            raise MalformedActionError(f"dispatch: unknown claim {claim!r}")
        return Dispatch(field("seat", int), field("slot", int), field("planet", int), claim)
    if kind == "capture":
        return Capture(field("seat", int), field("slot", int))
    if kind == "discard":
        return Discard(field("seat", int), field("slot", int))
    if kind == "choose":
        return Choose(field("seat", int), field("option", str))
    if kind == "shuffle":
        perm = data.get("perm")
        if perm is None:
            return Shuffle(None)
        if not isinstance(perm, list) or not all(
                isinstance(x, int) and not isinstance(x, bool) for x in perm):
            raise MalformedActionError("shuffle: 'perm' must be a list of integers or null")
        return Shuffle(tuple(perm))
    raise MalformedActionError(f"unknown action type {kind!r}")
