"""A game played one seat's decision at a time, as every engine-only game is played.

``Stepper`` plays chance (from the driver's ``chance``), relabels hands on
``engine.relabel.RelabelSchedule``'s schedule (as in a network game, so each seat sees what it
would see at a networked table), and holds a pick round's picks, all chosen on the same state,
until every one is in, then takes them together (moved to fresh slots where a hand is
relabelled with its pick), as a network's pick commitments are. ``bots.match.play_match`` asks
bots, ``bots.rl.table.Table`` hands each decision to a learning agent. It lives in the engine
(it is rules bookkeeping, no I/O) so that it is compiled with the rest: it runs between every
two decisions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from engine.actions import Action, Pick
from engine.draft import waiting_pickers
from engine.game import CHANCE, apply_in_place, apply_trusted, to_move, unasked_answer
from engine.relabel import RelabelSchedule
from engine.state import GameState, Phase

ChanceOf = Callable[[GameState], Action]
"""Where a game's chance comes from: the chance action for a state that awaits one."""

_OVER = Phase.OVER  # a global: faster to read than the enum member


class Stepper:
    """A game played one seat's decision at a time (see the module's text)."""

    def __init__(self, state: GameState, chance: ChanceOf, relabels: RelabelSchedule,
                 on_state: Callable[[GameState], None] | None = None) -> None:
        self.state = state
        self.actions = 0  # actions applied: chance, picks and moves
        self._chance = chance
        self._relabels = relabels
        self._on_state = on_state
        self._pickers: list[int] = []  # the pick round being asked (the state is unchanged)
        self._picks: list[Pick] = []   # its picks so far, in seat order, not yet applied

    def next_seat(self) -> int | None:
        """Play chance and relabels until a seat must act: that seat, or None at the end."""
        s = self.state
        while s.phase is not _OVER:
            if s.chance is not None:
                apply_in_place(s, self._chance(s))
                self._applied()
                continue
            if self._pickers:
                if len(self._picks) < len(self._pickers):
                    return self._pickers[len(self._picks)]
                # every pick of the round is in: take them together
                picks, self._pickers, self._picks = self._picks, [], []
                for pick in self._relabels.with_picks(s, picks):
                    apply_in_place(s, pick)
                    self._applied()
                continue
            self._relabels.at_dispatch(s)
            self._pickers = waiting_pickers(s)
            if self._pickers:
                continue
            forced = unasked_answer(s)
            if forced is not None:  # one legal option: not asked (ruling 41)
                apply_trusted(s, forced)
                self._applied()
                continue
            seat = to_move(s)[0]
            assert seat != CHANCE
            return seat
        return None

    def play(self, action: Action) -> None:
        """The action of the seat ``next_seat`` named: one of the very actions
        ``legal_actions`` listed (it is not checked again). A pick is held until every pick
        of its round is in."""
        if self._pickers:
            self._picks.append(cast(Pick, action))
        else:
            apply_trusted(self.state, action)
            self._applied()

    def _applied(self) -> None:
        self.actions += 1
        if self._on_state is not None:
            self._on_state(self.state)
