"""A stage: the one message each required peer contributes before the game moves on, and
the declaration of a stage kind (``StageSpec``: who contributes, its body, its checks and what
completing it does). The kinds themselves are declared in one table, ``p2p.session.stage_table``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol, Self, TypeVar

from p2p.session.envelope import SignedMessage
from p2p.session.events import Peer
from p2p.session.timing import DECISION, STEP


class StageKind(StrEnum):
    """The kinds of stage; each value is the ``type`` of the messages of such a stage."""

    SETUP_COMMIT = "setup/commit"
    SETUP_REVEAL = "setup/reveal"
    DECK_COMMIT = "deck/commit"
    DECK_STEP = "deck/step"
    KEYS = "keys"
    AUDIT = "audit"
    CHANCE_COMMIT = "chance/commit"
    CHANCE_REVEAL = "chance/reveal"
    REMASK = "remask"
    PICK_COMMIT = "pick/commit"
    PICK_REVEAL = "pick/reveal"
    ACTION = "action"


class StageBody(Protocol):
    """A stage message's body (the fields besides ``stage`` and ``state``), parsed once."""

    @classmethod
    def parse(cls, author: int, raw: Mapping[str, Any]) -> Self:
        """The body of ``author``'s message; a field of the wrong shape raises
        ``RemoteProtocolError`` naming ``author`` (a peer before the seats are drawn, then a
        seat)."""
        ...

    def to_json(self) -> dict[str, Any]:
        ...


# What a stage kind does, as functions of the session (``GameSession``): our body for a stage
# (``contribute``), a player's choice as a body (``answer``), and applying the bodies of a
# complete stage, given in seat order (peer order before the seats are drawn).
Contribute = Callable[[Any, "Stage"], StageBody]
Answer = Callable[[Any, "Stage", Any], StageBody]
Complete = Callable[[Any, "Stage", Sequence[tuple[int, Any]]], None]


@dataclass(frozen=True)
class StageSpec:
    """One stage kind: everything the session needs to know of it."""

    kind: str
    contributors: str        # who contributes, in protocol.md's words
    body: type[StageBody]
    complete: Complete
    # Our message for it: None for a decision, where the player is asked (``answer`` turns
    # the choice into the body).
    contribute: Contribute | None = None
    answer: Answer | None = None
    stateful: bool = False   # its messages carry the public state hash their author computed
    clock: str = STEP        # the game clock it runs on, and so its deadline
    sealed: bool = False     # its bodies hold boxes sealed to us: a verdict adds our box key

    def __post_init__(self) -> None:
        # The wire type is a plain string (a ``StageKind`` would not encode canonically).
        object.__setattr__(self, "kind", str(self.kind))
        if (self.contribute is None) == (self.answer is None):
            raise ValueError(f"stage {self.kind}: exactly one of contribute and answer")
        if (self.clock == DECISION) != (self.answer is not None):
            raise ValueError(f"stage {self.kind}: a decision is answered, a step contributed")


# The contributors of a stage every peer contributes to (the schedule names no peers).
EVERYONE = "all peers"

P = TypeVar("P")


@dataclass
class Stage:
    spec: StageSpec
    peers: frozenset[Peer]
    index: int
    collected: dict[Peer, SignedMessage] = field(default_factory=dict)
    params: object = None       # what the schedule decided (below, or ``opening.Opens``)
    state: str | None = None    # the public state hash its messages must carry
    history: str | None = None  # the digest of the stages before it (``history``)
    own: tuple[str, ...] | None = None  # each peer's digest of its own messages before it

    @property
    def kind(self) -> str:
        return self.spec.kind

    @property
    def missing(self) -> list[Peer]:
        return sorted(self.peers - set(self.collected))

    def param(self, cls: type[P]) -> P:
        """The stage's parameters, of the class its kind is scheduled with."""
        if not isinstance(self.params, cls):
            raise TypeError(f"stage {self.kind} has {type(self.params).__name__} parameters, "
                            f"not {cls.__name__}")
        return self.params


@dataclass(frozen=True)
class Seats:
    """A ``remask`` stage: the seats that re-mask their hand."""

    seats: tuple[int, ...]


@dataclass(frozen=True)
class ToAct:
    """An ``action`` stage: the seat to act."""

    seat: int


@dataclass(frozen=True)
class PickRound:
    """A ``pick/commit`` stage: the seats that pick, the pick's number, and the pickers who
    re-mask their hand with the commitment."""

    pickers: tuple[int, ...]
    pick: int
    seats: tuple[int, ...]


@dataclass(frozen=True)
class PickReveal:
    """A ``pick/reveal`` stage: its pick round and the commitments it opens, by peer."""

    pickers: tuple[int, ...]
    pick: int
    commitments: Mapping[Peer, bytes]
