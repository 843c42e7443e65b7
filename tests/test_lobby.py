"""Sans-IO lobby: join codes, the signed roster, host and joiner machines back to back."""

from __future__ import annotations

import pytest

from engine.canonical import canonical_json
from p2p.errors import LocalProtocolError, RemoteProtocolError
from p2p.identity import Identity
from p2p.net.joincode import InvalidJoinCode, JoinCode
from p2p.net.lobby import (
    HostLobby,
    JoinerLobby,
    LobbyRefused,
    LobbySeat,
    LobbyUpdate,
    answer_rejoin,
    check_mesh_hello,
    check_mesh_welcome,
    encode_control,
    lobby_changes,
    mesh_hello,
    mesh_welcome,
    refuse,
)
from p2p.net.roster import Roster, RosterEntry, new_game_id

HOST = Identity.from_private_bytes(b"\x01" * 32)
ALICE = Identity.from_private_bytes(b"\x02" * 32)
BOB = Identity.from_private_bytes(b"\x03" * 32)
MALLORY = Identity.from_private_bytes(b"\x04" * 32)


# ---------------------------------------------------------------- join codes


@pytest.mark.parametrize("address", ["127.0.0.1", "192.168.1.20", "::1", "fe80::1"])
def test_join_code_round_trip(address: str) -> None:
    code = JoinCode(address, 40123, new_game_id(), HOST.peer_id)
    text = code.encode()
    assert text.startswith("sol1-") and text == text.lower()
    assert JoinCode.parse(text) == code
    assert JoinCode.parse(f"  {text.upper()}\n") == code  # typed in capitals, pasted with space


def test_a_join_code_copied_from_a_wrapped_terminal_line_still_reads() -> None:
    code = JoinCode("192.168.1.20", 40123, new_game_id(), HOST.peer_id)
    text = code.encode()
    wrapped = f"  {text[:60]}  \n  {text[60:]}  "  # as selected from a lobby screen
    assert JoinCode.parse(wrapped) == code


def test_join_code_rejects_bad_values() -> None:
    with pytest.raises(LocalProtocolError):
        JoinCode("not-an-ip", 1, new_game_id(), HOST.peer_id)
    with pytest.raises(LocalProtocolError):
        JoinCode("127.0.0.1", 0, new_game_id(), HOST.peer_id)


def _flip(text: str, pos: int) -> str:
    alphabet = "abcdefghijklmnopqrstuvwxyz234567"
    new = alphabet[(alphabet.index(text[pos]) + 1) % 32]
    return text[:pos] + new + text[pos + 1 :]


@pytest.mark.parametrize(
    ("mangle", "message"),
    [
        (lambda t: "", "starts with"),
        (lambda t: "hello world", "starts with"),
        (lambda t: t.replace("sol1-", "sol2-"), "starts with"),
        (lambda t: t + "!!", "characters"),
        (lambda t: t[:-6], "truncated"),
        (lambda t: t + "aaaaaaaa", "too long"),
        (lambda t: _flip(t, 20), "checksum"),
        (lambda t: _flip(t, len(t) - 1), "mistyped"),
        (lambda t: _flip(t, 60), "mistyped"),
        (lambda t: "sol1-", "empty"),
    ],
)
def test_garbage_join_codes(mangle, message: str) -> None:
    text = JoinCode("127.0.0.1", 5000, new_game_id(), HOST.peer_id).encode()
    with pytest.raises(InvalidJoinCode, match=message):
        JoinCode.parse(mangle(text))


# ---------------------------------------------------------------- lobby machines


def host_lobby(players: int, game_id: str) -> HostLobby:
    me = RosterEntry(0, "host", HOST.public_bytes, "127.0.0.1", 4000)
    return HostLobby(game_id, players, me)


def run_lobby(players: list[tuple[Identity, str, int]]) -> tuple[HostLobby, list[Roster]]:
    """Wire the host machine and the joiner machines back to back, no sockets."""
    game_id = new_game_id()
    code = JoinCode("127.0.0.1", 4000, game_id, HOST.peer_id)
    host = host_lobby(len(players) + 1, game_id)
    joiners = [JoinerLobby(code, ident, name, port) for ident, name, port in players]
    for j in joiners:
        entry = host.on_hello(j.identity.public_bytes, "127.0.0.2", encode_control(j.hello()))
        j.on_welcome(encode_control(host.welcome(entry)))
    roster = host.roster(HOST)
    message = encode_control(HostLobby.roster_message(roster))
    return host, [j.on_roster(message) for j in joiners]


