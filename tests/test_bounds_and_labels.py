"""Issue 24, finding 9 (the smaller ones): a bundle over the documented 512 KiB is refused; a
stop's text names the blamed player by game seat, as its reason does, with the peer index
beside it; a discovery record copied with the real ids but another address makes the short
code ambiguous."""

from __future__ import annotations

import pytest

from p2p.errors import RemoteProtocolError
from p2p.identity import Identity
from p2p.net import discovery
from p2p.net.discovery import GameAd, ShortCodeAmbiguous, find_short
from p2p.net.roster import new_game_id
from p2p.session.bundle import FRAME_BUNDLE, MAX_BYTES, bundle, unbundle
from p2p.session.events import UNFAIR, GameAborted, Peer
from p2p.session.loopback import LoopbackGame
from p2p.session.machine import FRAME_MESSAGE


def raw_bundle(*items: bytes) -> bytes:
    return FRAME_BUNDLE + b"".join(len(f).to_bytes(4, "big") + f for f in items)


# -- bundles ----------------------------------------------------------------------------------


def test_a_bundle_over_512_kib_is_refused_whole() -> None:
    item = FRAME_MESSAGE + b"x" * (100 * 1024)
    six = raw_bundle(*[item] * 6)  # 600 KiB: under the 1 MiB frame limit, over the bundle's
    with pytest.raises(RemoteProtocolError, match="over 512 KiB") as caught:
        unbundle(six, 2)
    assert caught.value.seat == 2


def test_what_the_bundler_makes_is_never_over_the_limit() -> None:
    frames = [FRAME_MESSAGE + bytes([i]) * (90 * 1024) for i in range(20)]
    made = bundle(frames)
    assert all(len(b) - 1 <= MAX_BYTES for b in made)
    assert [f for b in made for f in (unbundle(b) if b[:1] == FRAME_BUNDLE else [b])] == frames


# -- what a stop says -------------------------------------------------------------------------


def test_a_stop_names_the_game_seat_its_reason_speaks_of_and_the_peer() -> None:
    event = GameAborted(Peer(1), "seat 2: pick commitment is not hex", UNFAIR, 7, seat=2)
    assert event.text.endswith("(blame: seat 2, peer 1)")
    before_seats = GameAborted(Peer(1), "bad seed", UNFAIR, 1)
    assert before_seats.text.endswith("(blame: peer 1)")
    assert "seat" not in before_seats.text


def test_a_stopped_session_labels_the_blamed_peer_with_its_drawn_seat() -> None:
    game = LoopbackGame(3)
    game.play(lambda view: view.legal[0], max_rounds=30)
    session = game.sessions[0]
    assert session.seat_of_peer, "seats are drawn by now"
    session._abort(Peer(2), "a test stop")
    (event,) = [e for e in session.events if isinstance(e, GameAborted)]
    seat = session.seat_of_peer[2]
    assert event.seat == seat
    assert event.text.endswith(f"(blame: seat {seat}, peer 2)")


# -- discovery --------------------------------------------------------------------------------


def test_a_copied_record_pointing_elsewhere_makes_the_short_code_ambiguous(
        monkeypatch: pytest.MonkeyPatch) -> None:
    real = GameAd(new_game_id(), Identity.generate().peer_id, "alice", 2, 1, "127.0.0.1", 4000)
    copy = GameAd(real.game_id, real.host_id, "alice", 2, 1, "127.0.0.9", 4000)
    monkeypatch.setattr(discovery, "browse", lambda interface, wait, done=None: [real, copy])
    with pytest.raises(ShortCodeAmbiguous):
        find_short(real.short, None, wait=0.1)


def test_the_same_record_seen_twice_is_one_game(monkeypatch: pytest.MonkeyPatch) -> None:
    real = GameAd(new_game_id(), Identity.generate().peer_id, "alice", 2, 1, "127.0.0.1", 4000)
    monkeypatch.setattr(discovery, "browse", lambda interface, wait, done=None: [real, real])
    assert find_short(real.short, None, wait=0.1) == real
