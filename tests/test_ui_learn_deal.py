"""``solstice play --learn``: a curated first game, the same deal every time, that meets every
lesson (issue 48, item 2); a game with anyone else at the table keeps its random secrets."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
import trio

from bots.base import Bot, GameInfo, Turn
from bots.registry import make_bot
from engine import Capture, Pick
from p2p.identity import Identity
from p2p.net.games import PeerOptions
from p2p.net.roster import Roster, RosterEntry
from p2p.net.runner import open_session
from p2p.session.loopback import LoopbackGame
from p2p.session.machine import GameSession
from p2p.session.secrets import fixed_master, master_of
from p2p.storage.store import GameStore
from ui.app.learngame import (
    LEARN_BOT_SEED,
    LEARN_SEED,
    TeachingBot,
    learn_game_id,
    learning_home,
)
from ui.app.lessons import LESSON_IDS, LESSONS, event_lesson
from ui.app.messages import AskHuman
from ui.app.netgame import NetGame, NetSetup
from ui.cli.play import LEARN_BOT


def learning_game(player: Bot, player_seed: bytes, seed: bytes = LEARN_SEED,
                  first_hand: list[str | None] | None = None) -> GameSession:
    """The learning game as ``play --learn`` sets it up (the player's peer hosts: peer 0; its
    bot, the teaching ``random``, is peer 1), over the whole protocol in one process, with
    ``player`` in the player's seat. Returns the player's session, the game over;
    ``first_hand`` gets the player's hand at its first decision."""
    game_id = learn_game_id(seed)
    loop = LoopbackGame.__new__(LoopbackGame)
    loop.network, loop.game_id, loop.frames, loop.bytes = False, game_id, 0, 0
    loop.identities = [Identity.generate() for _ in range(2)]
    loop.masters = [fixed_master(seed, game_id, peer) for peer in range(2)]
    keys = [identity.public_bytes for identity in loop.identities]
    loop.sessions = [GameSession(game_id, keys, me, loop.identities[me], loop.masters[me])
                     for me in range(2)]
    bots: list[Bot] = [player, TeachingBot(make_bot(LEARN_BOT))]
    seeds = [player_seed, LEARN_BOT_SEED]
    started: set[int] = set()

    def choose(seats: Any) -> Any:
        bot = bots[seats.peer]
        if seats.peer not in started:
            started.add(seats.peer)
            if seats.peer == 0 and first_hand is not None:
                first_hand.extend(c["label"] for c in seats.board()["hand"])
            bot.start(GameInfo(seats.seat, seats.config, seeds[seats.peer], game=seats.game_id))
        return bot.choose(Turn(seats.state, seats.seat, list(seats.legal)))

    loop.play(choose)
    me = loop.sessions[0]
    assert me.result is not None, "the learning game did not end"
    return me


def lessons_met(session: GameSession) -> set[str]:
    """The lessons a player of ``session`` met: every phase's, and each event's
    (``event_lesson``: what the UI opens the first time each comes up)."""
    met = set(LESSONS)
    for event in session.engine.events:
        found = event_lesson(event)
        if found is not None:
            met.add(found[0])
    return met


@pytest.mark.parametrize(("player", "seed"), [("greedy", b"g"), ("random", b"r1")])
def test_the_learning_game_meets_every_lesson(player: str, seed: bytes) -> None:
    me = learning_game(make_bot(player), seed)
    assert lessons_met(me) == set(LESSON_IDS)
    assert "prisoners" in LESSON_IDS and "claims" in LESSON_IDS


def test_the_teaching_bot_takes_a_prisoner_at_its_first_chance_then_plays_its_bot() -> None:
    class First(Bot):
        name = "first"

        def choose(self, turn: Turn) -> Any:
            return turn.legal[0]

    bot = TeachingBot(First())
    capture, other = Capture(1, 7), Capture(1, 8)
    pick = Pick(1, (3,))  # any action but a capture
    turn = Turn(None, 1, [pick, capture, other])  # type: ignore[arg-type]
    assert bot.choose(turn) == capture
    assert bot.choose(turn) == pick  # once only: then the inner bot's choice


def _roster(ids: list[Identity], game_id: str) -> Roster:
    return Roster(game_id, tuple(RosterEntry(n, f"p{n}", i.public_bytes, "127.0.0.1", 1)
                                 for n, i in enumerate(ids)))


def test_only_a_learning_game_fixes_its_secrets(tmp_path: Path) -> None:
    ids = [Identity.generate() for _ in range(2)]
    game_id = learn_game_id()
    roster = _roster(ids, game_id)
    keys = [i.public_bytes for i in ids]
    fixed = [open_session(roster, ids[me], GameStore(tmp_path / f"f{me}", game_id),
                          fixed_secrets=LEARN_SEED)[0].master for me in range(2)]
    assert fixed == [fixed_master(LEARN_SEED, game_id, me) for me in range(2)]
    assert fixed[0] != fixed[1]  # equal seeds would cancel in the joint randomness
    # An ordinary game: the master comes from the identity key, as before.
    normal = open_session(roster, ids[0], GameStore(tmp_path / "n0", game_id))[0].master
    assert normal == master_of(ids[0], game_id, keys) != fixed[0]


