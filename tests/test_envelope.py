"""Signed messages and MessageLog: every rejection names the blamed seat and the reason."""

from __future__ import annotations

import hashlib

import pytest

from engine.canonical import canonical_json
from p2p.errors import CheatDetected, LocalProtocolError, RemoteProtocolError
from p2p.identity import Identity
from p2p.session.envelope import (
    GENESIS,
    Message,
    MessageLog,
    SignedMessage,
    sign_message,
)

GAME = "ab" * 16


@pytest.fixture
def seats() -> list[Identity]:
    return [Identity.from_private_bytes(bytes([i + 1]) * 32) for i in range(3)]


def make_log(seats: list[Identity]) -> MessageLog:
    return MessageLog(GAME, [s.public_bytes for s in seats])


def msg(seat: int, seq: int, body: dict | None = None, game: str = GAME) -> Message:
    return Message(game, seat, seq, GENESIS, "test", body or {"n": seq})


def wire(ident: Identity, m: Message) -> bytes:
    return sign_message(ident, m).encode()


def test_wire_form_and_hash(seats: list[Identity]) -> None:
    signed = sign_message(seats[0], msg(0, 0))
    decoded = SignedMessage.decode(signed.encode())
    assert decoded == signed
    assert signed.encode() == canonical_json({"msg": signed.msg.to_json(), "sig": signed.sig.hex()})
    assert signed.hash == hashlib.sha256(signed.encode()).hexdigest()
    assert len(signed.hash) == 64 and signed.hash != sign_message(seats[0], msg(0, 1)).hash


def test_accepts_each_author_in_sequence(seats: list[Identity]) -> None:
    log = make_log(seats)
    log.receive(wire(seats[0], msg(0, 0)), sender=0)
    log.receive(wire(seats[1], msg(1, 0)), sender=1)
    third = log.receive(wire(seats[0], msg(0, 1)), sender=0)
    assert (log.next_seq(0), log.next_seq(1), log.next_seq(2)) == (2, 1, 0)
    assert log.get(0, 1) == third and log.get_by_hash(third.hash) == third
    assert log.head == third.hash and len(log.messages) == 3


def test_own_messages_chain_on_the_head(seats: list[Identity]) -> None:
    log = make_log(seats)
    first = log.create(seats[2], 2, "hello", {"x": 1})
    second = log.create(seats[2], 2, "hello", {"x": 2})
    assert first.msg.prev == GENESIS and second.msg.prev == first.hash
    assert second.msg.seq == 1
    other = make_log(seats)  # another peer accepts them
    other.receive(first.encode(), sender=2)
    other.receive(second.encode(), sender=2)
    with pytest.raises(LocalProtocolError):
        log.create(seats[0], 2, "impersonate", {})


def test_bad_signature(seats: list[Identity]) -> None:
    good = sign_message(seats[1], msg(1, 0, {"card": 5}))
    forged = SignedMessage(msg(1, 0, {"card": 6}), good.sig)
    with pytest.raises(RemoteProtocolError) as info:
        make_log(seats).receive(forged.encode(), sender=1)
    assert info.value.seat == 1 and "signature" in info.value.reason
    assert not isinstance(info.value, CheatDetected)


def test_wrong_key_for_the_claimed_seat(seats: list[Identity]) -> None:
    # Seat 0 signs a message that claims to come from seat 1.
    data = wire(seats[0], msg(1, 0))
    with pytest.raises(RemoteProtocolError) as info:
        make_log(seats).receive(data)
    assert info.value.seat == 1 and "signature" in info.value.reason
    # Delivered by seat 0's connection, seat 0 is to blame for relaying it.
    with pytest.raises(RemoteProtocolError) as info:
        make_log(seats).receive(data, sender=0)
    assert info.value.seat == 0 and "authored by seat 1" in info.value.reason


