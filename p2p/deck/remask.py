"""Re-masked slots: a holder moves cards it knows to fresh slots that only it can open.

After a slot is opened to seat h, h knows its plain card point P. h can therefore hide the card
again from scratch: for the old slots o_0..o_{m-1} it holds, it publishes fresh slots
f = first + i with points C_f = r_f * P(card of o_{order[i]}), where r_f and ``order`` derive
from h's committed deck seed (``DeckKeys.remask_key`` / ``remask_order``). Under DDH a point
r * P with r unknown says nothing about P, and the fresh slot numbers say nothing about the old
ones, so no other peer can link a fresh slot to any card it saw before.

Every re-mask carries a proof (``p2p.crypto.remask_proof``) that its fresh points hide exactly
the cards of its old slots, in some order; every other peer checks it on arrival, so a
substituted or duplicated card is refused at once, naming h, without opening anything.

Only h can open a fresh slot: it reveals r_f (publicly, or sealed to one seat), and the opener
checks that r_f^-1 * C_f is a card point of the game. Anything else is h's fault alone, since h
chose both C_f and r_f (with the proof, only a published r_f * B that is not the scalar the
proof ties C_f to gets there). A proven re-mask in another order or under other scalars than
h's seed gives harms nobody; the audit, which recomputes every fresh point from h's opened
seed, names it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from p2p.crypto.group import InvalidPoint, mul, mul_base, scalar_invert
from p2p.deck.keys import DeckKeys
from p2p.deck.messages import Remask
from p2p.errors import MalformedMessage, SlotKeyMismatch


@dataclass(frozen=True)
class RemaskRecord:
    """One published re-mask: fresh slots ``first``.. hold the cards of ``old``, permuted."""

    remask: Remask  # the message as received (its proof included)

    @property
    def seat(self) -> int:
        return self.remask.seat

    @property
    def first(self) -> int:
        return self.remask.first

    @property
    def old(self) -> tuple[int, ...]:
        return self.remask.old

    @property
    def points(self) -> tuple[bytes, ...]:
        return self.remask.points

    @property
    def keys(self) -> tuple[bytes, ...]:  # r_f * B of each fresh slot
        return self.remask.keys

    @property
    def slots(self) -> range:
        return range(self.first, self.first + len(self.old))

    def message(self) -> dict[str, object]:
        return self.remask.to_dict()


class Remasks:
    """Every re-mask of one deck, and which record each fresh slot belongs to."""

    def __init__(self) -> None:
        self.records: list[RemaskRecord] = []
        self._slot: dict[int, RemaskRecord] = {}

    def __contains__(self, slot: object) -> bool:
        return slot in self._slot

    def add(self, record: RemaskRecord) -> None:
        self.records.append(record)
        for slot in record.slots:
            self._slot[slot] = record

    def record(self, slot: int) -> RemaskRecord:
        return self._slot[slot]

    def owner(self, slot: int) -> int | None:
        record = self._slot.get(slot)
        return None if record is None else record.seat

    def point(self, slot: int) -> bytes:
        record = self._slot[slot]
        return record.points[slot - record.first]


def remask_points(keys: DeckKeys, first: int, card_points: Sequence[bytes]) -> tuple[
        list[int], tuple[bytes, ...]]:
    """The order and fresh points of a re-mask of old slots whose card points are given."""
    order = keys.remask_order(first, len(card_points))
    points = tuple(mul(keys.remask_key(first + i), card_points[source])
                   for i, source in enumerate(order))
    return order, points


def remask_keys(keys: DeckKeys, first: int, size: int) -> tuple[bytes, ...]:
    """r_f * B of each fresh slot f of a re-mask: what its opening scalar is checked against
    (and the base of its holder's blind proof when the slot goes under the deck)."""
    return tuple(mul_base(keys.remask_key(first + i)) for i in range(size))


def check_remask_key(record: RemaskRecord, slot: int, key: bytes, evidence: object) -> None:
    """Refuse (naming the re-mask's author) a scalar for ``slot`` that is not the r with
    r * B published in its re-mask: the opener learns nothing from a wrong one."""
    if mul_base(key) != record.keys[slot - record.first]:
        raise SlotKeyMismatch(record.seat, f"re-mask scalar for slot {slot} does not match "
                                           "its key r*B", {"message": evidence,
                                                           "remask": record.message()})


def unmask_point(owner: int, slot: int, point: bytes, key: bytes) -> bytes:
    """r^-1 * C: the plain card point of a fresh slot (an off-group C is the owner's fault)."""
    try:
        return mul(scalar_invert(key), point)
    except InvalidPoint:
        raise MalformedMessage(owner, f"re-masked slot {slot}: point outside the prime-order "
                                      "group", {"slot": slot, "point": point.hex()}) from None
