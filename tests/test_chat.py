"""Table chat (#15): signed lines outside the game's lockstep, checked, rate-limited, kept."""

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
from engine.canonical import canonical_json
from p2p.identity import Identity
from p2p.net.chat import (
    BURST,
    FRAME_CHAT,
    MAX_TEXT,
    ChatLine,
    ChatRefused,
    ChatRoom,
    TokenBucket,
    sign_chat,
    verify_chat,
)
from p2p.net.chatlink import ChatLink, ChatShown
from p2p.net.games import PeerOptions, host_game, join_game
from p2p.session.envelope import MSG_DOMAIN
from p2p.session.events import Rejected
from p2p.session.seatview import SeatView
from p2p.storage.chatlog import append_chat, load_chat
from p2p.storage.rebuild import rebuild_transcript
from p2p.storage.transcript import verify_transcript
from ui.cli.headless import LogPrinter

GAME = "ab" * 16
OTHER_GAME = "cd" * 16


def identities(n: int) -> list[Identity]:
    return [Identity.from_private_bytes(bytes([i + 1]) * 32) for i in range(n)]


def rooms(n: int = 3) -> list[ChatRoom]:
    ids = identities(n)
    keys = [i.public_bytes for i in ids]
    names = ["ann", "bob", "cy", "dee"][:n]
    return [ChatRoom(GAME, keys, me, ids[me], names) for me in range(n)]


def test_a_line_said_is_signed_by_its_author_and_accepted_by_the_others() -> None:
    ann, bob, cy = rooms()
    line = ann.say("  good luck  ", now=0.0)
    assert line.text == "good luck" and line.author == 0 and line.n == 0
    for room in (bob, cy):
        note = room.receive(0, line.frame(), now=0.0)
        assert note.line == line and not note.violation
        assert room.lines == [line]


def test_counters_go_up_per_author_and_a_repeated_frame_is_dropped_quietly() -> None:
    ann, bob, _ = rooms()
    first, second = ann.say("one", 0.0), ann.say("two", 0.0)
    assert (first.n, second.n) == (0, 1)
    bob.receive(0, second.frame(), 0.0)
    late = bob.receive(0, first.frame(), 0.0)  # lower counter: a duplicate or a replay
    again = bob.receive(0, second.frame(), 0.0)
    assert late.line is None and not late.violation and not late.note
    assert again.line is None and not again.violation
    assert bob.lines == [second]


def test_a_chat_signature_is_never_valid_as_a_game_message_signature() -> None:
    line = rooms()[0].say("hi", 0.0)
    assert line.signing_bytes().startswith(b"solstice/chat/v1\n")
    assert not line.signing_bytes().startswith(MSG_DOMAIN)


@pytest.mark.parametrize("forge, reason", [
    (lambda line: ChatLine(line.game, line.author, line.n, line.text + "!", line.sig),
     "bad signature"),
    (lambda line: sign_chat(identities(3)[0], OTHER_GAME, 0, line.n, line.text),
     "not this game"),
    (lambda line: sign_chat(identities(3)[1], GAME, 1, line.n, line.text),
     "never relayed"),
])
def test_a_forged_line_is_a_violation_of_the_sending_peer(forge, reason: str) -> None:
    ann, _, cy = rooms()
    forged = forge(ann.say("hi", 0.0))
    note = cy.receive(0, forged.frame(), 0.0)
    assert note.line is None and reason in note.violation
    assert cy.lines == []


@pytest.mark.parametrize("frame", [
    b"C", b"C{", b"Cnull", FRAME_CHAT + canonical_json({"chat": {}, "sig": "00"}),
    FRAME_CHAT + b'{"sig": "00", "chat": {}}',
])
def test_a_malformed_frame_is_a_violation(frame: bytes) -> None:
    note = rooms()[1].receive(0, frame, 0.0)
    assert note.violation.startswith("chat: ") and note.line is None


def test_a_line_that_is_not_canonical_json_is_a_violation() -> None:
    line = rooms()[0].say("hi", 0.0)
    pretty = FRAME_CHAT + canonical_json(line.to_json()).replace(b":", b": ")
    assert "canonical" in rooms()[1].receive(0, pretty, 0.0).violation


def test_our_own_lines_are_checked_before_they_go() -> None:
    ann = rooms()[0]
    with pytest.raises(ChatRefused, match="nothing to say"):
        ann.say("   ", 0.0)
    with pytest.raises(ChatRefused, match=f"at most {MAX_TEXT} characters"):
        ann.say("x" * (MAX_TEXT + 1), 0.0)
    assert ann.say("x" * MAX_TEXT, 0.0).text == "x" * MAX_TEXT


