"""An environment's game saved as a game record that ``solstice replay`` shows: the seed, the
seats' names and every action index, as JSON. The game is replayed from them (the deal, the
chance and the relabels all come from the seed, as in ``solstice simulate``), so a record is
a few kilobytes. It is an engine-only game: nothing in it is signed, so there is nothing to
verify (a network game's transcript is checked before it is shown)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bots.rl.table import Table

FORMAT = "solstice-engine-game/1"


class GameRecordError(ValueError):
    """A file that is no game record, or one whose actions do not replay."""


def save_game(table: Table, path: str | Path, names: Sequence[str] | None = None) -> Path:
    """Write ``table``'s game so far (seeded tables only: a given configuration is refused)."""
    snap = table.snapshot()
    if snap.config is not None:
        raise GameRecordError("a game record holds seeded games only (no given configuration)")
    if isinstance(snap.seed, bytes):
        raise GameRecordError("a game record needs a text or number seed, not bytes")
    names = list(names) if names is not None else [f"player_{i}" for i in range(table.players)]
    if len(names) != table.players:
        raise GameRecordError(f"{len(names)} names for {table.players} seats")
    record: dict[str, Any] = {"format": FORMAT, "players": table.players, "seed": snap.seed,
                              "names": names, "actions": list(snap.played)}
    if table.over:
        record["result"] = {"scores": table.scores(), "winner": table.winner()}
    out = Path(path)
    out.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return out


def read_record(path: str | Path) -> dict[str, Any] | None:
    """The record in ``path``, or None when the file is no game record (a transcript)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return None
    return data


def load_game(record: dict[str, Any], keep_log: bool = True) -> tuple[Table, list[int]]:
    """A new table of the record's seed, and its actions (to be stepped by the caller)."""
    try:
        players, seed = int(record["players"]), record["seed"]
        actions = [int(a) for a in record["actions"]]
        if not isinstance(seed, (str, int)) or not 2 <= players <= 4:
            raise ValueError("players or seed")
    except (KeyError, TypeError, ValueError) as exc:
        raise GameRecordError(f"not a readable game record ({exc})") from None
    return Table(players, seed, keep_log=keep_log), actions
