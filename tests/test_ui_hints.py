"""Every recovery command the terminal UI prints works when copied: the leave dialog and the
text printed after the app closes offer ``solstice resume`` only for a game this home holds
unfinished (the rematch's own game, never the finished one before it), and a joiner who was
never in a game is sent to ``solstice join``, not to a command they never ran. Screens are
driven with Pilot from plain data; the printed commands are run with the real CLI."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest
from test_ui_feedback import FakeBridge, _text

from p2p.net.rematch import rematch_game_id
from ui.app.app import SolsticeApp
from ui.app.messages import GameEnded
from ui.app.netgame import NetSetup
from ui.app.screens.dialogs import LeaveScreen
from ui.app.screens.summary import EndScreen

SOLSTICE = Path(sys.executable).parent / "solstice"
LAST = "0123abcd" * 4
RESULT = {"summary": "blue wins", "scores": {}, "winner": "blue"}


def _store(home: Path, game: str, finished: bool) -> None:
    where = home / "games" / game
    where.mkdir(parents=True, exist_ok=True)
    (where / "roster.json").write_text("{}")
    if finished:
        (where / "finished.json").write_text('{"ok": true}')


class RematchApp(SolsticeApp):
    """The end screen of a finished network game; the rematch's network side is not run."""

    def __init__(self, home: Path) -> None:
        from p2p.net.games import PeerOptions

        super().__init__(NetSetup("host", PeerOptions(home=home), players=2))
        self.networks: list[NetSetup] = []

    def on_ready(self) -> None:
        self.bridge = FakeBridge()  # type: ignore[assignment]
        self.game_id = LAST
        self.started = True
        self.deliver(GameEnded(RESULT, "", None, LAST, None))

    def _start_network(self, setup: NetSetup) -> None:
        self.networks.append(setup)
        self.bridge = FakeBridge()  # type: ignore[assignment]


def _leave_text(app: SolsticeApp) -> str:
    """The leave dialog's text as one line: wrapped lines joined, a command broken with a
    trailing backslash joined as the shell joins it."""
    assert isinstance(app.screen, LeaveScreen)
    return " ".join(_text(app.screen).replace("\\\n", "").split())


@pytest.mark.parametrize("rematch_started", [False, True])
def test_the_rematch_leave_dialog_names_the_rematch_never_the_finished_game(
        tmp_path: Path, rematch_started: bool) -> None:
    home = tmp_path / "me"
    _store(home, LAST, finished=False)  # even a last game whose end was never marked
    new = rematch_game_id(LAST)

    async def scenario() -> str:
        app = RematchApp(home)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, EndScreen)
            app.action_rematch()
            await pilot.pause()
            assert app.networks[-1].mode == "rematch"
            if rematch_started:
                _store(home, new, finished=False)
            app.action_leave()
            await pilot.pause()
            return _leave_text(app)

    text = asyncio.run(scenario())
    assert LAST not in text, text
    if rematch_started:
        assert f"solstice resume {new} --home {home}" in text
    else:
        assert "solstice resume" not in text and "nothing to resume" in text


def test_a_rematch_nobody_joined_prints_no_resume_command(tmp_path: Path) -> None:
    """The rematch's network side gives up (nobody came within 60 s): the end screen and the
    text printed after the app closes (the same ``resume_hint``) offer no resume."""
    home = tmp_path / "me"
    _store(home, LAST, finished=True)

    async def scenario() -> tuple[str, str]:
        app = RematchApp(home)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            app.action_rematch()
            await pilot.pause()
            app.deliver(GameEnded(None, "nobody joined the rematch within 60 s", None,
                                  rematch_game_id(LAST), str(home)))
            await pilot.pause()
            assert isinstance(app.screen, EndScreen)
            return app.resume_hint(), _text(app.screen)

    hint, screen = asyncio.run(scenario())
    assert "solstice resume" not in hint and "nothing to resume" in hint, hint
    assert "solstice resume" not in screen and "nothing to resume" in screen


def _run(command: str, home: Path) -> subprocess.CompletedProcess[str]:
    words = command.split()
    assert words[0] == "solstice"
    return subprocess.run([str(SOLSTICE), *words[1:]], capture_output=True, text=True,
                          timeout=60)


def test_a_joiner_whose_host_closed_the_lobby_is_sent_to_a_command_that_runs(
        tmp_path: Path) -> None:
    """The joiner never ran a join command (it picked the game on the start screen); the
    hint names ``solstice join`` with this home, which lists the LAN's games."""
    from p2p.net.games import PeerOptions
    from p2p.net.joincode import JoinCode

    home = tmp_path / "me"
    code = JoinCode("127.0.0.1", 9, LAST, "ab" * 32)

    class Closed(SolsticeApp):
        def on_ready(self) -> None:
            self.deliver(GameEnded(None, "the host closed the lobby before the game started",
                                   None, LAST, str(home)))
            self.set_timer(0.2, lambda: self.exit(1))

        def _start_network(self, setup: NetSetup) -> None:
            self.bridge = FakeBridge()  # type: ignore[assignment]

    async def scenario() -> str:
        app = Closed(NetSetup("join", PeerOptions(home=home), code=code))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause(0.1)
            return app.resume_hint()

    hint = asyncio.run(scenario())
    assert "same" not in hint and "solstice resume" not in hint
    command = hint.rsplit(":\n", 1)[1]  # (a command stands on a line of its own)
    assert command == f"solstice join --home {home}"
    # The command is real: its --help runs (the bare command opens the LAN start screen).
    done = _run(command + " --help", home)
    assert done.returncode == 0
    assert "Without one, the UI lists the LAN's games" in " ".join(done.stdout.split())

