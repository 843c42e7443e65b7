"""Bundles and held relays: the frames a peer has ready travel as one, in their order.

A relay waits for its relayer's next message and goes just before it (protocol.md, the
relay); a bundle is refused whole, blaming its connection, unless it is exactly a list of
message frames. Sans-IO: sessions wired back to back (``LoopbackGame``), no sockets.
"""

from __future__ import annotations

import random

import pytest

from p2p.errors import RemoteProtocolError
from p2p.session import bundle as bundling
from p2p.session.bundle import FRAME_BUNDLE, MAX_ITEMS, bundle, frame_cost, unbundle
from p2p.session.events import Rejected
from p2p.session.loopback import LoopbackGame
from p2p.session.machine import FRAME_MESSAGE, GameSession


def message(i: int, size: int = 10) -> bytes:
    return FRAME_MESSAGE + bytes([i % 256]) * size


def raw_bundle(*items: bytes) -> bytes:
    return FRAME_BUNDLE + b"".join(len(f).to_bytes(4, "big") + f for f in items)


def random_player(seed: int):
    rng = random.Random(seed)
    return lambda view: view.legal[rng.randrange(len(view.legal))]


# -- the wire form --------------------------------------------------------------------------


def test_a_run_of_message_frames_is_one_bundle_and_comes_back_in_order() -> None:
    frames = [message(i, 5 + i) for i in range(5)]
    (one,) = bundle(frames)
    assert one == raw_bundle(*frames)
    assert unbundle(one) == frames
    assert frame_cost(one) == 5


def test_a_lone_frame_goes_as_it_is() -> None:
    assert bundle([message(1)]) == [message(1)]
    assert bundle([]) == []
    assert frame_cost(message(1)) == 1


def test_other_frames_are_never_bundled_and_keep_their_place() -> None:
    sync = b"S{}"
    out = bundle([message(1), message(2), sync, message(3)])
    assert out == [raw_bundle(message(1), message(2)), sync, message(3)]


def test_a_long_run_is_split_at_the_item_limit() -> None:
    frames = [message(i) for i in range(MAX_ITEMS + 3)]
    out = bundle(frames)
    assert len(out) == 2
    assert [len(unbundle(b)) for b in out] == [MAX_ITEMS, 3]
    assert unbundle(out[0]) + unbundle(out[1]) == frames


def test_a_run_is_split_at_the_byte_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bundling, "MAX_BYTES", 100)
    frames = [message(i, 40) for i in range(4)]  # 45 bytes each with its length
    out = bundle(frames)
    assert [len(unbundle(b)) for b in out] == [2, 2]
    big = message(9, 200)
    assert bundle([message(1), big, message(2)]) == [message(1), big, message(2)]


@pytest.mark.parametrize("frame, reason", [
    (FRAME_BUNDLE, "empty bundle"),
    (FRAME_BUNDLE + b"\x00\x00", "truncated"),
    (FRAME_BUNDLE + (5).to_bytes(4, "big") + b"M12", "does not fit"),
    (FRAME_BUNDLE + (0).to_bytes(4, "big"), "empty bundle item"),
    (raw_bundle(message(1), raw_bundle(message(2), message(3))), "only message frames"),
    (raw_bundle(message(1), b"S{}"), "only message frames"),
    (raw_bundle(*[message(i) for i in range(MAX_ITEMS + 1)]), f"more than {MAX_ITEMS}"),
])
def test_a_malformed_bundle_is_refused_naming_its_connection(frame: bytes, reason: str) -> None:
    with pytest.raises(RemoteProtocolError) as caught:
        unbundle(frame, 2)
    assert caught.value.seat == 2 and reason in caught.value.reason


def test_a_flood_of_bundles_costs_what_it_carries() -> None:
    """The mesh's frame rate counts a bundle's items, so bundling adds nothing to what a
    peer can make us check per second, even with lengths that lie."""
    assert frame_cost(raw_bundle(*[message(i) for i in range(40)])) == 40
    lying = FRAME_BUNDLE + b"".join((1).to_bytes(4, "big") + b"M" for _ in range(500))
    assert frame_cost(lying) == MAX_ITEMS + 1


# -- a session taking bundles ---------------------------------------------------------------


def recorded_game(seed: int = 1) -> LoopbackGame:
    game = LoopbackGame(3)
    game.play(random_player(seed))
    assert all(s.result is not None for s in game.sessions)
    return game


def watcher(game: LoopbackGame) -> GameSession:
    return GameSession(game.game_id, [i.public_bytes for i in game.identities], None)


def test_a_bundle_is_taken_like_its_frames_one_after_the_other() -> None:
    game = recorded_game()
    frames = [FRAME_MESSAGE + m.encode() for m in game.sessions[0].msglog.messages]
    session = watcher(game)
    for start in range(0, len(frames), 7):  # relayed by peer 1, seven at a time
        for data in bundle(frames[start:start + 7]):
            session.receive(1, data)
    assert not [e for e in session.events if isinstance(e, Rejected)]
    assert session.result == game.sessions[0].result


def test_a_malformed_bundle_is_rejected_and_the_game_goes_on() -> None:
    game = recorded_game()
    frames = [FRAME_MESSAGE + m.encode() for m in game.sessions[0].msglog.messages]
    session = watcher(game)
    half = len(frames) // 2
    for data in frames[:half]:
        session.receive(1, data)
    session.receive(2, raw_bundle(frames[half], b"S{}"))  # refused whole: nothing taken
    assert session.msglog.messages[-1].encode() == frames[half - 1][1:]
    (rejected,) = [e for e in session.events if isinstance(e, Rejected)]
    assert rejected.peer == 2 and "only message frames" in rejected.reason
    for data in frames[half:]:
        session.receive(1, data)
    assert session.result == game.sessions[0].result


# -- held relays ------------------------------------------------------------------------------


def test_relays_wait_for_our_next_message_and_go_just_before_it() -> None:
    game = LoopbackGame(3, network=True)
    choose = random_player(3)
    for session in game.sessions:
        session.start()
    checked = 0
    for _ in range(100_000):
        moved = game.deliver()
        for session in game.sessions:
            view = session.seat_view() if not session.finished else None
            if view is None or not view.legal:
                continue
            waiting, sent = session.relays[:], len(session.outbox)
            assert not set(waiting) & set(session.outbox)  # held, not sent on their own
            session.submit(choose(view), view.stage)
            moved = True
            if waiting:
                checked += 1
                assert session.outbox[sent:sent + len(waiting)] == waiting
                assert not session.relays
                assert len(session.outbox) > sent + len(waiting)  # then our own message
        if all(s.finished for s in game.sessions):
            break
        if not moved and not any([s.release_relays() for s in game.sessions]):
            break
    assert all(s.result is not None for s in game.sessions)
    assert checked >= 10


@pytest.mark.parametrize("n", [2, 3, 4])
def test_a_game_with_held_relays_and_bundles_ends_for_everyone(n: int) -> None:
    """Relays held and frames bundled as over the network: every peer ends with the same
    outcome, nothing is rejected, and there are fewer frames than messages (unbundled, a
    message and its relays are 1 + (n - 1) frames)."""
    game = LoopbackGame(n, network=True)
    game.play(random_player(n))
    results = [s.result for s in game.sessions]
    assert results[0] is not None and results == [results[0]] * n, \
        [s.aborted for s in game.sessions]
    assert not [e for s in game.sessions for e in s.events if isinstance(e, Rejected)]
    assert game.frames < len(game.sessions[0].msglog.messages)
