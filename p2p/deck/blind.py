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

from collections.abc import Callable, Sequence

from p2p.crypto.group import scalar_invert, scalar_mul
from p2p.deck.keys import DeckKeys


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
