"""What a peer leaves on disk across games: ``--transcript PATH`` never overwrites another
game's transcript (a rematch writes beside it, and says where); ``solstice resume`` without a
game id lists what it can and cannot resume, and why."""

from __future__ import annotations

import io
import json
import shutil
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import trio
from typer.testing import CliRunner

import p2p.net.runner as runner
from bots.netseat import bot_chooser
from bots.registry import make_bot
from p2p.identity import Identity
from p2p.net.games import PeerOptions, host_game, join_game, resume_game, unfinished_games
from p2p.net.mesh import Mesh
from p2p.net.notices import GameEvent, Stopped, TranscriptWritten
from p2p.net.resync import FRAME_FINISHED
from p2p.net.runner import RunOptions
from p2p.net.transport import NetConfig
from p2p.session.envelope import SignedMessage
from p2p.session.events import LogLine
from p2p.session.machine import GameSession
from p2p.storage.paths import transcript_destination
from p2p.storage.recovery import UNRECOVERABLE_FILE
from p2p.storage.store import GameStore
from p2p.storage.transcript import load_transcript, verify_transcript
from ui.cli import app

LOOPBACK = "127.0.0.1"
CFG = NetConfig(handshake_timeout=5.0, first_read_timeout=5.0, grace_period=5.0,
                backoff_initial=0.02, backoff_max=0.2, lobby_timeout=30.0)


def _chooser() -> Any:
    return bot_chooser(make_bot("random"), out=io.StringIO())


async def _two_player_game(options: list[PeerOptions], events: list[list[GameEvent]]
                           ) -> list[GameSession]:
    """One random-bot game over loopback TLS with these options (one peer each; the first
    hosts)."""
    n = len(options)
    sessions: list[GameSession | None] = [None] * n
    ready = trio.Event()
    code: list[Any] = []

    def on_lobby(lobby: Any) -> None:
        code.append(lobby.code)
        ready.set()

    async def host() -> None:
        sessions[0] = await host_game(n, _chooser(), events[0].append, options[0], on_lobby)

    async def joiner(i: int) -> None:
        await ready.wait()
        sessions[i] = await join_game(code[0], _chooser(), events[i].append, options[i])

    with trio.fail_after(90):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(host)
            for i in range(1, n):
                nursery.start_soon(joiner, i)
    assert all(s is not None for s in sessions)
    return [s for s in sessions if s is not None]


def _game_of(path: Path) -> str:
    return load_transcript(path)[0].game_id


def test_a_second_game_with_the_same_transcript_path_writes_beside_the_first(
        tmp_path: Path) -> None:
    """Issue 33 item 3: as ``--rematch --transcript PATH`` does, two games in a row with one
    PATH: the first game's file is kept byte for byte, the second's is written to
    ``PATH-<short game id>.json`` and the peer says so."""
    options = [PeerOptions(home=tmp_path / f"peer{i}", bind=LOOPBACK, net=CFG,
                           transcript=tmp_path / f"game{i}.json") for i in range(2)]
    first_events: list[list[GameEvent]] = [[], []]
    first = trio.run(_two_player_game, options, first_events)
    kept = [(tmp_path / f"game{i}.json").read_bytes() for i in range(2)]
    events: list[list[GameEvent]] = [[], []]
    second = trio.run(_two_player_game, options, events)
    assert first[0].game_id != second[0].game_id
    for i in range(2):
        path = tmp_path / f"game{i}.json"
        assert path.read_bytes() == kept[i]
        assert _game_of(path) == first[i].game_id
        beside = tmp_path / f"game{i}-{second[i].game_id[:8]}.json"
        written = [e.path for e in events[i] if isinstance(e, TranscriptWritten)]
        assert written == [beside]
        assert _game_of(beside) == second[i].game_id and verify_transcript(beside).ok
        notes = [e.text for e in events[i] if isinstance(e, LogLine)]
        assert any(f"{path} holds another game's transcript" in n and str(beside) in n
                   for n in notes)


def _transcript_of(path: Path, game_id: str, source: Path) -> None:
    """A transcript file at ``path`` claiming ``game_id`` (the roster is what names it)."""
    data = json.loads(source.read_bytes())
    assert load_transcript(source)[0].game_id == game_id
    path.write_text(json.dumps(data))


