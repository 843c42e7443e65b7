"""Set Up (rulebook "Set Up", "Two Player Set Up"; rulings "Planets", "Events")."""

from __future__ import annotations

from collections import Counter

import pytest
from engine_helpers import FIRST_GAME, config, deck_order, hand

from engine import CARDS, Phase, new_game, random_config
from engine.cards import EVENT_BY_NAME, STANDARD_PLANETS
from engine.config import ConfigError, GameConfig
from engine.randomness import RandomStream

SEEDS = range(60)


def kinds(events: tuple[str, ...]) -> Counter:
    return Counter(EVENT_BY_NAME[e].event_kind for e in events)


@pytest.mark.parametrize("n", [3, 4])
def test_one_planet_per_player_from_the_four_standard_planets(n: int) -> None:
    for seed in SEEDS:
        cfg = random_config(n, RandomStream(seed))
        assert len(cfg.planets) == n
        assert len(set(cfg.planets)) == n
        assert set(cfg.planets) <= set(STANDARD_PLANETS)


def test_two_players_use_two_planets_and_the_desert_last() -> None:
    seen = set()
    for seed in SEEDS:
        cfg = random_config(2, RandomStream(seed))
        assert len(cfg.planets) == 3
        assert cfg.planets[-1] == "Desert"
        assert set(cfg.planets[:2]) <= set(STANDARD_PLANETS)
        assert cfg.planets[0] != cfg.planets[1]
        seen.add(cfg.planets[:2])
    assert len(seen) > 3, "planets are chosen at random"


@pytest.mark.parametrize("n", [3, 4])
def test_events_two_fortune_two_deception_four_destruction(n: int) -> None:
    for seed in SEEDS:
        cfg = random_config(n, RandomStream(seed))
        assert len(set(cfg.events)) == 8
        assert kinds(cfg.events) == Counter({"Fortune": 2, "Deception": 2, "Destruction": 4})


def test_two_player_events_one_deception_one_fortune_quagmire_mercenaries() -> None:
    for seed in SEEDS:
        cfg = random_config(2, RandomStream(seed))
        assert len(cfg.events) == 4
        assert {"Quagmire", "Mercenaries"} <= set(cfg.events)
        assert kinds(cfg.events) == Counter({"Fortune": 1, "Deception": 1, "two-player": 2})


@pytest.mark.parametrize("n", [3, 4])
def test_first_game_uses_the_rulebook_event_set(n: int) -> None:
    cfg = random_config(n, RandomStream("first"), first_game=True)
    assert set(cfg.events) == {
        "Whispered Secrets", "Rumor", "Hidden Base", "Orbital Bombardment", "Blockade",
        "Honor Guards", "Planetary Siege", "Famine"}


@pytest.mark.parametrize(("n", "size"), [(2, 16), (3, 26), (4, 32)])
def test_deck_is_six_action_cards_per_player_plus_the_events(n: int, size: int) -> None:
    cfg = random_config(n, RandomStream(n))
    ids = cfg.card_ids()
    assert len(ids) == size == len(set(ids))
    actions = [CARDS[i] for i in ids if not CARDS[i].is_event]
    assert Counter(c.faction for c in actions) == {f: 6 for f in cfg.factions}


@pytest.mark.parametrize("n", [2, 3, 4])
def test_six_cards_are_dealt_to_each_player_and_the_rest_form_the_deck(n: int) -> None:
    stream = RandomStream(f"deal{n}")
    cfg = random_config(n, stream)
    order = stream.sample(cfg.card_ids(), len(cfg.card_ids()))
    s = new_game(cfg, order)
    for seat in range(n):
        assert [s.card_of[x] for x in s.hands[seat]] == order[6 * seat: 6 * seat + 6]
        for x in s.hands[seat]:
            assert s.known[x] == 1 << seat, "a dealt card is seen by its holder only"
    assert [s.card_of[x] for x in s.deck] == order[6 * n:]
    assert all(s.known[x] == 0 for x in s.deck)
    assert sorted(s.card_of[x] for x in s.live_slots()) == sorted(cfg.card_ids())


def test_seat_s_is_dealt_cards_6s_to_6s_plus_5_of_the_deck_order() -> None:
    cfg = config(3)
    s = new_game(cfg, deck_order(cfg, hands=[
        ["black:Duchess", "white:Duchess", "blue:Duchess", "black:Elder", "white:Elder",
         "blue:Elder"]]))
    assert hand(s, 0) == ["black:Duchess", "white:Duchess", "blue:Duchess", "black:Elder",
                          "white:Elder", "blue:Elder"]


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_same_seed_gives_the_same_configuration(n: int) -> None:
    for seed in SEEDS:
        assert random_config(n, RandomStream(seed)) == random_config(n, RandomStream(seed))
    configs = {random_config(n, RandomStream(seed)) for seed in SEEDS}
    assert len(configs) > 10


@pytest.mark.parametrize("n", [2, 3, 4])
def test_first_player_is_random(n: int) -> None:
    firsts = {random_config(n, RandomStream(seed)).first_player for seed in SEEDS}
    assert firsts == set(range(n))


def test_the_game_starts_in_round_one_drafting_to_the_left() -> None:
    s = new_game(config(3, first_player=2), deck_order(config(3, first_player=2)))
    assert s.round == 1 and s.phase is Phase.DRAFT and s.direction == 1
    assert s.first_player == 2
    assert s.vp == [0, 0, 0] and s.casualties == [0, 0, 0]


def test_desert_must_be_last() -> None:
    cfg = GameConfig(("black", "white"), ("Desert", "Capital", "Water"), FIRST_GAME[:4], 0)
    with pytest.raises(ConfigError, match="Desert is always placed last"):
        new_game(cfg, list(cfg.card_ids()))


def test_one_planet_per_player_is_enforced() -> None:
    cfg = GameConfig(("black", "white", "blue"), ("Capital", "Water"), FIRST_GAME, 0)
    with pytest.raises(ConfigError):
        new_game(cfg, list(cfg.card_ids()))


def test_deck_order_must_be_a_permutation_of_the_games_cards() -> None:
    cfg = config(3)
    ids = list(cfg.card_ids())
    with pytest.raises(ValueError, match="permutation"):
        new_game(cfg, [*ids[:-1], ids[0]])


@pytest.mark.parametrize("n", [1, 5])
def test_solstice_is_for_two_to_four_players(n: int) -> None:
    with pytest.raises(ConfigError):
        random_config(n, RandomStream(0))
