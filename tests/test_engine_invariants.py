"""Invariant simulation: thousands of random games (2, 3 and 4 players, uniformly random legal
actions and chance), checked after every action:

* every card of the game is in exactly one live slot (``state.live_slots()``);
* no card is dispatched to a full planet (limit 6, Blockade 5);
* VP and casualties are never negative, and casualties only change by kills (a card of that
  faction discarded in the same action) and heals (Honor Guards / Medical Team resolving);
* the game always ends (bounded number of actions);
* the same seed replays identically (final ``state_to_dict`` of two runs);
* ``view`` never names a card the seat has not seen (every action of a sample of games).

``make test`` plays 600 games per player count (about 40 s for the file on the 2-core dev
machine); ``make bench`` plays 3000 (``bench/bench_invariants.py``, through
``SOLSTICE_INVARIANT_GAMES``).
"""

from __future__ import annotations

import hashlib
import os

import pytest
from engine_helpers import assert_view_does_not_leak, random_action, random_game
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import CARDS, Dispatch, apply_in_place, is_over
from engine.canonical import canonical_json
from engine.dispatch import planet_limit
from engine.randomness import RandomStream
from engine.serialize import state_from_dict, state_to_dict

GAMES_PER_PLAYER_COUNT = int(os.environ.get("SOLSTICE_INVARIANT_GAMES", "600"))
CHUNKS = 3
MAX_ACTIONS = 2000  # the longest random games take a few hundred
HEALERS = {"Honor Guards", "Medical Team"}


def run_game(seed: str, n: int, *, watch_views: bool = False,
             round_trip: bool = False) -> tuple[str, int]:
    """Play one random game checking every invariant; return (final state digest, actions)."""
    s = random_game(seed, n, keep_log=watch_views)
    stream = RandomStream(f"play/{seed}")
    all_ids = sorted(s.config.card_ids())
    count = 0
    while not is_over(s):
        count += 1
        if count > MAX_ACTIONS:
            raise AssertionError(f"{seed}: the game did not end within {MAX_ACTIONS} actions")
        action = random_action(s, stream)
        if isinstance(action, Dispatch):
            p = action.planet
            assert len(s.planets[p]) < planet_limit(s, p), f"{seed}: dispatch to a full planet"
        cas0 = s.casualties[:]
        discard0 = len(s.discard)
        resolved0 = s.resolved[:]
        apply_in_place(s, action)

        live = s.live_slots()
        assert len(live) == len(set(live)), f"{seed}: a slot is in two zones"
        assert sorted(s.card_of[x] for x in live) == all_ids, f"{seed}: cards lost or doubled"
        gone = set(range(len(s.card_of))) - set(live)
        assert all(s.known[x] == s.all_mask for x in gone), \
            f"{seed}: a slot left play without being public (redaction skips such slots)"
        assert min(s.vp) >= 0 and min(s.casualties) >= 0, f"{seed}: negative score"
        if s.casualties != cas0:
            new = s.discard[discard0:] if len(s.discard) >= discard0 else []
            for seat in range(n):
                up = s.casualties[seat] - cas0[seat]
                if up > 0:
                    killed = sum(1 for x in new if s.owner(x) == seat)
                    assert up <= killed, f"{seed}: casualty without a kill ({action})"
                elif up < 0:
                    heals = sum(1 for x in range(len(resolved0)) if s.resolved[x]
                                and not resolved0[x] and CARDS[s.card_of[x]].name in HEALERS)
                    assert -up <= heals, f"{seed}: casualty healed without a healer"
        if watch_views:
            for seat in range(n):
                assert_view_does_not_leak(s, seat)
        if round_trip:
            data = state_to_dict(s)
            assert state_to_dict(state_from_dict(data)) == data
    digest = hashlib.sha256(canonical_json(state_to_dict(s))).hexdigest()
    return digest, count


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(CHUNKS))
@pytest.mark.parametrize("n", [2, 3, 4])
def test_random_games_keep_every_invariant(n: int, chunk: int) -> None:
    per_chunk = GAMES_PER_PLAYER_COUNT // CHUNKS
    longest = 0
    for g in range(chunk * per_chunk, (chunk + 1) * per_chunk):
        watch = g % 25 == 0  # every action of 1 game in 25: view leak check for every seat
        _, actions = run_game(f"inv{n}/{g}", n, watch_views=watch)
        longest = max(longest, actions)
    assert longest > 0


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_same_seed_replays_identically(n: int) -> None:
    for g in range(0, 60):
        first, _ = run_game(f"replay{n}/{g}", n)
        again, _ = run_game(f"replay{n}/{g}", n)
        assert first == again
    assert run_game(f"replay{n}/0", n)[0] != run_game(f"replay{n}/1", n)[0]


@pytest.mark.slow
@settings(derandomize=True, max_examples=45, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**63), n=st.sampled_from([2, 3, 4]))
def test_any_seed_keeps_views_sealed_and_states_serializable(seed: int, n: int) -> None:
    run_game(f"hyp/{seed}", n, watch_views=True, round_trip=True)