def test_unknown_seat(seats: list[Identity]) -> None:
    with pytest.raises(RemoteProtocolError, match="no seat 3"):
        make_log(seats).receive(wire(seats[0], msg(3, 0)))


def test_wrong_game_id(seats: list[Identity]) -> None:
    with pytest.raises(RemoteProtocolError) as info:
        make_log(seats).receive(wire(seats[0], msg(0, 0, game="cd" * 16)), sender=0)
    assert info.value.seat == 0 and "game" in info.value.reason


def test_replayed_seq(seats: list[Identity]) -> None:
    log = make_log(seats)
    data = wire(seats[0], msg(0, 0))
    log.receive(data)
    with pytest.raises(RemoteProtocolError) as info:
        log.receive(data)
    assert info.value.seat == 0 and "replayed seq 0" in info.value.reason
    assert not isinstance(info.value, CheatDetected)
    assert log.next_seq(0) == 1


def test_gap_and_out_of_order(seats: list[Identity]) -> None:
    log = make_log(seats)
    first, second = wire(seats[0], msg(0, 0)), wire(seats[0], msg(0, 1))
    with pytest.raises(RemoteProtocolError) as info:
        log.receive(second)  # seq 1 before seq 0
    assert info.value.seat == 0 and "expected 0" in info.value.reason
    log.receive(first)
    log.receive(second)  # the rejected one is fine once in order
    with pytest.raises(RemoteProtocolError, match="seq 5 out of order, expected 2"):
        log.receive(wire(seats[0], msg(0, 5)))


def test_equivocation_carries_both_messages(seats: list[Identity]) -> None:
    log = make_log(seats)
    honest = log.receive(wire(seats[2], msg(2, 0, {"pick": 1})))
    log.receive(wire(seats[2], msg(2, 1)))
    other = sign_message(seats[2], msg(2, 0, {"pick": 2}))
    with pytest.raises(CheatDetected) as info:
        log.receive(other.encode())
    assert info.value.seat == 2 and "equivocation" in info.value.reason
    first, second = info.value.evidence
    assert (first, second) == (honest, other)
    # The evidence convinces a third party holding only the public keys.
    key = seats[2].public_bytes
    assert first.verify(key) and second.verify(key)
    assert (first.msg.seat, first.msg.seq) == (second.msg.seat, second.msg.seq)
    assert first.msg != second.msg


def test_equivocation_needs_a_valid_signature(seats: list[Identity]) -> None:
    # Nobody can frame seat 2 by sending a different message under its name.
    log = make_log(seats)
    log.receive(wire(seats[2], msg(2, 0, {"pick": 1})))
    framed = wire(seats[0], msg(2, 0, {"pick": 2}))
    with pytest.raises(RemoteProtocolError) as info:
        log.receive(framed)
    assert not isinstance(info.value, CheatDetected)


@pytest.mark.parametrize(
    "data",
    [
        b"not json",
        b"[]",
        b'{"msg":{},"sig":"00"}',
        b'{"msg":{"body":{},"game":"ab","prev":"00","seat":0,"seq":0,"type":"t"},"sig":"zz"}',
        b"1.5",
    ],
)
def test_malformed(seats: list[Identity], data: bytes) -> None:
    with pytest.raises(RemoteProtocolError) as info:
        make_log(seats).receive(data, sender=1)
    assert info.value.seat == 1


def test_non_canonical_encoding_is_rejected(seats: list[Identity]) -> None:
    data = wire(seats[0], msg(0, 0))
    spaced = data.replace(b":", b": ", 1)
    with pytest.raises(RemoteProtocolError, match="canonical"):
        make_log(seats).receive(spaced)


def test_bool_is_not_a_seq(seats: list[Identity]) -> None:
    signed = sign_message(seats[0], msg(0, 0))
    obj = signed.to_json()
    obj["msg"]["seq"] = True
    with pytest.raises(RemoteProtocolError, match="seq"):
        SignedMessage.decode(canonical_json(obj))
