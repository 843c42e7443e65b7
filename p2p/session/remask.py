"""Re-masks in the session: when the holders of hands move their cards to fresh, unlinkable
slots (see protocol.md, "Unlinkable slots").

- With a pick commitment: each picker whose hand another seat could link re-masks the whole
  hand in its ``pick/commit`` message (a hand passed to it: the passer saw it; a dealt hand
  holding a returned prisoner: a re-masked slot everyone saw captured) and commits to a pick
  among the fresh slots, so its pick is a slot nobody else can link to a card. A hand of deck
  slots just dealt needs none: nobody but its holder ever saw those cards, and the deck's
  shuffle already hides where they were.
- Once at the start of every dispatch phase, in a ``remask`` stage: each seat with cards
  re-masks its hand (its picks were public slots of known pick rounds), so no face-down
  dispatch, capture or discard can be linked to anything seen before.

On completion every peer applies the re-masks in seat order to its deck and, as a relabel, to
its engine (fresh slots appended in the same order on both).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine import GameState
from engine.relabel import Relabel, dispatch_relabels_due, pick_relabels_due, relabel_in_place
from p2p.deck.deck import Deck
from p2p.deck.messages import Remask, parse_deck_message
from p2p.errors import LocalProtocolError, RemoteProtocolError


def dispatch_remask_due(engine: GameState, done: int) -> list[int]:
    """Seats that must re-mask their hands now, at the start of a dispatch phase (``done``:
    the last round whose dispatch re-mask was completed): the engine's schedule."""
    return dispatch_relabels_due(engine, done)


def pick_remaskers(engine: GameState, deck: Deck, pickers: Sequence[int]) -> list[int]:
    """The pickers whose hand another seat could link: they re-mask with their commitment
    (the engine's schedule; a slot made by a re-mask is one the deck has an owner for)."""
    return pick_relabels_due(engine, pickers, lambda slot: deck.remask_owner(slot) is not None)


def own_remask(deck: Deck, engine: GameState, seat: int, seats: Sequence[int]
               ) -> tuple[dict[str, Any], dict[int, int]]:
    """Our re-mask message, and where each of our old slots goes. The re-masks of a stage
    apply in seat order, so ours gets its fresh slots after those of the lower ``seats``."""
    hand = engine.hands[seat]
    first = deck.slot_count + sum(len(engine.hands[other]) for other in seats if other < seat)
    order = deck.own_remask_order(first, len(hand))
    return deck.remask(hand, first), {hand[source]: first + i for i, source in enumerate(order)}


def apply_remasks(deck: Deck, engine: GameState, me: int | None,
                  contributions: Sequence[tuple[int, dict[str, Any]]]) -> list[Relabel]:
    """Apply every seat's re-mask (its ``deck/remask`` message, in seat order) to the deck
    and the engine; returns the relabels as the audit replays them (their order is
    recomputed from the opened seeds)."""
    done = []
    for seat, data in contributions:
        message = parse_deck_message(seat, data)
        if not isinstance(message, Remask):
            raise RemoteProtocolError(seat, "a remask stage needs a deck/remask message")
        if sorted(message.old) != sorted(engine.hands[seat]):
            raise RemoteProtocolError(seat, f"re-masked slots {sorted(message.old)}, not its "
                                            f"hand {sorted(engine.hands[seat])}")
        if deck.slot_count != len(engine.card_of):
            raise LocalProtocolError("deck and engine disagree on the number of slots")
        deck.receive(seat, data)
        order = deck.own_remask_order(message.first, len(message.old)) if seat == me else None
        relabel_in_place(engine, Relabel(seat, message.old, order))
        done.append(Relabel(seat, message.old))
    return done
