"""The mental-poker deck for 2-4 peers, sans-IO: messages in, messages and events out.

Cards are points of the Ed25519 prime-order group (``group.card_points``). Multiplying by a
secret scalar is a commutative cipher, so the deck is built by layers:

1. commit: every seat publishes a commitment to its deck seed (all its keys derive from it);
2. shuffle: in seat order, each seat multiplies every point by its shuffle key x and permutes;
3. re-key: in seat order, each seat multiplies slot i by k_i * x^-1 (removing its shuffle
   layer, adding a per-slot layer) and publishes k_i * B for every slot;
4. open: a slot is opened to one seat by the others sending it their slot keys privately,
   or to everyone by every seat publishing its slot key. A key is checked against k * B on
   arrival; the product of all keys strips every layer and leaves a card point.

Later batches (public cards put back under the deck) repeat 2-3 on just those cards and get
fresh slot numbers after the existing ones.

5. re-mask: a seat that knows the cards of some slots moves them to fresh slots that only it
   can open (``p2p.deck.remask``; the messages are handled by ``p2p.deck.remasking``).

Driving it: every public message, the author's own included, is delivered to every peer's
``receive(sender, message)`` in one agreed (log) order; private ``deck/slot-key`` messages go
to their recipient only. Producing methods (``shuffle``, ``rekey``, ``disclose``, ``reveal``)
do not change state, so they are safe to call again. ``turn`` says who must act next.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from p2p.crypto.commitments import Opening
from p2p.crypto.group import (
    InvalidPoint,
    card_points,
    mul,
    mul_base,
    scalar_invert,
    scalar_mul,
    scalar_product,
)
from p2p.deck.batches import Batch, BatchRecord, CardSeen, Turn
from p2p.deck.blind import Blinding
from p2p.deck.keys import DeckKeys
from p2p.deck.messages import (
    Blind,
    KeyCommit,
    KeyOpening,
    Rekey,
    Remask,
    RemaskKey,
    Reveal,
    Shuffle,
    SlotKey,
    Unmask,
    parse_deck_message,
)
from p2p.deck.remask import Remasks
from p2p.deck.remasking import Remasking
from p2p.errors import (
    DeckCorrupted,
    LocalProtocolError,
    MalformedMessage,
    OutOfOrder,
    SlotKeyMismatch,
)


class Deck(Blinding, Remasking):
    """One peer's view of the deck. ``seat=None`` makes a keyless observer (used by the
    audit to replay a public transcript)."""

    def __init__(
        self,
        game_id: str,
        n_seats: int,
        n_cards: int,
        seat: int | None,
        keys: DeckKeys | None = None,
    ) -> None:
        if not 2 <= n_seats <= 4:
            raise LocalProtocolError(f"a game has 2 to 4 seats, not {n_seats}")
        if n_cards < 2:
            raise LocalProtocolError("a deck needs at least 2 cards")
        if seat is not None and not 0 <= seat < n_seats:
            raise LocalProtocolError(f"seat {seat} is not a seat of this game")
        self.game_id = game_id
        self.n_seats = n_seats
        self.n_cards = n_cards
        self.seat = seat
        self._keys = keys if keys is not None or seat is None else DeckKeys.generate()
        self._card_points = card_points(game_id, n_cards)
        self._point_card = {point: index for index, point in enumerate(self._card_points)}
        self._own_commitment: tuple[bytes, Opening] | None = None
        self._commitments: dict[int, bytes] = {}
        self._batches = [Batch(0, 0, tuple(range(n_cards)), n_seats)]
        self._slot_batch: list[int] = []  # slot -> batch index (-1: re-masked slot)
        self._slot_batch.extend([0] * n_cards)
        self._retired: set[int] = set()
        self._known: dict[int, int] = {}  # slot -> card, for slots this peer has seen
        self._public: set[int] = set()
        self._live_slot_of_card: dict[int, int] = {}
        self._private_keys: dict[int, dict[int, bytes]] = {}
        self._public_keys: dict[int, dict[int, bytes]] = {}
        self._slot_key_cache: dict[int, bytes] = {}
        self.remasks = Remasks()
        self.public_transcript: list[tuple[int, dict[str, Any]]] = []

    # ---- read-only view -------------------------------------------------------------

    @property
    def turn(self) -> Turn | None:
        """The step the deck waits for, or None when every batch is ready to open."""
        if len(self._commitments) < self.n_seats:
            return Turn("commit", None, 0)
        batch = self._batches[-1]
        if batch.complete:
            return None
        step, seat = batch.next_step()
        return Turn(step, seat, batch.index)

    @property
    def slot_count(self) -> int:
        return len(self._slot_batch)

    def batch_slots(self, batch: int) -> range:
        record = self._batches[batch]
        return range(record.first_slot, record.first_slot + record.size)

    def batch_records(self) -> tuple[BatchRecord, ...]:
        return tuple(batch.record() for batch in self._batches)

    def card_of(self, slot: int) -> int | None:
        """The card in ``slot`` if this peer has seen it, else None."""
        return self._known.get(slot)

    def known_cards(self) -> dict[int, int]:
        return dict(self._known)

    def is_public(self, slot: int) -> bool:
        return slot in self._public

    def key_commitment(self, seat: int) -> bytes | None:
        return self._commitments.get(seat)

    def published_point(self, slot: int) -> bytes:
        """The last point published for ``slot``, retired or not (what a peer could try to
        recognise it by)."""
        if slot in self.remasks:
            return self.remasks.point(slot)
        batch = self._batches[self._slot_batch[slot]]
        return batch.steps[-1].points[slot - batch.first_slot]

    def slot_point(self, slot: int) -> bytes:
        """The fully encrypted point of a ready slot (public)."""
        if slot in self.remasks:
            return self.remasks.point(slot)
        batch, position = self._openable(None, slot)
        return batch.steps[-1].points[position]

    # ---- producing messages (pure: state changes only when the message is received) --

    def commit_message(self) -> dict[str, Any]:
        """Pre-game: this seat's commitment to its deck seed (the same each call)."""
        keys, seat = self._need_keys()
        if self._own_commitment is None:
            self._own_commitment = keys.commitment(self.game_id, seat)
        return KeyCommit(seat, self._own_commitment[0]).to_dict()

    def opening_message(self) -> dict[str, Any]:
        """Game end: open the seed commitment so everyone can audit this seat's steps."""
        keys, seat = self._need_keys()
        if self._own_commitment is None:
            raise LocalProtocolError("cannot open a deck commitment never made")
        return KeyOpening(seat, keys.seed, self._own_commitment[1].salt).to_dict()

    def begin_batch(self, sources: Sequence[int]) -> range:
        """Start putting the cards of live slots (public or hidden) back under the deck;
        returns their new slot numbers.

        Every peer may call this when its engine reaches the reshuffle; a peer that does not
        starts the batch from seat 0's blinding message instead (its slots are checked alike).
        """
        self._begin_batch(None, tuple(sources))
        return self.batch_slots(len(self._batches) - 1)

    def shuffle(self) -> dict[str, Any]:
        """This seat's shuffle layer over the batch in construction."""
        keys, seat = self._need_keys()
        batch = self._expect_own_turn("shuffle", seat)
        points, author = self._batch_input(batch)
        x = keys.shuffle_key(batch.index)
        permutation = keys.permutation(batch.index, batch.size)
        try:
            out = tuple(mul(x, points[source]) for source in permutation)
        except InvalidPoint:
            raise self._refused_point(author, batch, points) from None
        return Shuffle(seat, batch.index, batch.cards, out).to_dict()

    def rekey(self) -> dict[str, Any]:
        """This seat's re-key layer: slot i gets k_i * x^-1, and k_i * B is published."""
        keys, seat = self._need_keys()
        batch = self._expect_own_turn("rekey", seat)
        points, author = self._batch_input(batch)
        x_inverse = scalar_invert(keys.shuffle_key(batch.index))
        if batch.sources:  # also strip this seat's blinding layer
            x_inverse = scalar_mul(x_inverse, scalar_invert(keys.blind_key(batch.index)))
        slot_keys = [self._own_slot_key(batch.first_slot + i) for i in range(batch.size)]
        try:
            out = tuple(
                mul(scalar_mul(k, x_inverse), point)
                for k, point in zip(slot_keys, points, strict=True)
            )
        except InvalidPoint:
            raise self._refused_point(author, batch, points) from None
        commitments = tuple(mul_base(k) for k in slot_keys)
        return Rekey(seat, batch.index, out, commitments).to_dict()

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

    # ---- consuming messages -----------------------------------------------------------

    def receive(self, sender: int, data: Any) -> CardSeen | None:
        """Apply a message from ``sender`` (the authenticated author, possibly this seat).

        Returns a CardSeen event when the message completes an opening for this peer.
        Raises a RemoteProtocolError subclass naming the blamed seat on any fault.
        """
        if not 0 <= sender < self.n_seats:
            raise LocalProtocolError(f"sender {sender} is not a seat of this game")
        message = parse_deck_message(sender, data)
        if isinstance(message, KeyCommit):
            self._on_commit(message)
        elif isinstance(message, Blind):
            self._on_blind(message)
        elif isinstance(message, Shuffle):
            self._on_shuffle(message)
        elif isinstance(message, Rekey):
            self._on_rekey(message)
        elif isinstance(message, RemaskKey):  # before SlotKey: a subclass of it
            return self._on_remask_key(message)
        elif isinstance(message, Unmask):  # before Reveal: a subclass of it
            return self._on_unmask(message)
        elif isinstance(message, SlotKey):
            return self._on_slot_key(message)
        elif isinstance(message, Reveal):
            return self._on_reveal(message)
        elif isinstance(message, Remask):
            self._on_remask(message)
        else:
            raise OutOfOrder(sender, "key openings belong to the audit, not to the live deck")
        return None

    def _on_commit(self, message: KeyCommit) -> None:
        if message.seat in self._commitments:
            raise OutOfOrder(message.seat, "second deck key commitment")
        self._commitments[message.seat] = message.commitment
        self.public_transcript.append((message.seat, message.to_dict()))

    def _on_shuffle(self, message: Shuffle) -> None:
        sender = message.seat
        self._need_all_commitments(sender)
        batch = self._batches[-1]
        self._expect_step(batch, message, "shuffle")
        if message.cards != batch.cards:
            raise OutOfOrder(sender, f"shuffle of batch {batch.index} names other cards")
        batch.steps.append(message)
        self.public_transcript.append((sender, message.to_dict()))

    def _on_rekey(self, message: Rekey) -> None:
        sender = message.seat
        self._need_all_commitments(sender)
        batch = self._batches[-1]
        self._expect_step(batch, message, "rekey")
        if len(message.key_commitments) != batch.size:
            raise MalformedMessage(sender, "one key commitment per slot needed", message.to_dict())
        batch.steps.append(message)
        self.public_transcript.append((sender, message.to_dict()))

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

    # ---- helpers ----------------------------------------------------------------------

    def _need_keys(self) -> tuple[DeckKeys, int]:
        if self._keys is None or self.seat is None:
            raise LocalProtocolError("an observer deck has no keys and sends nothing")
        return self._keys, self.seat

    def _own_slot_key(self, slot: int) -> bytes:
        key = self._slot_key_cache.get(slot)
        if key is None:
            keys, _ = self._need_keys()
            key = self._slot_key_cache[slot] = keys.slot_key(slot)
        return key

    def _need_all_commitments(self, sender: int) -> None:
        if len(self._commitments) < self.n_seats:
            # Without every commitment a peer could still pick keys after seeing the deck.
            raise OutOfOrder(sender, "deck step before every seat committed to its keys")

    def _begin_batch(self, sender: int | None, sources: tuple[int, ...]) -> Batch:
        """Allocate a reshuffle batch of live slots; ``sender`` is blamed when it came from a
        message."""

        def refuse(reason: str) -> Exception:
            if sender is None:
                return LocalProtocolError(reason)
            return OutOfOrder(sender, reason)

        if not self._batches[-1].complete:
            raise refuse("a batch is still being shuffled")
        if not sources or len(set(sources)) != len(sources):
            raise refuse("a batch needs distinct slots")
        for slot in sources:
            self._live(sender, slot)
        for slot in sources:
            self._retired.add(slot)
            card = self._known.get(slot)
            if card is not None and self._live_slot_of_card.get(card) == slot:
                del self._live_slot_of_card[card]
        batch = Batch(len(self._batches), self.slot_count, (), self.n_seats, sources)
        self._batches.append(batch)
        self._slot_batch.extend([batch.index] * batch.size)
        return batch

    def _expect_own_turn(self, step: str, seat: int) -> Batch:
        turn = self.turn
        if turn is None or turn.step != step or turn.seat != seat:
            raise LocalProtocolError(f"not seat {seat}'s {step} turn (waiting for {turn})")
        return self._batches[-1]

    def _expect_step(self, batch: Batch, message: Blind | Shuffle | Rekey, step: str) -> None:
        expected = None if batch.complete else batch.next_step()
        if expected != (step, message.seat) or message.batch != batch.index:
            raise OutOfOrder(
                message.seat, f"{step} of batch {message.batch} out of turn (expected {expected})"
            )
        if len(message.points) != batch.size:
            raise MalformedMessage(
                message.seat, f"{step} must carry {batch.size} points", message.to_dict()
            )

    def _batch_input(self, batch: Batch) -> tuple[Sequence[bytes], int | None]:
        """The points the next step works on and who published them (None: card table)."""
        if not batch.steps and batch.sources:
            return [self.published_point(slot) for slot in batch.sources], None
        if not batch.steps:
            return [self._card_points[card] for card in batch.cards], None
        return batch.steps[-1].points, batch.steps[-1].seat

    def _refused_point(
        self, author: int | None, batch: Batch, points: Iterable[bytes]
    ) -> MalformedMessage:
        bad = [p.hex() for p in points if not _multipliable(p)]
        return MalformedMessage(
            author,
            f"batch {batch.index}: point outside the prime-order group",
            {"batch": batch.index, "bad_points": bad},
        )

    def _live(self, sender: int | None, slot: int) -> None:
        """Refuse a slot that does not exist, is retired or is still being shuffled."""

        def refuse(reason: str) -> Exception:
            return LocalProtocolError(reason) if sender is None else OutOfOrder(sender, reason)

        if not 0 <= slot < self.slot_count:
            raise refuse(f"no slot {slot}")
        if slot in self._retired:
            raise refuse(f"slot {slot} was put back under the deck or re-masked")
        index = self._slot_batch[slot]
        if index >= 0 and not self._batches[index].complete:
            raise refuse(f"slot {slot} is still being shuffled")

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
        try:
            plain = mul(scalar_invert(scalar_product(ordered)), point)
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
        self._live_slot_of_card[card] = slot
        if public:
            self._public.add(slot)
        return CardSeen(slot, card, public)


def _multipliable(point: bytes) -> bool:
    try:
        mul(b"\x01" + bytes(31), point)
    except InvalidPoint:
        return False
    return True