def test_a_text_longer_than_the_limit_from_a_peer_is_a_violation() -> None:
    long = sign_chat(identities(3)[0], GAME, 0, 0, "y" * (MAX_TEXT + 1))
    assert "1 to 200 characters" in rooms()[1].receive(0, long.frame(), 0.0).violation


def test_the_token_bucket_allows_a_burst_then_one_a_second() -> None:
    bucket = TokenBucket(rate=1.0, burst=5)
    assert [bucket.take(10.0) for _ in range(6)] == [True] * 5 + [False]
    assert not bucket.take(10.5)
    assert bucket.take(11.0) and not bucket.take(11.0)


def test_a_flooding_peer_loses_its_excess_lines_with_one_local_note() -> None:
    ids = identities(2)
    bob = rooms(2)[1]
    frames = [sign_chat(ids[0], GAME, 0, n, f"spam {n}").frame() for n in range(BURST + 3)]
    notes = [bob.receive(0, frame, now=0.0) for frame in frames]
    assert [n.line is not None for n in notes] == [True] * BURST + [False] * 3
    assert [bool(n.note) for n in notes[BURST:]] == [True, False, False]
    assert "ann" in notes[BURST].note and not any(n.violation for n in notes)
    later = bob.receive(0, sign_chat(ids[0], GAME, 0, 99, "calm").frame(), now=2.0)
    assert later.line is not None


def test_we_refuse_our_own_flood_so_the_others_never_drop_it() -> None:
    ann = rooms()[0]
    for n in range(BURST):
        ann.say(f"line {n}", 0.0)
    with pytest.raises(ChatRefused, match="not sent"):
        ann.say("one too many", 0.0)
    assert ann.say("later", 1.0).n == BURST


def test_kept_lines_verify_and_a_bad_one_is_reported_apart() -> None:
    ann, bob, _ = rooms()
    bob.receive(0, ann.say("hi", 0.0).frame(), 0.0)
    bob.say("hello", 0.0)
    keys = [i.public_bytes for i in identities(3)]
    assert verify_chat(GAME, keys, bob.transcript()).problems == ()
    assert verify_chat(GAME, keys, None).count == 0
    entries = bob.transcript()
    entries[0]["chat"]["text"] = "I resign"
    check = verify_chat(GAME, keys, entries)
    assert check.count == 2 and len(check.problems) == 1 and "bad signature" in check.problems[0]
    assert "not this game" in verify_chat(OTHER_GAME, keys, bob.transcript()).problems[0]


def test_a_resumed_room_counts_on_from_its_stored_lines(tmp_path) -> None:
    ids = identities(2)
    keys = [i.public_bytes for i in ids]
    first = ChatRoom(GAME, keys, 0, ids[0], ["ann", "bob"],
                     on_keep=lambda line: append_chat(tmp_path, line, durable=True))
    first.say("before the crash", 0.0)
    (tmp_path / "chat.jsonl").open("ab").write(b"{torn")
    again = ChatRoom(GAME, keys, 0, ids[0], ["ann", "bob"], load_chat(tmp_path))
    assert [line.text for line in again.lines] == ["before the crash"]
    assert again.say("after", 0.0).n == 1


def test_the_headless_log_prints_chat_lines_escaped() -> None:
    out = io.StringIO()
    printer = LogPrinter(out)
    printer.chat(ChatShown("bob\x1b[2J", "gg \x1b[1A\u202e"))
    printer.chat(ChatShown(None, "chat from bob dropped"))
    text = out.getvalue()
    assert "\x1b" not in text and "\u202e" not in text
    lines = text.splitlines()
    assert lines[0].endswith("chat: bob\\x1b[2J: gg \\x1b[1A\\u202e")
    assert lines[1].endswith("chat: chat from bob dropped")


# --------------------------------------------------------------------------- over the mesh


class Chatter(ChatLink):
    """A player's chat link that records what it is shown and keeps the raw broadcast (so a
    test can also send a forged frame over the same connections)."""

    def __init__(self) -> None:
        self.shown: list[ChatShown] = []
        super().__init__(self.shown.append)

    def attach(self, room: ChatRoom, send: Any, clock: Any) -> None:
        super().attach(room, send, clock)
        self.broadcast = send


