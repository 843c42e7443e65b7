"""Blinding a reshuffle batch: the round's cards go under the deck without being shown.

A reshuffle batch takes old slots (``sources``), public or hidden, as they are. Before its
shuffles every seat j, in seat order, multiplies input point i (the point of old slot s) by

    y_j * k_{j,s}^-1   if s is a deck slot (j strips its own slot key),
    y_j * r_s^-1       if s is a slot j re-masked (j strips its re-mask scalar),
    y_j                otherwise (another seat's re-masked slot),

with y_j = ``DeckKeys.blind_key(batch)``. After the n blinding layers every input is
(y_0 * ... * y_{n-1}) * P(card): every per-slot key is gone, so the usual shuffles can
permute them, and no point was ever a bare card point. Each seat's re-key then also strips
its y_j. The positions of the blinding layers are not permuted, so each seat knows which
of its keys to strip; the points say nothing about the cards under DDH.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from p2p.crypto.group import InvalidPoint, mul, mul_base, scalar_invert, scalar_mul
from p2p.crypto.proofs import Instance, prove
from p2p.deck.batches import Batch
from p2p.deck.keys import DeckKeys
from p2p.deck.messages import Blind
from p2p.deck.proving import BASE_POINT, blind_statement
from p2p.deck.remask import Remasks
from p2p.errors import MalformedMessage, OutOfOrder


def blind_factors(keys: DeckKeys, seat: int, batch: int, sources: Sequence[int],
                  remask_owner: Callable[[int], int | None]) -> list[bytes]:
    """The scalar seat ``seat`` multiplies each input point of the batch by."""
    y = keys.blind_key(batch)
    factors = []
    for slot in sources:
        owner = remask_owner(slot)
        if owner is None:
            factors.append(scalar_mul(y, scalar_invert(keys.slot_key(slot))))
        elif owner == seat:
            factors.append(scalar_mul(y, scalar_invert(keys.remask_key(slot))))
        else:
            factors.append(y)
    return factors


class Blinding:
    """The blinding layers of a ``Deck``'s reshuffle batches (mixed into ``Deck``)."""

    # provided by Deck
    remasks: Remasks
    public_transcript: list[tuple[int, dict[str, Any]]]
    _batches: list[Batch]
    _slot_batch: list[int]
    _need_keys: Callable[[], tuple[DeckKeys, int]]
    _need_all_commitments: Callable[[int], None]
    _expect_own_turn: Callable[[str, int], Batch]
    _expect_step: Callable[[Batch, Blind, str], None]
    _batch_input: Callable[[Batch], tuple[Sequence[bytes], int | None]]
    _begin_batch: Callable[[int | None, tuple[int, ...]], Batch]
    _refused_point: Callable[[int | None, Batch, Iterable[bytes]], MalformedMessage]
    _check_proof: Callable[[Blind, int | None, Batch, Sequence[bytes], bytes, list[Instance]],
                           None]
    game_id: str
    seat: int | None
    check_proofs: bool

    def blind(self) -> dict[str, Any]:
        """This seat's blinding layer over the reshuffle batch in construction."""
        keys, seat = self._need_keys()
        batch = self._expect_own_turn("blind", seat)
        points, author = self._batch_input(batch)
        factors = blind_factors(keys, seat, batch.index, batch.sources, self.remasks.owner)
        out = []
        for position, (f, point) in enumerate(zip(factors, points, strict=True)):
            try:
                out.append(mul(f, point))
            except InvalidPoint:
                # A point never consumed before: blame whoever published it.
                if author is None:
                    author = self._point_author(batch.sources[position])
                raise self._refused_point(author, batch, points) from None
        key = mul_base(keys.blind_key(batch.index))
        header, instances = blind_statement(
            self.game_id, seat, batch.index, batch.sources, self._blind_bases(seat, batch),
            points, out, key)
        proof = tuple(prove(header, instances, factors))
        return Blind(seat, batch.index, batch.sources, tuple(out), key, proof).to_dict()

    def _on_blind(self, message: Blind) -> None:
        sender = message.seat
        self._need_all_commitments(sender)
        batch = self._batches[-1]
        if batch.complete and message.batch == len(self._batches):
            batch = self._begin_batch(sender, message.sources)
        self._expect_step(batch, message, "blind")
        if message.sources != batch.sources:
            raise OutOfOrder(sender, f"blinding of batch {batch.index} names other slots")
        if sender != self.seat and self.check_proofs:
            points, author = self._batch_input(batch)
            self._check_proof(message, author, batch, points, *blind_statement(
                self.game_id, sender, batch.index, batch.sources,
                self._blind_bases(sender, batch), points, message.points, message.key))
        batch.steps.append(message)
        self.public_transcript.append((sender, message.to_dict()))

    def _blind_bases(self, seat: int, batch: Batch) -> list[bytes]:
        """G_i of each position's blind proof: what ``seat`` strips there, times B (its
        slot-key commitment, its re-mask key, or B itself)."""
        bases = []
        for slot in batch.sources:
            owner = self.remasks.owner(slot)
            if owner is None:
                source = self._batches[self._slot_batch[slot]]
                bases.append(source.rekey_step(seat).key_commitments[slot - source.first_slot])
            elif owner == seat:
                record = self.remasks.record(slot)
                bases.append(record.keys[slot - record.first])
            else:
                bases.append(BASE_POINT)
        return bases

    def _point_author(self, slot: int) -> int:
        """Who published the last point of ``slot`` (its re-masker, or its last re-keyer)."""
        owner = self.remasks.owner(slot)
        if owner is not None:
            return owner
        return self._batches[self._slot_batch[slot]].steps[-1].seat
