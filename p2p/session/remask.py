"""Re-mask stages: when the holders of hands move their cards to fresh, unlinkable slots.

Two moments need it (see protocol.md, "Unlinkable slots"):

- before a pick commitment, each picker whose hand another seat could link re-masks the whole
  hand: a hand passed to it (the passer saw it), or a dealt hand holding a returned prisoner
  (a re-masked slot everyone saw captured). A hand of deck slots just dealt needs none: nobody
  but its holder ever saw those cards, and the deck's shuffle already hides where they were;
- once at the start of every dispatch phase, each seat with cards re-masks its hand (its picks
  were public slots of known pick rounds), so no face-down dispatch, capture or discard can be
  linked to anything seen before.

The stage is ``remask``: each named seat sends one ``deck/remask`` message for exactly its
hand; on completion every peer applies them in seat order to its deck and, as a relabel, to
its engine (fresh slots appended in the same order on both).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine import GameState
from engine.draft import waiting_pickers
from engine.relabel import Relabel, relabel_in_place
from engine.state import Phase
from p2p.deck.deck import Deck
from p2p.deck.messages import Remask, parse_deck_message
from p2p.errors import LocalProtocolError, RemoteProtocolError
from p2p.session.bodies import deck_data, field_of
from p2p.session.envelope import SignedMessage

Mark = tuple[str, int]


def remask_due(engine: GameState, deck: Deck, done: Mark | None, next_pick: int
               ) -> tuple[Mark, list[int]] | None:
    """``(mark, seats)`` of a re-mask the game needs now, or None. ``done``: the mark of the
    last re-mask stage completed; ``next_pick``: the number the next pick stage will get."""
    pickers = waiting_pickers(engine)
    if pickers:
        mark: Mark = ("pick", next_pick)
        seats = [seat for seat in pickers if _linkable_hand(engine, deck, seat)]
    elif engine.phase is Phase.DISPATCH and engine.step is None and engine.chance is None:
        mark = ("dispatch", engine.round)
        seats = [seat for seat in range(engine.n) if engine.hands[seat]]
    else:
        return None
    if mark == done or not seats:
        return None
    return mark, seats


def _linkable_hand(engine: GameState, deck: Deck, seat: int) -> bool:
    others = engine.all_mask & ~(1 << seat)
    return any(engine.known[slot] & others or deck.remask_owner(slot) is not None
               for slot in engine.hands[seat])


def remask_body(deck: Deck, engine: GameState, seat: int, seats: Sequence[int]
                ) -> dict[str, Any]:
    """Our ``remask`` body. The re-masks of a stage apply in seat order, so ours gets its
    fresh slots after those of the lower seats named in the stage."""
    before = sum(len(engine.hands[other]) for other in seats if other < seat)
    return {"deck": deck.remask(engine.hands[seat], deck.slot_count + before)}


def apply_remasks(deck: Deck, engine: GameState, me: int | None,
                  contributions: Sequence[tuple[int, SignedMessage]]) -> list[Relabel]:
    """Apply every seat's re-mask (in seat order) to the deck and the engine; returns the
    relabels as the audit replays them (their order is recomputed from the opened seeds)."""
    done = []
    for seat, signed in contributions:
        data = deck_data(seat, field_of(seat, signed.msg.body, "deck", dict))
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