async def _first_hand(setup: NetSetup) -> tuple[str, tuple[str, ...], list[str | None]]:
    """Run ``setup`` (the real thing: its bots are peers over loopback) until our first
    decision; (game id, the planets and events, our hand then)."""
    seen: list[AskHuman] = []

    class Side:
        def __init__(self) -> None:
            self.send, self.receive_channel = trio.open_memory_channel[Any](math.inf)

        def post(self, item: Any) -> None:
            if isinstance(item, AskHuman) and not seen:
                seen.append(item)
                cancel.cancel()

        async def receive(self) -> Any:
            return await self.receive_channel.receive()

    game = NetGame(setup, Side())  # type: ignore[arg-type]
    with trio.fail_after(60), trio.CancelScope() as cancel:
        await game.run()
    assert seen, "never asked"
    board = seen[0].view
    return (str(game.game_id), tuple(p["name"] for p in board["planets"]),
            [c["label"] for c in board["hand"]])


def test_a_learning_game_is_dealt_the_same_every_time_and_a_normal_game_is_not(
        tmp_path: Path) -> None:
    def setup(learn: bool) -> NetSetup:
        options = PeerOptions(home=tmp_path / ("learn" if learn else "play"), name="you",
                              bind="127.0.0.1", port=0)
        return NetSetup("play", options, players=2, bots=(LEARN_BOT,), learn=learn)

    async def main() -> list[Any]:
        return [await _first_hand(setup(learn)) for learn in (True, True, False, False)]

    learn1, learn2, normal1, normal2 = trio.run(main)
    assert learn1 == learn2 and learn1[0] == learn_game_id()
    # Each in a folder of its own (with an identity of its own: the deal does not hang on it).
    assert len(list((tmp_path / "learn" / "learn").glob("game-*/games/" + learn1[0]))) == 2
    assert normal1[0] != normal2[0] and normal1[1:] != normal2[1:]
    # The deal the lessons test plays is the one the real learning game gets.
    hand: list[str | None] = []
    me = learning_game(make_bot("greedy"), b"g", first_hand=hand)
    assert (me.config.planets, hand) == (learn1[1], learn1[2])


def test_each_learning_game_has_a_folder_of_its_own(tmp_path: Path) -> None:
    """Every learning game has the same id: two at once (two browser tabs) or the last one's
    records must never share a game folder."""
    first, second = learning_home(tmp_path), learning_home(tmp_path)
    assert first != second and first.parent == second.parent == tmp_path / "learn"
    assert first.is_dir() and second.is_dir()


@pytest.mark.soak  # a whole networked game in the app: ~15 s (make soak)
def test_the_learning_game_in_the_ui_opens_every_lesson(tmp_path: Path) -> None:
    """The whole thing: ``play --learn`` in the app, its bot a real peer over loopback, an
    automatic player answering each decision and closing each lesson and summary."""
    import asyncio

    from ui.app.app import SolsticeApp
    from ui.app.messages import HumanAnswer
    from ui.app.screens.dialogs import LessonScreen
    from ui.app.screens.summary import EndScreen, RoundSummaryScreen

    player = make_bot("random")
    player.start(GameInfo(0, None, b"r1"))  # type: ignore[arg-type]
    opened: list[str] = []

    class Automatic(SolsticeApp):
        def deliver(self, item: Any) -> None:
            super().deliver(item)
            if isinstance(item, AskHuman) and self.bridge is not None:
                action = player.choose(Turn(None, item.view["seat"], list(item.legal)))  # type: ignore[arg-type]
                self.bridge.send(HumanAnswer(item.serial, action))

    options = PeerOptions(home=tmp_path, name="you", bind="127.0.0.1", port=0)
    app = Automatic(NetSetup("play", options, players=2, bots=(LEARN_BOT,), learn=True))
    # Hardly any reading time (the test reads nothing), but the reveal is still paced: in a
    # wide terminal, as the log pane shows it.
    app.reveal_pace = app.summary_pace = 0.01

    async def scenario() -> None:
        async with app.run_test(size=(160, 50)) as pilot:
            for _ in range(3000):
                await pilot.pause(0.02)
                assert app.is_running, "the app stopped"
                if isinstance(app.screen, LessonScreen):
                    opened.append(app.screen.title_text)
                    await pilot.press("enter")
                elif isinstance(app.screen, RoundSummaryScreen):
                    await pilot.press("enter")
                elif isinstance(app.screen, EndScreen):
                    return
            raise AssertionError("the learning game never ended")

    asyncio.run(scenario())
    assert app.ended is not None and app.ended.result is not None
    assert app.taught == set(LESSON_IDS)
    assert len(opened) == len(LESSON_IDS)  # each once
