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

from typing import Any

from p2p.crypto.commitments import Opening
from p2p.crypto.group import (
    card_points,
    mul_base,
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
from p2p.deck.opening import SlotOpening
from p2p.deck.remask import Remasks, check_remask_key, unmask_point
from p2p.deck.remasking import Remasking
from p2p.deck.shuffling import Shuffling
from p2p.errors import (
    LocalProtocolError,
    OutOfOrder,
    RemaskFault,
    SlotKeyMismatch,
)


class Deck(Shuffling, SlotOpening, Blinding, Remasking):
    """One peer's view of the deck. ``seat=None`` makes a keyless observer (used by the
    audit to replay a public transcript). Every other seat's layer proof is checked on
    arrival unless ``check_proofs`` is False."""

    def __init__(
        self,
        game_id: str,
        n_seats: int,
        n_cards: int,
        seat: int | None,
        keys: DeckKeys | None = None,
        check_proofs: bool = True,
    ) -> None:
        if not 2 <= n_seats <= 4:
            raise LocalProtocolError(f"a game has 2 to 4 seats, not {n_seats}")
        if n_cards < 2:
            raise LocalProtocolError("a deck needs at least 2 cards")
        if seat is not None and not 0 <= seat < n_seats:
            raise LocalProtocolError(f"seat {seat} is not a seat of this game")
        self.game_id = game_id
        # Off only for an audit's replay of a transcript whose proofs a Deck checked on
        # arrival already (the auditing peer's, or the verifier's replay).
        self.check_proofs = check_proofs
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
        # slot -> K with (last point of the slot) = K * (its card point), for the slots in
        # _known: what this peer's re-mask of the slot proves its fresh point with.
        self._opening_scalars: dict[int, bytes] = {}
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

    # ---- re-checking a disclosure later --------------------------------------------------

    def check_disclosed_key(self, sender: int, to: int, slot: int, data: Any) -> None:
        """Raise (blaming ``sender``) unless ``data`` is a right key for ``slot`` sealed to
        ``to`` at the time it was due. Used by a peer that re-checks a key sealed to another
        seat, once that seat opens its box key, possibly long after: so it is checked against
        what never changes (the slot's key commitment k*B, or the re-mask's point), never
        against the slot's state now (it may have been put back or re-masked since)."""
        message = parse_deck_message(sender, data)
        remasked = slot in self.remasks
        wanted = RemaskKey if remasked else SlotKey
        if type(message) is not wanted or message.seat != sender or message.slot != slot \
                or message.to != to:
            raise OutOfOrder(sender, f"sealed key is not a {wanted.TYPE} for slot {slot} "
                                     f"to seat {to}")
        assert isinstance(message, SlotKey)
        if remasked:
            record = self.remasks.record(slot)
            if record.seat != sender:
                raise OutOfOrder(sender, f"slot {slot} is not a slot it re-masked")
            check_remask_key(record, slot, message.key, data)
            plain = unmask_point(sender, slot, record.points[slot - record.first], message.key)
            if plain not in self._point_card:
                raise RemaskFault(sender, f"re-masked slot {slot} opens to no card of this "
                                          "game", {"remask": record.message(), "opening": data})
            return
        batch = self._batches[self._slot_batch[slot]]
        commitment = batch.rekey_step(sender).key_commitments[slot - batch.first_slot]
        if mul_base(message.key) != commitment:
            raise SlotKeyMismatch(sender, f"key for slot {slot} does not match its commitment "
                                          "k*B", {"message": data, "commitment": commitment.hex()})

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
