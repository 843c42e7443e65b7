"""A peer whose game folder is gone never signs a sequence number twice (issue 33 item 2):
it fetches its own messages back from the others, plays on if its secret derives again from
its identity, and refuses the game (signing nothing) if it cannot; nobody honest is named.

Real loopback TLS, the peers in one process; the victim vanishes at a choice (its node and
every connection close at once, as with a kill), its folder is deleted, and it comes back
with the same ``join CODE``. tests/test_net_crash.py kills real processes at four stages."""

from __future__ import annotations

import io
import secrets
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import trio
from test_net_recovery import Peer

import p2p.net.runner as runner
from bots.netseat import bot_chooser
from bots.registry import make_bot
from engine.actions import Dispatch, Pick
from p2p.identity import Identity
from p2p.net.games import host_game, join_game, resume_game, unfinished_games
from p2p.net.roster import Roster
from p2p.net.transport import NetConfig
from p2p.session.events import STOPPED, GameAborted, LogLine, Rejected
from p2p.session.machine import GameSession
from p2p.session.seatview import SeatView
from p2p.storage.recovery import UNRECOVERABLE_FILE, RecordsLost
from p2p.storage.transcript import verify_transcript

CFG = NetConfig(handshake_timeout=5.0, first_read_timeout=5.0, grace_period=4.0,
                backoff_initial=0.02, backoff_max=0.2, lobby_timeout=30.0)


class Player(Peer):
    def __init__(self, root: Path, index: int) -> None:
        super().__init__(root, index, CFG)

    def game_dir(self) -> Path:
        (directory,) = (self.options.home_dir / "games").iterdir()
        return directory


def _unwrap(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return exc


def _vanishing(when: VanishAt, scope: trio.CancelScope) -> Any:
    """A random bot whose peer vanishes (cancelled, as if killed) at its first choice of a
    ``when.choice``."""
    bot = bot_chooser(make_bot("random"), out=io.StringIO())

    async def choose(view: SeatView) -> Any:
        when.seen.append(view)
        assert when.choice is not None
        if isinstance(view.legal[0], when.choice):
            scope.cancel()
            await trio.sleep_forever()
        return await bot(view)

    return choose


class VanishAt:
    """When the victim vanishes: at its first choice among actions of the type ``choice``,
    or when it is about to sign its first message of the stage kind ``step`` (setup/reveal,
    audit: no choice comes first)."""

    def __init__(self, choice: type | None = None, step: str | None = None) -> None:
        self.choice, self.step = choice, step
        self.seen: list[SeatView] = []
        self.stage_kind = ""


async def _lose_a_folder(root: Path, players: int, when: VanishAt, same_port: bool,
                         monkeypatch: pytest.MonkeyPatch | None = None) -> list[Player]:
    """The last joiner vanishes (``when``), its game folder is deleted, and it comes back
    with the same join code (``same_port``: on the port the roster has it on)."""
    table = [Player(root, i) for i in range(players)]
    victim = table[-1]
    victim_key = Identity.load_or_create(victim.options.home_dir).public_bytes
    ready = trio.Event()
    code: list[Any] = []
    vanish = trio.CancelScope()

    def on_lobby(lobby: Any) -> None:
        code.append(lobby.code)
        ready.set()

    if when.step is not None:
        assert monkeypatch is not None
        contribute = GameSession._contribute

        def contribute_or_vanish(session: GameSession, stage: Any) -> None:
            assert session.identity is not None
            if (session.identity.public_bytes == victim_key and stage.kind == when.step
                    and not vanish.cancel_called):
                when.stage_kind = stage.kind
                vanish.cancel()  # at the next checkpoint: nothing more leaves
                return
            contribute(session, stage)

        monkeypatch.setattr(GameSession, "_contribute", contribute_or_vanish)

    async def run(i: int) -> None:
        player = table[i]
        try:
            if i == 0:
                player.session = await host_game(players, _bot(), player, player.options,
                                                 on_lobby)
                return
            await ready.wait()
            if player is not victim:
                player.session = await join_game(code[0], _bot(), player, player.options)
                return
            with vanish:
                choose = _vanishing(when, vanish) if when.choice is not None else _bot()
                await join_game(code[0], choose, player, player.options)
            assert vanish.cancelled_caught, "the game ended before the victim vanished"
            game = player.game_dir()
            roster = Roster.decode((game / "roster.json").read_bytes())
            shutil.rmtree(game)
            if same_port:
                player.options.port = roster.players[-1].port
            player.events.append(LogLine("--- folder deleted, restarted ---"))
            player.session = await join_game(code[0], _bot(), player, player.options)
        except Exception as exc:  # the test looks at it
            player.error = _unwrap(exc)

    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            for i in range(players):
                nursery.start_soon(run, i)
    return table


def _bot() -> Any:
    return bot_chooser(make_bot("random"), out=io.StringIO())


def _nobody_named(table: list[Player]) -> None:
    for player in table:
        named = [e for e in player.events if isinstance(e, GameAborted)
                 and e.kind != STOPPED]
        assert not named, (player.options.home, named)
        assert not player.texts(Rejected), player.texts(Rejected)


@pytest.mark.parametrize(("players", "when", "same_port"), [
    (3, VanishAt(step="setup/reveal"), False),  # setup: its seed commitment is out
    (2, VanishAt(choice=Pick), True),           # the first draft pick: the deck is dealt
    (3, VanishAt(choice=Dispatch), False),      # a dispatch: the draft's re-masks are done
    (2, VanishAt(step="audit"), True),          # the audit: the game is over
], ids=["setup", "draft", "dispatch", "audit"])
def test_a_peer_whose_folder_was_deleted_fetches_its_messages_back_and_finishes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, players: int, when: VanishAt,
        same_port: bool) -> None:
    """(Before: it signed a new ``setup/commit`` as seq 0 and the others proved
    "equivocation: two different signed messages with seq 0" against it.) ``same_port``:
    it comes back on its roster port (a new session held by the host's "started" welcome) or
    on another one (the same, through resume)."""
    table = trio.run(_lose_a_folder, tmp_path, players, when, same_port, monkeypatch)
    victim = table[-1]
    if when.choice is not None:
        assert isinstance(when.seen[-1].legal[0], when.choice)
    else:
        assert when.stage_kind == when.step
    assert [p.error for p in table] == [None] * players
    _nobody_named(table)
    notes = " ".join(victim.texts(LogLine))
    assert "no records of game" in notes and "caught up with every peer" in notes
    results = []
    for player in table:
        assert player.session is not None and player.session.result is not None
        verdict = verify_transcript(player.game_dir() / "transcript.json")
        assert verdict.ok, verdict.summary
        results.append((verdict.result["scores"], verdict.result["winner"]))
    assert all(r == results[0] for r in results)


