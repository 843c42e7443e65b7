"""Deck test helpers: a shuffle with another permutation than the committed one, argued; a
re-mask forged by its holder, re-proven."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from p2p.crypto import remask_proof
from p2p.crypto.group import card_points, mul, mul_base, scalar_invert, scalar_mul
from p2p.crypto.shuffle_proof import prove as prove_shuffle
from p2p.deck.deck import Deck
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


#: Re-mask forgeries ``forged_remask`` makes: refused on arrival by the re-mask's proof ...
REFUSED_REMASKS = ("substitute", "duplicate", "garbage", "reorder")
#: ... or valid re-masks that break only the holder's commitment (the audit names it), or,
#: for "false-key", publish an r*B whose r opens fresh slot 0 to no card.
ACCEPTED_REMASKS = ("other-order", "other-scalar", "false-key")


def forged_remask(deck: Deck, message: dict[str, Any], kind: str) -> dict[str, Any]:
    """The holder's ``deck/remask`` ``message`` re-made with the forgery ``kind``, its proof
    re-made with every secret the holder has (``deck``: the holder's own deck, before the
    re-mask is applied): "substitute" (fresh slot 0 hides a card of the game outside the
    re-masked ones), "duplicate" (fresh slot 1 hides the card of fresh slot 0, proven with
    the factor that is that card's true discrete log to W_0), "garbage" (fresh slot 0 hides
    no card), "reorder" (fresh points 0 and 1 exchanged after proving), "other-order" (a
    consistent re-mask in another order than the committed one), "other-scalar" (consistent,
    with r^2 for r), "false-key" (keys[0] = r'*B for another r')."""
    keys = deck._keys  # the holder forges with its own secrets
    assert keys is not None
    seat, first, old = message["seat"], message["first"], list(message["old"])
    m = len(old)
    order = keys.remask_order(first, m)
    table = card_points(deck.game_id, deck.n_cards)
    cards = [deck.card_of(slot) for slot in old]
    opening = [deck._opening_scalars[slot] for slot in old]
    inputs = [deck.published_point(slot) for slot in old]
    c = keys.remask_shuffle_key(first)
    r = [keys.remask_key(first + i) for i in range(m)]
    if kind == "other-order":
        order = order[1:] + order[:1]
    if kind == "other-scalar":
        r = [scalar_mul(x, x) for x in r]
    hidden = [table[cards[j]] for j in order]  # type: ignore[index]
    source = list(order)
    if kind == "substitute":
        hidden[0] = table[next(card for card in range(deck.n_cards) if card not in cards)]
    elif kind == "duplicate":
        hidden[1], source[1] = hidden[0], order[0]
    elif kind == "garbage":
        hidden[0] = inputs[0]
    points = [mul(x, p) for x, p in zip(r, hidden, strict=True)]
    fresh_keys = [mul_base(x) for x in r]
    if kind == "false-key":
        fresh_keys[0] = mul_base(scalar_mul(r[0], r[0]))
    factors = [scalar_mul(r[i], scalar_invert(scalar_mul(c, opening[source[i]])))
               for i in range(m)]
    proof = remask_proof.prove(remask_proof.header(deck.game_id, seat, first, old), inputs,
                               points, fresh_keys, c, order, factors)
    if kind == "reorder":
        points[0], points[1] = points[1], points[0]
    return message | {"points": [p.hex() for p in points],
                      "keys": [k.hex() for k in fresh_keys],
                      "shuffle_key": proof.key.hex(),
                      "shuffled": [p.hex() for p in proof.shuffled],
                      "argument": [p.hex() for p in proof.argument],
                      "proof": [p.hex() for p in proof.proof]}
