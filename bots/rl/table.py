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

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from bots.base import Turn
from bots.match import Stepper, seeded_game, stream_orders
from bots.rl.encoding import EncodingError, mask_of
from bots.rl.recall import Recall
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
from engine.sight import Sight

REWARDS = ("win", "margin")


@dataclass(frozen=True)
class TableSnapshot:
    """A table's seed, options and actions so far (``Table.snapshot``; picklable)."""

    players: int
    seed: bytes | str | int
    config: GameConfig | None
    keep_log: bool
    recall: tuple[int, ...]  # the seats whose records are kept
    played: tuple[int, ...]


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
    """A game in progress. ``seat`` is the seat to act (None when the game is over).

    ``recall=True`` (or a list of seats) keeps each seat's perfect-recall record
    (``bots.rl.recall.Recall``: every view it was shown and its own actions); off by default,
    as it costs a view per seat per step. A table is copied, pickled and snapshotted by its
    seed and the actions played so far (``snapshot``, ``Table.restore``): the copy replays
    them, so it draws its chance from streams of its own and playing it leaves the original
    as it was."""

    def __init__(self, players: int, seed: bytes | str | int, *,
                 config: GameConfig | None = None, keep_log: bool = False,
                 recall: bool | Sequence[int] = False) -> None:
        self.players, self.seed, self._config_given = players, seed, config
        self.keep_log = keep_log
        stream = RandomStream(seed)
        self.state: GameState = seeded_game(stream, players, config, keep_log=keep_log)
        self.config = self.state.config
        chance = stream.fork("chance")
        # the seats whose records are kept (True: all); the others' stay empty
        self._recalled: tuple[int, ...] = tuple(range(players)) if recall is True \
            else tuple(recall or ())
        self.recall: list[Recall] | None = [Recall(seat) for seat in range(players)] \
            if self._recalled else None
        self._sight: Sight | None = None  # the last state the records were shown
        self._stepper = Stepper(self.state, lambda s: random_chance(s, chance),
                                RelabelSchedule(stream_orders(stream.fork("relabel"), players)),
                                on_state=self._show_all if self._recalled else None)
        self.steps = 0
        self.played: list[int] = []  # the index of every action so far, in order
        self.seat: int | None = None
        self._turn: Turn | None = None
        self._indices: list[int] | None = None
        self._settle()
        self._show_all(self.state)

    def _show_all(self, state: GameState) -> None:
        """Each seat is shown its view (after every step, chance and relabels included): a
        copy of the state, read once for all the seats' records (``engine.sight.Sight``)."""
        if self.recall is not None:
            last = self._sight
            # a copy sharing the lists a step left as they were with the last one shown
            shown = self._sight = Sight(state.snapshot(None if last is None else last.state),
                                        last)
            for seat in self._recalled:
                self.recall[seat].see_sight(shown)
                self.recall[seat].flush()  # the entries now: the table keeps no states
            shown.prev = None  # every record has compared it with the state before

    def snapshot(self) -> TableSnapshot:
        """What restores this table: its seed, its options and the actions played."""
        return TableSnapshot(self.players, self.seed, self._config_given, self.keep_log,
                             self._recalled, tuple(self.played))

    @classmethod
    def restore(cls, snap: TableSnapshot) -> Table:
        table = cls(snap.players, snap.seed, config=snap.config, keep_log=snap.keep_log,
                    recall=snap.recall)
        for index in snap.played:
            table.step(index)
        return table

    def __deepcopy__(self, memo: dict[int, Any]) -> Table:
        return Table.restore(self.snapshot())

    def __reduce__(self) -> tuple[Any, ...]:
        return Table.restore, (self.snapshot(),)

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
        self._play(action, index)
        return action

    def play(self, action: Action) -> None:
        """Play one of the acting seat's legal actions (as engine action). A draft pick is
        held until every pick of its round is in."""
        self._play(action, self.legal_indices()[self.turn.legal.index(action)])

    def _play(self, action: Action, index: int) -> None:
        if self.recall is not None:
            assert self.seat is not None
            self.recall[self.seat].act(index)
        self.played.append(index)
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
