"""The re-mask side of a ``Deck``: producing and consuming ``deck/remask``, ``deck/remask-key``
and ``deck/unmask`` (see ``p2p.deck.remask`` for the scheme). A mixin of ``Deck``, which owns
the slot bookkeeping it works on."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from p2p.crypto import remask_proof
from p2p.crypto.group import multipliable, scalar_invert, scalar_mul
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
from p2p.errors import (
    DeckCorrupted,
    LocalProtocolError,
    MalformedMessage,
    OutOfOrder,
    ProofFailed,
    RemaskFault,
)

# Module attributes, so that bench/bench_proofs.py can price the deck without them.
prove_remask = remask_proof.prove
verify_remask = remask_proof.verify


class Remasking:
    """Re-masked slots of a deck (mixed into ``Deck``)."""

    # provided by Deck
    game_id: str
    seat: int | None
    check_proofs: bool
    remasks: Remasks
    public_transcript: list[tuple[int, dict[str, Any]]]
    _batches: list[Batch]
    _slot_batch: list[int]
    _retired: set[int]
    _known: dict[int, int]
    _opening_scalars: dict[int, bytes]
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
    _point_author: Callable[[int], int]

    def published_point(self, slot: int) -> bytes:  # provided by Deck
        raise NotImplementedError

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
        cards, openings = [], []
        for slot in old:
            self._live(None, slot)
            card = self._known.get(slot)
            if card is None:
                raise LocalProtocolError(f"cannot re-mask slot {slot}: its card is unknown here")
            cards.append(card)
            openings.append(self._opening_scalars[slot])
        first = self.slot_count if first is None else first
        if first < self.slot_count:
            raise LocalProtocolError(f"fresh slots cannot start at {first}: slots up to "
                                     f"{self.slot_count - 1} exist")
        order, points = remask_points(keys, first, [self._card_points[card] for card in cards])
        fresh_keys = remask_keys(keys, first, len(points))
        # a_i = r_i * (c * K_{order[i]})^-1, so a_i * (c * X_{order[i]}) = r_i * P: the
        # fresh point as above, now with a proof that it hides the card of its old slot.
        c = keys.remask_shuffle_key(first)
        factors = [scalar_mul(keys.remask_key(first + i),
                              scalar_invert(scalar_mul(c, openings[source])))
                   for i, source in enumerate(order)]
        proof = prove_remask(remask_proof.header(self.game_id, seat, first, old),
                             [self.published_point(slot) for slot in old], points, fresh_keys,
                             c, order, factors)
        return Remask(seat, first, tuple(old), points, fresh_keys, proof.key, proof.shuffled,
                      proof.argument, proof.proof).to_dict()

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
        own = sender == self.seat
        if not own and self.check_proofs:
            self._check_remask_proof(message)
        record = RemaskRecord(message)
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
                self._opening_scalars[slot] = keys.remask_key(slot)
                self._live_slot_of_card[card] = slot
        self.public_transcript.append((sender, message.to_dict()))

    def _check_remask_proof(self, message: Remask) -> None:
        """Refuse a re-mask whose proof fails, naming its author (the signed message proves
        it), unless an old slot's point is off the group (naming whoever published it)."""
        inputs = [self.published_point(slot) for slot in message.old]
        try:
            verify_remask(remask_proof.header(self.game_id, message.seat, message.first,
                                              message.old),
                          inputs, message.points, message.keys, message.remask_proof())
        except remask_proof.RemaskProofInvalid as exc:
            for slot, point in zip(message.old, inputs, strict=True):
                if not multipliable(point):
                    raise MalformedMessage(self._point_author(slot), f"slot {slot}: point "
                                           "outside the prime-order group",
                                           {"slot": slot, "point": point.hex()}) from None
            if not all(multipliable(p) for p in (*message.points, *message.shuffled)):
                raise MalformedMessage(message.seat, "re-mask: point outside the prime-order "
                                       "group", message.to_dict()) from None
            raise ProofFailed(message.seat, f"re-mask of slots {list(message.old)}: {exc}",
                              {"message": message.to_dict()}) from None

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
        self._opening_scalars[slot] = key
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

