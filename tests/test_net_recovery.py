"""Recovering whole games over loopback TLS (trio, 127.0.0.1): a peer that was away too long,
a game that is over in a peer's own log, a transcript that could not be written, finishing
from another peer's transcript."""

from __future__ import annotations

import errno
import functools
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import trio
from typer.testing import CliRunner

import p2p.net.runner as runner
from bots.netseat import bot_chooser
from bots.registry import make_bot
from p2p.errors import LocalFileError
from p2p.identity import Identity
from p2p.net.games import PeerOptions, host_game, join_game, resume_game, unfinished_games
from p2p.net.notices import ChoiceRefused, GameEvent, Stopped, StoreRepaired, Waiting
from p2p.net.runner import TranscriptNotWritten
from p2p.net.transport import NetConfig
from p2p.session.events import GameAborted, LogLine, Rejected
from p2p.session.machine import GameSession
from p2p.session.seatview import SeatView
from p2p.storage.rebuild import rebuild_transcript
from p2p.storage.store import GameStore
from p2p.storage.transcript import verify_transcript
from ui.cli import app

LOOPBACK = "127.0.0.1"
CFG = NetConfig(handshake_timeout=5.0, first_read_timeout=5.0, grace_period=3.0,
                backoff_initial=0.02, backoff_max=0.2, lobby_timeout=30.0)


class Peer:
    def __init__(self, root: Path, index: int, net: NetConfig = CFG) -> None:
        self.options = PeerOptions(home=root / f"peer{index}", bind=LOOPBACK, net=net)
        self.events: list[GameEvent] = []
        self.session: GameSession | None = None
        self.error: BaseException | None = None

    def __call__(self, event: GameEvent) -> None:
        self.events.append(event)

    def texts(self, *kinds: type) -> list[str]:
        return [e.text for e in self.events if isinstance(e, kinds)]


def _chooser(stop_after: int | None = None, scope: list[trio.CancelScope] | None = None) -> Any:
    """A random bot; with ``stop_after``, its peer vanishes (cancelled) at that choice."""
    bot = bot_chooser(make_bot("random"), out=io.StringIO())
    count = [0]

    async def choose(view: SeatView) -> Any:
        count[0] += 1
        if stop_after is not None and count[0] >= stop_after and scope:
            scope[0].cancel()
            await trio.sleep_forever()
        return await bot(view)

    return choose


async def _table(root: Path, n: int, vanish: int | None = None) -> list[Peer]:
    """A host and n-1 joiners; with ``vanish``, the last joiner disappears at that choice."""
    peers = [Peer(root, i) for i in range(n)]
    ready = trio.Event()
    code: list[Any] = []

    def on_lobby(lobby: Any) -> None:
        code.append(lobby.code)
        ready.set()

    async def run(i: int) -> None:
        scope: list[trio.CancelScope] = []
        with trio.CancelScope() as cancel:
            scope.append(cancel)
            choose = _chooser(vanish if i == n - 1 else None, scope)
            try:
                if i == 0:
                    peers[0].session = await host_game(n, choose, peers[0], peers[0].options,
                                                       on_lobby)
                else:
                    await ready.wait()
                    peers[i].session = await join_game(code[0], choose, peers[i],
                                                       peers[i].options)
            except Exception as exc:  # the test looks at it
                while isinstance(exc, ExceptionGroup) and len(exc.exceptions) == 1:
                    exc = exc.exceptions[0]  # what the node's nursery wrapped
                peers[i].error = exc

    with trio.fail_after(90):
        async with trio.open_nursery() as nursery:
            for i in range(n):
                nursery.start_soon(run, i)
    return peers


def _game_dir(peer: Peer) -> Path:
    (directory,) = (peer.options.home_dir / "games").iterdir()
    return directory


def _result(path: Path) -> tuple[Any, Any]:
    verdict = verify_transcript(path)
    assert verdict.ok, verdict.summary
    return verdict.result["scores"], verdict.result["winner"]


async def _resume_all(peers: list[Peer], game_id: str, **kwargs: Any) -> None:
    async def run(peer: Peer) -> None:
        peer.session = await resume_game(game_id, _chooser(), peer, peer.options, **kwargs)

    with trio.fail_after(90):
        async with trio.open_nursery() as nursery:
            for peer in peers:
                nursery.start_soon(run, peer)


