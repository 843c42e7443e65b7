"""``solstice serve`` (issue 48 item 12): the terminal UI served to a web browser with
textual-serve, on loopback by default, behind a per-run token anywhere else. A whole game
played in a headless Chromium: tests/test_serve_browser.py."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("textual_serve", reason="solstice serve needs textual-serve (the web "
                    "extra)")

from ui.cli.serve import COOKIE, make_server, play_command, serve_url

ROOT = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _serving(tmp_path: Path) -> tuple[subprocess.Popen[str], str]:
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "ui.cli", "serve", "--port", str(port),
                             "--home", str(tmp_path / "home")], cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert proc.stdout is not None
    url = proc.stdout.readline().strip().rsplit(" ", 1)[-1]
    deadline = time.monotonic() + 20
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return proc, url
        except OSError:
            assert time.monotonic() < deadline, "the server never answered"
            time.sleep(0.2)


def test_serve_prints_a_loopback_url_and_serves_the_app_page(tmp_path: Path) -> None:
    proc, url = _serving(tmp_path)
    try:
        assert url.startswith("http://127.0.0.1:") and url.endswith("/")  # no token here
        with urllib.request.urlopen(url, timeout=5) as page:
            html = page.read().decode()
        assert "<title>Solstice</title>" in html or "Solstice" in html
        assert f"ws://127.0.0.1:{url.split(':')[2].rstrip('/')}/ws" in html
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_off_loopback_the_page_and_its_websocket_need_the_token(tmp_path: Path) -> None:
    from aiohttp.test_utils import TestClient, TestServer

    server = make_server("127.0.0.1", 8000, tmp_path, "s3cret")

    async def scenario() -> tuple[int, int, int, int]:
        app = await server._make_app()
        async with TestClient(TestServer(app)) as client:
            bare = (await client.get("/")).status
            wrong = (await client.get("/?token=guess")).status
            good = await client.get("/?token=s3cret")
            cookie = good.cookies[COOKIE].value
            again = (await client.get("/")).status  # the cookie carries it (the websocket)
            return bare, wrong, good.status, again if cookie == "s3cret" else -1

    assert asyncio.run(scenario()) == (403, 403, 200, 200)
    assert serve_url("10.1.2.3", 8000, "s3cret") == "http://10.1.2.3:8000/?token=s3cret"
    assert play_command(tmp_path).endswith(f"-m ui.cli play --home {tmp_path}")


def test_serve_hands_its_bot_game_to_every_tab_and_refuses_a_bad_bot_at_once(
        capsys: pytest.CaptureFixture[str]) -> None:
    from ui.cli.commands import main

    command = play_command(Path("/h"), 2, ("random",))
    assert command.endswith("-m ui.cli play --home /h --players 2 --bot random"), command
    assert main(["serve", "--port", "1", "--bot", "nosuch"]) == 2
    assert "error: unknown bot 'nosuch'" in capsys.readouterr().err
    assert main(["serve", "--port", "1", "--players", "2", "--bot", "random,greedy"]) == 2
    assert "2 bots given for 1 opponent(s)" in capsys.readouterr().err