def test_lobby_back_to_back() -> None:
    host, rosters = run_lobby([(ALICE, "alice", 5001), (BOB, "bob", 5002)])
    assert host.full
    roster = rosters[0]
    assert all(r == roster for r in rosters)
    assert [p.name for p in roster.players] == ["host", "alice", "bob"]
    assert [p.peer_id for p in roster.players] == [HOST.peer_id, ALICE.peer_id, BOB.peer_id]
    assert [p.port for p in roster.players] == [4000, 5001, 5002]
    assert roster.players[1].address == "127.0.0.2"  # where the connection came from
    assert roster.index_of(BOB.peer_id) == 2 and roster.index_of(MALLORY.peer_id) is None
    assert Roster.decode(roster.encode(), host_id=HOST.peer_id) == roster


def test_host_refusals() -> None:
    game_id = new_game_id()
    host = host_lobby(2, game_id)
    code = JoinCode("127.0.0.1", 4000, game_id, HOST.peer_id)
    other_code = JoinCode("127.0.0.1", 4000, new_game_id(), HOST.peer_id)
    wrong_game = JoinerLobby(other_code, ALICE, "a", 1)
    with pytest.raises(LobbyRefused, match="not the game"):
        host.on_hello(ALICE.public_bytes, "127.0.0.1", encode_control(wrong_game.hello()))
    with pytest.raises(LobbyRefused, match="hello"):
        host.on_hello(ALICE.public_bytes, "127.0.0.1", encode_control({"type": "roster"}))
    with pytest.raises(LobbyRefused, match="already joined"):
        host.on_hello(
            HOST.public_bytes, "127.0.0.1", encode_control(JoinerLobby(code, HOST, "me", 1).hello())
        )
    host.on_hello(
        ALICE.public_bytes, "127.0.0.1", encode_control(JoinerLobby(code, ALICE, "a", 1).hello())
    )
    with pytest.raises(LobbyRefused, match="full"):
        host.on_hello(
            BOB.public_bytes, "127.0.0.1", encode_control(JoinerLobby(code, BOB, "b", 1).hello())
        )
    joiner = JoinerLobby(code, BOB, "b", 1)
    with pytest.raises(LobbyRefused, match="full"):
        joiner.on_welcome(encode_control(refuse("the game is full")))


def test_leaving_renumbers() -> None:
    game_id = new_game_id()
    host = host_lobby(3, game_id)
    code = JoinCode("127.0.0.1", 4000, game_id, HOST.peer_id)
    for ident in (ALICE, BOB):
        host.on_hello(
            ident.public_bytes,
            "127.0.0.1",
            encode_control(JoinerLobby(code, ident, "x", 1).hello()),
        )
    host.leave(ALICE.peer_id)
    assert [(e.index, e.peer_id) for e in host.joined] == [(0, HOST.peer_id), (1, BOB.peer_id)]
    assert not host.full
    with pytest.raises(LocalProtocolError):
        host.roster(HOST)


def _signed_roster_message(roster: Roster) -> bytes:
    return encode_control({"type": "roster", "roster": roster.signed_json()})


