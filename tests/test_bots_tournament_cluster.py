"""Tournaments on a Dask cluster: the same records and JSON as local worker processes, bot files
shipped to the workers, workers running other code refused, cmd: bots only when allowed."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bots.tournament import GameRecord, read_records, run_tournament
from bots.tournament.cluster import ClusterError, _check_workers, bot_file, check_specs
from bots.tournament.play import GameJob, WrongSolstice, play_one
from bots.tournament.version import identity
from ui.cli import app

ROOT = Path(__file__).resolve().parents[1]
FILE_BOT = f"{ROOT / 'bots' / 'examples' / 'my_bot.py'}:MyBot:greed=2"


def _outcomes(records: list[GameRecord]) -> list[dict]:
    return sorted((r.outcome() for r in records), key=lambda o: o["game"])


@pytest.mark.slow
def test_local_cluster_gives_the_same_records_and_json_as_worker_processes(
        tmp_path: Path) -> None:
    pytest.importorskip("distributed", reason="Dask distributed is not installed (the "
                        "cluster extra, pip install 'solstice[cluster]')")
    # A bot file too: the workers make it from the shipped copy, not from this path.
    bots = f"greedy,random,{FILE_BOT}"
    common = ["tournament", "--bots", bots, "--players", "3", "--games", "6", "--seed", "dask",
              "--json"]
    runner = CliRunner()
    on_cluster = runner.invoke(app, [*common, "--cluster", "local:2", "--records",
                                     str(tmp_path / "cluster.jsonl")])
    in_pool = runner.invoke(app, [*common, "--workers", "2", "--records",
                                  str(tmp_path / "pool.jsonl")])
    assert on_cluster.exit_code == 0, on_cluster.output
    assert in_pool.exit_code == 0, in_pool.output
    assert json.loads(on_cluster.output) == json.loads(in_pool.output)
    assert json.loads(on_cluster.output)["games"] == 6
    cluster_records = read_records(tmp_path / "cluster.jsonl")
    pool_records = read_records(tmp_path / "pool.jsonl")
    assert cluster_records is not None and pool_records is not None
    assert _outcomes(list(cluster_records.games)) == _outcomes(list(pool_records.games))


@pytest.mark.slow
def test_a_running_scheduler_is_used_by_its_address() -> None:
    distributed = pytest.importorskip("distributed", reason="Dask distributed is not "
                                      "installed (pip install 'solstice[cluster]')")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=True,
                                  host="127.0.0.1", dashboard_address="127.0.0.1:0") as cluster:
        remote = run_tournament(["greedy", "random"], games=4, players=2, seed="tcp",
                                cluster=cluster.scheduler_address)
    assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
    local = run_tournament(["greedy", "random"], games=4, players=2, seed="tcp")
    assert remote.to_json() == local.to_json()


def test_a_bot_file_spec_is_found_with_its_class_and_options() -> None:
    assert bot_file("dir/my_bot.py:MyBot:greed=2,x=1") == (Path("dir/my_bot.py"), "MyBot",
                                                           ":greed=2,x=1")
    assert bot_file("dir/my_bot.py:MyBot") == (Path("dir/my_bot.py"), "MyBot", "")
    assert bot_file("ismcts:iterations=5") is None
    assert bot_file("package.module:Class") is None
    assert bot_file("cmd:python3 bot.py:X") is None


def test_cmd_bots_need_an_explicit_flag_on_a_cluster() -> None:
    with pytest.raises(ClusterError, match="--cluster-cmd-bots"):
        check_specs(["greedy", "cmd:python3 bot.py"], allow_cmd=False)
    check_specs(["greedy", "cmd:python3 bot.py"], allow_cmd=True)
    out = CliRunner().invoke(app, ["tournament", "--bots", "greedy,cmd:python3 bot.py",
                                   "--games", "2", "--cluster", "local:1"])
    assert out.exit_code == 2 and "must be installed there" in out.output


class FakeClient:
    def __init__(self, identities: dict[str, tuple[str, str]]) -> None:
        self.identities = identities

    def wait_for_workers(self, n: int, timeout: float) -> None:
        pass

    def run(self, function):
        return dict(self.identities)


def test_workers_running_other_solstice_code_are_refused() -> None:
    ours = identity()
    _check_workers(FakeClient({"tcp://10.0.0.1:1": ours}), ours)
    with pytest.raises(ClusterError, match=r"1 Dask worker\(s\) run another solstice .* "
                       r"tcp://10.0.0.2:1: version 0.0.9"):
        _check_workers(FakeClient({"tcp://10.0.0.1:1": ours,
                                   "tcp://10.0.0.2:1": ("0.0.9", ours[1])}), ours)


def test_a_game_task_refuses_to_run_on_other_code() -> None:
    job = GameJob(("greedy", "random"), 2, "v", 0, expect=("0.0.9", "feedface"))
    with pytest.raises(WrongSolstice):
        play_one(job)


def test_a_bad_cluster_address_is_a_one_line_error() -> None:
    pytest.importorskip("distributed", reason="Dask distributed is not installed")
    out = CliRunner().invoke(app, ["tournament", "--bots", "greedy,random", "--games", "2",
                                   "--cluster", "example.org"])
    assert out.exit_code == 2
    assert "bad --cluster 'example.org': use tcp://HOST:PORT" in out.output


def test_without_dask_the_cluster_option_says_what_to_install(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "dask.distributed", None)  # import fails
    with pytest.raises(ClusterError, match=r"pip install 'solstice\[cluster\]'"):
        run_tournament(["greedy", "random"], games=2, players=2, cluster="local:1")