@pytest.mark.parametrize("disk", ["intact", "log deleted", "line damaged"])
def test_a_peer_away_too_long_stops_the_game_with_who_and_how_and_resume_finishes_it(
        tmp_path: Path, disk: str) -> None:
    """Issue #12 items 4 and 6; with a deleted or damaged log, the peer that was away gets
    the game (its own messages included) back from the other before it plays on."""
    peers = trio.run(_table, tmp_path, 2, 6)
    host, gone = peers
    assert host.session is not None and host.session.aborted is not None
    (stop,) = host.texts(GameAborted, Stopped)
    gone_name = gone.options.name_for(Identity.load_or_create(gone.options.home_dir))
    game_id = _game_dir(host).name
    assert f"{gone_name} (" in stop and "did not come back within 3 s" in stop
    assert f"solstice resume {game_id} --home {host.options.home_dir}" in stop
    # a stop for a lost peer is not the end: both homes list the game as unfinished
    assert unfinished_games(host.options.home_dir) == [game_id]
    assert unfinished_games(gone.options.home_dir) == [game_id]
    log = _game_dir(gone) / "messages.jsonl"
    if disk == "log deleted":
        log.unlink()
    elif disk == "line damaged":
        lines = log.read_bytes().splitlines(keepends=True)
        lines[3] = b"{damaged\n"
        log.write_bytes(b"".join(lines))
    for peer in peers:
        peer.events.clear()
    trio.run(_resume_all, peers, game_id)
    notes = " ".join(gone.texts(Rejected, ChoiceRefused, StoreRepaired) + gone.texts(LogLine))
    if disk == "log deleted":
        assert f"{log} was missing" in notes
    elif disk == "line damaged":
        assert f"{log}:4: damaged line dropped" in notes
    results = [_result(_game_dir(p) / "transcript.json") for p in peers]
    assert results[0] == results[1]
    assert all(p.session is not None and p.session.result is not None for p in peers)


@pytest.fixture(scope="module")
def finished_table(tmp_path_factory: pytest.TempPathFactory) -> list[Peer]:
    peers = trio.run(_table, tmp_path_factory.mktemp("table"), 2)
    assert all(p.session is not None and p.session.result is not None for p in peers)
    return peers


def _copy_home(peer: Peer, to: Path) -> Peer:
    """Another process's view of the same home (the tests change the copy)."""
    shutil.copytree(peer.options.home_dir, to / "copy")
    copy = Peer(to, 0)
    copy.options.home = to / "copy"
    return copy


def test_a_game_over_in_our_log_ends_on_resume_without_anyone_else(
        finished_table: list[Peer], tmp_path: Path) -> None:
    """The audit included: killed after its log held everything but before the transcript,
    a peer finishes alone (nobody else is running)."""
    peer = _copy_home(finished_table[1], tmp_path)
    game = _game_dir(peer)
    (game / "transcript.json").unlink()
    (game / "finished.json").unlink()
    trio.run(_resume_all, [peer], game.name)
    assert peer.session is not None and peer.session.result is not None
    assert _result(game / "transcript.json") == _result(
        _game_dir(finished_table[0]) / "transcript.json")
    assert not [t for t in peer.texts(Waiting) if "resuming" in t]


def test_a_game_is_finished_from_another_peers_transcript(
        finished_table: list[Peer], tmp_path: Path) -> None:
    """Our log lost the end of the game and the others have left: their transcript has it."""
    peer = _copy_home(finished_table[1], tmp_path)
    game = _game_dir(peer)
    (game / "transcript.json").unlink()
    (game / "finished.json").unlink()
    lines = (game / "messages.jsonl").read_bytes().splitlines(keepends=True)
    (game / "messages.jsonl").write_bytes(b"".join(lines[: len(lines) // 2]))
    other = _game_dir(finished_table[0]) / "transcript.json"
    trio.run(functools.partial(_resume_all, [peer], game.name, from_file=other))
    assert peer.session is not None and peer.session.result is not None
    assert _result(game / "transcript.json") == _result(other)
    # and the log on disk is whole again
    assert len(GameStore(peer.options.home_dir, game.name).load_messages()) == len(lines)


def test_a_transcript_that_could_not_be_written_is_rebuilt(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write = runner.write_transcript

    def disk_full_for_peer1(path: Path, *args: Any) -> Path:
        if "peer1" in str(path):
            raise OSError(errno.ENOSPC, "No space left on device")
        return write(path, *args)

    monkeypatch.setattr(runner, "write_transcript", disk_full_for_peer1)
    peers = trio.run(_table, tmp_path, 2)
    unlucky = peers[1]
    assert isinstance(unlucky.error, TranscriptNotWritten)
    game = _game_dir(unlucky)
    text = str(unlucky.error)
    assert "No space left on device" in text
    assert f"solstice transcript {game.name} --home {unlucky.options.home_dir}" in text
    assert not (game / "transcript.json").exists()
    assert json.loads((game / "finished.json").read_text())["ok"] is True
    out = tmp_path / "rebuilt.json"
    result = CliRunner().invoke(app, ["transcript", game.name, "--home",
                                      str(unlucky.options.home_dir), "--out", str(out)])
    assert result.exit_code == 0 and f"transcript written to {out}" in result.output
    assert _result(out) == _result(_game_dir(peers[0]) / "transcript.json")


def test_transcript_refuses_a_game_that_is_not_over(finished_table: list[Peer],
                                                    tmp_path: Path) -> None:
    peer = _copy_home(finished_table[1], tmp_path)
    game = _game_dir(peer)
    lines = (game / "messages.jsonl").read_bytes().splitlines(keepends=True)
    (game / "messages.jsonl").write_bytes(b"".join(lines[:10]))
    with pytest.raises(LocalFileError, match=f"continue it with: solstice resume {game.name}"):
        rebuild_transcript(peer.options.home_dir, game.name)
