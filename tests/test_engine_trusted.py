"""``apply_trusted`` (search rollouts) plays exactly as ``apply_in_place`` for legal actions,
and the memoised legal actions are equal values, not shared mutable state."""

from __future__ import annotations

from engine import (
    CHANCE,
    Capture,
    Dispatch,
    Pick,
    apply_in_place,
    apply_trusted,
    is_over,
    legal_actions,
    new_game,
    random_chance,
    random_config,
    to_move,
)
from engine.randomness import RandomStream
from engine.serialize import state_to_dict


def _game(seed: str, n: int):
    stream = RandomStream(seed)
    config = random_config(n, stream)
    deck = list(config.card_ids())
    stream.shuffle(deck)
    return new_game(config, deck), stream


def test_trusted_apply_reaches_the_same_state_as_the_checked_one() -> None:
    played = set()
    for seed, n in (("trusted/0", 2), ("trusted/1", 3), ("trusted/2", 4)):
        checked, stream = _game(seed, n)
        trusted = checked.clone()
        while not is_over(checked):
            movers = to_move(checked)
            if movers == [CHANCE]:
                action = random_chance(checked, stream)
            else:
                legal = legal_actions(checked, movers[0])
                action = legal[stream.randbelow(len(legal))]
            apply_in_place(checked, action)
            apply_trusted(trusted, action)
            played.add(type(action))
            assert state_to_dict(trusted) == state_to_dict(checked), (seed, action.text())
    assert {Pick, Dispatch, Capture} <= played


def test_legal_actions_listed_twice_are_equal_values() -> None:
    s, stream = _game("trusted/memo", 4)
    while not is_over(s):
        movers = to_move(s)
        if movers == [CHANCE]:
            apply_in_place(s, random_chance(s, stream))
            continue
        first = legal_actions(s, movers[0])
        again = legal_actions(s.clone(), movers[0])
        assert first == again
        assert [a.text() for a in first] == [a.text() for a in again]
        apply_in_place(s, first[stream.randbelow(len(first))])
