"""Tournament records: a JSON-lines file with one line per finished game, written durably.

The first line describes the run (``{"type": "run", ...}``: bots, players, seed, games, solstice
version and the shard); every further line is one game (``{"type": "game", ...}``, see
``GameRecord``). Each line is flushed and fsync'ed as soon as its game ends, so a crash or a
kill loses at most the game being played. A kill in the middle of a write leaves a torn last
line without its newline: reading for a resume tolerates it and cuts it off; anything else that
is not a record (a damaged line in the middle, a different run) is an error that names the file
and line.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from bots.faults import Fault
from bots.tournament.schedule import Settings, Shard

FORMAT = 1


class RecordsError(ValueError):
    """A records file that cannot be used as asked (damaged, from another run, exists)."""


@dataclass(frozen=True)
class GameRecord:
    """One finished game. Everything but the times per decision follows from the settings for
    bots that are deterministic for a seed."""

    game: int
    deal: str                         # the deal's seed: every rotation of a deal shares it
    seats: tuple[str, ...]            # bot spec of each seat
    factions: tuple[str, ...]         # faction of each seat
    scores: tuple[int, ...]
    winner: int                       # seat
    rounds: int
    decisions: tuple[int, ...]        # decisions each seat's bot was asked for
    seconds_per_decision: tuple[float, ...] = field(compare=False)  # wall clock, per seat
    faults: tuple[Fault, ...] = ()    # the bots' faults in this game (bad answers etc.)
    # CPU seconds of the playing thread per decision, per seat (an in-process bot's thinking;
    # empty in records written before it was kept)
    cpu_per_decision: tuple[float, ...] = field(default=(), compare=False)

    def outcome(self) -> dict[str, Any]:
        """The reproducible part, as JSON-ready data."""
        data = self.to_json()
        del data["type"], data["seconds_per_decision"], data["cpu_per_decision"]
        return data

    def to_json(self) -> dict[str, Any]:
        return {"type": "game", "game": self.game, "deal": self.deal, "seats": list(self.seats),
                "factions": list(self.factions), "scores": list(self.scores),
                "winner": self.winner, "rounds": self.rounds,
                "decisions": list(self.decisions),
                "seconds_per_decision": list(self.seconds_per_decision),
                "cpu_per_decision": list(self.cpu_per_decision),
                "faults": [asdict(f) for f in self.faults]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameRecord:
        return cls(int(data["game"]), str(data["deal"]), tuple(data["seats"]),
                   tuple(data["factions"]), tuple(int(s) for s in data["scores"]),
                   int(data["winner"]), int(data["rounds"]),
                   tuple(int(d) for d in data["decisions"]),
                   tuple(float(s) for s in data["seconds_per_decision"]),
                   tuple(Fault(**f) for f in data.get("faults", ())),
                   tuple(float(s) for s in data.get("cpu_per_decision", ())))


@dataclass(frozen=True)
class RunRecords:
    """The contents of one records file."""

    path: Path
    settings: Settings
    shard: Shard
    games: tuple[GameRecord, ...]


def _header(settings: Settings, shard: Shard) -> dict[str, Any]:
    return {"type": "run", "format": FORMAT, **settings.to_json(),
            "shard": [shard.index, shard.count]}


def _line(data: dict[str, Any]) -> bytes:
    return (json.dumps(data, separators=(",", ":")) + "\n").encode()


def read_records(path: Path, *, cut_torn_tail: bool = False) -> RunRecords | None:
    """The run in ``path``, or None if it holds no complete line. A torn last line (no newline:
    the writer was killed mid-write) is ignored, and with ``cut_torn_tail`` cut off the file so
    appending can continue after the last complete record."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise RecordsError(f"cannot read records {path}: {exc.strerror}") from None
    complete = raw.rfind(b"\n") + 1
    if 0 < complete < len(raw) and cut_torn_tail:  # (a torn header is the writer's to judge)
        with path.open("r+b") as f:
            f.truncate(complete)
            f.flush()
            os.fsync(f.fileno())
    lines = raw[:complete].splitlines()
    if not lines:
        return None
    header = _parse(path, 1, lines[0])
    if header.get("type") != "run" or header.get("format") != FORMAT:
        raise RecordsError(f"{path} is not a solstice tournament records file (format "
                           f"{FORMAT}): its first line is not a run header")
    try:
        settings = Settings.from_json(header)
        shard = Shard(*header["shard"])
    except (KeyError, TypeError, ValueError) as exc:
        raise RecordsError(f"{path}, line 1: bad run header ({exc})") from None
    games: dict[int, GameRecord] = {}
    for number, line in enumerate(lines[1:], start=2):
        data = _parse(path, number, line)
        try:
            record = GameRecord.from_json(data)
        except (KeyError, TypeError, ValueError) as exc:
            raise RecordsError(f"{path}, line {number}: not a game record ({exc})") from None
        if record.game in games:
            raise RecordsError(f"{path}, line {number}: game {record.game} is recorded twice")
        games[record.game] = record
    return RunRecords(path, settings, shard, tuple(games.values()))


