"""Players learn who watches from the host's signed "watchers" notice; nobody else can make a
player see a watcher (protocol.md, "Observers")."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import trio
from test_discovery_watch import CFG, Table, _options

from p2p.identity import Identity
from p2p.net.lobby import decode_control, encode_control
from p2p.net.node import HostedLobby
from p2p.net.notices import WatchersChanged
from p2p.net.observers import watch_hello
from p2p.net.roster import Roster, RosterEntry, new_game_id
from p2p.net.transport import dial
from p2p.net.watch import watch_game
from p2p.net.watchers import (
    FRAME_WATCHERS,
    MAX_LISTED,
    BadWatchersNotice,
    HeardWatchers,
    Watcher,
    check_notice,
    watchers_frame,
)
from p2p.session.events import Rejected
from ui.cli.headless import LogPrinter

HOST, BOB = Identity.generate(), Identity.generate()
DORA = Watcher(Identity.generate().peer_id, "dora")


def _roster() -> Roster:
    players = tuple(RosterEntry(i, name, ident.public_bytes, "127.0.0.1", 4000 + i)
                    for i, (ident, name) in enumerate(((HOST, "alice"), (BOB, "bob"))))
    return Roster(new_game_id(), players, b"").sign(HOST)


def test_a_player_takes_the_hosts_signed_notice_of_who_watches() -> None:
    roster = _roster()
    heard = HeardWatchers(roster)
    (event,) = heard.receive(0, watchers_frame(HOST, roster.game_id, 1, [DORA]))
    assert isinstance(event, WatchersChanged) and event.text == "watching: dora"
    assert heard.watchers == (DORA,)
    (gone,) = heard.receive(0, watchers_frame(HOST, roster.game_id, 2, []))
    assert gone.text == "nobody is watching now"


def test_an_older_or_repeated_notice_changes_nothing() -> None:
    roster = _roster()
    heard = HeardWatchers(roster)
    heard.receive(0, watchers_frame(HOST, roster.game_id, 2, [DORA]))
    assert heard.receive(0, watchers_frame(HOST, roster.game_id, 1, [])) == []
    assert heard.receive(0, watchers_frame(HOST, roster.game_id, 2, [DORA])) == []
    assert heard.watchers == (DORA,)


@pytest.mark.parametrize("forger", ["a spectator", "another player"])
def test_a_notice_not_signed_by_the_host_is_refused(forger: str) -> None:
    roster = _roster()
    signer = Identity.generate() if forger == "a spectator" else BOB
    frame = watchers_frame(signer, roster.game_id, 1, [Watcher(signer.peer_id, "ghost")])
    with pytest.raises(BadWatchersNotice, match="not signed by the host"):
        check_notice(roster, 0, frame)
    heard = HeardWatchers(roster)
    (event,) = heard.receive(0, frame)
    assert isinstance(event, Rejected) and heard.watchers == ()


def test_only_the_hosts_link_carries_notices_even_a_relayed_genuine_one() -> None:
    roster = _roster()
    with pytest.raises(BadWatchersNotice, match="only the host"):
        check_notice(roster, 1, watchers_frame(HOST, roster.game_id, 1, [DORA]))


def test_a_notice_for_another_game_or_with_too_many_names_is_refused() -> None:
    roster = _roster()
    with pytest.raises(BadWatchersNotice, match="another game"):
        check_notice(roster, 0, watchers_frame(HOST, new_game_id(), 1, [DORA]))
    crowd = [Watcher(Identity.generate().peer_id, f"w{i}") for i in range(MAX_LISTED + 1)]
    _, listed = check_notice(roster, 0, watchers_frame(HOST, roster.game_id, 1, crowd))
    assert len(listed) == MAX_LISTED  # the host never names more; a longer list is refused


@pytest.mark.parametrize("frame", [
    b"W", b"Wnot json", b"W" + b"[" * 5000, b'W{"notice": 1, "sig": "zz"}',
    b'W{"notice": {"type": "watchers", "game": "g", "seq": 1.5, "watchers": []}, "sig": "00"}',
    b"W" + b" " * 9000,
], ids=["empty", "not-json", "deep", "bad-shape", "float", "too-long"])
def test_a_malformed_notice_is_ignored_with_a_warning(frame: bytes) -> None:
    heard = HeardWatchers(_roster())
    (event,) = heard.receive(0, frame)
    assert isinstance(event, Rejected) and "watchers notice" in event.text
    assert heard.watchers == () and heard.seq == 0


def test_a_name_that_could_drive_the_terminal_is_refused_even_from_the_host() -> None:
    roster = _roster()
    evil = Watcher(DORA.peer_id, "dora\x1b[2J\u202e")
    with pytest.raises(BadWatchersNotice, match="bad id or name"):
        check_notice(roster, 0, watchers_frame(HOST, roster.game_id, 1, [evil]))


# ---- over loopback: a 3-player bot game with a spectator (the table of test_discovery_watch)


@pytest.mark.slow
async def test_the_players_learn_the_spectators_name(tmp_path: Path) -> None:
    table = Table(tmp_path)

    async def spectator(lobby: HostedLobby, nursery: trio.Nursery) -> None:
        nursery.start_soon(watch_game, lobby.code, table.sink("dora"),
                           _options(tmp_path, "dora"))
        await trio.sleep(0.5)  # in before the table fills

    await table.play(spectator)
    for name in ("alice", "bob", "carol"):
        texts = [e.text for e in table.events[name] if isinstance(e, WatchersChanged)]
        assert "watching: dora" in texts, (name, texts)
    out = io.StringIO()
    printer = LogPrinter(out)
    for event in table.events["bob"]:
        printer(event)
    assert "watching: dora" in out.getvalue()  # what a headless player prints


@pytest.mark.slow
async def test_a_spectator_cannot_inject_a_watchers_notice(tmp_path: Path) -> None:
    table = Table(tmp_path)
    mallory_id: list[str] = []

    async def intruder(lobby: HostedLobby, nursery: trio.Nursery) -> None:
        code = lobby.code
        mallory = Identity.generate()
        mallory_id.append(mallory.peer_id)
        conn = await dial(code.address, code.port, mallory, code.host_id, CFG, 0)
        await conn.send_frame(encode_control(watch_hello(code.game_id, "mallory")))
        assert decode_control(await conn.receive_first_frame())["type"] == "watch-welcome"
        # A notice naming a ghost, signed by mallory (the only key it has).
        fake = watchers_frame(mallory, code.game_id, 99, [Watcher(mallory.peer_id, "ghost")])
        assert fake[:1] == FRAME_WATCHERS
        await conn.send_frame(fake)
        answer = await conn.receive_frame()
        assert answer is not None and decode_control(answer)["type"] == "refuse"
        await conn.aclose()

    await table.play(intruder)
    assert all(s.result is not None and s.result["ok"] for s in table.sessions.values())
    for name in ("alice", "bob", "carol"):
        assert not [e for e in table.events[name] if "ghost" in e.text], name
    assert any(f"mallory ({mallory_id[0][:8]}) stopped watching: dropped" in e.text
               for e in table.events["alice"])

