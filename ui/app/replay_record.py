"""An engine-only game record (``bots.rl.record``: a learning environment's game) as a
``Replay`` the viewer and ``solstice replay --text`` show. Nothing in it is signed: the game
is replayed from its seed and actions, not verified."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ui.app.replay_data import Replay, Step, describe_move
from ui.app.wording import describe


def replay_record(path: Path, record: dict[str, Any]) -> Replay:
    """The record's game, one Step per move (the caller read it with ``read_record``)."""
    from bots.rl.encoding import EncodingError
    from bots.rl.record import GameRecordError, load_game

    table, actions = load_game(record)
    state = table.state
    logged = len(state.events)
    steps = [Step(state.clone(), "The game begins", None,
                  log=tuple(map(describe, state.events)), events=tuple(state.events))]
    for number, index in enumerate(actions):
        if table.over:
            raise GameRecordError(f"action {number} comes after the end of the game")
        seat, before = table.seat, table.state.clone()
        try:
            action = table.step(index)
        except EncodingError as exc:
            raise GameRecordError(f"action {number}: {exc}") from None
        move, disclosed, truth = describe_move(before, action)
        events = tuple(table.state.events[logged:])
        logged = len(table.state.events)
        steps.append(Step(table.state.clone(), move, seat, disclosed, truth,
                          tuple(map(describe, events)), events))
    names = tuple(str(name) for name in record.get("names", ())) or \
        tuple(f"player_{i}" for i in range(table.players))
    over = "" if table.over else " (not finished)"
    summary = (f"An engine-only game record (seed {record['seed']}), replayed from its seed "
               f"and actions{over}: nothing in it is signed, so nothing was verified.")
    return Replay(path, f"seed {record['seed']}", names, tuple(table.config.factions),
                  tuple(steps), {"summary": summary})
