"""A local bot program's log messages and stderr show in the terminal UI's log pane (and are
not printed over the screen)."""

from __future__ import annotations

import asyncio
import sys
import textwrap
import time
from pathlib import Path

from p2p.net.games import PeerOptions
from ui.app.app import SolsticeApp
from ui.app.netgame import NetSetup
from ui.app.screens.game import GameScreen

TALKING_BOT = textwrap.dedent("""
    import json, sys
    for line in sys.stdin:
        m = json.loads(line)
        if m["type"] == "hello":
            print(json.dumps({"type": "ready", "name": "talker"}), flush=True)
            print(json.dumps({"type": "log", "message": "talker: hello, table"}), flush=True)
            sys.stderr.write("talker: a diagnostic\\n"); sys.stderr.flush()
        elif m["type"] == "decide":
            print(json.dumps({"type": "action", "id": m["id"], "action": m["legal"][0]}),
                  flush=True)
""")


def test_a_local_bot_program_talks_in_the_log_pane(tmp_path: Path, capsys) -> None:
    script = tmp_path / "talker.py"
    script.write_text(TALKING_BOT)
    options = PeerOptions(home=tmp_path / "home", name="tester", bind="127.0.0.1", port=0)
    setup = NetSetup("play", options, players=2, bots=(f"cmd:{sys.executable} {script}",),
                     seed="talk")

    async def scenario() -> list[str]:
        app = SolsticeApp(setup)
        async with app.run_test(size=(100, 36)) as pilot:
            deadline = time.monotonic() + 40
            while time.monotonic() < deadline:
                lines = [line for line in app.log_lines if line.startswith("[bot ")]
                if isinstance(app.screen, GameScreen) and len(lines) >= 2:
                    break
                await pilot.pause(0.05)
            await pilot.press("q")
            await pilot.pause(0.1)
            await pilot.press("y")
            await pilot.pause(0.2)
        return list(app.log_lines)

    lines = asyncio.run(scenario())
    assert any("] talker: hello, table" in line and " seat " in line for line in lines), lines
    assert any(" stderr] talker: a diagnostic" in line for line in lines), lines
    assert "talker: a diagnostic" not in capsys.readouterr().err  # not over the screen
