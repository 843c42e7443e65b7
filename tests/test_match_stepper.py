"""The game loop every engine-only game shares (``bots.match.Stepper``): a pick round's seats
are each asked on the same state, their picks are held and taken together; chance and relabels
need nobody; at the end no seat is named."""

from __future__ import annotations

from bots.match import Stepper, seeded_game, stream_orders
from engine import is_over, legal_actions, random_chance
from engine.draft import waiting_pickers
from engine.randomness import RandomStream
from engine.relabel import RelabelSchedule
from engine.serialize import state_to_dict


def _stepper(players: int, seed: str) -> Stepper:
    stream = RandomStream(seed)
    state = seeded_game(stream, players)
    chance = stream.fork("chance")
    return Stepper(state, lambda s: random_chance(s, chance),
                   RelabelSchedule(stream_orders(stream.fork("relabel"), players)))


def test_a_pick_round_is_asked_on_one_state_and_its_picks_are_taken_together() -> None:
    stepper = _stepper(3, "stepper/picks")
    state = stepper.state
    first = stepper.next_seat()
    pickers = waiting_pickers(state)
    assert first == pickers[0] and len(pickers) == 3
    before = state_to_dict(state)
    asked = []
    seat = first
    for _ in pickers:
        assert seat is not None
        asked.append(seat)
        assert state_to_dict(state) == before  # no pick is taken before the last is in
        stepper.play(legal_actions(state, seat)[0])
        seat = stepper.next_seat()
    assert asked == pickers
    assert state_to_dict(state) != before
    assert all(pick for pick in state.drafted)


def test_a_game_is_stepped_to_its_end_where_no_seat_is_named() -> None:
    stepper = _stepper(2, "stepper/end")
    moves = 0
    while (seat := stepper.next_seat()) is not None:
        stepper.play(legal_actions(stepper.state, seat)[-1])
        moves += 1
    assert is_over(stepper.state)
    assert stepper.actions > moves > 0  # chance actions are counted too
