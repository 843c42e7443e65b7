"""Deck test helpers: a shuffle with another permutation than the committed one, argued."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from p2p.crypto.group import mul, scalar_invert
from p2p.crypto.shuffle_proof import prove as prove_shuffle
from p2p.deck.keys import DeckKeys
from p2p.deck.proving import BASE_POINT, shuffle_header

Tamper = Callable[[int, dict[str, Any]], dict[str, Any]]


def other_permutation(keys: Sequence[DeckKeys], game_id: str,
                      swaps: dict[int, int]) -> Tamper:
    """A tamper hook: the batch-0 shuffle of each seat s in ``swaps`` with its outputs
    ``swaps[s]`` and ``swaps[s] + 1`` exchanged, and a valid shuffle argument for that other
    permutation: a sound shuffle that every receiver accepts, but not the one the seat's
    committed seed gives (only the end-of-game audit sees it)."""
    def tamper(seat: int, message: dict[str, Any]) -> dict[str, Any]:
        if seat not in swaps or message["type"] != "deck/shuffle" or message["batch"] != 0:
            return message
        at = swaps[seat]
        x = keys[seat].shuffle_key(0)
        outputs = [bytes.fromhex(p) for p in message["points"]]
        permutation = keys[seat].permutation(0, len(outputs))
        inputs = [b""] * len(outputs)
        for i, j in enumerate(permutation):  # the inputs, back from the honest outputs
            inputs[j] = mul(scalar_invert(x), outputs[i])
        outputs[at], outputs[at + 1] = outputs[at + 1], outputs[at]
        permutation[at], permutation[at + 1] = permutation[at + 1], permutation[at]
        proof = prove_shuffle(shuffle_header(game_id, seat, 0), BASE_POINT,
                              bytes.fromhex(message["key"]), inputs, outputs, x, permutation)
        return message | {"points": [p.hex() for p in outputs],
                          "proof": [p.hex() for p in proof]}

    return tamper
