"""The game loop every engine-only game shares (``bots.match.Stepper``): a pick round's seats
are each asked on the same state, their picks are held and taken together; chance and relabels
need nobody; at the end no seat is named."""

from __future__ import annotations

from typing import Any

import pytest

from bots import match
from bots.base import Bot, Turn
from bots.match import Stepper, play_match, seeded_game, stream_orders
from bots.random_bot import RandomBot
from engine import Action, GameState, is_over, legal_actions, random_chance
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



class _LogReader(RandomBot):
    """A random bot that reads the log of its view (as a program bot may)."""

    reads_log = True

    def __init__(self) -> None:
        self.logs: list[int] = []

    def choose(self, turn: Turn) -> Action:
        self.logs.append(len(turn.state().log))
        return super().choose(turn)


def _keeps_log(bots: list[Bot], monkeypatch: pytest.MonkeyPatch, **options: Any) -> bool:
    """Whether ``play_match`` makes its game with a log."""
    kept: list[bool] = []

    def seeded(*args: Any) -> GameState:
        kept.append(args[-1])
        return seeded_game(*args)

    monkeypatch.setattr(match, "seeded_game", seeded)
    play_match(bots, "no-log/which", **options)
    monkeypatch.undo()
    return kept == [True]


def test_bots_that_never_read_the_log_play_a_game_without_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert not _keeps_log([RandomBot(), RandomBot()], monkeypatch)
    assert _keeps_log([RandomBot(), _LogReader()], monkeypatch)
    assert _keeps_log([RandomBot(), RandomBot()], monkeypatch, keep_log=True)
    assert _keeps_log([RandomBot(), RandomBot()], monkeypatch, on_state=lambda s: None)
    reader = _LogReader()
    play_match([reader, RandomBot()], "no-log/reader")
    assert max(reader.logs) > 0  # a bot that may read the log gets one


def test_a_game_plays_the_same_with_and_without_its_log() -> None:
    for players in (2, 3, 4):
        for game in range(4):
            seed = f"no-log/{players}/{game}"
            with_log = play_match([RandomBot() for _ in range(players)], seed, keep_log=True)
            without = play_match([RandomBot() for _ in range(players)], seed, keep_log=False)
            assert without == with_log, seed


class _SpinBot(Bot):
    """Burns CPU for each decision."""

    name = "spin"

    def choose(self, turn: Turn) -> Action:
        import time
        until = time.thread_time() + 0.002
        while time.thread_time() < until:
            pass
        return turn.legal[0]


class _SleepBot(Bot):
    """Waits without CPU for each decision, as a program bot's seat waits for its answer."""

    name = "sleep"

    def choose(self, turn: Turn) -> Action:
        import time
        time.sleep(0.005)
        return turn.legal[0]


def test_a_game_keeps_each_seats_cpu_time_apart_from_its_wall_time() -> None:
    result = play_match([_SpinBot(), _SleepBot()], "cpu-time")
    (spin_cpu, sleep_cpu), (spin_wall, sleep_wall) = result.cpu_seconds, result.think_seconds
    spin_n, sleep_n = result.decisions
    assert spin_cpu >= 0.002 * spin_n and spin_wall >= spin_cpu * 0.99
    assert sleep_wall >= 0.005 * sleep_n
    # sleeping costs the thread next to nothing: a tenth of the wait is a wide margin
    assert sleep_cpu < 0.1 * sleep_wall


def test_random_draws_are_not_timed_on_the_cpu_clock() -> None:
    result = play_match([RandomBot(), RandomBot()], "cpu-time/random")
    assert result.cpu_seconds == (0.0, 0.0) and all(n > 0 for n in result.decisions)
