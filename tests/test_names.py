"""Issue 24, finding 7: names cannot be worn by another. Names are unique at a table: a joiner
whose name reads like one already there (case and spacing ignored, a trailing "#" and short
id too) is admitted with its short peer id appended, and so is everyone it clashes with, the
host included; a joiner refuses a lobby update or roster that breaks the rule; so chat, which
shows the roster's names, never shows one player's lines under another's name."""

from __future__ import annotations

import pytest

from p2p.errors import RemoteProtocolError
from p2p.identity import Identity
from p2p.net.chat import ChatRoom
from p2p.net.joincode import JoinCode
from p2p.net.lobby import HostLobby, JoinerLobby, encode_control
from p2p.net.roster import MAX_NAME_LEN, Roster, RosterEntry, new_game_id, valid_name

HOST, ANN, MALLORY = Identity.generate(), Identity.generate(), Identity.generate()


def admit(names: list[tuple[Identity, str]], host_name: str = "host",
          players: int | None = None) -> tuple[HostLobby, JoinCode]:
    game_id = new_game_id()
    code = JoinCode("127.0.0.1", 4000, game_id, HOST.peer_id)
    lobby = HostLobby(game_id, players or len(names) + 1,
                      RosterEntry(0, host_name, HOST.public_bytes, "127.0.0.1", 4000))
    for identity, name in names:
        hello = JoinerLobby(code, identity, name, 5000).hello()
        lobby.on_hello(identity.public_bytes, "127.0.0.2", encode_control(hello))
    return lobby, code


@pytest.mark.parametrize("impostor, shown", [
    ("host", "host"), ("HOST", "HOST"), ("Host ", "Host"), ("h o s t", None),
    ("host#<host's short id>", "host"),  # the host's own tagged name, chosen in advance
], ids=["host", "HOST", "Host-space", "h-o-s-t", "host#id"])
def test_a_joiner_named_like_the_host_and_the_host_both_get_their_ids(
        impostor: str, shown: str | None) -> None:
    # The host's key is made at import, so its id is filled in here: a test id must not
    # change between the processes that collect the suite.
    impostor = impostor.replace("<host's short id>", HOST.short_id)
    lobby, _ = admit([(MALLORY, impostor)])
    names = [e.name for e in lobby.joined]
    if shown is None:  # reads differently: no clash
        assert names == ["host", impostor]
    else:
        assert names == [f"host#{HOST.short_id}", f"{shown}#{MALLORY.short_id}"]


def test_names_that_do_not_clash_are_kept_as_chosen() -> None:
    lobby, _ = admit([(ANN, "ann"), (MALLORY, "mallory")])
    assert [e.name for e in lobby.joined] == ["host", "ann", "mallory"]


def test_a_tagged_name_still_fits_the_name_limit() -> None:
    long = "x" * MAX_NAME_LEN
    lobby, _ = admit([(MALLORY, long)], host_name=long)
    for entry in lobby.joined:
        assert valid_name(entry.name) and entry.name.endswith(f"#{entry.peer_id[:8]}")
    assert len({e.name for e in lobby.joined}) == 2


def test_in_the_roster_and_its_chat_the_impostor_speaks_under_its_own_name() -> None:
    lobby, code = admit([(ANN, "ann"), (MALLORY, "host")])
    roster = lobby.roster(HOST)
    ann = JoinerLobby(code, ANN, "ann", 5000)
    got = ann.on_roster(encode_control(HostLobby.roster_message(roster)))
    keys = [p.key for p in got.players]
    names = [p.name for p in got.players]
    room = ChatRoom(got.game_id, keys, 1, ANN, names)
    impostor = ChatRoom(got.game_id, keys, 2, MALLORY, names)
    note = room.receive(2, impostor.say("gg, I resign", 0.0).frame(), 0.0)
    assert note.line is not None
    assert room.name(note.line.author) == f"host#{MALLORY.short_id}"
    assert room.name(note.line.author) != room.name(0)


@pytest.mark.parametrize("host, mallory", [("host", "Host"), ("p0", "р0")],
                         ids=["case", "look-alike"])
def test_a_joiner_refuses_a_roster_that_gives_two_players_one_name(host: str,
                                                                   mallory: str) -> None:
    """Two names that read the same, in case or (issue 40, case 7) a look-alike script."""
    game_id = new_game_id()
    code = JoinCode("127.0.0.1", 4000, game_id, HOST.peer_id)
    players = (RosterEntry(0, host, HOST.public_bytes, "127.0.0.1", 4000),
               RosterEntry(1, "ann", ANN.public_bytes, "127.0.0.2", 5000),
               RosterEntry(2, mallory, MALLORY.public_bytes, "127.0.0.3", 5000))
    roster = Roster(game_id, players).sign(HOST)
    with pytest.raises(RemoteProtocolError, match="same name"):
        JoinerLobby(code, ANN, "ann", 5000).on_roster(
            encode_control(HostLobby.roster_message(roster)))


