"""The OpenSpiel game ``python_solstice``: OpenSpiel's own random simulation test, information
states that survive resampling (what ISMCTS needs), and OpenSpiel's ISMCTSBot playing it.
Skipped without the rl extra."""

from __future__ import annotations

import pytest

pyspiel = pytest.importorskip("pyspiel",
                              reason="the rl extra is not installed (pip install '.[rl]')")
np = pytest.importorskip("numpy", reason="the rl extra is not installed (pip install '.[rl]')")

import bots.rl.openspiel  # noqa: E402, F401 - registers python_solstice
from bots.rl import encoding as enc  # noqa: E402


def _game(players: int):  # type: ignore[no-untyped-def]
    return pyspiel.load_game("python_solstice", {"players": players})


@pytest.mark.parametrize(("players", "sims"), [(2, 2), (3, 1), (4, 1)])
def test_openspiel_random_simulation_test_passes(players: int, sims: int) -> None:
    pyspiel.random_sim_test(_game(players), num_sims=sims, serialize=False, verbose=False)


def _random_chance(state, rng) -> None:  # type: ignore[no-untyped-def]
    actions, probs = zip(*state.chance_outcomes(), strict=True)
    assert abs(sum(probs) - 1.0) < 1e-9
    state.apply_action(int(rng.choice(actions, p=probs)))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_resampled_state_has_the_same_information_state_at_every_decision(
        players: int) -> None:
    game = _game(players)
    rng = np.random.default_rng(players)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for _ in range(2):
        state = game.new_initial_state()
        decisions = 0
        while not state.is_terminal():
            if state.is_chance_node():
                _random_chance(state, rng)
                continue
            player = state.current_player()
            world = state.resample_from_infostate(player, sampler)
            assert world.information_state_string(player) == \
                state.information_state_string(player)
            assert world.legal_actions() == state.legal_actions()
            assert np.array_equal(world.information_state_tensor(player),
                                  state.information_state_tensor(player))
            state.apply_action(int(rng.choice(state.legal_actions())))
            decisions += 1
        assert decisions > 20
        returns = state.returns()
        assert abs(sum(returns)) < 1e-9 and max(returns) == 1.0


def test_the_setup_is_chance_and_deals_a_legal_table() -> None:
    state = _game(3).new_initial_state()
    assert state.is_chance_node()
    assert [a for a, _ in state.chance_outcomes()] == [0, 1, 2]  # the first player
    rng = np.random.default_rng(0)
    while state.is_chance_node():
        _random_chance(state, rng)
    config = state._g.config
    config.check_setup()
    assert len(config.events) == 8 and len(config.planets) == 3
    assert state.num_distinct_actions() == enc.ACTION_SIZE
    assert len(state.observation_tensor(0)) == enc.OBS_SIZE


def test_openspiel_ismcts_bot_plays_decisions_of_the_game() -> None:
    from open_spiel.python.algorithms import ismcts, mcts

    game = _game(2)
    rng = np.random.RandomState(5)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=4, random_state=rng,
                           allow_inconsistent_action_sets=True)
    state = game.new_initial_state()
    played = 0
    while not state.is_terminal() and played < 6:
        if state.is_chance_node():
            _random_chance(state, np.random.default_rng(played))
            continue
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
        played += 1
    assert played == 6


def _opponents_face_down_cards(state, player: int) -> dict[int, bool]:  # type: ignore[no-untyped-def]
    """slot -> named, for each opponent's face-down card on a planet in ``player``'s view."""
    seen = {}
    for planet in state.view(player)["planets"]:
        for card in planet["cards"]:
            if not card["face_up"] and card["dispatcher"] not in (player, -1):
                seen[card["slot"]] = card["label"] is not None
    return seen


@pytest.mark.parametrize("players", [2, 4])
def test_no_information_state_names_an_opponents_face_down_card(players: int) -> None:
    """The leak of the old game: a card that passed through a seat's hand in the draft kept
    its slot to the planet, so the seat's information state named it face down. Hands are
    relabelled now (orders drawn as chance), so none is named."""
    game = _game(players)
    rng = np.random.default_rng(10 + players)
    sightings: dict[tuple[int, int, int], bool] = {}
    relabel_draws = 0
    for number in range(3):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                g = state._g
                relabel_draws += g.state is not None and g.state.chance is None
                _random_chance(state, rng)
                continue
            for player in range(players):
                for slot, named in _opponents_face_down_cards(state, player).items():
                    sightings.setdefault((number, player, slot), named)
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert len(sightings) > 20
    shown = sum(sightings.values())
    assert shown == 0, f"{shown} of {len(sightings)} opponents' face-down cards were named"
    assert relabel_draws > 0


def test_a_later_picker_cannot_tell_what_an_earlier_picker_picked() -> None:
    """A pick round's picks are simultaneous: every picker chooses on the same state, so the
    second picker's information state is the same whichever card the first picked."""
    game = _game(3)
    rng = np.random.default_rng(3)
    state = game.new_initial_state()
    while state.is_chance_node():
        _random_chance(state, rng)
    first = state.current_player()
    after = []
    for action in state.legal_actions()[:3]:
        child = state.child(action)
        assert not child.is_chance_node() and child.current_player() != first
        after.append(child.information_state_string(child.current_player()))
    assert len(after) == 3 and len(set(after)) == 1


@pytest.mark.parametrize("players", [2, 4])
def test_the_chance_outcomes_kept_from_node_to_node_are_the_ones_listed_afresh(
        players: int) -> None:
    """A shuffle's, a relabel order's and the deal's outcomes are the last node's less the one
    drawn (kept, not listed again); at every node of random games, clones and the player
    to move included, they equal the outcomes worked out from the state alone."""
    game = _game(players)
    rng = np.random.default_rng(10 + players)
    state = game.new_initial_state()
    kept = nodes = 0
    while not state.is_terminal():
        if state.is_chance_node():
            if state._g.left is not None:
                kept += 1
            listed = [o for o, _ in state.chance_outcomes()]
            assert listed == state._list_chance_outcomes()
            assert listed == [o for o, _ in state.clone().chance_outcomes()]
            state.apply_action(int(rng.choice(listed)))
            nodes += 1
            continue
        assert state.current_player() == state._current_player()
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert kept > nodes // 2


@pytest.mark.parametrize("players", [2, 3])
def test_legal_actions_answers_as_pyspiels_own(players: int) -> None:
    """``legal_actions`` is answered in Python (pyspiel's asks the state back through its
    binding): the same list or the same error as pyspiel's own, for every player id and
    none, at every node of a random game, the end included."""
    game = _game(players)
    rng = np.random.default_rng(20 + players)
    state = game.new_initial_state()
    asked = 0
    while True:
        for who in [None, *range(-4, players + 1)]:
            args = () if who is None else (who,)
            try:
                expected: object = pyspiel.State.legal_actions(state, *args)
            except pyspiel.SpielError as exc:
                expected = str(exc)
            try:
                got: object = state.legal_actions(*args)
            except pyspiel.SpielError as exc:
                got = str(exc)
            assert got == expected, (who, state.current_player())
            asked += 1
        if state.is_terminal():
            break
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert asked > 500
