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

from dataclasses import dataclass

from engine.errors import IllegalActionError
from engine.state import GameState


@dataclass(frozen=True, slots=True)
class Relabel:
    """``seat`` moves the hand slots ``old`` to fresh slots; ``order`` as described above
    (None: not known to this state)."""

    seat: int
    old: tuple[int, ...]
    order: tuple[int, ...] | None = None

    def text(self) -> str:
        return f"{self.seat} relabel " + " ".join(map(str, self.old))


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

