"""Fuzz: every message type, with random and structured-bad bodies, through a player session.

An honest 3-peer game is recorded once. For each message type, peer 0's session (a player:
it opens what is sealed to it) is rebuilt up to peer 1's first message of that type; then peer
1 sends, validly signed, a different body instead, and the rest of the game follows. Whatever
the body, no exception may escape ``receive``, and if the game stops, the peer named is peer 1
(the only one that deviated), never an honest peer. Junk frames from another connection are
only ever rejected, naming that connection.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2p.session.envelope import Message, SignedMessage, sign_message
from p2p.session.events import GameAborted, Rejected
from p2p.session.loopback import LoopbackGame
from p2p.session.machine import FRAME_MESSAGE, GameSession

pytestmark = pytest.mark.slow

BAD = 1
TYPES = ["setup/commit", "setup/reveal", "deck/commit", "deck/step", "keys", "pick/commit",
         "pick/reveal", "action", "chance/commit", "chance/reveal", "audit", "abort"]
FOLLOW = 40  # messages fed after the bad one (its stage completes well within them)
VALUES: list[Any] = [None, True, -1, 0, 2**70, "", "zz", "0" * 64, "00" * 32, [], {}, [1] * 300,
                     {"type": "deck/rekey"}, {"a": {"b": {"c": [[[[[]]]]]}}}]
LOW_ORDER = "0100000000000000000000000000000000000000000000000000000000000000"


@functools.cache
def recorded() -> tuple[LoopbackGame, tuple[SignedMessage, ...]]:
    game = LoopbackGame(3)
    game.play(lambda view: view.legal[0])
    assert all(s.result is not None for s in game.sessions)
    return game, game.sessions[0].msglog.messages


@functools.cache
def snapshot(kind: str) -> tuple[GameSession, SignedMessage, list[SignedMessage]]:
    """Peer 0's session just before peer 1's first message of ``kind`` (for "abort": before
    its first action), that message, and the messages that follow it."""
    game, messages = recorded()
    wanted = "action" if kind == "abort" else kind
    at = next(i for i, m in enumerate(messages) if m.msg.seat == BAD and m.msg.type == wanted)
    keys = [identity.public_bytes for identity in game.identities]
    session = GameSession(game.game_id, keys, 0, game.identities[0], game.masters[0])
    session.replaying = True  # rebuilt from the log: it contributes nothing of its own
    for signed in messages[:at]:
        session.accept(signed, direct=False)
    return session, messages[at], list(messages[at + 1:at + 1 + FOLLOW])


def play_bad(kind: str, body: Any, msg_type: str | None = None) -> GameSession:
    game, _ = recorded()
    base, original, after = snapshot(kind)
    session = copy.deepcopy(base)
    msg = Message(original.msg.game, BAD, original.msg.seq, original.msg.prev,
                  msg_type or kind, body)
    try:
        bad = sign_message(game.identities[BAD], msg)
    except Exception:  # a body that canonical JSON cannot encode is not sendable
        return session
    session.receive(BAD, FRAME_MESSAGE + bad.encode())
    for signed in after:
        if session.finished:
            break
        if signed.msg.seat != BAD:
            signed = _signed_over(session, signed)
            session.receive(signed.msg.seat, FRAME_MESSAGE + signed.encode())
    session.end_of_log()
    return session


def _signed_over(session: GameSession, signed: SignedMessage) -> SignedMessage:
    """An honest peer's recorded message as it would have signed it after taking the bad
    message (the recording was signed over the original one): its ``history`` is the one the
    session holds for its stage."""
    game, _ = recorded()
    stage = session.stage
    body = signed.msg.body
    if stage is None or body.get("stage") != stage.index or "history" not in body \
            or body["history"] == stage.history:
        return signed
    msg = dataclasses.replace(signed.msg, body={**body, "history": stage.history})
    return sign_message(game.identities[signed.msg.seat], msg)


def assert_only_bad_named(session: GameSession) -> None:
    if session.aborted is not None:
        assert session.aborted.peer in (BAD, None), session.aborted.reason
    for event in session.events:
        if isinstance(event, Rejected | GameAborted):
            assert event.peer in (BAD, None), event.text


def mutations(body: dict[str, Any]) -> list[dict[str, Any]]:
    """Structured-bad bodies: each field dropped, or set to a bad value, one level deep too."""
    out: list[dict[str, Any]] = [{}, {"stage": body.get("stage")}]
    for key, value in body.items():
        out.append({k: v for k, v in body.items() if k != key})
        out.extend({**body, key: bad} for bad in VALUES)
        if isinstance(value, dict):
            for sub in value:
                out.extend({**body, key: {**value, sub: bad}} for bad in VALUES[:8])
                out.append({**body, key: {**value, sub: LOW_ORDER}})
        if isinstance(value, list) and value:
            out.append({**body, key: value[:-1]})
            out.append({**body, key: [*value, value[0]]})
            out.append({**body, key: [LOW_ORDER] * len(value)})
    return out


def abort_bodies() -> list[dict[str, Any]]:
    _, messages = recorded()
    genuine = [m.to_json() for m in messages[:5]]
    out = []
    for kind in ("unfair", "abandoned", "stopped", "corrupt", "x", None, 7):
        for blame in (0, 2, BAD, 9, None, True):
            for evidence in (None, genuine, [{"msg": {}}], "x", [genuine[0]] * 50):
                out.append({"kind": kind, "blame": blame, "reason": "\x1b[2Kfake",
                            "evidence": evidence, "stage": 3})
    out.append({"kind": "unfair", "blame": 0, "box": "zz", "evidence": genuine})
    out.append({"kind": "abandoned", "blame": 0, "stage": 10**30})
    out.append({"kind": "corrupt", "deck": {"type": "deck/open-keys", "seat": 0}, "answer": 1})
    out.append({"kind": "corrupt", "deck": {"type": "deck/open-keys", "seat": 1,
                                            "seed": "00" * 32, "salt": "zz"}})
    return out


@pytest.mark.parametrize("kind", TYPES)
def test_structured_bad_bodies_name_only_their_sender(kind: str) -> None:
    _, original, _ = snapshot(kind)
    bodies = abort_bodies() if kind == "abort" else mutations(dict(original.msg.body))
    step = 1 if kind == "abort" else max(1, len(bodies) // 60)  # a bounded sample
    for body in bodies[::step]:
        assert_only_bad_named(play_bad(kind, body))


def test_the_unmodified_message_stops_nothing() -> None:
    for kind in TYPES[:-1]:
        _, original, _ = snapshot(kind)
        session = play_bad(kind, dict(original.msg.body))
        assert session.aborted is None, (kind, session.aborted.reason)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=5),
    max_leaves=20)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(TYPES), claimed=st.sampled_from([None, *TYPES]),
       fields=st.dictionaries(st.sampled_from(["stage", "state", "deck", "keys", "public",
                                               "private", "seed", "box", "action", "slots",
                                               "salt", "commitment", "blame", "evidence",
                                               "kind", "clock"]), json_values, max_size=6))
def test_random_bodies_and_types_name_only_their_sender(kind: str, claimed: str | None,
                                                         fields: dict[str, Any]) -> None:
    assert_only_bad_named(play_bad(kind, fields, claimed))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(max_size=300), tag=st.sampled_from([b"M", b"S", b"X", b""]),
       sender=st.sampled_from([BAD, 2]))
def test_random_frames_are_only_rejected(data: bytes, tag: bytes, sender: int) -> None:
    base, _, _ = snapshot("action")
    session = copy.deepcopy(base)
    frame = tag + data
    if tag == b"S":
        session.sync_reply(frame)
    else:
        session.receive(sender, frame)
    assert session.aborted is None
    for event in session.events[len(base.events):]:
        assert isinstance(event, Rejected) and event.peer in (sender, None), event
