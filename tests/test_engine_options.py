"""Ruling 41: an option shown to a player is always one it may take.

Martyr and Mimic ask nothing when the prisoner is an event (only "no" would be legal), as
Whispered Secrets asks nothing with one card to reveal. Over seeded games of 2-4 players,
every option of every decision a seat is asked is accepted when it is chosen.
"""

from __future__ import annotations

import pytest

from bots.match import Stepper, stream_orders
from engine import (
    Capture,
    Choose,
    GameConfig,
    GameState,
    apply_in_place,
    is_over,
    legal_actions,
    new_game,
    random_chance,
    random_config,
    unasked_answer,
)
from engine.cards import events_of_kind
from engine.flow import advance
from engine.randomness import RandomStream
from engine.relabel import RelabelSchedule
from engine.scenario import build
from engine.view import view


def _with_prisoner_events(cfg: GameConfig) -> GameConfig:
    """``cfg`` with Mimic (and, with 3-4 players, Martyr) among its events, in place of
    another event of the same type, so that seeded games meet them."""
    events = list(cfg.events)
    for name, kind in (("Mimic", "Deception"), ("Martyr", "Destruction")):
        if name in events or (kind == "Destruction" and cfg.n == 2):
            continue
        same = [i for i, e in enumerate(events) if e in events_of_kind(kind)]
        events[same[0]] = name
    return GameConfig(cfg.factions, cfg.planets, tuple(events), cfg.first_player)


def _seeded_game(n: int, seed: int) -> tuple[GameState, RandomStream]:
    stream = RandomStream(f"options/{n}/{seed}")
    cfg = _with_prisoner_events(random_config(n, stream))
    order = list(cfg.card_ids())
    stream.shuffle(order)
    return new_game(cfg, order, keep_log=False), stream


def _asked_options_are_accepted(s: GameState, seat: int) -> list[str]:
    """Choose each option the seat's view shows, each on a copy: the refused ones."""
    shown = view(s, seat)["decision"]
    refused = []
    for option in shown["options"]:
        trial = s.clone()
        try:
            apply_in_place(trial, Choose(seat, option))
        except Exception as exc:
            refused.append(f"{shown['kind']} {option!r}: {exc}")
    return refused


GAMES = [(n, seed) for n in (2, 3, 4) for seed in range(6)]
UNASKED: list[str] = []  # the unasked decisions met over GAMES (the test needs some)


def _play(n: int, seed: int) -> int:
    """Play a seeded game as every local game is played (``Stepper``); at each decision a
    seat is asked, choose each option its view shows. Returns the decisions asked."""
    s, stream = _seeded_game(n, seed)

    def seen(state: GameState) -> None:
        if state.decision is not None and unasked_answer(state) is not None:
            UNASKED.append(state.decision.kind)

    stepper = Stepper(s, lambda state: random_chance(state, stream),
                      RelabelSchedule(stream_orders(stream.fork("relabel"), n)), seen)
    asked = 0
    while (seat := stepper.next_seat()) is not None:
        state = stepper.state
        if state.decision is not None:
            asked += 1
            assert _asked_options_are_accepted(state, seat) == []
        legal = legal_actions(state, seat)
        # capture often, so that prisoners (events among them) meet Mimic and Martyr
        captures = [a for a in legal if isinstance(a, Capture)]
        choice = captures if captures and stream.randbelow(2) else legal
        stepper.play(choice[stream.randbelow(len(choice))])
    assert is_over(stepper.state)
    return asked


@pytest.mark.parametrize(("n", "seed"), GAMES)
def test_every_option_of_every_decision_asked_is_accepted(n: int, seed: int) -> None:
    _play(n, seed)  # asserts at every decision asked


def test_the_seeded_games_meet_martyr_and_mimic_with_an_event_prisoner() -> None:
    """What the property above needs to be able to fail: unasked decisions among its games."""
    UNASKED.clear()
    asked = sum(_play(n, seed) for n, seed in GAMES)
    assert asked > 50
    assert {"martyr", "mimic"} <= set(UNASKED), UNASKED


def _event_prisoner_at(event: str) -> GameState:
    """Resolve Planets at a Capital holding ``event``, black strongest and favored there, with
    an event as black's prisoner."""
    s, _ = build({"players": ["black", "white", "blue"],
                  "planets": [{"name": "Capital",
                               "cards": [f"event:{event}", "black:Legions", "black:Elder"]}],
                  "prisoners": {"black": "event:Famine"}})
    return s


@pytest.mark.parametrize("event", ["Martyr", "Mimic"])
def test_martyr_and_mimic_show_only_no_for_an_event_prisoner(event: str) -> None:
    s = _event_prisoner_at(event)
    advance(s)
    assert s.decision is not None and s.decision.kind == event.lower()
    shown = view(s, 0)["decision"]
    assert shown["options"] == ["no"] and shown["default"] == "no"
    assert [a.text() for a in legal_actions(s, 0)] == [Choose(0, "no").text()]
    assert unasked_answer(s) == Choose(0, "no")
