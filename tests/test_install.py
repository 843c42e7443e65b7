"""The package installs anywhere: ``python -m build`` makes an sdist and a wheel, the wheel
installs (not editable) into a fresh virtual environment, and there, away from the source tree,
``solstice --version``, ``simulate``, ``bots``, a 2-player loopback game and ``verify`` of its
transcript run, with the engine the wheel carries (compiled when this tree's is).

The wheel build reuses the tree's compiled engine when it is current (``make`` made it), so the
test does not spend a mypyc compile (without one it builds a pure-Python wheel); the
dependencies come from this environment (a ``.pth`` line in the fresh one), so nothing is
downloaded. Building the wheel from the sdist, which compiles the engine afresh (about 35-60
s), is a soak test.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import tarfile
import time
import zipfile
from pathlib import Path

import pytest

import engine

ROOT = Path(__file__).resolve().parent.parent
LOOPBACK = "127.0.0.1"


def _run(args: list[str], cwd: Path, timeout: float = 120,
         **extra: str) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "SOLSTICE_EXPECT_COMPILED", "SOLSTICE_PURE")}
    env.update(extra)
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env=env, check=False)
    assert done.returncode == 0, f"{args}: {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``bin`` directory of a fresh venv holding the wheel built from this tree."""
    root = tmp_path_factory.mktemp("install")
    dist = root / "dist"
    # no compile here: the tree's build, or a pure-Python wheel when the tree has none
    pure = {} if engine.ENGINE_BUILD == "compiled" else {"SOLSTICE_PURE": "1"}
    _run([sys.executable, "-m", "build", "--no-isolation", "--sdist", "--wheel",
          "--outdir", str(dist), str(ROOT)], cwd=root, timeout=300, **pure)
    (wheel,) = dist.glob("solstice_table-*.whl")
    (sdist,) = dist.glob("solstice_table-*.tar.gz")
    assert sdist.stat().st_size > 0
    venv = root / "fresh venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=root)
    python = venv / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
          "--no-deps", "--no-index", str(wheel)], cwd=root)
    # The dependencies: this environment's site-packages, after the fresh venv's own (a path
    # line in a .pth is not itself a site directory, so the tree's editable install stays out).
    purelib = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                   cwd=root).stdout.strip()
    Path(purelib, "deps-from-test.pth").write_text(sysconfig.get_path("purelib") + "\n")
    return venv / "bin"


@pytest.mark.slow
def test_the_wheel_runs_its_own_engine_away_from_the_tree(installed: Path,
                                                          tmp_path: Path) -> None:
    where = _run([str(installed / "python"), "-c",
                  "import engine.game, ui; print(engine.game.__file__); print(ui.__file__)"],
                 cwd=tmp_path).stdout.splitlines()
    assert all(Path(path).is_relative_to(installed.parent) for path in where), where
    version = _run([str(installed / "solstice"), "--version"], cwd=tmp_path).stdout
    assert version.startswith("solstice 0.1.0; engine: ")
    if engine.ENGINE_BUILD == "compiled":  # the tree's build went into the wheel
        assert version.strip().endswith("engine: compiled (mypyc)"), version
    else:
        assert "engine: pure Python (built as a pure-Python wheel" in version, version
    pure = _run([str(installed / "solstice"), "--version"], cwd=tmp_path, SOLSTICE_PURE="1")
    assert pure.stdout.strip().endswith("engine: pure Python (SOLSTICE_PURE is set)")


@pytest.mark.slow
def test_simulate_bots_a_loopback_game_and_verify_run_from_the_wheel(installed: Path,
                                                                     tmp_path: Path) -> None:
    solstice = str(installed / "solstice")
    simulated = _run([solstice, "simulate", "--players", "4", "--games", "20", "--json"],
                     cwd=tmp_path).stdout
    assert '"games": 20' in simulated, simulated
    assert "random" in _run([solstice, "bots"], cwd=tmp_path).stdout
    # a home with a space and non-ASCII letters, as on many desktops
    homes = [tmp_path / "Spieler Ä" / "host", tmp_path / "Joueur é" / "join"]
    logs = [tmp_path / "host.log", tmp_path / "join.log"]
    bot = ["--bot", "random", "--bind", LOOPBACK, "--no-discovery"]
    host = subprocess.Popen([solstice, "host", "-n", "2", "--home", str(homes[0]), *bot],
                            stdout=logs[0].open("wb"), stderr=subprocess.STDOUT, cwd=tmp_path)
    procs = [host]
    try:
        deadline = time.monotonic() + 30
        while "join code: " not in (text := logs[0].read_text(errors="replace")):
            assert host.poll() is None and time.monotonic() < deadline, text
            time.sleep(0.05)
        code = text.split("join code: ", 1)[1].split()[0]
        procs.append(subprocess.Popen([solstice, "join", code, "--home", str(homes[1]), *bot],
                                      stdout=logs[1].open("wb"), stderr=subprocess.STDOUT,
                                      cwd=tmp_path))
        for proc, log in zip(procs, logs, strict=True):
            assert proc.wait(90) == 0, log.read_text(errors="replace")
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
    for home in homes:
        (transcript,) = home.glob("games/*/transcript.json")
        verified = _run([solstice, "verify", str(transcript)], cwd=tmp_path)
        assert verified.returncode == 0


@pytest.mark.soak
def test_a_wheel_built_from_the_sdist_compiles_its_engine(tmp_path: Path) -> None:
    """What pip and pipx do with the sdist (the tree's build is not in it): compile afresh."""
    if engine.ENGINE_BUILD != "compiled":
        pytest.skip(f"no compiled engine in this tree either: {engine.ENGINE_REASON}")
    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "build", "--no-isolation", "--sdist", "--outdir", str(dist),
          str(ROOT)], cwd=tmp_path)
    (sdist,) = dist.glob("*.tar.gz")
    with tarfile.open(sdist) as archive:
        archive.extractall(tmp_path / "src", filter="data")
    (source,) = (tmp_path / "src").iterdir()
    assert not (source / "engine" / "_compiled").exists()
    _run([sys.executable, "-m", "build", "--no-isolation", "--wheel", "--outdir", str(dist),
          str(source)], cwd=tmp_path, timeout=600)
    (wheel,) = dist.glob("*.whl")
    assert "-cp3" in wheel.name and "none-any" not in wheel.name, wheel.name
    names = zipfile.ZipFile(wheel).namelist()
    assert "engine/_compiled/SOURCES" in names
    assert any(name.startswith("engine/_compiled/native__mypyc") for name in names)
