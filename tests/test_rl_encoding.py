"""The fixed encodings of ``bots.rl.encoding`` (numpy only): one index per legal action,
actions named by card id so that relabelled slots change nothing, views in [0, 1]."""

from __future__ import annotations

import pytest
from tests_rl_helpers import random_state

from engine import (
    CHANCE,
    apply_in_place,
    apply_trusted,
    is_over,
    legal_actions,
    random_chance,
    to_move,
)
from engine.randomness import RandomStream
from engine.relabel import Relabel, relabel_in_place
from engine.view import view

np = pytest.importorskip("numpy", reason="the rl extra is not installed (pip install '.[rl]')")

from bots.rl import encoding as enc  # noqa: E402


def test_the_action_ranges_tile_the_action_space() -> None:
    assert enc.OFFSET["pick1"] == 0
    ends = [enc.OFFSET[name] + size for name, size in enc.RANGES]
    assert ends[-1] == enc.ACTION_SIZE
    assert [enc.OFFSET[name] for name, _ in enc.RANGES[1:]] == ends[:-1]
    assert enc.describe_action(enc.OFFSET["dispatch"]).startswith("dispatch black:Legions")
    with pytest.raises(enc.EncodingError):
        enc.describe_action(enc.ACTION_SIZE)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_decision_of_random_games_has_distinct_indices_and_bounded_views(
        players: int) -> None:
    stream = RandomStream(f"enc{players}")
    for game in range(6):
        s = random_state(players, f"enc{players}/{game}")
        while not is_over(s):
            seat = to_move(s)[0]
            if seat == CHANCE:
                apply_in_place(s, random_chance(s, stream))
                continue
            legal = legal_actions(s, seat)
            v = view(s, seat)
            indices = enc.legal_indices(legal, v)
            assert len(set(indices)) == len(indices)
            assert enc.state_legal_indices(s, seat, legal) == indices
            assert all(0 <= i < enc.ACTION_SIZE for i in indices)
            obs = enc.encode_view(v)
            assert obs.shape == (enc.OBS_SIZE,) and obs.min() >= 0.0 and obs.max() <= 1.0
            apply_trusted(s, legal[stream.randbelow(len(legal))])


def test_a_relabelled_hand_keeps_its_action_indices_and_its_observation() -> None:
    s = random_state(3, "relabel")
    seat = to_move(s)[0]
    before = sorted(enc.legal_indices(legal_actions(s, seat), view(s, seat)))
    obs_before = enc.encode_view(view(s, seat))
    hand = tuple(s.hands[seat])
    relabel_in_place(s, Relabel(seat, hand, tuple(reversed(range(len(hand))))))
    assert tuple(s.hands[seat]) != hand
    after = sorted(enc.legal_indices(legal_actions(s, seat), view(s, seat)))
    assert before == after
    assert np.array_equal(obs_before, enc.encode_view(view(s, seat)))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_state_encoding_is_the_views_encoding_for_every_seat_of_local_matches(
        players: int) -> None:
    from bots.rl.state_encoding import encode_state, state_indices
    from bots.rl.table import Table

    compared = 0
    for game in range(4):
        table = Table(players, f"state-enc{players}/{game}")
        stream = RandomStream(f"state-enc{players}/{game}")
        out = np.ones(enc.OBS_SIZE, dtype=np.float32)  # a reused buffer is cleared first
        while not table.over:
            for seat in range(players):
                expected = enc.encode_view(view(table.state, seat))
                assert np.array_equal(encode_state(table.state, seat), expected)
                assert np.array_equal(encode_state(table.state, seat, out=out), expected)
                compared += 1
            legal = table.turn.legal
            assert state_indices(table.state, table.turn.seat, legal) == \
                enc.legal_indices(legal, view(table.state, table.turn.seat))
            table.play(legal[stream.randbelow(len(legal))])
    assert compared > 300  # every seat at every decision of 4 games