def test_joiner_rejects_bad_rosters() -> None:
    game_id = new_game_id()
    code = JoinCode("127.0.0.1", 4000, game_id, HOST.peer_id)
    joiner = JoinerLobby(code, ALICE, "alice", 5001)
    entries = (
        RosterEntry(0, "host", HOST.public_bytes, "127.0.0.1", 4000),
        RosterEntry(1, "alice", ALICE.public_bytes, "127.0.0.1", 5001),
    )
    good = Roster(game_id, entries).sign(HOST)
    assert joiner.on_roster(_signed_roster_message(good)) == good

    # Signed by someone else than the code's host (Mallory pretends to be the host).
    fake_entries = (RosterEntry(0, "host", MALLORY.public_bytes, "127.0.0.1", 4000), entries[1])
    with pytest.raises(RemoteProtocolError, match="not the host"):
        joiner.on_roster(_signed_roster_message(Roster(game_id, fake_entries).sign(MALLORY)))
    # Tampered after signing.
    tampered = Roster(
        game_id,
        (entries[0], RosterEntry(1, "alice", ALICE.public_bytes, "127.0.0.9", 5001)),
        good.sig,
    )
    with pytest.raises(RemoteProtocolError, match="signature"):
        joiner.on_roster(_signed_roster_message(tampered))
    # Another game (an old roster of this host replayed), or not listing us.
    with pytest.raises(RemoteProtocolError, match="another game"):
        joiner.on_roster(_signed_roster_message(Roster(new_game_id(), entries).sign(HOST)))
    others = (entries[0], RosterEntry(1, "bob", BOB.public_bytes, "127.0.0.1", 5001))
    with pytest.raises(RemoteProtocolError, match="does not list us"):
        joiner.on_roster(_signed_roster_message(Roster(game_id, others).sign(HOST)))
    # Listing us on another port: the roster made before we restarted, sent again; taken as
    # it is (we then listen on its port).
    moved = Roster(game_id, (entries[0], RosterEntry(1, "alice", ALICE.public_bytes,
                                                     "127.0.0.1", 6000))).sign(HOST)
    assert joiner.on_roster(_signed_roster_message(moved)) == moved
    # Structural problems.
    dup = (entries[0], entries[1], RosterEntry(2, "again", ALICE.public_bytes, "127.0.0.1", 1))
    with pytest.raises(RemoteProtocolError, match="twice"):
        joiner.on_roster(_signed_roster_message(Roster(game_id, dup).sign(HOST)))
    obj = good.signed_json()
    obj["roster"]["players"][1]["peer"] = BOB.peer_id
    with pytest.raises(RemoteProtocolError, match="does not match its key"):
        joiner.on_roster(encode_control({"type": "roster", "roster": obj}))
    with pytest.raises(RemoteProtocolError):
        joiner.on_roster(canonical_json({"type": "roster", "roster": []}))


def test_only_the_host_signs() -> None:
    entries = (
        RosterEntry(0, "host", HOST.public_bytes, "127.0.0.1", 4000),
        RosterEntry(1, "alice", ALICE.public_bytes, "127.0.0.1", 5001),
    )
    with pytest.raises(LocalProtocolError):
        Roster(new_game_id(), entries).sign(ALICE)


# ---------------------------------------------------------------- mesh handshake messages


def three_roster() -> Roster:
    entries = tuple(
        RosterEntry(i, n, ident.public_bytes, "127.0.0.1", 4000 + i)
        for i, (n, ident) in enumerate([("h", HOST), ("a", ALICE), ("b", BOB)])
    )
    return Roster(new_game_id(), entries).sign(HOST)


def test_mesh_hello_checks() -> None:
    roster = three_roster()
    hello = encode_control(mesh_hello(roster.game_id, 2))
    assert check_mesh_hello(hello, roster, 1, BOB.peer_id) == 2
    with pytest.raises(LobbyRefused, match="is not the roster's"):
        check_mesh_hello(hello, roster, 1, MALLORY.peer_id)  # impostor claims index 2
    with pytest.raises(LobbyRefused, match="may not dial"):
        check_mesh_hello(encode_control(mesh_hello(roster.game_id, 0)), roster, 1, HOST.peer_id)
    with pytest.raises(LobbyRefused, match="may not dial"):
        check_mesh_hello(encode_control(mesh_hello(roster.game_id, 7)), roster, 1, BOB.peer_id)
    with pytest.raises(LobbyRefused, match="not the game"):
        check_mesh_hello(encode_control(mesh_hello(new_game_id(), 2)), roster, 1, BOB.peer_id)
    check_mesh_welcome(encode_control(mesh_welcome(roster.game_id, 1)), roster, 1)
    with pytest.raises(LobbyRefused, match="refused us: go away"):
        check_mesh_welcome(encode_control(refuse("go away")), roster, 1)
    with pytest.raises(RemoteProtocolError, match="mesh-welcome"):
        check_mesh_welcome(encode_control(mesh_welcome(roster.game_id, 0)), roster, 1)


