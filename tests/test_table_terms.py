"""Issue 40, case 6: a joiner learns the table's clocks and whether it escrows before it is
in the game, and joins an escrow table only if it agreed (``--accept-escrow``); the host's
setup must then be the table its lobby showed, or the joiner leaves before any share of its
secret is sent."""

from __future__ import annotations

import pytest
from test_net_session import run

from p2p.errors import RemoteProtocolError
from p2p.identity import Identity
from p2p.net.joincode import JoinCode
from p2p.net.lobby import (
    EscrowNotAccepted,
    HostLobby,
    JoinerLobby,
    TableTerms,
    encode_control,
)
from p2p.net.roster import RosterEntry, new_game_id
from p2p.session.events import STOPPED
from p2p.session.loopback import LoopbackGame
from p2p.session.timing import Timing

HOST, ANN = Identity.generate(), Identity.generate()
CLOCK = Timing(decision=60, step=20, decision_bank=600, decision_increment=10, step_bank=120,
               step_increment=3)


def _welcome(terms: TableTerms | None, accept: bool) -> JoinerLobby:
    game_id = new_game_id()
    code = JoinCode("127.0.0.1", 4000, game_id, HOST.peer_id)
    lobby = HostLobby(game_id, 3, RosterEntry(0, "host", HOST.public_bytes, "127.0.0.1", 4000),
                      terms)
    joiner = JoinerLobby(code, ANN, "ann", 5000, accept_escrow=accept)
    entry = lobby.on_hello(ANN.public_bytes, "127.0.0.2", encode_control(joiner.hello()))
    joiner.on_welcome(encode_control(lobby.welcome(entry)))
    return joiner


def test_the_welcome_tells_the_joiner_the_tables_clock_and_escrow() -> None:
    joiner = _welcome(TableTerms(CLOCK, False), accept=False)
    assert joiner.terms == TableTerms(Timing(grace=Timing().grace, **CLOCK.to_json()), False)
    assert joiner.terms is not None and "decisions 10:00 + 10 s each" in joiner.terms.describe()


def test_an_escrow_table_is_left_unless_the_joiner_agreed() -> None:
    with pytest.raises(EscrowNotAccepted, match="--accept-escrow"):
        _welcome(TableTerms(CLOCK, True), accept=False)
    joiner = _welcome(TableTerms(CLOCK, True), accept=True)
    assert joiner.terms is not None and joiner.terms.escrow
    assert "together could open your hand" in joiner.terms.describe()


@pytest.mark.parametrize("table", [{"clock": CLOCK.to_json()}, {"clock": {}, "escrow": False},
                                   {"clock": CLOCK.to_json(), "escrow": 1}, "escrow"])
def test_a_malformed_table_in_the_welcome_blames_the_host(table: object) -> None:
    game_id = new_game_id()
    joiner = JoinerLobby(JoinCode("127.0.0.1", 4000, game_id, HOST.peer_id), ANN, "ann", 5000)
    with pytest.raises(RemoteProtocolError) as raised:
        joiner.on_welcome(encode_control({"type": "welcome", "game": game_id, "players": 3,
                                          "table": table}))
    assert raised.value.seat == 0


@pytest.mark.parametrize("escrow, clock", [(True, None), (False, Timing(decision=30))])
def test_a_host_whose_setup_differs_from_its_lobby_is_left_before_any_share_is_sent(
        escrow: bool, clock: Timing | None) -> None:
    """Peer 1 agreed to a table without escrow on the default clock; the host's setup asks
    for the escrow, or another clock: peer 1 stops, naming nobody, and never sends its
    setup/reveal (the message that would carry its shares)."""
    game = LoopbackGame(3)
    host = game.sessions[0]
    host.escrow_wanted = escrow
    if clock is not None:
        host.timing = host.clock.timing = clock
    game.sessions[1].agreed_terms = TableTerms(Timing(), False)
    for session in game.sessions:
        session.start()
    run(game, until=lambda: game.sessions[1].finished)
    joiner = game.sessions[1]
    assert joiner.aborted is not None and joiner.aborted.peer is None
    assert joiner.aborted.kind == STOPPED and "not the one its lobby showed" in \
        joiner.aborted.reason
    assert not [m for m in joiner.msglog.messages
                if m.msg.seat == 1 and m.msg.type == "setup/reveal"]


def test_the_table_it_agreed_to_plays_on() -> None:
    game = LoopbackGame(3)
    game.sessions[0].escrow_wanted = True
    for peer in (1, 2):
        game.sessions[peer].agreed_terms = TableTerms(Timing(), True)
    for session in game.sessions:
        session.start()
    run(game, until=lambda: all(s.seat_of_peer for s in game.sessions))
    assert all(s.aborted is None and s.escrow for s in game.sessions)


def test_the_lan_listing_carries_the_tables_terms() -> None:
    """`solstice games` shows each table's clock and escrow (DNS-SD TXT keys ``escrow`` and
    ``clock``); an older host's record without them still reads, its terms unknown."""
    from p2p.net.discovery import BadAdvertisement, GameAd

    ad = GameAd(new_game_id(), HOST.peer_id, "hal", 3, 1, "127.0.0.1", 4000, escrow=True,
                clock=CLOCK)
    txt = {k.encode(): v.encode() for k, v in ad.txt().items()}
    got = GameAd.from_record(txt, ["127.0.0.1"], 4000)
    assert (got.escrow, got.clock) == (True, Timing(grace=Timing().grace, **CLOCK.to_json()))
    assert got.terms_text() == "10m+10s escrow" and got.to_json()["escrow"] is True
    old = {k: v for k, v in txt.items() if k not in (b"escrow", b"clock")}
    assert GameAd.from_record(old, ["127.0.0.1"], 4000).terms_text() == "?"
    for key, value in ((b"escrow", b"yes"), (b"clock", b"1,2,3"), (b"clock", b"0,0,0,0,0,0")):
        with pytest.raises(BadAdvertisement):
            GameAd.from_record({**txt, key: value}, ["127.0.0.1"], 4000)
