"""The incremental perfect-recall information state (``engine.sight``: each trail state read
once for every seat, each seat's record taking only what changed) against the record made from
scratch, as it was first built: every view of every state, made canonical, its changed keys
written as JSON, and a memory of every card it shows (``_Reference`` below). Seeded random
OpenSpiel games with 2, 3 and 4 players; every seat at every decision; the string and the
tensor must be the same, byte for byte. Skipped without the rl extra."""

from __future__ import annotations

import json
from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel",
                              reason="the rl extra is not installed (pip install '.[rl]')")
np = pytest.importorskip("numpy", reason="the rl extra is not installed (pip install '.[rl]')")

import bots.rl.openspiel  # noqa: E402, F401 - registers python_solstice
from bots.rl import encoding as enc  # noqa: E402
from bots.rl.recall import (  # noqa: E402
    INFO_STATE_SIZE,
    RECALL_FEATURES,
    RECALL_SIZE,
    Recall,
    _places,
    canonical_view,
)
from engine.state import GameState  # noqa: E402
from engine.view import view  # noqa: E402

_RF = {name: i for i, name in enumerate(RECALL_FEATURES)}


class _Reference:
    """One seat's record made from its views, from scratch (the first implementation)."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.entries: list[str] = []
        self.last: dict[str, Any] = {}
        self.memory: dict[int, list[Any]] = {}
        self.now: set[int] = set()
        self.mine = Recall(seat)  # its own actions' block only (``act``)
        self.view: dict[str, Any] | None = None

    def see(self, shown: dict[str, Any]) -> None:
        flat = canonical_view(shown)
        for p, planet in enumerate(flat.pop("planets")):
            flat[f"planet{p}"] = planet
        changed = [key for key, value in flat.items()
                   if key not in self.last or self.last[key] != value]
        if changed:
            self.entries.append("see {" + ",".join(
                f'"{key}":' + json.dumps(flat[key], sort_keys=True, separators=(",", ":"))
                for key in sorted(changed)) + "}")
            self.last = flat
        rnd = shown["round"]
        places = _places(shown)
        for cid, place in places.items():
            if cid in self.memory:
                self.memory[cid][1:] = [rnd, place]
            else:
                self.memory[cid] = [rnd, rnd, place]
        self.now = set(places)
        self.view = shown

    def act(self, index: int) -> None:
        self.entries.append(f"act {index}")
        self.mine.act(index)

    def string(self) -> str:
        return f"seat {self.seat}\n" + "\n".join(self.entries)

    def tensor(self) -> np.ndarray:
        vec = np.zeros(INFO_STATE_SIZE, np.float32)
        assert self.view is not None
        enc.encode_view(self.view, out=vec[:enc.OBS_SIZE])
        block = self.mine.memory().reshape(enc.N_CARDS, len(RECALL_FEATURES))
        for cid, (first, last, place) in self.memory.items():
            row = block[cid]
            row[_RF["seen"]] = 1.0
            row[_RF["gone"]] = 0.0 if cid in self.now else 1.0
            row[_RF["first_seen_round"]] = min(first / 10.0, 1.0)
            row[_RF["last_seen_round"]] = min(last / 10.0, 1.0)
            row[_RF[f"last_seen_{place}"]] = 1.0
        vec[enc.OBS_SIZE:] = block.reshape(RECALL_SIZE)
        return vec


def _check_game(players: int, seed: int) -> int:
    """Play one random game; compare every seat at every decision. Returns the checks made.
    The reference is shown the state after every step (chance outcomes included: a state
    that did not change adds nothing), as the record was first made, not the game's trail."""
    game = pyspiel.load_game("python_solstice", {"players": players})
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    refs = [_Reference(seat) for seat in range(players)]
    checks = 0

    def show_all() -> None:
        s = state._g.state
        if s is not None:
            for seat, ref in enumerate(refs):
                ref.see(view(s, seat))

    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(int(rng.choice([o for o, _ in state.chance_outcomes()])))
            show_all()
            continue
        # the seats read in turn, some not at every decision: records catch up on the trail
        for seat in rng.permutation(players).tolist():
            if rng.random() < 0.3 and seat != state.current_player():
                continue
            assert state.information_state_string(seat) == refs[seat].string()
            tensor = state.information_state_tensor(seat)
            expected = refs[seat].tensor()
            assert tensor == expected.tolist()
            # OpenSpiel's own path (pyspiel's method, through the observer) gives the same
            assert pyspiel.State.information_state_tensor(state, seat) == tensor
            checks += 1
        seat = state.current_player()
        action = int(rng.choice(state.legal_actions()))
        state.apply_action(action)
        refs[seat].act(action)
        show_all()
    return checks


@pytest.mark.parametrize("players,seed", [(2, 1), (3, 2), (4, 3), (4, 4)])
def test_the_incremental_information_state_is_the_one_made_from_the_views(
        players: int, seed: int) -> None:
    assert _check_game(players, seed) > 50


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(100, 124))
def test_the_incremental_information_state_holds_over_many_random_games(seed: int) -> None:
    """The class, not four cases: a change a few games never make (a Blockade limit, a
    controller changing hands) shows in some of two dozen more, of every table size."""
    assert _check_game(2 + seed % 3, seed) > 50


