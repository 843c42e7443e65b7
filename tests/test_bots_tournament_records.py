"""Tournament records: durable lines, resume after a kill (no game lost, none played twice),
refusal of other runs' records, shards merged into the result of one run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bots.tournament import (
    GameRecord,
    RecordsError,
    Settings,
    Shard,
    read_records,
    run_tournament,
)
from bots.tournament.records import RecordsWriter
from ui.cli import app

BOTS = ["greedy", "random"]
ROOT = Path(__file__).resolve().parents[1]


class Played:
    """A progress listener that remembers what was already done and what was played."""

    def __init__(self) -> None:
        self.done: list[int] = []
        self.played: list[int] = []

    def start(self, total: int, done: Sequence[GameRecord]) -> None:
        self.done = [r.game for r in done]

    def game(self, record: GameRecord) -> None:
        self.played.append(record.game)


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def test_every_finished_game_is_one_line_after_the_run_header(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    result = run_tournament(BOTS, games=4, players=2, seed="rec", records=path)
    header, *games = _lines(path)
    assert header["type"] == "run" and header["bots"] == BOTS and header["games"] == 4
    assert header["seed"] == "rec" and header["players"] == 2 and header["shard"] == [1, 1]
    assert sorted(g["game"] for g in games) == [0, 1, 2, 3]
    first = next(g for g in games if g["game"] == 0)
    assert first["deal"] == "rec/0" and first["seats"] == BOTS
    assert len(first["scores"]) == len(first["factions"]) == 2
    assert first["winner"] in (0, 1) and first["rounds"] >= 1
    assert all(d > 0 for d in first["decisions"])
    assert all(t >= 0 for t in first["seconds_per_decision"]) and first["faults"] == []
    assert [r.to_json() for r in result.records] == sorted(games, key=lambda g: g["game"])


def test_a_run_never_overwrites_existing_records(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    run_tournament(BOTS, games=2, players=2, records=path)
    before = path.read_bytes()
    with pytest.raises(RecordsError, match="already holds records; continue that run with "
                       "--resume"):
        run_tournament(BOTS, games=2, players=2, records=path)
    other = tmp_path / "notes.txt"
    other.write_text("my notes\n")
    with pytest.raises(RecordsError, match="damaged"):
        run_tournament(BOTS, games=2, players=2, records=other)
    assert path.read_bytes() == before and other.read_text() == "my notes\n"


def test_resume_refuses_records_of_other_settings(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    run_tournament(BOTS, games=2, players=2, seed="a", records=path)
    with pytest.raises(RecordsError, match=r"another run \(seed 'a' vs 'b'\)"):
        run_tournament(BOTS, games=2, players=2, seed="b", records=path, resume=True)
    with pytest.raises(RecordsError, match="shard 1/1 vs 1/2"):
        run_tournament(BOTS, games=2, players=2, seed="a", records=path, resume=True,
                       shard=Shard(1, 2))


def test_a_damaged_line_before_the_last_is_an_error_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    run_tournament(BOTS, games=2, players=2, records=path)
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(lines[0] + b"{garbage\n" + lines[2])
    with pytest.raises(RecordsError, match=r"run.jsonl, line 2: damaged"):
        run_tournament(BOTS, games=2, players=2, records=path, resume=True)


def test_resume_cuts_a_torn_last_line_and_plays_only_the_missing_games(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    run_tournament(BOTS, games=6, players=2, seed="torn", records=path)
    lines = path.read_bytes().splitlines(keepends=True)
    # as if killed while writing game 4's line, with game 5 never played
    kept = [line for line in lines if b'"game":4,' not in line and b'"game":5,' not in line]
    torn = next(line for line in lines if b'"game":4,' in line)[:40]
    path.write_bytes(b"".join(kept) + torn)
    played = Played()
    resumed = run_tournament(BOTS, games=6, players=2, seed="torn", records=path, resume=True,
                             progress=played)
    assert sorted(played.done) == [0, 1, 2, 3] and sorted(played.played) == [4, 5]
    assert [r.game for r in resumed.records] == list(range(6))
    assert path.read_bytes().endswith(b"\n") and len(_lines(path)) == 7
    fresh = run_tournament(BOTS, games=6, players=2, seed="torn")
    assert resumed.to_json() == fresh.to_json()


@pytest.mark.slow
def test_a_run_killed_mid_game_resumes_with_no_game_lost_or_played_twice(tmp_path: Path) -> None:
    path = tmp_path / "killed.jsonl"
    games = 24
    command = [sys.executable, "-m", "ui.cli", "tournament", "--bots", ",".join(BOTS),
               "--games", str(games), "--seed", "kill", "--records", str(path)]
    child = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and child.poll() is None:
            if path.exists() and path.read_bytes().count(b"\n") >= 4:  # header + 3 games
                break
            time.sleep(0.005)
        assert child.poll() is None, "the run ended before it could be killed"
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.kill()
        child.wait(timeout=10)
    before = read_records(path)
    assert before is not None and 3 <= len(before.games) < games
    played = Played()
    result = run_tournament(BOTS, games=games, players=2, seed="kill", records=path,
                            resume=True, progress=played)
    assert sorted(played.done) == sorted(r.game for r in before.games)
    assert not set(played.done) & set(played.played)          # none played twice
    assert sorted(played.done + played.played) == list(range(games))  # none lost
    recorded = [line["game"] for line in _lines(path)[1:]]
    assert sorted(recorded) == list(range(games))
    assert result.to_json() == run_tournament(BOTS, games=games, players=2,
                                              seed="kill").to_json()


def test_resume_from_the_command_line_takes_the_settings_from_the_records(
        tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    run_tournament(BOTS, games=4, players=2, seed="cli", records=path)
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:3]))  # games 2 and 3 lost
    runner = CliRunner()
    out = runner.invoke(app, ["tournament", "--records", str(path), "--resume", "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["games"] == 4 and len(_lines(path)) == 5
    bad = runner.invoke(app, ["tournament", "--bots", "greedy,random", "--resume"])
    assert bad.exit_code == 2 and "--resume needs --records FILE" in bad.output


def _shard_files(tmp_path: Path, count: int, seed: str = "sh") -> list[Path]:
    paths = []
    for k in range(1, count + 1):
        path = tmp_path / f"shard{k}.jsonl"
        run_tournament(BOTS, games=12, players=2, seed=seed, shard=Shard(k, count),
                       records=path)
        paths.append(path)
    return paths


def test_shards_merge_to_the_result_of_one_run(tmp_path: Path) -> None:
    paths = _shard_files(tmp_path, 3)
    runner = CliRunner()
    merged = runner.invoke(app, ["tournament", "merge", *map(str, paths), "--json"])
    whole = runner.invoke(app, ["tournament", "--bots", "greedy,random", "--games", "12",
                                "--seed", "sh", "--json"])
    assert merged.exit_code == 0 and whole.exit_code == 0, merged.output + whole.output
    assert json.loads(merged.output) == json.loads(whole.output)
    text = runner.invoke(app, ["tournament", "merge", *map(str, paths[:2])])
    assert text.exit_code == 0
    assert "8 games merged from 2 file(s)" in text.output
    assert "4 of the run's 12 games are not in these records" in text.output


def test_merge_refuses_records_of_different_runs_or_a_game_twice(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    ours = _shard_files(tmp_path / "a", 2)
    other = tmp_path / "other.jsonl"
    run_tournament(BOTS, games=12, players=2, seed="else", shard=Shard(2, 2), records=other)
    runner = CliRunner()
    mixed = runner.invoke(app, ["tournament", "merge", str(ours[0]), str(other)])
    assert mixed.exit_code == 2
    assert "are from different runs (seed 'sh' vs 'else')" in mixed.output
    twice = runner.invoke(app, ["tournament", "merge", str(ours[0]), str(ours[0])])
    assert twice.exit_code == 2 and "is in both" in twice.output
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    none = runner.invoke(app, ["tournament", "merge", str(empty)])
    assert none.exit_code == 2 and "holds no records" in none.output


def test_two_runs_cannot_write_one_records_file_at_once(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    settings = Settings(tuple(BOTS), 2, "lock", 4, "0")
    with (RecordsWriter(path, settings, Shard(), resume=False),
          pytest.raises(RecordsError, match="being written by another tournament run")):
        RecordsWriter(path, settings, Shard(), resume=True)
    with RecordsWriter(path, settings, Shard(), resume=True) as again:
        assert again.done == ()


def test_resuming_a_shard_takes_the_shard_from_the_records(tmp_path: Path) -> None:
    path = tmp_path / "shard.jsonl"
    run_tournament(BOTS, games=8, players=2, seed="sr", shard=Shard(2, 2), records=path)
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:2]))  # one of the shard's 4 games kept
    out = CliRunner().invoke(app, ["tournament", "--records", str(path), "--resume"])
    assert out.exit_code == 0, out.output
    assert out.output.splitlines()[1].startswith("4 games, shard 2/2, 2 players")
    assert sorted(line["game"] for line in _lines(path)[1:]) == [2, 3, 6, 7]


def test_a_failed_write_is_a_records_error_and_keeps_the_games_before_it(
        tmp_path: Path, monkeypatch) -> None:
    import errno

    from bots.tournament import records as records_module

    path = tmp_path / "full.jsonl"
    settings = Settings(tuple(BOTS), 2, "full", 4, "0")
    record = GameRecord(0, "full/0", tuple(BOTS), ("black", "white"), (5, 1), 0, 2, (9, 9),
                        (0.0, 0.0))
    with RecordsWriter(path, settings, Shard(), resume=False) as writer:
        writer.append(record)

        def no_space(fd: int) -> None:
            raise OSError(errno.ENOSPC, "No space left on device")

        monkeypatch.setattr(records_module.os, "fsync", no_space)
        with pytest.raises(RecordsError, match=r"cannot write records .*No space left"):
            writer.append(replace(record, game=1))
    monkeypatch.undo()
    saved = read_records(path)
    assert saved is not None and saved.games[0] == record


def test_a_header_torn_at_the_start_is_written_anew_but_other_text_is_kept(
        tmp_path: Path) -> None:
    settings = Settings(tuple(BOTS), 2, "head", 2, "0")
    torn = tmp_path / "torn.jsonl"
    torn.write_bytes(b'{"type":"run","for')
    with RecordsWriter(torn, settings, Shard(), resume=True) as writer:
        assert writer.done == ()
    assert _lines(torn)[0]["type"] == "run"
    notes = tmp_path / "notes.txt"
    notes.write_bytes(b"a note without a newline")
    for resume in (False, True):
        with pytest.raises(RecordsError, match="not a records file of this run"):
            RecordsWriter(notes, settings, Shard(), resume=resume)
    assert notes.read_bytes() == b"a note without a newline"