# ---------------------------------------------------------------- the roster again, after a crash


def test_a_joiner_killed_before_storing_the_roster_gets_the_same_roster_again() -> None:
    game_id = new_game_id()
    code = JoinCode("127.0.0.1", 4000, game_id, HOST.peer_id)
    host = host_lobby(3, game_id)
    for ident, name, port in ((ALICE, "alice", 5001), (BOB, "bob", 5002)):
        host.on_hello(ident.public_bytes, "127.0.0.2",
                      encode_control(JoinerLobby(code, ident, name, port).hello()))
    roster = host.roster(HOST)
    _sent_to_bob = encode_control(HostLobby.roster_message(roster))  # bob dies before storing it
    # Bob restarts with nothing stored: another port, and even another name.
    again = JoinerLobby(code, BOB, "robert", 6002)
    welcome, resent = (encode_control(m) for m in
                       answer_rejoin(roster, BOB.public_bytes, encode_control(again.hello())))
    again.on_welcome(welcome)
    got = again.on_message(resent)
    assert got == roster and isinstance(got, Roster) and got.hash == roster.hash
    assert got.players[2].port == 5002 and got.players[2].name == "bob"  # the roster's, kept


def test_after_the_lobby_closed_a_peer_not_in_the_roster_is_refused() -> None:
    roster = three_roster()
    code = JoinCode("127.0.0.1", 4000, roster.game_id, HOST.peer_id)
    hello = encode_control(JoinerLobby(code, MALLORY, "alice", 5001).hello())
    with pytest.raises(LobbyRefused, match="has started without you.*does not list your peer id "
                                           + MALLORY.short_id):
        answer_rejoin(roster, MALLORY.public_bytes, hello)  # a listed name does not help
    other = JoinCode("127.0.0.1", 4000, new_game_id(), HOST.peer_id)
    with pytest.raises(LobbyRefused, match="not the game"):
        answer_rejoin(roster, ALICE.public_bytes,
                      encode_control(JoinerLobby(other, ALICE, "a", 1).hello()))


def test_a_roster_sent_again_is_checked_like_the_first() -> None:
    roster = three_roster()
    code = JoinCode("127.0.0.1", 4000, roster.game_id, HOST.peer_id)
    joiner = JoinerLobby(code, BOB, "b", 7000)
    # Altered on the way (bob moved to another address): the signature no longer holds.
    obj = roster.signed_json()
    obj["roster"]["players"][2]["address"] = "10.0.0.66"
    with pytest.raises(RemoteProtocolError, match="signature"):
        joiner.on_message(encode_control({"type": "roster", "roster": obj}))
    # Replayed: the genuine roster of another game of the same host and players.
    older = Roster(new_game_id(), roster.players).sign(HOST)
    with pytest.raises(RemoteProtocolError, match="another game"):
        joiner.on_message(encode_control(HostLobby.roster_message(older)))
    # Re-signed by someone else than the code's host.
    forged = Roster(roster.game_id, (RosterEntry(0, "h", MALLORY.public_bytes, "127.0.0.1",
                                                 4000), *roster.players[1:])).sign(MALLORY)
    with pytest.raises(RemoteProtocolError, match="not the host"):
        joiner.on_message(encode_control(HostLobby.roster_message(forged)))


# ---------------------------------------------------------------- lobby updates


def test_each_admitted_joiner_is_told_who_is_at_the_table() -> None:
    game_id = new_game_id()
    code = JoinCode("127.0.0.1", 4000, game_id, HOST.peer_id)
    host = host_lobby(4, game_id)
    alice = JoinerLobby(code, ALICE, "alice", 5001)
    seen = []
    for ident, name in ((ALICE, "alice"), (BOB, "player"), (MALLORY, "player")):
        host.on_hello(ident.public_bytes, "127.0.0.2",
                      encode_control(JoinerLobby(code, ident, name, 1).hello()))
        update = alice.on_message(encode_control(host.update()))
        assert isinstance(update, LobbyUpdate)
        seen.append(update)
    bob, mallory = f"player#{BOB.short_id}", f"player#{MALLORY.short_id}"
    assert [[s.name for s in u.seated] for u in seen] == [
        ["host", "alice"], ["host", "alice", "player"], ["host", "alice", bob, mallory]]
    assert {u.players for u in seen} == {4}
    # Two players who chose "player" are told apart by their names (ids appended) and ids.
    labels = [s.label(ALICE.peer_id) for s in seen[-1].seated]
    assert labels == [f"host ({HOST.short_id})", f"alice ({ALICE.short_id}, you)",
                      f"{bob} ({BOB.short_id})", f"{mallory} ({MALLORY.short_id})"]