def test_a_clone_goes_on_from_where_its_original_stood() -> None:
    """A clone shares the trail's sights with its original; each then takes in its own
    future, and both still equal records made from their views."""
    game = pyspiel.load_game("python_solstice", {"players": 3})
    rng = np.random.default_rng(9)
    state = game.new_initial_state()
    decisions = 0
    while decisions < 40 or state.is_chance_node():
        if state.is_chance_node():
            state.apply_action(int(rng.choice([o for o, _ in state.chance_outcomes()])))
            continue
        if decisions % 7 == 0:
            state.information_state_string(state.current_player())
        state.apply_action(int(rng.choice(state.legal_actions())))
        decisions += 1
    twin = state.clone()
    for branch in (state, twin):
        for _ in range(60):
            if branch.is_terminal():
                break
            if branch.is_chance_node():
                branch.apply_action(int(rng.choice([o for o, _ in branch.chance_outcomes()])))
                continue
            branch.apply_action(int(rng.choice(branch.legal_actions())))
    for branch in (state, twin):
        refs = [_Reference(seat) for seat in range(3)]
        for entry in branch._g.trail:
            for seat, ref in enumerate(refs):
                if isinstance(entry, tuple):
                    if entry[0] == seat:
                        ref.act(entry[1])
                else:
                    ref.see(view(entry.state, seat))
        for seat in range(3):
            assert branch.information_state_string(seat) == refs[seat].string()
            assert branch.information_state_tensor(seat) == refs[seat].tensor().tolist()
    assert state.information_state_string(0) != twin.information_state_string(0)


def test_see_state_and_see_make_the_same_record() -> None:
    """``Recall.see_state`` (a state alone) and ``Recall.see`` (its view) agree."""
    from bots.rl.table import Table

    table = Table(4, "fast-recall")
    fast, slow = [Recall(seat) for seat in range(4)], [Recall(seat) for seat in range(4)]
    rng = np.random.default_rng(2)
    while not table.over:
        for seat in range(4):
            fast[seat].see_state(table.state.clone())
            slow[seat].see(view(table.state, seat))
            assert fast[seat].string() == slow[seat].string()
            assert np.array_equal(fast[seat].tensor(), slow[seat].tensor())
        legal = table.legal_indices()
        index = legal[int(rng.integers(len(legal)))]
        fast[table.seat].act(index)
        slow[table.seat].act(index)
        table.step(index)


def test_a_tables_records_are_the_ones_made_from_the_views() -> None:
    """``Table(recall=True)`` (the PettingZoo environment's ``info_state``) shows every state
    to the records through one ``Sight``; the records equal ones made from the views of the
    very states it shows."""
    from bots.rl.table import Table

    class Checked(Table):
        def _show_all(self, state: GameState) -> None:
            super()._show_all(state)
            for seat, ref in enumerate(self.refs):
                ref.see(view(state, seat))

    Checked.refs = [_Reference(seat) for seat in range(3)]  # before the first state shows
    table = Checked(3, "fast-table", recall=True)
    refs = Checked.refs
    rng = np.random.default_rng(5)
    steps = 0
    while not table.over:
        assert table.recall is not None
        for seat in range(3):
            assert table.recall[seat].string() == refs[seat].string()
            assert np.array_equal(table.recall[seat].tensor(), refs[seat].tensor())
        legal = table.legal_indices()
        index = legal[int(rng.integers(len(legal)))]
        refs[table.seat].act(index)
        table.step(index)
        steps += 1
    assert steps > 50


def test_tensors_alone_keep_no_states_and_the_first_string_replays_the_game() -> None:
    """Asked only for tensors, a state keeps no copy of its states (each record notes the
    cards' places from the state at once): its tensors, and a clone's once it goes its own
    way, are the reference's at every decision. The first string asked replays the game
    so far, keeping the states; strings and tensors are then the reference's."""
    import copy

    game = pyspiel.load_game("python_solstice", {"players": 4})
    rng = np.random.default_rng(21)

    def play(state: Any, refs: list[_Reference], decisions: int, strings: bool) -> None:
        def show_all() -> None:
            s = state._g.state
            if s is not None:
                for seat, ref in enumerate(refs):
                    ref.see(view(s, seat))

        done = 0
        while done < decisions and not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(int(rng.choice([o for o, _ in state.chance_outcomes()])))
                show_all()
                continue
            for seat in range(4):
                if strings:
                    assert state.information_state_string(seat) == refs[seat].string()
                assert state.information_state_tensor(seat) == refs[seat].tensor().tolist()
            seat = state.current_player()
            action = int(rng.choice(state.legal_actions()))
            state.apply_action(action)
            refs[seat].act(action)
            show_all()
            done += 1

    state = game.new_initial_state()
    refs = [_Reference(seat) for seat in range(4)]
    play(state, refs, 60, strings=False)
    assert not state._g.keep_states and state._g.trail == []
    twin, twin_refs = state.clone(), copy.deepcopy(refs)
    for branch, branch_refs in ((state, refs), (twin, twin_refs)):
        play(branch, branch_refs, 30, strings=False)
        assert not branch._g.keep_states
    assert twin.information_state_tensor(0) != state.information_state_tensor(0)
    for branch, branch_refs in ((state, refs), (twin, twin_refs)):
        assert not branch.is_terminal()
        for seat in range(4):  # the first string: the replay
            assert branch.information_state_string(seat) == branch_refs[seat].string()
            assert branch.information_state_tensor(seat) == branch_refs[seat].tensor().tolist()
        assert branch._g.keep_states and branch._g.trail
        play(branch, branch_refs, 20, strings=True)