def test_a_peer_whose_secret_cannot_be_recovered_refuses_the_game_and_signs_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A game whose master secret was drawn at random (as before it derived from the
    identity) and kept only in the deleted folder: the victim refuses with a clear message,
    signs nothing, and the host's game stops for now (resumable) without naming anyone."""
    real_master_of = runner.master_of
    victim_id = Identity.load_or_create(tmp_path / "peer1").peer_id
    drawn: list[bytes] = []

    def random_then_derived(identity: Identity, game: str, keys: Sequence[bytes]) -> bytes:
        if identity.peer_id != victim_id or drawn:
            return real_master_of(identity, game, keys)
        drawn.append(secrets.token_bytes(32))  # the victim's first game files
        return drawn[0]

    monkeypatch.setattr(runner, "master_of", random_then_derived)
    table = trio.run(_lose_a_folder, tmp_path, 2, VanishAt(choice=Pick), True)
    host, victim = table
    assert isinstance(victim.error, RecordsLost), victim.error
    assert "cannot be recovered" in str(victim.error)
    assert "signs nothing more in that game" in str(victim.error)
    assert host.error is None and host.session is not None
    assert host.session.aborted is not None and host.session.aborted.kind == STOPPED
    _nobody_named(table)
    # what the victim had signed before is all the host holds of it: nothing twice
    assert (victim.game_dir() / UNRECOVERABLE_FILE).exists()
    assert unfinished_games(host.options.home_dir) == [host.game_dir().name]
    # a later resume says so at once, without connecting to anyone
    with pytest.raises(RecordsLost, match="cannot be recovered"):
        trio.run(resume_game, victim.game_dir().name, _bot(), victim, victim.options)