def _parse(path: Path, number: int, line: bytes) -> dict[str, Any]:
    try:
        data = json.loads(line)
    except ValueError:
        raise RecordsError(f"{path}, line {number}: damaged (not JSON); only a torn last "
                           "line is repaired automatically") from None
    if not isinstance(data, dict):
        raise RecordsError(f"{path}, line {number}: not a JSON object")
    return data


class RecordsWriter:
    """Appends game records to a file, each one flushed and fsync'ed before ``append`` returns."""

    def __init__(self, path: Path, settings: Settings, shard: Shard, *,
                 resume: bool) -> None:
        """Open ``path`` for a run. Without ``resume`` the file must not hold records yet (they
        are never overwritten); with it, a file of the same run is continued and its games are
        in ``done``."""
        self.path = path
        try:
            self._file: BinaryIO = path.open("ab")
        except OSError as exc:
            raise RecordsError(f"cannot write records {path}: {exc.strerror}") from None
        try:
            _lock(self._file, path)
            self.done = self._check(settings, shard, resume)
        except BaseException:
            self._file.close()
            raise

    def _check(self, settings: Settings, shard: Shard, resume: bool) -> tuple[GameRecord, ...]:
        existing = read_records(self.path, cut_torn_tail=resume)
        if existing is not None and not resume:
            raise RecordsError(f"{self.path} already holds records; continue that run with "
                               "--resume or choose another file")
        if existing is None:
            header = _line(_header(settings, shard))
            if not header.startswith(self.path.read_bytes()):
                raise RecordsError(f"{self.path} is not a records file of this run (nor empty); "
                                   "choose another file")
            self._file.truncate(0)  # a header torn by a kill at the very start is written anew
            self._write(_header(settings, shard))
            _sync_directory(self.path)
            return ()
        differences = existing.settings.differences(settings)
        if existing.shard != shard:
            differences.append(f"shard {existing.shard} vs {shard}")
        if differences:
            raise RecordsError(f"{self.path} is from another run ({'; '.join(differences)}); "
                               "resume it with its own settings or choose another file")
        return existing.games

    def append(self, record: GameRecord) -> None:
        self._write(record.to_json())

    def _write(self, data: dict[str, Any]) -> None:
        try:
            self._file.write(_line(data))
            self._file.flush()
            os.fsync(self._file.fileno())
        except OSError as exc:  # e.g. a full disk: the records so far stay usable
            raise RecordsError(f"cannot write records {self.path}: {exc.strerror}") from None

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> RecordsWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _lock(file: BinaryIO, path: Path) -> None:
    """Hold an exclusive lock on the records while writing: two runs appending to one file
    would play games twice."""
    try:
        import fcntl
    except ImportError:  # not POSIX: no advisory locks
        return
    try:
        fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        raise RecordsError(f"{path} is being written by another tournament run") from None


def _sync_directory(path: Path) -> None:
    """Make the new file's directory entry durable too (a no-op where directories cannot be
    opened)."""
    try:
        fd = os.open(path.resolve().parent, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def merge_records(runs: Iterable[RunRecords]) -> tuple[Settings, list[GameRecord]]:
    """The games of several records files of one run (e.g. its shards), by game number.
    Files of different runs, or one game in two files, are refused."""
    runs = list(runs)
    if not runs:
        raise RecordsError("no records to merge")
    first = runs[0]
    games: dict[int, tuple[GameRecord, Path]] = {}
    for run in runs:
        differences = first.settings.differences(run.settings)
        if differences:
            raise RecordsError(f"{first.path} and {run.path} are from different runs "
                               f"({'; '.join(differences)})")
        for record in run.games:
            if record.game in games:
                raise RecordsError(f"game {record.game} is in both {games[record.game][1]} and "
                                   f"{run.path}; give each shard's records once")
            games[record.game] = (record, run.path)
    return first.settings, [games[g][0] for g in sorted(games)]
