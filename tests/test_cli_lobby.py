"""The headless lobby: the host prints every arrival as it happens ("NAME (id) joined, 2/3"),
and so does a joiner waiting for the table to fill up."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from p2p.identity import Identity

SOLSTICE = Path(sys.executable).parent / "solstice"
LOOPBACK = ["--bind", "127.0.0.1", "--no-discovery", "--bot", "random"]


@pytest.mark.slow
def test_the_headless_host_prints_each_arrival_with_the_count_so_far(tmp_path: Path) -> None:
    joiners = {name: Identity.load_or_create(tmp_path / name).short_id for name in ("ann", "bob")}
    host = subprocess.Popen([str(SOLSTICE), "host", "--players", "3", "--name", "hal", "--home",
                             str(tmp_path / "host"), *LOOPBACK], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    procs = [host]
    try:
        assert host.stdout is not None
        lines = []
        for line in host.stdout:
            lines.append(line)
            if line.startswith("join code: "):
                break
        code = lines[-1].split(": ", 1)[1].strip()
        for name in joiners:  # one after the other: the arrival order is fixed
            with (tmp_path / f"{name}.log").open("w") as out:
                procs.append(subprocess.Popen([str(SOLSTICE), "join", code, "--name", name,
                                               "--home", str(tmp_path / name), *LOOPBACK],
                                              stdout=out, stderr=subprocess.STDOUT))
            for line in host.stdout:
                lines.append(line)
                if f"{name} (" in line:
                    break
        rest, _ = host.communicate(timeout=120)
        for joiner in procs[1:]:
            assert joiner.wait(timeout=60) == 0
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()
    out = "".join(lines) + rest
    arrivals = re.findall(r"\] (\w+ \(\w+\) joined, \d/3)", out)
    assert arrivals == [f"ann ({joiners['ann']}) joined, 2/3",
                        f"bob ({joiners['bob']}) joined, 3/3"], out
    assert host.returncode == 0, out
    # The first joiner saw the table so far, then the last arrival (the roster's table).
    host_id = Identity.load_or_create(tmp_path / "host").short_id
    ann = (tmp_path / "ann.log").read_text()
    lobby = re.findall(r"\] (at the table: .*|\w+ \(\w+\) joined, .*)", ann)
    assert lobby == [f"at the table: hal ({host_id}), ann ({joiners['ann']}, you); 2/3, "
                     "waiting for 1 more", f"bob ({joiners['bob']}) joined, 3/3"], ann


def test_a_headless_joiner_leaves_an_escrow_table_it_did_not_agree_to(tmp_path: Path) -> None:
    """Issue 40, case 6: `solstice join` at a table with escrow, without --accept-escrow,
    stops with one line saying what the escrow is and how to agree; with it, the table's
    terms are shown while it waits."""
    host = subprocess.Popen([str(SOLSTICE), "host", "--players", "3", "--escrow", "--name",
                             "hal", "--home", str(tmp_path / "host"), *LOOPBACK],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert host.stdout is not None
        for line in host.stdout:
            if line.startswith("join code: "):
                code = line.split(": ", 1)[1].strip()
                break
        refused = subprocess.run([str(SOLSTICE), "join", code, "--name", "ann", "--home",
                                  str(tmp_path / "ann"), *LOOPBACK], capture_output=True,
                                 text=True, timeout=60)
        assert refused.returncode != 0
        errors = [line for line in refused.stderr.splitlines() if "error" in line]
        assert len(errors) == 1 and "escrows every player's secret" in errors[0] \
            and "--accept-escrow" in errors[0], refused.stderr
        assert "Traceback" not in refused.stderr + refused.stdout
        with (tmp_path / "bob.log").open("w") as out:
            agreed = subprocess.Popen([str(SOLSTICE), "join", code, "--name", "bob",
                                       "--accept-escrow", "--home", str(tmp_path / "bob"),
                                       *LOOPBACK], stdout=out, stderr=subprocess.STDOUT)
        try:
            for _ in range(600):  # (a minute at most)
                text = (tmp_path / "bob.log").read_text()
                if "the table:" in text or agreed.poll() is not None:
                    break
                time.sleep(0.1)
            assert "the table:" in text and "escrows every player's secret" in text, text
        finally:
            agreed.kill()
            agreed.wait()
    finally:
        host.kill()
        host.wait()
