"""The re-mask side of a ``Deck``: producing and consuming ``deck/remask``, ``deck/remask-key``
and ``deck/unmask`` (see ``p2p.deck.remask`` for the scheme). A mixin of ``Deck``, which owns
the slot bookkeeping it works on."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from p2p.deck.batches import Batch, CardSeen
from p2p.deck.keys import DeckKeys
from p2p.deck.messages import Remask, RemaskKey, Unmask
from p2p.deck.remask import (
    RemaskRecord,
    Remasks,
    check_remask_key,
    remask_keys,
    remask_points,
    unmask_point,
)
from p2p.errors import DeckCorrupted, LocalProtocolError, OutOfOrder, RemaskFault


class Remasking:
    """Re-masked slots of a deck (mixed into ``Deck``)."""

    # provided by Deck
    seat: int | None
    remasks: Remasks
    public_transcript: list[tuple[int, dict[str, Any]]]
    _batches: list[Batch]
    _slot_batch: list[int]
    _retired: set[int]
    _known: dict[int, int]
    _public: set[int]
    _live_slot_of_card: dict[int, int]
    _card_points: tuple[bytes, ...]
    _point_card: dict[bytes, int]

    @property
    def slot_count(self) -> int:  # provided by Deck
        raise NotImplementedError

    _need_keys: Callable[[], tuple[DeckKeys, int]]
    _need_all_commitments: Callable[[int], None]
    _live: Callable[[int | None, int], None]  # refuses a missing, retired or unready slot

    def remask_owner(self, slot: int) -> int | None:
        """The seat that re-masked ``slot`` (only it can open it), or None for a deck slot."""
        return self.remasks.owner(slot)

    # ---- producing messages (pure: state changes only when the message is received) --

    def remask(self, old: Sequence[int], first: int | None = None) -> dict[str, Any]:
        """Public message: move the cards of ``old`` (slots this seat knows) to fresh slots
        from ``first`` (default: the next slot; later when other re-masks go first)."""
        keys, seat = self._need_keys()
        if not self._batches[-1].complete:
            raise LocalProtocolError("cannot re-mask while a batch is being shuffled")
        cards = []
        for slot in old:
            self._live(None, slot)
            card = self._known.get(slot)
            if card is None:
                raise LocalProtocolError(f"cannot re-mask slot {slot}: its card is unknown here")
            cards.append(card)
        first = self.slot_count if first is None else first
        if first < self.slot_count:
            raise LocalProtocolError(f"fresh slots cannot start at {first}: slots up to "
                                     f"{self.slot_count - 1} exist")
        _, points = remask_points(keys, first, [self._card_points[card] for card in cards])
        return Remask(seat, first, tuple(old), points,
                      remask_keys(keys, first, len(points))).to_dict()

    def own_remask_order(self, first: int, size: int) -> tuple[int, ...]:
        """The secret order of this seat's re-mask with fresh slots from ``first``."""
        keys, _ = self._need_keys()
        return tuple(keys.remask_order(first, size))

    def unmask_key(self, slot: int, to: int) -> dict[str, Any]:
        """Private message for seat ``to``: the scalar of a slot this seat re-masked."""
        keys, seat = self._need_keys()
        self._own_remasked(slot, seat)
        return RemaskKey(seat, slot, to, keys.remask_key(slot)).to_dict()

    def unmask(self, slot: int) -> dict[str, Any]:
        """Public message: the scalar of a slot this seat re-masked; everyone sees the card."""
        keys, seat = self._need_keys()
        self._own_remasked(slot, seat)
        return Unmask(seat, slot, keys.remask_key(slot)).to_dict()

    # ---- consuming messages -----------------------------------------------------------

    def _on_remask(self, message: Remask) -> None:
        sender = message.seat
        self._need_all_commitments(sender)
        if not self._batches[-1].complete:
            raise OutOfOrder(sender, "re-mask while a batch is being shuffled")
        if message.first != self.slot_count:
            raise OutOfOrder(sender, f"re-mask's fresh slots start at {message.first}, "
                                     f"not {self.slot_count}")
        for slot in message.old:
            self._live(sender, slot)
        record = RemaskRecord(sender, message.first, message.old, message.points,
                              message.keys)
        own = sender == self.seat
        cards = [self._known.get(slot) for slot in message.old]
        for slot, card in zip(message.old, cards, strict=True):
            self._retired.add(slot)
            if card is not None and self._live_slot_of_card.get(card) == slot:
                del self._live_slot_of_card[card]
        self._slot_batch.extend([-1] * len(message.old))
        self.remasks.add(record)
        if own:
            keys, _ = self._need_keys()
            order = keys.remask_order(record.first, len(record.old))
            for slot, source in zip(record.slots, order, strict=True):
                card = cards[source]
                assert card is not None  # ``remask`` refused unknown cards
                self._known[slot] = card
                self._live_slot_of_card[card] = slot
        self.public_transcript.append((sender, message.to_dict()))

    def _on_remask_key(self, message: RemaskKey) -> CardSeen | None:
        sender = message.seat
        if self.seat is None or message.to != self.seat or sender == self.seat:
            raise OutOfOrder(sender, "private re-mask key delivered to the wrong seat")
        self._remasked_by(sender, message.slot)
        if message.slot in self._known:
            raise OutOfOrder(sender, f"slot {message.slot} is already open to us")
        return self._learn_remasked(sender, message.slot, message.key, message.to_dict(),
                                    public=False)

    def _on_unmask(self, message: Unmask) -> CardSeen | None:
        sender = message.seat
        self._remasked_by(sender, message.slot)
        if message.slot in self._public:
            raise OutOfOrder(sender, f"slot {message.slot} is already public")
        self.public_transcript.append((sender, message.to_dict()))
        return self._learn_remasked(sender, message.slot, message.key, message.to_dict(),
                                    public=True)

    def _learn_remasked(self, owner: int, slot: int, key: bytes, evidence: dict[str, Any],
                        public: bool) -> CardSeen:
        record = self.remasks.record(slot)
        point = record.points[slot - record.first]
        check_remask_key(record, slot, key, evidence)
        plain = unmask_point(owner, slot, point, key)
        card = self._point_card.get(plain)
        proof = {"remask": record.message(), "opening": evidence, "decrypted": plain.hex()}
        if card is None:
            raise RemaskFault(owner, f"re-masked slot {slot} opens to no card of this game",
                              proof)
        other = self._live_slot_of_card.get(card)
        if other is not None and other != slot:
            if other in record.slots:
                raise RemaskFault(owner, f"re-mask put card {card} in slots {other} and {slot}",
                                  proof)
            raise DeckCorrupted(None, f"slot {slot} holds card {card}, seen in slot {other}",
                                proof)
        self._known[slot] = card
        self._live_slot_of_card[card] = slot
        if public:
            self._public.add(slot)
        return CardSeen(slot, card, public)

    def _remasked_by(self, sender: int, slot: int) -> None:
        self._live(sender, slot)
        if self.remasks.owner(slot) != sender:
            raise OutOfOrder(sender, f"slot {slot} is not a slot it re-masked")

    def _own_remasked(self, slot: int, seat: int) -> None:
        self._live(None, slot)
        if self.remasks.owner(slot) != seat:
            raise LocalProtocolError(f"slot {slot} is not a slot this seat re-masked")
