"""Lobby chat (#15): signed lines while the table fills, relayed by the host, checked by every
joiner (the host can withhold a line, never forge one), kept for the transcript and checked by
``solstice verify`` without changing its verdict."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
import trio
from test_mesh import CFG, Peer
from ui_transcript import write_finished_game

from engine.canonical import canonical_json
from p2p.identity import Identity
from p2p.net.chat import BURST, CHAT_DOMAIN, MAX_TEXT, ChatLine, ChatRefused, sign_chat
from p2p.net.chatlink import ChatLink, ChatShown
from p2p.net.lobby import JoinerLobby, encode_control
from p2p.net.lobbychat import (
    LOBBY_CHAT_DOMAIN,
    MAX_FRAME,
    MAX_LINES,
    MAX_PER_PEER,
    LobbyChat,
    LobbyChatLine,
    LobbyNote,
    sign_lobby_chat,
    verify_lobby_chat,
)
from p2p.net.transport import dial
from p2p.storage.chatlog import load_lobby_chat
from p2p.storage.transcript import load_transcript, verify_transcript
from ui.cli.headless import LogPrinter

GAME = "ab" * 16
OTHER_GAME = "cd" * 16
ANN, BOB, HOST = (Identity.generate() for _ in range(3))


def forged(line: LobbyChatLine, **change: object) -> bytes:
    """``line`` with a field changed and its signature kept: what a forger can send."""
    values = {**line.__dict__, **change}
    return LobbyChatLine(**values).frame()  # type: ignore[arg-type]


def test_a_lobby_line_is_signed_by_its_author_and_the_host_relays_it_to_a_joiner() -> None:
    line = LobbyChat(GAME, ANN).say("  hello table ", now=0.0)
    assert (line.peer, line.n, line.text, line.key) == (ANN.peer_id, 0, "hello table",
                                                       ANN.public_bytes)
    host = LobbyChat(GAME, HOST)
    assert host.relay(ANN.public_bytes, line.frame(), now=0.0).line == line
    bob = LobbyChat(GAME, BOB)
    assert bob.hear(line.frame(), {HOST.peer_id, ANN.peer_id}).line == line
    assert host.lines == bob.lines == [line]


def test_a_lobby_signature_is_never_valid_as_a_table_chat_signature_nor_the_reverse() -> None:
    assert LOBBY_CHAT_DOMAIN != CHAT_DOMAIN
    lobby, table = sign_lobby_chat(ANN, GAME, 0, "hi"), sign_chat(ANN, GAME, 0, 0, "hi")
    assert lobby.verify() and table.verify(ANN.public_bytes)
    assert not ChatLine(GAME, 0, 0, "hi", lobby.sig).verify(ANN.public_bytes)
    assert not LobbyChatLine(GAME, ANN.peer_id, 0, "hi", ANN.public_bytes, table.sig).verify()


def test_the_host_refuses_a_line_in_the_name_of_another_peer_than_its_connection() -> None:
    host = LobbyChat(GAME, HOST)
    anns = sign_lobby_chat(ANN, GAME, 0, "I am ann")
    note = host.relay(BOB.public_bytes, anns.frame(), now=0.0)  # sent on bob's connection
    assert note.line is None and "only its own" in note.violation
    claimed = forged(anns, text="I am bob", peer=BOB.peer_id, key=BOB.public_bytes)
    note = host.relay(BOB.public_bytes, claimed, now=0.0)
    assert "bad signature" in note.violation
    assert host.lines == []


@pytest.mark.parametrize("change, reason", [
    ({"text": "ann resigns"}, "bad signature"),
    ({"game": OTHER_GAME}, "not this game"),
    ({"key": BOB.public_bytes}, "bad signature"),
])
def test_a_joiner_refuses_a_line_the_host_altered(change: dict[str, object], reason: str
                                                  ) -> None:
    line = sign_lobby_chat(ANN, GAME, 0, "good luck")
    bob = LobbyChat(GAME, BOB)
    note = bob.hear(forged(line, **change), {HOST.peer_id, ANN.peer_id})
    assert note.line is None and reason in note.note and "refused" in note.note
    assert bob.lines == []


def test_a_joiner_refuses_a_line_of_someone_not_at_the_table() -> None:
    stranger = Identity.generate()
    note = LobbyChat(GAME, BOB).hear(sign_lobby_chat(stranger, GAME, 0, "hi").frame(),
                                     {HOST.peer_id, ANN.peer_id})
    assert note.line is None and "is not at the table" in note.note


def test_a_line_for_another_game_is_a_violation_at_the_host() -> None:
    line = sign_lobby_chat(ANN, OTHER_GAME, 0, "wrong lobby")
    assert "not this game" in LobbyChat(GAME, HOST).relay(ANN.public_bytes, line.frame(),
                                                          0.0).violation


def test_a_replayed_counter_is_dropped_quietly_everywhere() -> None:
    ann = LobbyChat(GAME, ANN)
    first, second = ann.say("one", 0.0), ann.say("two", 0.0)
    host = LobbyChat(GAME, HOST)
    assert host.relay(ANN.public_bytes, second.frame(), 0.0).line == second
    for frame in (second.frame(), first.frame()):  # again, or an older counter
        assert host.relay(ANN.public_bytes, frame, 0.0) == LobbyNote()
    bob = LobbyChat(GAME, BOB)
    seated = {ANN.peer_id}
    assert bob.hear(second.frame(), seated).line == second
    assert bob.hear(first.frame(), seated).line is None and bob.lines == [second]


def test_the_host_applies_the_in_game_rate_limit_with_one_note_per_flood() -> None:
    ann = LobbyChat(GAME, ANN)
    lines = [sign_lobby_chat(ANN, GAME, n, f"spam {n}") for n in range(BURST + 3)]
    host = LobbyChat(GAME, HOST)
    notes = [host.relay(ANN.public_bytes, line.frame(), now=0.0) for line in lines]
    assert [n.line for n in notes[:BURST]] == lines[:BURST]
    assert "dropped" in notes[BURST].note and notes[BURST].line is None
    assert all(n == LobbyNote() for n in notes[BURST + 1:])  # noted once
    later = sign_lobby_chat(ANN, GAME, BURST + 3, "calm now")
    assert host.relay(ANN.public_bytes, later.frame(), now=2.0).line == later
    for _ in range(BURST):  # our own flood is refused before it goes
        ann.say("x", 0.0)
    with pytest.raises(ChatRefused, match="at most"):
        ann.say("one too many", 0.0)


def test_lines_per_peer_and_in_all_are_bounded() -> None:
    host = LobbyChat(GAME, HOST)
    ann = [sign_lobby_chat(ANN, GAME, n, "a") for n in range(MAX_PER_PEER + 1)]
    kept = [host.relay(ANN.public_bytes, line.frame(), now=float(n)).line
            for n, line in enumerate(ann)]
    assert kept[:MAX_PER_PEER] == ann[:MAX_PER_PEER] and kept[-1] is None
    talkers = [Identity.generate() for _ in range(MAX_LINES // MAX_PER_PEER)]
    for talker in talkers:
        for n in range(MAX_PER_PEER):
            host.relay(talker.public_bytes, sign_lobby_chat(talker, GAME, n, "b").frame(),
                       now=1000.0 + n)
    assert len(host.lines) == MAX_LINES
    with pytest.raises(ChatRefused, match="keeps at most"):
        host.say("the host too", now=5000.0)


def test_oversized_or_malformed_lines_are_refused() -> None:
    with pytest.raises(ChatRefused, match=f"at most {MAX_TEXT}"):
        LobbyChat(GAME, ANN).say("x" * (MAX_TEXT + 1), 0.0)
    with pytest.raises(ChatRefused, match="nothing to say"):
        LobbyChat(GAME, ANN).say("   ", 0.0)
    host = LobbyChat(GAME, HOST)
    long = sign_lobby_chat(ANN, GAME, 0, "x" * MAX_TEXT)
    too_long = forged(long, text="x" * (MAX_TEXT + 1))
    assert "1 to 200 characters" in host.relay(ANN.public_bytes, too_long, 0.0).violation
    huge = b" " * (MAX_FRAME + 1)
    assert f"at most {MAX_FRAME}" in host.relay(ANN.public_bytes, huge, 0.0).violation
    spaced = json.dumps(long.to_json()).encode()  # valid JSON, not canonical
    assert "canonical" in host.relay(ANN.public_bytes, spaced, 0.0).violation
    # The longest line, in 4-byte characters, still fits a frame.
    widest = sign_lobby_chat(ANN, GAME, 0, "\U0001f600" * MAX_TEXT).frame()
    assert len(widest) <= MAX_FRAME


def test_verify_checks_lobby_lines_apart() -> None:
    good = [sign_lobby_chat(ANN, GAME, 0, "hi"), sign_lobby_chat(BOB, GAME, 0, "yo")]
    entries = [line.to_json() for line in good]
    assert verify_lobby_chat(GAME, entries).problems == ()
    entries.append(json.loads(forged(good[0], n=1, text="ann resigns")))
    entries.append(good[1].to_json())
    check = verify_lobby_chat(GAME, entries)
    assert check.count == 4 and len(check.problems) == 2
    assert "lobby chat 2 does not check (bad signature" in check.problems[0]
    assert "counter 0" in check.problems[1]
    assert verify_lobby_chat(OTHER_GAME, entries[:1]).problems[0].endswith("not this game)")


def test_the_headless_log_prints_lobby_lines_escaped() -> None:
    out = io.StringIO()
    printer = LogPrinter(out)
    printer.chat(ChatShown("ann\x1b[2J", "hi\x1b[1A", lobby=True))
    assert out.getvalue().split("] ", 1)[1] == "lobby chat: ann\\x1b[2J: hi\\x1b[1A\n"


# --------------------------------------------------------------------------- loopback


async def until(check: object, seconds: float = 5.0) -> None:
    with trio.fail_after(seconds):
        while not check():  # type: ignore[operator]
            await trio.sleep(0.01)


async def test_a_lobby_line_reaches_the_host_and_the_other_joiners_and_not_a_forgery(
        tmp_path: Path) -> None:
    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            host, ann, bob, cy = (Peer(tmp_path / n, CFG) for n in ("host", "ann", "bob", "cy"))
            for peer in (host, ann, bob, cy):
                await nursery.start(peer.run)
            assert host.node and ann.node and bob.node and cy.node
            lobby = host.node.host(players=4, name="host")
            shown: dict[str, list[ChatShown]] = {n: [] for n in ("host", "ann", "bob", "cy")}
            links = {n: ChatLink(shown[n].append) for n in shown}
            lobby.open_chat(links["host"])
            rosters = {}

            async def join(peer: Peer, name: str, link: ChatLink | None) -> None:
                assert peer.node is not None
                rosters[name] = await peer.node.enter_lobby(lobby.code, name=name, chat=link)

            nursery.start_soon(join, ann, "ann", links["ann"])
            await until(lambda: len(lobby.joined()) == 2)
            nursery.start_soon(join, bob, "bob", links["bob"])
            await until(lambda: len(lobby.joined()) == 3 and links["bob"].in_lobby
                        and links["ann"].in_lobby)
            await trio.sleep(0.1)  # bob is shown the table (ann included) before ann talks
            await links["ann"].say("hello from ann")
            said = ChatShown("ann", "hello from ann", lobby=True)
            await until(lambda: said in shown["host"] and said in shown["bob"])
            assert shown["ann"] == [said]  # shown once: the host never echoes it back

            await lobby.say("welcome all")
            welcome = ChatShown("host", "welcome all", lobby=True)
            await until(lambda: welcome in shown["ann"] and welcome in shown["bob"])

            # The host forges a line in ann's name: bob refuses it, with a note.
            fake = LobbyChatLine(lobby.code.game_id, ann.identity.peer_id, 7, "ann resigns",
                                 ann.identity.public_bytes, b"")
            fake = LobbyChatLine(**{**fake.__dict__,
                                    "sig": host.identity.sign(fake.signing_bytes())})
            lobby.chat.lines.append(fake)
            lobby._table_changed()
            await until(lambda: any("refused" in (s.text or "") for s in shown["bob"]))
            assert not any(s.text == "ann resigns" for s in shown["bob"] + shown["ann"])

            nursery.start_soon(join, cy, "cy", links["cy"])  # full: the roster goes at once
            await until(lambda: len(rosters) == 3)
            # Who came last is sent what was said (but the forgery) before the roster.
            assert shown["cy"][:2] == [said, welcome]
            assert "refused" in (shown["cy"][2].text or "") and len(shown["cy"]) == 3
            game = lobby.code.game_id
            kept = load_lobby_chat(bob.home / "games" / game)
            assert [(line.peer, line.text) for line in kept] == [
                (ann.identity.peer_id, "hello from ann"), (host.identity.peer_id, "welcome all")]
            assert [line.text for line in load_lobby_chat(ann.home / "games" / game)] == [
                "hello from ann", "welcome all"]
            assert not links["ann"].in_lobby  # the lobby closed: chat waits for the game
            with pytest.raises(ChatRefused, match="when the game starts"):
                await links["ann"].say("still there?")
            nursery.cancel_scope.cancel()


async def test_a_joiner_who_sends_a_line_signed_by_another_is_put_out_of_the_lobby(
        tmp_path: Path) -> None:
    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            host = Peer(tmp_path / "host", CFG)
            await nursery.start(host.run)
            assert host.node is not None
            lobby = host.node.host(players=3, name="host")
            code, eve = lobby.code, Identity.generate()
            conn = await dial(code.address, code.port, eve, code.host_id, CFG, 0)
            await conn.send_frame(encode_control(JoinerLobby(code, eve, "eve", 1).hello()))
            await conn.receive_first_frame()  # the welcome
            await until(lambda: len(lobby.joined()) == 2)
            # A modified client: a line of the host's, sent on eve's own connection.
            stolen = sign_lobby_chat(host.identity, code.game_id, 0, "eve wins, says the host")
            await conn.send_frame(stolen.frame())
            await until(lambda: len(lobby.joined()) == 1)
            assert lobby.chat.lines == []
            await conn.aclose()
            nursery.cancel_scope.cancel()


# --------------------------------------------------------------------------- transcript


def test_verify_reports_a_transcripts_lobby_chat_and_keeps_the_verdict(tmp_path: Path) -> None:
    path = write_finished_game(tmp_path / "game.json", players=2)
    game = load_transcript(path)[0].game_id
    data = json.loads(path.read_bytes())
    lines = [sign_lobby_chat(ANN, game, 0, "hi all"), sign_lobby_chat(BOB, game, 0, "gl")]
    data["lobby_chat"] = [line.to_json() for line in lines]
    path.write_bytes(canonical_json(data))
    verdict = verify_transcript(path)
    assert verdict.ok and verdict.lobby_chat.count == 2 and verdict.lobby_chat.problems == ()
    data["lobby_chat"][1]["line"]["text"] = "bob resigns"
    path.write_bytes(canonical_json(data))
    verdict = verify_transcript(path)
    assert verdict.ok and verdict.exit_status == 0
    assert "lobby chat 1 does not check (bad signature" in verdict.lobby_chat.problems[0]
    solstice = str(Path(sys.executable).parent / "solstice")
    run = subprocess.run([solstice, "verify", str(path)], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0, run.stderr
    assert "lobby chat: 2 line(s), 1 do not check" in run.stdout
    as_json = subprocess.run([solstice, "verify", "--json", str(path)], capture_output=True,
                             text=True, timeout=60)
    assert json.loads(as_json.stdout)["lobby_chat"]["messages"] == 2
