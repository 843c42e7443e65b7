"""Whole games over real loopback TLS (trio, 127.0.0.1, port 0): bots play, transcripts verify,
modified transcripts do not, and ``solstice verify`` says so with the right exit status."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import trio

from bots.netseat import bot_chooser
from bots.registry import make_bot
from p2p.net.games import PeerOptions, host_game, join_game
from p2p.net.notices import GameEvent, Stopped, TranscriptWritten
from p2p.net.transport import NetConfig
from p2p.session.events import GameAborted, Rejected
from p2p.session.machine import GameSession
from p2p.storage.transcript import TranscriptUnreadable, Verdict, verify_transcript

LOOPBACK = "127.0.0.1"
CFG = NetConfig(handshake_timeout=5.0, first_read_timeout=5.0, grace_period=10.0,
                backoff_initial=0.02, backoff_max=0.2, lobby_timeout=30.0)
SOLSTICE = Path(sys.executable).parent / "solstice"


class Peer:
    def __init__(self, index: int) -> None:
        self.index = index
        self.events: list[GameEvent] = []
        self.session: GameSession | None = None

    def __call__(self, event: GameEvent) -> None:
        self.events.append(event)

    @property
    def transcript(self) -> Path:
        (path,) = [e.path for e in self.events if isinstance(e, TranscriptWritten)]
        return path


async def play(root: Path, n: int) -> list[Peer]:
    """Host and n-1 joiners in one trio run, each with its own home and a random bot."""
    peers = [Peer(i) for i in range(n)]
    code: dict[str, Any] = {}
    ready = trio.Event()

    def options(i: int) -> PeerOptions:
        return PeerOptions(home=root / f"peer{i}", name=f"bot{i}", bind=LOOPBACK, port=0,
                           net=CFG)

    def chooser() -> Any:
        return bot_chooser(make_bot("random"), out=io.StringIO())

    def on_lobby(lobby: Any) -> None:
        code["code"] = lobby.code
        ready.set()

    async def host() -> None:
        peers[0].session = await host_game(n, chooser(), peers[0], options(0), on_lobby)

    async def join(i: int) -> None:
        await ready.wait()
        peers[i].session = await join_game(code["code"], chooser(), peers[i], options(i))

    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(host)
            for i in range(1, n):
                nursery.start_soon(join, i)
    return peers


_PLAYED: dict[int, list[Peer]] = {}


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory):
    def get(n: int) -> list[Peer]:
        if n not in _PLAYED:
            _PLAYED[n] = trio.run(play, tmp_path_factory.mktemp(f"game{n}"), n)
        return _PLAYED[n]

    return get


@pytest.mark.parametrize("n", [2, 3, 4])
def test_bots_play_a_complete_game_and_every_transcript_verifies(played, n: int) -> None:
    peers = played(n)
    results = []
    for peer in peers:
        session = peer.session
        assert session is not None and session.aborted is None
        assert session.result is not None and session.result["ok"]
        assert not [e for e in peer.events if isinstance(e, GameAborted | Stopped | Rejected)], \
            [e.text for e in peer.events]
        verdict = verify_transcript(peer.transcript)
        assert verdict.ok, verdict.summary
        assert verdict.result["scores"] == session.result["scores"]
        assert verdict.result["winner"] == session.result["winner"]
        results.append((verdict.result["scores"], verdict.result["winner"],
                        verdict.result["rounds"]))
        assert len(verdict.result["players"]) == n
    assert all(r == results[0] for r in results)  # every peer agrees on the result
    # the peers' transcripts hold the same signed messages (in their own arrival orders)
    logs = [sorted(json.dumps(m, sort_keys=True) for m in
                   json.loads(p.transcript.read_text())["messages"]) for p in peers]
    assert all(log == logs[0] for log in logs)


# -- modified transcripts ---------------------------------------------------------------------


def _load(played) -> tuple[Peer, dict[str, Any]]:
    peer = played(3)[1]
    return peer, json.loads(peer.transcript.read_text())


def _write(tmp_path: Path, data: dict[str, Any]) -> Path:
    path = tmp_path / "modified.json"
    path.write_text(json.dumps(data))
    return path


def _action_index(data: dict[str, Any]) -> int:
    return next(i for i, m in enumerate(data["messages"]) if m["msg"]["type"] == "action"
                and m["msg"]["body"]["action"]["type"] == "dispatch")


def test_changing_one_field_of_one_message_is_damage_that_names_nobody(
        played, tmp_path: Path) -> None:
    """A bad signature in a file proves only that the file changed, not that its author
    cheated: the verdict is "damaged", with the message, and no player is named."""
    _, data = _load(played)
    index = _action_index(data)
    message = data["messages"][index]["msg"]
    message["body"]["action"]["planet"] = (message["body"]["action"]["planet"] + 1) % 3
    verdict = verify_transcript(_write(tmp_path, data))
    assert verdict.status == "damaged" and verdict.exit_status == 2
    assert verdict.message == index
    assert verdict.blame is None and verdict.blame_name is None
    assert "bad signature" in verdict.summary


def test_dropping_a_message_fails(played, tmp_path: Path) -> None:
    _, data = _load(played)
    del data["messages"][_action_index(data)]
    verdict = verify_transcript(_write(tmp_path, data))
    assert not verdict.ok


def test_dropping_the_audit_fails(played, tmp_path: Path) -> None:
    _, data = _load(played)
    data["messages"] = [m for m in data["messages"] if m["msg"]["type"] != "audit"]
    verdict = verify_transcript(_write(tmp_path, data))
    assert verdict.status == "incomplete" and verdict.exit_status == 3
    assert verdict.blame is None
    assert "before the game's audit" in verdict.summary


def test_altering_the_outcome_fails(played, tmp_path: Path) -> None:
    _, data = _load(played)
    outcome = data["outcome"]
    loser = outcome["ranking"][-1]
    outcome["winner"] = loser
    outcome["scores"][loser] += 100
    verdict = verify_transcript(_write(tmp_path, data))
    assert not verdict.ok, verdict.summary
    assert "outcome" in verdict.summary


def test_reordered_messages_of_one_author_fail(played, tmp_path: Path) -> None:
    _, data = _load(played)
    messages = data["messages"]
    first = next(i for i, m in enumerate(messages) if m["msg"]["seat"] == 2
                 and m["msg"]["seq"] == 5)
    second = next(i for i, m in enumerate(messages) if m["msg"]["seat"] == 2
                  and m["msg"]["seq"] == 6)
    messages[first], messages[second] = messages[second], messages[first]
    # a gap ahead is held back, not fatal: the order of arrival may differ between peers
    assert verify_transcript(_write(tmp_path, data)).ok


def test_unreadable_files_are_not_transcripts(tmp_path: Path) -> None:
    for content in (None, b"not json", b'{"format": "other"}', b'{"format": '
                    b'"solstice-transcript/1", "roster": {}, "messages": []}'):
        path = tmp_path / "t.json"
        if content is not None:
            path.write_bytes(content)
        with pytest.raises(TranscriptUnreadable):
            verify_transcript(path if content is not None else tmp_path / "missing.json")


# -- solstice verify ----------------------------------------------------------------------


def _verify(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(SOLSTICE), "verify", *map(str, args)], capture_output=True,
                          text=True, timeout=60)


def test_verify_command_exit_statuses_and_json(played, tmp_path: Path) -> None:
    peer, data = _load(played)
    expected: Verdict = verify_transcript(peer.transcript)

    fair = _verify(peer.transcript)
    assert fair.returncode == 0, fair.stderr
    assert fair.stdout.startswith("fair: audit passed")
    assert f"winner: {expected.result['winner']}" in fair.stdout

    as_json = _verify(peer.transcript, "--json")
    assert as_json.returncode == 0
    verdict = json.loads(as_json.stdout)
    assert verdict["ok"] is True
    assert verdict["scores"] == expected.result["scores"]
    assert verdict["winner"] == expected.result["winner"]

    index = _action_index(data)
    data["messages"][index]["msg"]["body"]["action"]["slot"] += 1
    damaged_path = _write(tmp_path, data)
    damaged = _verify(damaged_path)
    assert damaged.returncode == 2
    assert "DAMAGED" in damaged.stderr and "proves nothing about any player" in damaged.stderr
    assert f"message {index} does not check" in damaged.stderr
    damaged_json = _verify(damaged_path, "--json")
    assert damaged_json.returncode == 2
    assert json.loads(damaged_json.stdout) | {"error": None} == {
        "ok": False, "verdict": "damaged", "error": None, "blame": None, "blame_peer": None,
        "message": index}

    garbage = tmp_path / "garbage.json"
    garbage.write_text("{ not json")
    for path in (garbage, tmp_path / "missing.json"):
        result = _verify(path)
        assert result.returncode == 2
        assert result.stderr.startswith("error:")
