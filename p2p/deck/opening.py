"""Opening a slot: a seat's slot key sent privately to one seat or revealed to all, checked
against its commitment, and the card found once every key is in (a mixin of ``Deck``, which
owns the state it works on; see ``p2p.deck.deck`` for the scheme)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from p2p.crypto.group import (
    InvalidPoint,
    mul,
    mul_base,
    scalar_invert,
    scalar_product,
)
from p2p.deck.batches import Batch, CardSeen
from p2p.deck.keys import DeckKeys
from p2p.deck.messages import (
    Reveal,
    SlotKey,
)
from p2p.deck.remask import Remasks
from p2p.errors import (
    DeckCorrupted,
    LocalProtocolError,
    MalformedMessage,
    OutOfOrder,
    SlotKeyMismatch,
)


class SlotOpening:
    """Disclosing, revealing and decrypting deck slots (mixed into ``Deck``)."""

    # provided by Deck
    n_seats: int
    seat: int | None
    remasks: Remasks
    public_transcript: list[tuple[int, dict[str, Any]]]
    _batches: list[Batch]
    _slot_batch: list[int]
    _known: dict[int, int]
    _opening_scalars: dict[int, bytes]
    _public: set[int]
    _live_slot_of_card: dict[int, int]
    _point_card: dict[bytes, int]
    _private_keys: dict[int, dict[int, bytes]]
    _public_keys: dict[int, dict[int, bytes]]
    _need_keys: Callable[[], tuple[DeckKeys, int]]
    _own_slot_key: Callable[[int], bytes]
    _live: Callable[[int | None, int], None]

    def disclose(self, slot: int, to: int) -> dict[str, Any]:
        """Private message for seat ``to`` only: this seat's key for ``slot``."""
        _, seat = self._need_keys()
        if to == seat or not 0 <= to < self.n_seats:
            raise LocalProtocolError(f"cannot disclose a slot key to seat {to}")
        self._openable(None, slot)
        return SlotKey(seat, slot, to, self._own_slot_key(slot)).to_dict()

    def reveal(self, slot: int) -> dict[str, Any]:
        """Public message: this seat's key for ``slot``; the card is public once all are in."""
        _, seat = self._need_keys()
        self._openable(None, slot)
        return Reveal(seat, slot, self._own_slot_key(slot)).to_dict()

    def _on_slot_key(self, message: SlotKey) -> CardSeen | None:
        sender = message.seat
        if self.seat is None or message.to != self.seat or sender == self.seat:
            raise OutOfOrder(sender, "private slot key delivered to the wrong seat")
        self._openable(sender, message.slot)
        self._check_slot_key(sender, message.slot, message.key, message.to_dict())
        pending = self._private_keys.setdefault(message.slot, {})
        if sender in pending:
            raise OutOfOrder(sender, f"second private key for slot {message.slot}")
        pending[sender] = message.key
        if len(pending) < self.n_seats - 1:
            return None
        del self._private_keys[message.slot]
        pending[self.seat] = self._own_slot_key(message.slot)
        return self._decrypt(message.slot, pending, public=False)

    def _on_reveal(self, message: Reveal) -> CardSeen | None:
        sender = message.seat
        self._openable(sender, message.slot)
        if message.slot in self._public:
            raise OutOfOrder(sender, f"slot {message.slot} is already public")
        self._check_slot_key(sender, message.slot, message.key, message.to_dict())
        pending = self._public_keys.setdefault(message.slot, {})
        if sender in pending:
            raise OutOfOrder(sender, f"second reveal of slot {message.slot}")
        pending[sender] = message.key
        self.public_transcript.append((sender, message.to_dict()))
        if len(pending) < self.n_seats:
            return None
        del self._public_keys[message.slot]
        return self._decrypt(message.slot, pending, public=True)

    def _openable(self, sender: int | None, slot: int) -> tuple[Batch, int]:
        """A live deck slot (opened by every seat's slot key), as (batch, position)."""
        self._live(sender, slot)
        if slot in self.remasks:
            reason = f"slot {slot} was re-masked: only its holder opens it"
            raise LocalProtocolError(reason) if sender is None else OutOfOrder(sender, reason)
        batch = self._batches[self._slot_batch[slot]]
        return batch, slot - batch.first_slot

    def check_slot_key(self, sender: int, slot: int, key: bytes, evidence: Any) -> None:
        """Raise SlotKeyMismatch unless ``key`` is ``sender``'s committed key for ``slot``
        (used to re-check keys another seat received sealed, once it opens its box key)."""
        self._check_slot_key(sender, slot, key, evidence)

    def _check_slot_key(self, sender: int, slot: int, key: bytes, evidence: Any) -> None:
        batch, position = self._openable(sender, slot)
        commitment = batch.rekey_step(sender).key_commitments[position]
        if mul_base(key) != commitment:
            raise SlotKeyMismatch(
                sender,
                f"key for slot {slot} does not match its commitment k*B",
                {"message": evidence, "commitment": commitment.hex()},
            )

    def _decrypt(self, slot: int, keys: dict[int, bytes], public: bool) -> CardSeen:
        batch, position = self._openable(None, slot)
        last = batch.steps[-1]
        point = last.points[position]
        ordered = [keys[seat] for seat in range(self.n_seats)]
        opening = scalar_product(ordered)
        try:
            plain = mul(scalar_invert(opening), point)
        except InvalidPoint:
            raise MalformedMessage(
                last.seat,
                f"slot {slot}: point outside the prime-order group",
                {"slot": slot, "point": point.hex()},
            ) from None
        card = self._point_card.get(plain)
        evidence = {
            "slot": slot,
            "point": point.hex(),
            "keys": {str(seat): key.hex() for seat, key in keys.items()},
            "decrypted": plain.hex(),
        }
        if card is None or (not batch.sources and card not in batch.cards):
            raise DeckCorrupted(None, f"slot {slot} decrypts to no card of this batch", evidence)
        other = self._live_slot_of_card.get(card)
        if other is not None and other != slot:
            raise DeckCorrupted(
                None, f"slot {slot} holds card {card}, seen in slot {other}", evidence
            )
        self._known[slot] = card
        self._opening_scalars[slot] = opening  # what a re-mask of this slot proves with
        self._live_slot_of_card[card] = slot
        if public:
            self._public.add(slot)
        return CardSeen(slot, card, public)