def test_a_joiner_refuses_a_lobby_update_that_gives_two_players_one_name() -> None:
    game_id = new_game_id()
    code = JoinCode("127.0.0.1", 4000, game_id, HOST.peer_id)
    update = {"type": "lobby", "game": game_id, "players": 3,
              "seated": [{"name": "host", "peer": HOST.peer_id},
                         {"name": "ann", "peer": ANN.peer_id},
                         {"name": "host", "peer": MALLORY.peer_id}]}
    with pytest.raises(RemoteProtocolError, match="same name"):
        JoinerLobby(code, ANN, "ann", 5000).on_message(encode_control(update))


def test_a_watcher_named_like_a_player_is_shown_with_its_short_id() -> None:
    from p2p.net.watchers import HeardWatchers, Watcher, watchers_frame

    lobby, _ = admit([(ANN, "ann")])
    roster = lobby.roster(HOST)
    eve = Identity.generate()
    heard = HeardWatchers(roster)
    frame = watchers_frame(HOST, roster.game_id, 1, [Watcher(eve.peer_id, "Ann"),
                                                     Watcher(MALLORY.peer_id, "dora")])
    (event,) = heard.receive(0, frame)
    assert event.text == f"watching: Ann#{eve.short_id}, dora"


def test_a_waiting_joiner_is_told_when_a_clash_renames_a_player() -> None:
    from p2p.net.lobby import LobbyUpdate, lobby_changes

    lobby, code = admit([(ANN, "ann")], players=3)
    before = LobbyUpdate.of(3, lobby.joined)
    hello = JoinerLobby(code, MALLORY, "Ann", 5000).hello()
    lobby.on_hello(MALLORY.public_bytes, "127.0.0.3", encode_control(hello))
    lines = lobby_changes(before, LobbyUpdate.of(3, lobby.joined), HOST.peer_id)
    assert lines == [f"ann ({ANN.short_id}) is now ann#{ANN.short_id} (another player chose "
                     "the same name)",
                     f"Ann#{MALLORY.short_id} ({MALLORY.short_id}) joined, 3/3"]


# -- issue 40, case 7: names that print alike -----------------------------------------------------

LOOK_ALIKES = ["р0", "ρ0", "ｐ0", "Ｐ0", "ⲣ0"]  # Cyrillic er, Greek rho, fullwidth, Coptic ro


@pytest.mark.parametrize("impostor", LOOK_ALIKES, ids=["cyrillic", "greek", "fullwidth",
                                                       "fullwidth-upper", "coptic"])
def test_a_joiner_whose_name_only_looks_like_the_hosts_is_tagged_with_the_host(
        impostor: str) -> None:
    """A name that prints like the host's "p0" in another script or a compatibility form is
    a clash (Unicode TR39 confusables, after NFKC and case folding): both get their ids."""
    lobby, _ = admit([(MALLORY, impostor)], host_name="p0")
    assert [e.name for e in lobby.joined] == [f"p0#{HOST.short_id}",
                                              f"{impostor}#{MALLORY.short_id}"]


def test_a_look_alike_of_the_hosts_tagged_name_gets_the_joiners_own_id() -> None:
    """"р0#<host id>" (Cyrillic) would print exactly like the tagged host: it is read as a
    claim to the host's name and tagged with the joiner's own id."""
    lobby, _ = admit([(MALLORY, f"р0#{HOST.short_id}")], host_name="p0")
    names = [e.name for e in lobby.joined]
    assert names == [f"p0#{HOST.short_id}", f"р0#{MALLORY.short_id}"]


@pytest.mark.parametrize("name", ["p\u034f0", "p\u200b0", "p0\u0301", "\u2066p0"],
                         ids=["grapheme-joiner", "zero-width-space", "combining-acute",
                              "isolate"])
def test_invisible_and_combining_characters_are_refused_in_a_name(name: str) -> None:
    from p2p.errors import LocalProtocolError
    from p2p.net.lobby import LobbyRefused, check_hello

    assert not valid_name(name)
    with pytest.raises(LocalProtocolError, match="bad player name"):
        JoinerLobby(JoinCode("127.0.0.1", 4000, new_game_id(), HOST.peer_id), MALLORY, name,
                    5000)
    game_id = new_game_id()
    hello = {"type": "hello", "version": JoinerLobby(JoinCode("127.0.0.1", 4000, game_id,
                                                              HOST.peer_id), ANN, "ann",
                                                     5000).hello()["version"],
             "game": game_id, "name": name, "port": 5000}
    with pytest.raises(LobbyRefused, match="bad name"):
        check_hello(encode_control(hello), game_id)


def test_a_precomposed_accent_is_a_name_and_spaces_around_a_name_are_trimmed() -> None:
    lobby, _ = admit([(ANN, " Jose\u0301 "), (MALLORY, "bob")])
    assert [e.name for e in lobby.joined] == ["host", "José", "bob"]
