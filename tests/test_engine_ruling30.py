"""Ruling 30 as a property: once an Assassin has used Mercenaries on a planet, no later
Assassin there is offered it that round (the scenarios 102-104 and refusal_03 pin the cases)."""

from __future__ import annotations

from engine_helpers import random_states

from engine.actions import Choose


def test_mercenaries_is_offered_at_most_until_used_on_each_planet() -> None:
    # 300 seeded random two-player games (Mercenaries is always in play there) offer it about
    # 130 times; before ruling 30 one offer came after a use on the same planet.
    offers = 0
    for seed in range(300):
        used: set[tuple[int, int]] = set()
        for s, action in random_states(f"ruling30/{seed}", 2):
            d = s.decision
            if d is None or d.kind != "mercenaries":
                continue
            offers += 1
            planet = (s.round, d.then[1])
            assert planet not in used, f"game {seed}: Mercenaries offered again on " \
                                       f"{s.config.planets[planet[1]]} in round {s.round}"
            assert isinstance(action, Choose)
            if action.option != "no":
                used.add(planet)
    assert offers > 50
