"""New-game scenarios for ``solstice rules play``: a set-up drawn from a seed, with the set-up
rules checked on it, and a stated position checked as a set-up (``new_game``)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from engine.cards import CARDS, EVENT_BY_NAME, FIRST_GAME_EVENTS, HAND_SIZE
from engine.config import ConfigError, GameConfig, random_config
from engine.game import new_game
from engine.randomness import RandomStream
from engine.scenario import ScenarioError
from engine.state import GameState

# The events a set-up deals, by type (rulings, "Events"): with 2 players one Deception, one
# Fortune, Quagmire and Mercenaries; with more, the first-game set or 2 Fortune, 2 Deception
# and 4 Destruction.
TWO_PLAYER_EVENTS = Counter({"Deception": 1, "Fortune": 1, "two-player": 2})
MORE_PLAYER_EVENTS = Counter({"Fortune": 2, "Deception": 2, "Destruction": 4})


def seeded_game(factions: list[str], seed: str) -> GameState:
    """A new game drawn from ``seed`` as a local game draws one: the set-up
    (``random_config``), then the deck's order (``permutation`` of the game's card ids), from
    one stream."""
    stream = RandomStream(seed)
    config = random_config(len(factions), stream, factions=tuple(factions))
    ids = config.card_ids()
    return new_game(config, [ids[i] for i in stream.permutation(len(ids))])


def events_problem(config: GameConfig) -> str | None:
    """What is wrong with ``config``'s events for a set-up, or None."""
    kinds = Counter(EVENT_BY_NAME[e].event_kind for e in config.events)
    if config.n == 2:
        if kinds != TWO_PLAYER_EVENTS:
            return ("2 players play one Deception, one Fortune, Quagmire and Mercenaries, "
                    f"not {', '.join(config.events)}")
        return None
    if set(config.events) == set(FIRST_GAME_EVENTS) or kinds == MORE_PLAYER_EVENTS:
        return None
    return ("3-4 players play the first-game events or 2 Fortune, 2 Deception and 4 "
            f"Destruction events, not {', '.join(config.events)}")


def new_game_problems(s: GameState) -> dict[str, bool]:
    """The set-up rules, each with whether ``s`` keeps it."""
    config, n = s.config, s.n
    try:
        config.check_setup()
        planets_ok = True
    except ConfigError:
        planets_ok = False
    cards = sorted(s.card_of[x] for x in s.live_slots())
    return {
        f"{HAND_SIZE} cards dealt to each player":
            all(len(h) == HAND_SIZE for h in s.hands) and not any(s.drafted),
        "every other card in the deck": cards == sorted(config.card_ids())
            and len(s.deck) == len(config.card_ids()) - HAND_SIZE * n,
        "a planet per player, the Desert last and only with 2 players": planets_ok,
        "the events drawn by type": events_problem(config) is None,
        "the first player is a player": 0 <= config.first_player < n,
        "round 1 drafts to the left": s.round == 1 and s.direction == 1,
    }


def check_new_game(s: GameState, given: dict[str, Any], defaults: dict[str, Any]) -> None:
    """``new_game: true``: the stated position must be a game's set-up (round 1, nothing
    drafted, played or scored yet, six cards in each hand, the planets and events the
    rulebook deals); else the first field that breaks it is refused."""
    for key in ("drafted", "prisoners", "claims", "scores", "discard", "turn", "captured",
                "first_pick", "claimed_this_round"):
        if given.get(key, defaults[key]) != defaults[key]:
            raise ScenarioError(key, "a new game has none: it starts the draft of round 1")
    if given.get("round", 1) != 1 or given.get("phase", "draft") != "draft":
        raise ScenarioError("round" if given.get("round", 1) != 1 else "phase",
                            "a new game starts the draft of round 1")
    for seat, f in enumerate(s.config.factions):
        if len(s.hands[seat]) != HAND_SIZE:
            raise ScenarioError(f"hands.{f}", f"a new game deals {HAND_SIZE} cards to each "
                                              f"player, not {len(s.hands[seat])}")
    if any(s.planets):
        raise ScenarioError("planets", "a new game has no cards on the planets")
    try:
        s.config.check_setup()
    except ConfigError as exc:
        raise ScenarioError("planets", str(exc)) from exc
    problem = events_problem(s.config)
    if problem:
        raise ScenarioError("events", problem)


def setup_report(s: GameState) -> dict[str, Any]:
    """A seeded new game's set-up, as labels, with each set-up rule checked."""
    factions = s.config.factions
    return {
        "planets": list(s.config.planets), "events": list(s.config.events),
        "first_player": factions[s.config.first_player],
        "hands": {f: [CARDS[s.card_of[x]].label for x in s.hands[i]]
                  for i, f in enumerate(factions)},
        "rules_kept": new_game_problems(s),
    }
