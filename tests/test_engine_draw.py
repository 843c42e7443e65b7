"""Legal actions counted, indexed and drawn without listing them (``legal_count``,
``legal_action``, ``draw_legal``) agree with ``legal_actions`` at every state of random games,
for every seat: the same number, the same action at each index, and the same draw from the
same stream (the random bot and ``solstice simulate`` rely on it: their seeded games must not
change)."""

from __future__ import annotations

import pytest
from engine_helpers import random_states

from engine import (
    CHANCE,
    Capture,
    Choose,
    Discard,
    Dispatch,
    GameState,
    Phase,
    Pick,
    RandomStream,
    draw_legal,
    legal_action,
    legal_actions,
    legal_count,
    to_move,
)
from engine.cards import PLANET_LIMIT


def _check_state(s: GameState, stream_label: str, seen: set[type]) -> None:
    for seat in range(s.n):
        legal = legal_actions(s, seat)
        assert legal_count(s, seat) == len(legal)
        for i, action in enumerate(legal):
            at = legal_action(s, seat, i)
            assert at == action and at.text() == action.text()
            seen.add(type(action))
            if isinstance(action, Pick) and len(action.slots) == 2:
                seen.add(tuple)  # a pair: indexed row by row
        for bad in (len(legal), -1):
            with pytest.raises(IndexError):
                legal_action(s, seat, bad)
        drawing, listing = RandomStream(stream_label), RandomStream(stream_label)
        if not legal:
            with pytest.raises(ValueError):
                draw_legal(s, seat, drawing)
            continue
        for _ in range(3):
            drawn = draw_legal(s, seat, drawing)
            assert drawn == legal[listing.randbelow(len(legal))]
        assert drawing.word() == listing.word()  # the same words of the stream were used


def test_counted_indexed_and_drawn_actions_are_the_listed_ones() -> None:
    seen: set[type] = set()
    states = 0
    # draw/0 and draw/3 have two-card picks
    for seed, n in (("draw/0", 2), ("draw/1", 3), ("draw/2", 4), ("draw/3", 2), ("draw/4", 3)):
        for s, _ in random_states(seed, n):
            if to_move(s) != [CHANCE]:
                _check_state(s, f"{seed}/{states}", seen)
            else:
                assert all(legal_count(s, seat) == 0 for seat in range(s.n))
            states += 1
    assert states > 200
    assert {Pick, Dispatch, Capture, Choose} <= seen, seen
    assert tuple in seen, "no two-card pick was checked"


def test_discards_are_counted_indexed_and_drawn_in_listing_order() -> None:
    """Discards (a seat that has captured already, with every planet full) never come up in
    these random games: the same checks on dispatch turns changed to reach them."""
    reached = 0
    for s, _ in random_states("draw/discard", 3):
        movers = to_move(s)
        if s.phase is not Phase.DISPATCH or movers == [CHANCE] or s.decision is not None:
            continue
        full = s.clone()
        full.captured[movers[0]] = True
        for cards in full.planets:
            cards.extend([0] * (PLANET_LIMIT - len(cards)))
        legal = legal_actions(full, movers[0])
        if legal:
            assert all(isinstance(a, Discard) for a in legal)
            _check_state(full, f"discard/{reached}", set())
            reached += 1
    assert reached > 5