async def chat_game(root: Path) -> tuple[list[Any], list[Chatter]]:
    """Three bots over loopback TLS (``peers[i]``, ``links[i]``: home i); in the lobby, before
    anyone joins, the host says a line; at its first decision bot1 says a line, bot2 sends a
    line with a bad signature and one signed for another game."""
    from test_net_tcp import CFG, LOOPBACK, Peer

    links = [Chatter() for _ in range(3)]
    peers = [Peer(i) for i in range(3)]
    code: dict[str, Any] = {}
    ready, said = trio.Event(), trio.Event()
    ids = {}

    def chooser(i: int) -> Any:
        bot = bot_chooser(make_bot("random"), out=io.StringIO())
        said = False

        async def choose(seats: SeatView) -> Any:
            nonlocal said
            if not said:
                said = True
                if i == 1:
                    await links[1].say("good luck, all")
                elif i == 2:
                    me = seats.peer  # its roster index: the joiners race to the host
                    honest = sign_chat(ids[2], seats.game_id, me, 0, "I win")
                    bad = ChatLine(honest.game, me, 1, "I win!", honest.sig)
                    await links[2].broadcast(bad.frame())
                    other = sign_chat(ids[2], OTHER_GAME, me, 2, "wrong table")
                    await links[2].broadcast(other.frame())
            return await bot(seats)
        return choose

    def options(i: int) -> PeerOptions:
        return PeerOptions(home=root / f"peer{i}", name=f"bot{i}", bind=LOOPBACK, port=0,
                           net=CFG, chat=links[i])

    for i in range(3):
        ids[i] = Identity.load_or_create(root / f"peer{i}")

    def on_lobby(lobby: Any) -> None:
        code["code"] = lobby.code
        ready.set()

    async def host() -> None:
        peers[0].session = await host_game(3, chooser(0), peers[0], options(0), on_lobby)

    async def welcome() -> None:
        await ready.wait()
        await links[0].say("welcome, both")  # the lobby's: the joiners get it when admitted
        said.set()

    async def join(i: int) -> None:
        await said.wait()
        peers[i].session = await join_game(code["code"], chooser(i), peers[i], options(i))

    with trio.fail_after(90):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(host)
            nursery.start_soon(welcome)
            for i in (1, 2):
                nursery.start_soon(join, i)
    return peers, links


@pytest.fixture(scope="module")
def chatted(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Any], list[Chatter]]:
    return trio.run(chat_game, tmp_path_factory.mktemp("chat"))


@pytest.mark.slow
def test_a_line_said_in_a_game_reaches_every_peer_and_every_transcript(chatted) -> None:
    peers, links = chatted
    for i, link in enumerate(links):
        assert ChatShown("bot1", "good luck, all") in link.shown, i
        assert not any(s.text in ("I win!", "wrong table") for s in link.shown)
    for peer in peers:
        verdict = verify_transcript(peer.transcript)
        assert verdict.ok, verdict.summary
        assert verdict.chat.count == 1 and verdict.chat.problems == ()
        kept = json.loads(peer.transcript.read_text())["chat"]
        assert [entry["chat"]["text"] for entry in kept] == ["good luck, all"]
        assert verdict.lobby_chat.count == 1 and verdict.lobby_chat.problems == ()
        lobby = json.loads(peer.transcript.read_text())["lobby_chat"]
        assert [entry["line"]["text"] for entry in lobby] == ["welcome, both"]
    for link in links:  # the last joiner too: it is sent the lines before the roster
        assert ChatShown("bot0", "welcome, both", lobby=True) in link.shown
    for peer in (peers[0], peers[1]):  # the forgeries are the sender's protocol violations
        rejected = [e.text for e in peer.events if isinstance(e, Rejected)]
        assert any("bad signature on chat" in text for text in rejected), rejected
        assert any("not this game" in text for text in rejected), rejected


@pytest.mark.slow
def test_a_transcript_whose_chat_was_altered_keeps_its_verdict(chatted, tmp_path: Path) -> None:
    peers, _ = chatted
    data = json.loads(peers[2].transcript.read_text())
    data["chat"][0]["chat"]["text"] = "bot1 resigns"
    altered = tmp_path / "altered.json"
    altered.write_text(json.dumps(data, indent=1))
    verdict = verify_transcript(altered)
    assert verdict.ok and verdict.exit_status == 0
    assert verdict.chat.count == 1 and "bad signature" in verdict.chat.problems[0]
    run = subprocess.run([str(Path(sys.executable).parent / "solstice"), "verify", str(altered)],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert "chat: 1 line(s), 1 do not check" in run.stdout
    assert "chat 0 does not check (bad signature" in run.stdout
    as_json = subprocess.run([str(Path(sys.executable).parent / "solstice"), "verify", "--json",
                              str(altered)], capture_output=True, text=True, timeout=60)
    assert json.loads(as_json.stdout)["chat"]["messages"] == 1 and as_json.returncode == 0


@pytest.mark.slow
def test_a_rebuilt_transcript_keeps_the_chat(chatted, tmp_path: Path) -> None:
    peers, _ = chatted
    game_dir = peers[0].transcript.parent
    rebuilt = rebuild_transcript(game_dir.parent.parent, game_dir.name, tmp_path / "again.json")
    verdict = verify_transcript(rebuilt)
    assert verdict.ok and verdict.chat.count == 1 and verdict.chat.problems == ()
