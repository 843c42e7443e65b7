"""Relabel a seat's hand: its cards move to fresh slots in a secret order (the holder's re-mask).

A network peer replicates the slot bookkeeping of every seat, so a card that kept one slot
number from the deal to the table would be recognised by anyone who once saw it. A relabel
retires some of a seat's hand slots and appends as many fresh slots to the hand; fresh slot
``i`` holds the card of retired slot ``old[order[i]]``. Only the holder knows ``order`` (it is
the permutation of its re-mask): the holder's state (and an omniscient replay) is given it and
keeps its cards; every other state is given ``None`` and knows nothing of the fresh slots. The
public part of the state (zones, ``known``) comes out the same either way, so the peers' state
hashes still agree.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from engine.actions import Pick
from engine.errors import IllegalActionError
from engine.randomness import RandomStream
from engine.state import GameState, Phase

_DISPATCH = Phase.DISPATCH  # a global: faster to read than the enum member


@dataclass(frozen=True, slots=True)
class Relabel:
    """``seat`` moves the hand slots ``old`` to fresh slots; ``order`` as described above
    (None: not known to this state)."""

    seat: int
    old: tuple[int, ...]
    order: tuple[int, ...] | None = None

    def text(self) -> str:
        return f"{self.seat} relabel " + " ".join(map(str, self.old))

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # A compiled (mypyc) frozen dataclass cannot be rebuilt field by field, as copy,
        # deepcopy and pickle rebuild a slots dataclass: rebuild it by its constructor.
        return (type(self), (self.seat, self.old, self.order))


def relabel_in_place(s: GameState, action: Relabel) -> list[int]:
    """Apply ``action``; returns the fresh slots (in slot order, which is their hand order).

    Raises IllegalActionError (and changes nothing) unless ``old`` is exactly the seat's hand
    (any order) and ``order`` is a permutation of its positions.
    """
    seat, old, order = action.seat, action.old, action.order
    if not 0 <= seat < s.n:
        raise IllegalActionError(seat, "no such seat")
    hand = s.hands[seat]
    if not old or len(set(old)) != len(old) or sorted(old) != sorted(hand):
        raise IllegalActionError(seat, f"can only relabel its whole hand, not slots {list(old)}")
    if order is not None and sorted(order) != list(range(len(old))):
        raise IllegalActionError(seat, "relabel order must be a permutation of the hand")
    bit = 1 << seat
    fresh = []
    for i in range(len(old)):
        card = s.card_of[old[order[i]]] if order is not None else -1
        fresh.append(s.new_slot(card, bit))
    s.hands[seat] = fresh
    if order is None:
        s.omniscient = False
    return fresh



# -- when: the schedule --------------------------------------------------------------------
#
# Which hands are relabelled, and when, is part of the game model: it is what a player at a
# real table can still tell apart. Network peers re-mask on this schedule (protocol.md,
# "Unlinkable slots"); engine-only play (local matches, tournaments, bot-check) relabels on
# the very same one (``RelabelSchedule``), so a seat's view is the same in every mode.

OrderOf = Callable[[int, int], Sequence[int]]
"""The secret order of a relabel: ``order_of(seat, hand_size)``, a permutation of the hand."""


class StreamOrders:
    """An ``OrderOf`` drawing from ``stream``: one fork per seat (``seat0``, ``seat1``, ...),
    as each network peer draws its own re-mask orders from a secret of its own. Here rather
    than in the interpreted match loop: it is called at every relabel."""

    __slots__ = ("_per_seat",)

    def __init__(self, stream: RandomStream, seats: int) -> None:
        self._per_seat = [stream.fork(f"seat{seat}") for seat in range(seats)]

    def __call__(self, seat: int, size: int) -> list[int]:
        order = list(range(size))
        self._per_seat[seat].shuffle(order)
        return order


def dispatch_relabels_due(s: GameState, done_round: int) -> list[int]:
    """Seats that relabel their hands now, at the start of a dispatch phase (``done_round``:
    the last round whose dispatch relabel is done): each seat holding cards, since its picks
    were public slots of known pick rounds."""
    if s.phase is not Phase.DISPATCH or s.step is not None or s.chance is not None or \
            s.awaiting or done_round == s.round:
        return []
    return [seat for seat in range(s.n) if s.hands[seat]]


def linkable_hand(s: GameState, seat: int, relabelled: Callable[[int], bool]) -> bool:
    """Whether another seat could link a card of ``seat``'s hand: one it saw (a hand passed
    on: the passer saw it), or a slot made by a relabel, which everyone followed since (a
    returned prisoner). A hand of deck slots just dealt is not: only its holder saw them, and
    the shuffle hides where they were. ``relabelled(slot)``: the slot was made by a relabel."""
    others = s.all_mask & ~(1 << seat)
    known = s.known
    return any(known[slot] & others or relabelled(slot) for slot in s.hands[seat])


def pick_relabels_due(s: GameState, pickers: Sequence[int],
                      relabelled: Callable[[int], bool]) -> list[int]:
    """The pickers of a pick round that relabel their hands with their pick (so the pick is a
    slot nobody else can link to a card): those whose hand is linkable."""
    return [seat for seat in pickers if linkable_hand(s, seat, relabelled)]


class RelabelSchedule:
    """The relabels of one game that the engine plays alone, due where a network game re-masks.

    The driver calls ``at_dispatch`` whenever no chance is pending (it relabels the hands once
    at the start of each dispatch phase) and hands every pick of a pick round, chosen on the
    same state, to ``with_picks`` (it relabels the linkable pickers' hands and moves their picks
    to the fresh slots, as a pick commitment does). ``order_of`` gives each relabel's order.
    """

    def __init__(self, order_of: OrderOf) -> None:
        self._order_of = order_of
        self._relabelled: set[int] = set()
        self._dispatch_round = 0

    def _relabel(self, s: GameState, seat: int) -> tuple[list[int], Sequence[int]]:
        """``relabel_in_place`` of the seat's whole hand in the order ``order_of`` gives:
        the same slots and cards, without the checks a relabel from outside needs (the old
        slots are the hand itself); returns the old hand and the order (fresh slot ``i``, the
        hand's ``i``-th now, took the card of ``old[order[i]]``)."""
        old = s.hands[seat]
        k = len(old)
        order = self._order_of(seat, k)
        if sorted(order) != list(range(k)):
            raise IllegalActionError(seat, "relabel order must be a permutation of the hand")
        card_of, relabelled = s.card_of, self._relabelled
        bit = 1 << seat
        fresh = []
        for i in range(k):
            slot = s.new_slot(card_of[old[order[i]]], bit)
            fresh.append(slot)
            relabelled.add(slot)
        s.hands[seat] = fresh
        return old, order

    def at_dispatch(self, s: GameState) -> list[int]:
        """Relabel every hand if a dispatch phase starts now; returns the seats relabelled."""
        if s.phase is not _DISPATCH or s.step is not None or s.chance is not None or \
                s.awaiting or self._dispatch_round == s.round:
            return []  # the common case, answered before listing the seats
        seats = dispatch_relabels_due(s, self._dispatch_round)
        for seat in seats:
            self._relabel(s, seat)
        if seats:
            self._dispatch_round = s.round
        return seats

    def with_picks(self, s: GameState, picks: Sequence[Pick]) -> list[Pick]:
        """``picks``: every waiting picker's pick of this pick round (none applied yet), in
        seat order. Relabels the linkable pickers' hands (in seat order) and returns the picks
        as they are then applied, each moved to its card's fresh slots (in slot order)."""
        relabelled = self._relabelled
        known, others_of = s.known, s.all_mask
        out: list[Pick] = []
        due = []
        for pick in picks:  # pick_relabels_due, reading the set directly
            seat = pick.seat
            others = others_of & ~(1 << seat)
            for slot in s.hands[seat]:
                if known[slot] & others or slot in relabelled:
                    due.append(seat)
                    break
        fresh_of: dict[int, dict[int, int]] = {}
        for seat in due:
            old, order = self._relabel(s, seat)
            fresh = s.hands[seat]
            fresh_of[seat] = {old[source]: fresh[i] for i, source in enumerate(order)}
        for pick in picks:
            mapping = fresh_of.get(pick.seat)
            if mapping is None:
                out.append(pick)
            else:
                out.append(Pick(pick.seat, tuple(sorted([mapping[x] for x in pick.slots]))))
        return out
