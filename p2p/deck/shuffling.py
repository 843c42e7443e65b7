"""Building the deck by layers: starting a batch, each seat's shuffle and re-key layer,
and the checks on the others' (a mixin of ``Deck``, which owns the state it works on; see
``p2p.deck.deck`` for the scheme)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from p2p.crypto.group import (
    InvalidPoint,
    mul,
    mul_base,
    multipliable,
    scalar_invert,
    scalar_mul,
)
from p2p.crypto.proofs import Instance, ProofInvalid, prove, verify
from p2p.crypto.shuffle_proof import ShuffleProofInvalid
from p2p.crypto.shuffle_proof import prove as prove_shuffle
from p2p.crypto.shuffle_proof import verify as verify_shuffle
from p2p.deck.batches import Batch, Turn
from p2p.deck.keys import DeckKeys
from p2p.deck.messages import (
    Blind,
    Rekey,
    Shuffle,
)
from p2p.deck.proving import BASE_POINT, rekey_statement, shuffle_header
from p2p.errors import (
    LocalProtocolError,
    MalformedMessage,
    OutOfOrder,
    ProofFailed,
)


class Shuffling:
    """The shuffle and re-key steps of every batch (mixed into ``Deck``)."""

    # provided by Deck
    game_id: str
    n_seats: int
    seat: int | None
    check_proofs: bool
    public_transcript: list[tuple[int, dict[str, Any]]]
    _batches: list[Batch]
    _slot_batch: list[int]
    _retired: set[int]
    _known: dict[int, int]
    _live_slot_of_card: dict[int, int]
    _card_points: tuple[bytes, ...]
    _commitments: dict[int, bytes]
    _need_keys: Callable[[], tuple[DeckKeys, int]]
    _own_slot_key: Callable[[int], bytes]
    _live: Callable[[int | None, int], None]
    _point_author: Callable[[int], int]

    @property
    def slot_count(self) -> int:  # provided by Deck
        raise NotImplementedError

    @property
    def turn(self) -> Turn | None:  # provided by Deck
        raise NotImplementedError

    def batch_slots(self, batch: int) -> range:  # provided by Deck
        raise NotImplementedError

    def published_point(self, slot: int) -> bytes:  # provided by Deck
        raise NotImplementedError

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
        if batch.sources:
            base, key = mul_base(keys.blind_key(batch.index)), \
                mul_base(scalar_mul(x, keys.blind_key(batch.index)))
        else:
            base, key = BASE_POINT, mul_base(x)
        proof = tuple(prove_shuffle(shuffle_header(self.game_id, seat, batch.index), base,
                                    key, points, out, x, permutation))
        return Shuffle(seat, batch.index, batch.cards, out, key, proof).to_dict()

    def rekey(self) -> dict[str, Any]:
        """This seat's re-key layer: slot i gets k_i * x^-1, and k_i * B is published."""
        keys, seat = self._need_keys()
        batch = self._expect_own_turn("rekey", seat)
        points, author = self._batch_input(batch)
        x_inverse = scalar_invert(keys.shuffle_key(batch.index))
        if batch.sources:  # also strip this seat's blinding layer
            x_inverse = scalar_mul(x_inverse, scalar_invert(keys.blind_key(batch.index)))
        slot_keys = [self._own_slot_key(batch.first_slot + i) for i in range(batch.size)]
        factors = [scalar_mul(k, x_inverse) for k in slot_keys]
        try:
            out = tuple(mul(f, point) for f, point in zip(factors, points, strict=True))
        except InvalidPoint:
            raise self._refused_point(author, batch, points) from None
        commitments = tuple(mul_base(k) for k in slot_keys)
        header, instances = rekey_statement(
            self.game_id, seat, batch.index, batch.first_slot,
            self._shuffle_step(batch, seat).key, points, out, commitments)
        proof = tuple(prove(header, instances, factors))
        return Rekey(seat, batch.index, out, commitments, proof).to_dict()

    def _on_shuffle(self, message: Shuffle) -> None:
        sender = message.seat
        self._need_all_commitments(sender)
        batch = self._batches[-1]
        self._expect_step(batch, message, "shuffle")
        if message.cards != batch.cards:
            raise OutOfOrder(sender, f"shuffle of batch {batch.index} names other cards")
        if sender != self.seat and self.check_proofs:
            base = self._blind_step(batch, sender).key if batch.sources else BASE_POINT
            points, author = self._batch_input(batch)
            try:
                verify_shuffle(shuffle_header(self.game_id, sender, batch.index), base,
                               message.key, points, message.points, message.proof)
            except ShuffleProofInvalid as exc:
                self._blame_proof(message, author, batch, points, str(exc))
        batch.steps.append(message)
        self.public_transcript.append((sender, message.to_dict()))

    def _on_rekey(self, message: Rekey) -> None:
        sender = message.seat
        self._need_all_commitments(sender)
        batch = self._batches[-1]
        self._expect_step(batch, message, "rekey")
        if len(message.key_commitments) != batch.size:
            raise MalformedMessage(sender, "one key commitment per slot needed", message.to_dict())
        if sender != self.seat and self.check_proofs:
            points, author = self._batch_input(batch)
            self._check_proof(message, author, batch, points, *rekey_statement(
                self.game_id, sender, batch.index, batch.first_slot,
                self._shuffle_step(batch, sender).key, points, message.points,
                message.key_commitments))
        batch.steps.append(message)
        self.public_transcript.append((sender, message.to_dict()))

    @staticmethod
    def _shuffle_step(batch: Batch, seat: int) -> Shuffle:
        step = batch.steps[batch.n_blind + seat]
        assert isinstance(step, Shuffle)
        return step

    @staticmethod
    def _blind_step(batch: Batch, seat: int) -> Blind:
        step = batch.steps[seat]
        assert isinstance(step, Blind)
        return step

    def _check_proof(self, message: Blind | Shuffle | Rekey, author: int | None, batch: Batch,
                     inputs: Sequence[bytes], header: bytes, instances: list[Instance]) -> None:
        """Refuse a layer whose proof fails, naming its author (the signed message proves
        it), unless an input point of the previous layer is the fault (naming its author)."""
        try:
            verify(header, instances, message.proof)
        except ProofInvalid as exc:
            self._blame_proof(message, author, batch, inputs, str(exc))

    def _blame_proof(self, message: Blind | Shuffle | Rekey, author: int | None, batch: Batch,
                     inputs: Sequence[bytes], reason: str) -> None:
        """A layer's proof failed: blame the author of an input point off the group if there
        is one (the layer's author could not have proven over it), else the layer's."""
        bad = [position for position, p in enumerate(inputs) if not multipliable(p)]
        if bad:
            if author is None and batch.sources:  # old slots: whoever published them
                author = self._point_author(batch.sources[bad[0]])
            raise self._refused_point(author, batch, inputs) from None
        if not all(multipliable(p) for p in message.points):
            raise self._refused_point(message.seat, batch, message.points) from None
        raise ProofFailed(message.seat, f"batch {batch.index} {message.TYPE}: {reason}",
                          {"message": message.to_dict()}) from None

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
        bad = [p.hex() for p in points if not multipliable(p)]
        return MalformedMessage(
            author,
            f"batch {batch.index}: point outside the prime-order group",
            {"batch": batch.index, "bad_points": bad},
        )

