"""One engine-only game for learning agents: the full state stays here, each seat sees only its
``Turn`` (the view and legal actions every bot gets), chance is drawn from a seeded stream.

The game is set up and played exactly as ``bots.match.play_match`` plays it (the same streams
of the same seed, hands relabelled on the engine's schedule), so a seed names the same deal
here, in ``solstice simulate`` and in a tournament, and each seat is shown the very views it
would be shown there. Simultaneous draft picks are asked one seat at a time, in seat order, all
on the same state: the picks are held here until every pick of the round is in, then taken
together (moved to fresh slots where a hand is relabelled with its pick), so no seat's view
depends on whether another seat has already chosen.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bots.base import Turn
from bots.match import Stepper, seeded_game, stream_orders
from bots.rl.encoding import EncodingError, mask_of
from bots.rl.state_encoding import encode_state, state_indices
from engine import (
    Action,
    GameConfig,
    GameState,
    final_scores,
    legal_actions,
    random_chance,
    ranking,
)
from engine.randomness import RandomStream
from engine.relabel import RelabelSchedule

REWARDS = ("win", "margin")


def game_rewards(scores: list[int], winner: int, kind: str) -> list[float]:
    """Each seat's reward at the end, summing to 0.

    ``win``: 1 for the winner (the rules' tie-breaks included), -1/(n-1) for every other seat.
    ``margin``: the seat's final score minus the mean final score of the other seats, over 10.
    """
    n = len(scores)
    if kind == "win":
        return [1.0 if seat == winner else -1.0 / (n - 1) for seat in range(n)]
    if kind == "margin":
        total = sum(scores)
        return [(score - (total - score) / (n - 1)) / 10.0 for score in scores]
    raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {kind!r}")


class Table:
    """A game in progress. ``seat`` is the seat to act (None when the game is over)."""

    def __init__(self, players: int, seed: bytes | str | int, *,
                 config: GameConfig | None = None, keep_log: bool = False) -> None:
        stream = RandomStream(seed)
        self.state: GameState = seeded_game(stream, players, config, keep_log=keep_log)
        self.config = self.state.config
        chance = stream.fork("chance")
        self._stepper = Stepper(self.state, lambda s: random_chance(s, chance),
                                RelabelSchedule(stream_orders(stream.fork("relabel"), players)))
        self.steps = 0
        self.seat: int | None = None
        self._turn: Turn | None = None
        self._indices: list[int] | None = None
        self._settle()

    def _settle(self) -> None:
        """Play chance and relabels until a seat must act or the game is over, as
        ``play_match`` plays them (``bots.match.Stepper``)."""
        seat = self._stepper.next_seat()
        self.seat = seat
        self._turn = None if seat is None else Turn(self.state, seat,
                                                    legal_actions(self.state, seat))
        self._indices = None

    @property
    def over(self) -> bool:
        return self.seat is None

    @property
    def turn(self) -> Turn:
        """The acting seat's decision (its view, its legal actions)."""
        if self._turn is None:
            raise RuntimeError("the game is over: no seat is to act")
        return self._turn

    def legal_indices(self) -> list[int]:
        if self._indices is None:
            turn = self.turn  # read from the state: the seat's view need not be built
            self._indices = state_indices(self.state, turn.seat, turn.legal)
        return self._indices

    def action_mask(self) -> np.ndarray:
        return mask_of(self.legal_indices())

    def observe(self, seat: int) -> np.ndarray:
        """The encoded view of any seat (its own view: nothing more), read from the state
        (``encode_state``: the same array as ``encode_view`` of the seat's view)."""
        return encode_state(self.state, seat)

    def view(self, seat: int) -> dict[str, Any]:
        if self._turn is not None and seat == self._turn.seat:
            return self._turn.view
        return Turn(self.state, seat, []).view

    def step(self, index: int) -> Action:
        """Play the acting seat's action with this index (it must be legal); returns it."""
        indices = self.legal_indices()
        try:
            action = self.turn.legal[indices.index(index)]
        except ValueError:
            raise EncodingError(f"action {index} is not legal for seat {self.seat} now") from None
        self.play(action)
        return action

    def play(self, action: Action) -> None:
        """Play one of the acting seat's legal actions (as engine action). A draft pick is
        held until every pick of its round is in."""
        self._stepper.play(action)  # one of the very actions legal_actions listed
        self.steps += 1
        self._settle()

    def scores(self) -> list[int]:
        return list(final_scores(self.state))

    def winner(self) -> int:
        return ranking(self.state)[0]

    def rewards(self, kind: str = "win") -> list[float]:
        if not self.over:
            return [0.0] * self.config.n
        return game_rewards(self.scores(), self.winner(), kind)