def test_what_a_joiner_is_told_as_the_table_changes() -> None:
    host_seat, alice, bob, carol = (LobbySeat(n, i.peer_id) for n, i in
                                    (("host", HOST), ("alice", ALICE), ("bob", BOB),
                                     ("carol", MALLORY)))
    two = LobbyUpdate(4, (host_seat, alice))
    three = LobbyUpdate(4, (host_seat, alice, bob))
    assert lobby_changes(None, two, ALICE.peer_id) == [
        f"at the table: host ({HOST.short_id}), alice ({ALICE.short_id}, you); 2/4, "
        "waiting for 2 more"]
    assert lobby_changes(two, three, ALICE.peer_id) == [f"bob ({BOB.short_id}) joined, 3/4"]
    assert lobby_changes(three, three, ALICE.peer_id) == []
    swapped = LobbyUpdate(4, (host_seat, alice, carol))
    assert lobby_changes(three, swapped, ALICE.peer_id) == [
        f"bob ({BOB.short_id}) left the lobby, 3/4", f"carol ({MALLORY.short_id}) joined, 3/4"]


GAME = new_game_id()


def _update(**change: object) -> bytes:
    """A lobby update for alice in GAME, with ``change`` made to it."""
    obj: dict[str, object] = {"type": "lobby", "game": GAME, "players": 3, "seated": [
        {"name": "host", "peer": HOST.peer_id}, {"name": "alice", "peer": ALICE.peer_id}]}
    obj.update(change)
    return encode_control(obj)


@pytest.mark.parametrize(("data", "message"), [
    (_update(game=new_game_id()), "malformed"),
    (_update(extra=1), "malformed"),
    (_update(players=5), "player count"),
    (_update(players=True), "player count"),
    (_update(seated=[]), "player count"),
    (_update(players=2, seated=[{"name": "host", "peer": HOST.peer_id},
                                {"name": "alice", "peer": ALICE.peer_id},
                                {"name": "bob", "peer": BOB.peer_id}]), "player count"),
    (_update(seated=[{"name": "host", "peer": HOST.peer_id},
                     {"name": "evil\x1b[2J", "peer": ALICE.peer_id}]), "bad seat"),
    (_update(seated=[{"name": "host", "peer": HOST.peer_id},
                     {"name": "x" * 33, "peer": ALICE.peer_id}]), "bad seat"),
    (_update(seated=[{"name": "host", "peer": HOST.peer_id},
                     {"name": "alice", "peer": "zz"}]), "bad seat"),
    (_update(seated=[{"name": "alice", "peer": ALICE.peer_id},
                     {"name": "host", "peer": HOST.peer_id}]), "start with the host"),
    (_update(seated=[{"name": "host", "peer": HOST.peer_id},
                     {"name": "alice", "peer": ALICE.peer_id},
                     {"name": "again", "peer": ALICE.peer_id}]), "twice"),
    (_update(seated=[{"name": "host", "peer": HOST.peer_id},
                     {"name": "bob", "peer": BOB.peer_id}]), "does not list us"),
    (_update(padding="x" * 9000), "bytes"),
], ids=lambda value: value if isinstance(value, str) else "update")
def test_a_joiner_refuses_a_malformed_lobby_update(data: bytes, message: str) -> None:
    joiner = JoinerLobby(JoinCode("127.0.0.1", 4000, GAME, HOST.peer_id), ALICE, "alice", 5001)
    assert isinstance(joiner.on_message(_update()), LobbyUpdate)
    with pytest.raises(RemoteProtocolError, match=message):
        joiner.on_message(data)