@pytest.fixture(scope="module")
def transcripts(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """The transcripts of two real games (the host's of each)."""
    root = tmp_path_factory.mktemp("games")
    paths = []
    for n in range(2):
        options = [PeerOptions(home=root / f"g{n}p{i}", bind=LOOPBACK, net=CFG,
                               transcript=root / f"g{n}p{i}.json") for i in range(2)]
        trio.run(_two_player_game, options, [[], []])
        paths.append(root / f"g{n}p0.json")  # its home: root / f"g{n}p0"
    return paths


@pytest.mark.parametrize("there", ["nothing", "this game", "another game", "not a transcript",
                                   "both names taken"])
def test_where_a_transcript_goes(tmp_path: Path, transcripts: list[Path], there: str) -> None:
    this, other = (_game_of(p) for p in transcripts)
    path = tmp_path / "t.json"
    short, full = tmp_path / f"t-{this[:8]}.json", tmp_path / f"t-{this}.json"
    expected = {"nothing": path, "this game": path, "another game": short,
                "not a transcript": short, "both names taken": tmp_path / f"t-{this}-2.json"}
    if there == "this game":
        _transcript_of(path, this, transcripts[0])
    elif there in ("another game", "both names taken"):
        _transcript_of(path, other, transcripts[1])
    elif there == "not a transcript":
        path.write_text("my notes\n")
    if there == "both names taken":
        _transcript_of(short, other, transcripts[1])
        full.write_bytes(b"")
    before = {p: p.read_bytes() for p in tmp_path.iterdir()}
    assert transcript_destination(path, this) == expected[there]
    assert {p: p.read_bytes() for p in tmp_path.iterdir()} == before  # only looked at


def _home_with(tmp_path: Path, transcripts: list[Path], *states: str) -> Path:
    """A home holding the host's folders of the two fixture games, then changed to ``states``
    (one per game): "over" (as after a crash once finished.json was written), "unfinished"
    (finished.json gone, the log cut), "no roster", "refused" (records lost, unrecoverable)."""
    home = tmp_path / "home"
    for source, state in zip(transcripts, states, strict=False):
        game = _game_of(source)
        folder = home / "games" / game
        shutil.copytree(source.parent / source.stem / "games" / game, folder)
        if state != "over":
            (folder / "finished.json").unlink()
            lines = (folder / "messages.jsonl").read_bytes().splitlines(keepends=True)
            (folder / "messages.jsonl").write_bytes(b"".join(lines[:20]))
        if state == "no roster":
            (folder / "roster.json").unlink()
        elif state == "refused":
            (folder / UNRECOVERABLE_FILE).write_text(json.dumps(
                {"game": game, "reason": "the records of game ... were lost"}))
    return home


def _resume(home: Path) -> Any:
    return CliRunner().invoke(app, ["resume", "--bot", "random", "--home", str(home)])


def test_resume_of_a_home_whose_games_are_all_over_says_so_and_exits_0(
        tmp_path: Path, transcripts: list[Path]) -> None:
    """Issue 33 item 5: after a crash that came after finished.json was written (before:
    "unfinished games: none", exit 2)."""
    home = _home_with(tmp_path, transcripts, "over")
    result = _resume(home)
    assert result.exit_code == 0, result.output
    game = _game_of(transcripts[0])
    assert f"nothing to resume in {home}: every game in it is over" in result.output
    assert f"{game}: cannot be resumed: over (fair: " in result.output
    assert f"solstice transcript {game} --home {home}" in result.output


@pytest.mark.parametrize(("states", "code"), [
    (("over", "no roster"), 1), (("refused", "over"), 1), (("unfinished", "unfinished"), 2)])
def test_resume_lists_what_it_can_and_cannot_resume_and_why(
        tmp_path: Path, transcripts: list[Path], states: tuple[str, ...], code: int) -> None:
    home = _home_with(tmp_path, transcripts, *states)
    result = _resume(home)
    assert result.exit_code == code, result.output
    why = {"over": "cannot be resumed: over (fair: ", "unfinished": "can be resumed: with ",
           "no roster": "cannot be resumed: no roster in ",
           "refused": "cannot be resumed: the records of game ... were lost"}
    for source, state in zip(transcripts, states, strict=True):
        assert f"{_game_of(source)}: {why[state]}" in result.output
    assert "Traceback" not in result.output


def test_a_peer_restarted_after_its_audit_whose_table_has_left_stops_soon_and_says_how_to_finish(
        tmp_path: Path, transcripts: list[Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 33 item 5: killed after its own audit message went out and before the others'
    came in; the others, holding every audit, finished and left. It no longer waits the whole
    grace period for them (here 30 s; 60 s by default): after ``linger_replayed`` seconds
    with nobody back it stops (resumable) and says how to finish from a transcript."""
    game = _game_of(transcripts[0])
    home = tmp_path / "home"
    source = transcripts[0].parent / "g0p1"
    shutil.copytree(source, home)
    folder = home / "games" / game
    (folder / "finished.json").unlink()
    me = GameStore(home, game).load_secret()[0]
    kept = [line for line in (folder / "messages.jsonl").read_bytes().splitlines(keepends=True)
            if not ((m := SignedMessage.decode(line.rstrip(b"\n"))).msg.type == "audit"
                    and m.msg.seat != me)]
    (folder / "messages.jsonl").write_bytes(b"".join(kept))
    run_options = PeerOptions.run_options

    def quick(options: PeerOptions, game_id: str = "") -> RunOptions:
        return replace(run_options(options, game_id), linger_replayed=1.0)

    monkeypatch.setattr(PeerOptions, "run_options", quick)
    options = PeerOptions(home=home, bind=LOOPBACK, net=replace(CFG, grace_period=30.0))
    events: list[GameEvent] = []

    async def resume() -> GameSession:
        with trio.fail_after(15):
            return await resume_game(game, _chooser(), events.append, options)

    started = time.monotonic()
    session = trio.run(resume)
    assert time.monotonic() - started < 10
    assert session.result is None and session.aborted is not None
    (stop,) = [e.text for e in events if isinstance(e, Stopped)]
    assert "most likely finished and left" in stop
    assert f"solstice resume {game} --home {home} --from THEIR_TRANSCRIPT" in stop
    assert unfinished_games(home) == [game]
    # what it says works: the host's transcript has the end of the game
    events.clear()
    finished = trio.run(lambda: resume_game(game, _chooser(), events.append, options,
                                            transcripts[0]))
    assert finished.result is not None
    assert verify_transcript(folder / "transcript.json").ok


def test_a_peer_that_caught_up_from_one_peer_while_the_rest_had_left_does_not_linger_long(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 33 item 5: a restarted peer finishes its game with a resync from the one peer
    still up; the third signed its audit and left. It no longer keeps answering for the full
    linger time (here 20 s; 60 s by default) for a peer that will not come back, but only the
    short one (here 1 s)."""
    options = [PeerOptions(home=tmp_path / f"p{i}", bind=LOOPBACK, net=CFG) for i in range(3)]
    (first,) = {s.game_id for s in trio.run(_two_player_game, options, [[], [], []])}
    for i in (0, 1):  # as if killed before the end: the host's log lacks it, its peer is up
        (options[i].home_dir / "games" / first / "finished.json").unlink()
        (options[i].home_dir / "games" / first / "transcript.json").unlink()
    log = options[0].home_dir / "games" / first / "messages.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join(lines[:-6]))
    run_options = PeerOptions.run_options

    def timed(peer: PeerOptions, game_id: str = "") -> RunOptions:
        return replace(run_options(peer, game_id), linger=20.0, linger_replayed=1.0)

    monkeypatch.setattr(PeerOptions, "run_options", timed)
    ended: dict[int, float] = {}
    sessions: dict[int, GameSession] = {}

    async def resume(i: int) -> None:
        peer = replace(options[i], net=replace(CFG, grace_period=30.0))
        sessions[i] = await resume_game(first, _chooser(), lambda e: None, peer)
        ended[i] = time.monotonic()

    async def both() -> None:
        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                for i in (0, 1):
                    nursery.start_soon(resume, i)

    started = time.monotonic()
    trio.run(both)
    assert all(sessions[i].result is not None for i in (0, 1))
    assert ended[0] - started < 10, ended[0] - started
    assert verify_transcript(options[0].home_dir / "games" / first / "transcript.json").ok


def test_a_host_whose_game_folder_was_lost_finishes_its_copy_from_a_transcript(
        tmp_path: Path, transcripts: list[Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 33 item 2, the host's side (README): its roster came from itself, so only a
    transcript brings the game back; its secret derives from its identity again, so its own
    messages in the transcript check and the game is finished (before: "holds no secret for
    game ...: this peer never played in it")."""
    game = _game_of(transcripts[0])
    home = tmp_path / "home"
    shutil.copytree(transcripts[0].parent / "g0p0", home)
    shutil.rmtree(home / "games" / game)
    run_options = PeerOptions.run_options
    monkeypatch.setattr(PeerOptions, "run_options", lambda peer, game_id="": replace(
        run_options(peer, game_id), linger_replayed=1.0))
    options = PeerOptions(home=home, bind=LOOPBACK, net=CFG)
    events: list[GameEvent] = []
    session = trio.run(lambda: resume_game(game, _chooser(), events.append, options,
                                           transcripts[0].parent / "g0p1.json"))
    assert session.result is not None
    mine = verify_transcript(home / "games" / game / "transcript.json")
    assert mine.ok and mine.result["scores"] == verify_transcript(transcripts[0]).result["scores"]
    assert any("no records of game" in e.text for e in events if isinstance(e, LogLine))


def test_a_peer_killed_after_its_audit_went_out_but_before_the_others_came_in_finishes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 33 item 5: the host holds every audit and is done, but the victim's disk lost
    the host's audit (the others' messages are fsynced only with our next one) and it died
    once its own audit had left, before finished.json and its F. The host keeps answering for
    the short linger after the victim hung up, so the victim, back at once, fetches what it
    lacks and finishes (before: the host counted a peer that hung up after its audit as done
    and left at once; the victim then waited out the grace period and stopped)."""
    options = [PeerOptions(home=tmp_path / f"p{i}", bind=LOOPBACK, net=CFG) for i in range(2)]
    victim_home = options[1].home_dir
    victim_key = Identity.load_or_create(victim_home).public_bytes
    run_options = PeerOptions.run_options
    monkeypatch.setattr(PeerOptions, "run_options", lambda peer, game_id="": replace(
        run_options(peer, game_id), linger_replayed=5.0))
    append = GameStore.append

    def lose_the_others_audit(store: GameStore, signed: SignedMessage, durable: bool = False
                              ) -> None:
        if store.dir.is_relative_to(victim_home) and signed.msg.type == "audit" and not durable:
            return  # written, never synced: the crash took it
        append(store, signed, durable)

    monkeypatch.setattr(GameStore, "append", lose_the_others_audit)
    vanish = trio.CancelScope()
    finish = runner._finish

    def no_finished_json(session: GameSession, store: GameStore, *args: Any) -> Any:
        if store.dir.is_relative_to(victim_home) and not vanish.cancel_called:
            return None  # it dies before it wrote the transcript and finished.json
        return finish(session, store, *args)

    monkeypatch.setattr(runner, "_finish", no_finished_json)
    broadcast = Mesh.broadcast

    async def die_instead_of_f(mesh: Mesh, payload: bytes) -> None:
        if (payload == FRAME_FINISHED and mesh.identity.public_bytes == victim_key
                and not vanish.cancel_called):
            await mesh.drain()  # its audit is on the wire
            vanish.cancel()
            await trio.sleep_forever()
        await broadcast(mesh, payload)

    monkeypatch.setattr(Mesh, "broadcast", die_instead_of_f)
    sessions: dict[int, GameSession] = {}
    ready = trio.Event()
    code: list[Any] = []

    def on_lobby(lobby: Any) -> None:
        code.append(lobby.code)
        ready.set()

    async def host() -> None:
        sessions[0] = await host_game(2, _chooser(), lambda e: None, options[0], on_lobby)

    async def victim() -> None:
        await ready.wait()
        with vanish:
            await join_game(code[0], _chooser(), lambda e: None, options[1])
        assert vanish.cancelled_caught
        (game,) = (victim_home / "games").iterdir()
        assert not (game / "finished.json").exists()
        sessions[1] = await join_game(code[0], _chooser(), lambda e: None, options[1])

    async def table() -> None:
        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(host)
                nursery.start_soon(victim)

    trio.run(table)
    assert sessions[0].result is not None and sessions[1].result is not None
    (game,) = (victim_home / "games").iterdir()
    assert verify_transcript(game / "transcript.json").ok
