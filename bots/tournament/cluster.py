"""Tournament games on a Dask distributed cluster (the optional extra ``solstice[cluster]``).

``--cluster tcp://HOST:8786`` uses the workers of a running scheduler; ``--cluster local:K``
starts K worker processes on this machine, listening on 127.0.0.1 only. Each game is one task
running ``play.play_one``, the function the local worker processes run, so the records are the
same as with ``--workers``. Before any game the workers are checked to run the same solstice
(version and code digest), and every task checks it again (a worker may join later). A bot
given as ``path/to/file.py:Class`` is sent to the workers under a name made from its contents;
``cmd:`` bots start a program on each worker, so they are refused unless explicitly allowed.

A Dask scheduler runs whatever tasks its clients send: never expose one beyond a trusted
network.
"""

from __future__ import annotations

import hashlib
import logging
import re
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from bots.registry import split_spec
from bots.tournament.play import GameJob, WrongSolstice, close_cached_bots, play_one
from bots.tournament.records import GameRecord
from bots.tournament.version import identity

_ADDRESS = re.compile(r"^(tcp|tls|ws|wss)://[^\s/]+:\d+$")
_LOCAL = re.compile(r"^local:(\d+)$")


class ClusterError(RuntimeError):
    """The cluster cannot be used: Dask missing, unreachable, or workers running other code."""


def check_specs(bots: Sequence[str], *, allow_cmd: bool) -> None:
    if not allow_cmd and any(spec.startswith("cmd:") for spec in bots):
        raise ClusterError("cmd: bots run a program on every Dask worker, which must be "
                           "installed there; allow that with --cluster-cmd-bots")


def play_on_cluster(address: str, jobs: Sequence[GameJob]) -> Iterator[GameRecord]:
    """The records of ``jobs`` played on the cluster, in the order they finish."""
    with _client(address) as client:
        from dask.distributed import as_completed

        expected = identity()
        _check_workers(client, expected)
        with tempfile.TemporaryDirectory(prefix="solstice-bots-") as folder:
            build = _ship_bot_files(client, jobs[0].bots, Path(folder))
        tasks = [replace(job, build=build, expect=expected) for job in jobs]
        futures = client.map(play_one, tasks, pure=False)
        try:
            for future in as_completed(futures):
                try:
                    record = future.result()
                except WrongSolstice as exc:  # a worker that joined after the first check
                    raise ClusterError(f"a Dask worker runs other code: {exc}") from None
                yield record
        finally:
            client.cancel(futures)
            client.run(close_cached_bots)


@contextmanager
def _client(address: str) -> Iterator[Any]:
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise ClusterError("--cluster needs Dask distributed: install the cluster extra, "
                           "pip install 'solstice[cluster]'") from None
    local = _LOCAL.match(address)
    if local:
        workers = int(local.group(1))
        if workers < 1:
            raise ClusterError("local:K needs at least one worker")
        # Loopback only: a test or a single big machine needs no network. The scheduler's
        # HTTP server always starts; a free port keeps it off a fixed 8787 another run holds.
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               host="127.0.0.1", dashboard_address="127.0.0.1:0",
                               worker_dashboard_address=None, silence_logs=logging.ERROR)
        try:
            with Client(cluster) as client:
                yield client
        finally:
            cluster.close()
        return
    if not _ADDRESS.match(address):
        raise ClusterError(f"bad --cluster {address!r}: use tcp://HOST:PORT (a Dask scheduler) "
                           "or local:K")
    try:
        client = Client(address, timeout="20s")
    except (OSError, TimeoutError) as exc:
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
    with client:
        yield client


def _check_workers(client: Any, expected: tuple[str, str]) -> None:
    try:
        client.wait_for_workers(1, timeout=60)
    except TimeoutError:
        raise ClusterError("the Dask cluster has no workers (waited 60 s)") from None
    found = client.run(identity)
    wrong = {worker: tuple(ident) for worker, ident in found.items()
             if tuple(ident) != expected}
    if wrong:
        worker, (version, digest) = next(iter(sorted(wrong.items())))
        raise ClusterError(f"{len(wrong)} Dask worker(s) run another solstice than this one "
                           f"(version {expected[0]}, code {expected[1]}), e.g. {worker}: "
                           f"version {version}, code {digest}; install the same on every "
                           "worker")


def bot_file(spec: str) -> tuple[Path, str, str] | None:
    """(file, class, option suffix) of a ``path/to/file.py:Class[:options]`` spec, else None."""
    if spec.startswith("cmd:"):
        return None
    target, _ = split_spec(spec)
    where, sep, cls = target.rpartition(":")
    if not sep or not (where.endswith(".py") or "/" in where or "\\" in where):
        return None
    return Path(where).expanduser(), cls, spec.strip()[len(target):]


def _ship_bot_files(client: Any, bots: Sequence[str], folder: Path) -> dict[str, str]:
    """Send each bot file to the workers as a module named by its contents (no clash with other
    modules, nor between two versions of a file) and say how a worker makes the bot."""
    build = {}
    for spec in bots:
        found = bot_file(spec)
        if found is None:
            continue
        path, cls, options = found
        source = path.read_bytes()
        module = "solstice_shipped_" + hashlib.sha256(source).hexdigest()[:16]
        copy = folder / f"{module}.py"
        copy.write_bytes(source)
        client.upload_file(str(copy))
        build[spec] = f"{module}:{cls}{options}"
    return build
