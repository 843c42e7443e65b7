"""A bot playing a network seat: a faulty or stuck bot never stalls the game; a bot program
hears the end of the game and is told to quit, as in local games."""

from __future__ import annotations

import io
import json
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import trio

from bots.base import Bot, GameInfo, Turn
from bots.netseat import bot_chooser, finished
from bots.process_bot import ProcessBot
from bots.registry import make_bot
from engine import Action
from p2p.net.games import PeerOptions, host_game, join_game
from p2p.session.loopback import LoopbackGame
from p2p.session.machine import GameSession
from p2p.session.seatview import SeatView
from tests.lan_helpers import CONFIG, LOOPBACK, two_peers


def _view_wanting_input() -> SeatView:
    game = LoopbackGame(2)
    for session in game.sessions:
        session.start()
    while not any(s.pending_input for s in game.sessions):
        assert game.deliver(), "the game stalled before anyone had to choose"
    view = next(s for s in game.sessions if s.pending_input).seat_view()
    assert view is not None and view.legal
    return view


class Stuck(Bot):
    name = "stuck"
    time_budget = 0.1

    def __init__(self) -> None:
        self.asked = 0
        self.release = threading.Event()

    def choose(self, turn: Turn) -> Action:
        self.asked += 1
        self.release.wait(3)
        return turn.legal[0]


class Raising(Bot):
    name = "raising"

    def choose(self, turn: Turn) -> Action:
        raise RuntimeError("boom")


class FailsToStart(Bot):
    name = "fails-to-start"

    def __init__(self) -> None:
        self.asked = 0

    def start(self, info: GameInfo) -> None:
        raise OSError("no such program")

    def choose(self, turn: Turn) -> Action:
        self.asked += 1
        return turn.legal[0]


async def test_a_bot_that_fails_to_start_is_never_asked_and_its_seat_plays_on() -> None:
    view = _view_wanting_input()
    legal = view.legal
    bot = FailsToStart()
    with trio.fail_after(2):
        assert await bot_chooser(bot, io.StringIO())(view) in legal
    assert bot.asked == 0


async def test_a_bot_that_never_answers_is_abandoned_and_the_peer_plays_on() -> None:
    view = _view_wanting_input()
    legal = view.legal
    bot, out = Stuck(), io.StringIO()
    choose = bot_chooser(bot, out)
    with trio.fail_after(2.5):
        action = await choose(view)
    assert action in legal
    assert "did not answer within 1.2 s" in out.getvalue()
    with trio.fail_after(0.5):  # given up on: not asked again
        assert await choose(view) in legal
    assert bot.asked == 1
    # its thread's late answer is reported now, not into a later test's bot log
    bot.release.set()
    assert choose.busy is not None and choose.busy.wait(2)


async def test_a_bot_that_raises_gets_a_random_legal_action_played_for_it() -> None:
    view = _view_wanting_input()
    legal = view.legal
    with trio.fail_after(2):
        assert await bot_chooser(Raising(), io.StringIO())(view) in legal


# Answers every decision with its first legal action and writes down every message type it
# gets (with the scores of an `end`) to the file named by its argument.
LISTENER = textwrap.dedent("""
    import json, sys
    heard = open(sys.argv[1], "w")
    for line in sys.stdin:
        m = json.loads(line)
        heard.write(json.dumps({"type": m["type"], "seat": m.get("seat"),
                                "scores": m.get("scores"), "winner": m.get("winner")}) + "\\n")
        heard.flush()
        if m["type"] == "hello":
            print(json.dumps({"type": "ready"}), flush=True)
        elif m["type"] == "decide":
            print(json.dumps({"type": "action", "id": m["id"], "action": m["legal"][0]}),
                  flush=True)
        elif m["type"] == "quit":
            break
""")


def test_a_bot_program_at_a_network_table_hears_end_and_quit(tmp_path: Path) -> None:
    """Issue 46: a ``cmd:`` bot in ``host``/``join --bot`` games only saw its stdin close; it
    gets ``end`` with the seat's scores and the winner, then ``quit``, as in local games."""
    script, heard = tmp_path / "listener.py", tmp_path / "heard.jsonl"
    script.write_text(LISTENER)
    program = make_bot(f"cmd:{sys.executable} {script} {heard}")
    assert isinstance(program, ProcessBot)
    options = [PeerOptions(home=tmp_path / f"peer{i}", bind=LOOPBACK, net=CONFIG)
               for i in range(2)]
    sessions: list[GameSession] = []

    async def host(on_lobby: Any) -> None:
        seat = bot_chooser(program, io.StringIO())
        sessions.append(await finished(seat, host_game(2, seat, lambda _e: None, options[0],
                                                       on_lobby)))

    async def join(code: Any) -> None:
        seat = bot_chooser(make_bot("random"), io.StringIO())
        await finished(seat, join_game(code, seat, lambda _e: None, options[1]))

    two_peers(host, join)
    [session] = sessions
    result = session.result
    assert result is not None
    messages = [json.loads(line) for line in heard.read_text().splitlines()]
    types = [m["type"] for m in messages]
    assert types[0] == "hello" and set(types[1:-2]) == {"decide"}
    assert types[-2:] == ["end", "quit"], types
    end = messages[-2]
    factions = list(session.config.factions)
    assert end["seat"] == messages[0]["seat"]
    assert end["scores"] == [result["scores"][f] for f in factions]
    assert factions[end["winner"]] == result["winner"]
    assert program.exit_code == 0  # it exited on quit, not killed
