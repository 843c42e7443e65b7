"""Every hex field is lowercase hex of its exact length, nothing else (protocol.md, "Canonical
encoding"): upper case or whitespace would be a second encoding of the same bytes, and
``bytes.fromhex`` takes both, so each parser must refuse them, blaming the author."""

from __future__ import annotations

from typing import Any

import pytest

from engine.canonical import canonical_json, parse_json
from p2p.crypto.sealed import box_key, parse_public_key, seal, unseal
from p2p.crypto.seeds import SeedExchange, new_local_seed
from p2p.errors import MalformedMessage, RemoteProtocolError
from p2p.hexfields import is_lower_hex, parse_lower_hex
from p2p.identity import Identity
from p2p.net.roster import Roster, RosterEntry, new_game_id
from p2p.net.watchers import FRAME_WATCHERS, BadWatchersNotice, check_notice, watchers_frame
from p2p.session.bodies import PickCommitBody, PickRevealBody
from p2p.session.envelope import GENESIS, Message, SignedMessage, sign_message

HEX32 = bytes(range(0xd0, 0xf0)).hex()  # has the digits a-f, so upper case differs


def not_lowercase(text: str) -> list[str]:
    """Spellings of ``text``'s bytes (or of fewer bytes) that a lax ``bytes.fromhex`` takes:
    upper case and whitespace, some of the same length as ``text``."""
    i = next(i for i, c in enumerate(text) if c in "abcdef")
    return [text.upper(), text[:i] + text[i].upper() + text[i + 1:], text[:-2] + "  ",
            " " + text[:-2] + "\n", text[:2] + "\t" + text[2:-2] + " ", " " + text, text + "\n"]


# -- the shared check ---------------------------------------------------------------------

@pytest.mark.parametrize("value, size, ok", [
    (HEX32, 32, True), (HEX32, None, True), ("00", 1, True), ("0aff", None, True),
    (HEX32, 31, False), (HEX32, 33, False), (HEX32 + "0", None, False), ("abc", None, False),
    ("a", 1, False), ("", None, False), ("", 0, False),
    (HEX32.encode(), 32, False), (bytearray(2), None, False), (None, None, False),
    (12, None, False), (["ab"], None, False),
    ("0x" + HEX32[2:], 32, False), ("+" + HEX32[1:], 32, False), ("-" + HEX32[1:], 32, False),
    ("\u0661\u0662", 1, False),  # Arabic-Indic digits: isdigit(), still not hex
])
def test_is_lower_hex_takes_lowercase_hex_of_the_size_only(value: object, size: int | None,
                                                           ok: bool) -> None:
    assert is_lower_hex(value, size) is ok
    expected = bytes.fromhex(value) if ok and isinstance(value, str) else None
    assert parse_lower_hex(value, size) == expected


@pytest.mark.parametrize("size", [32, None])
@pytest.mark.parametrize("text", not_lowercase(HEX32))
def test_upper_case_and_whitespace_are_refused(text: str, size: int | None) -> None:
    assert not is_lower_hex(text, size)
    assert parse_lower_hex(text, size) is None


def test_parse_lower_hex_gives_the_bytes() -> None:
    assert parse_lower_hex("0aff", 2) == b"\x0a\xff"
    assert parse_lower_hex(HEX32, 32) == bytes(range(0xd0, 0xf0))


# -- pick bodies (the field that took bytes.fromhex as it was) -----------------------------

def test_lowercase_pick_bodies_parse() -> None:
    assert PickCommitBody.parse(2, {"commitment": HEX32}).commitment == bytes.fromhex(HEX32)
    assert PickRevealBody.parse(2, {"slots": [1], "salt": HEX32}).salt == bytes.fromhex(HEX32)


@pytest.mark.parametrize("text", not_lowercase(HEX32))
def test_pick_commitment_not_lowercase_blames_its_author(text: str) -> None:
    with pytest.raises(RemoteProtocolError, match="pick commitment") as info:
        PickCommitBody.parse(2, {"commitment": text})
    assert info.value.seat == 2


@pytest.mark.parametrize("text", not_lowercase(HEX32))
def test_pick_salt_not_lowercase_blames_its_author(text: str) -> None:
    with pytest.raises(RemoteProtocolError, match="pick salt") as info:
        PickRevealBody.parse(2, {"slots": [1], "salt": text})
    assert info.value.seat == 2


# -- seed messages ------------------------------------------------------------------------

def _committed(n: int = 2) -> tuple[list[dict[str, Any]], SeedExchange]:
    locals_ = [new_local_seed("ab" * 16, "setup", seat) for seat in range(n)]
    peer = SeedExchange("ab" * 16, "setup", n)
    for seat, local in enumerate(locals_):
        peer.receive(seat, local.commit_message)
    return [local.reveal_message for local in locals_], peer


@pytest.mark.parametrize("text", not_lowercase(HEX32))
def test_seed_commitment_not_lowercase_blames_its_author(text: str) -> None:
    peer = SeedExchange("ab" * 16, "setup", 2)
    commit = dict(new_local_seed("ab" * 16, "setup", 1).commit_message, commitment=text)
    with pytest.raises(MalformedMessage, match="commitment") as info:
        peer.receive(1, commit)
    assert info.value.seat == 1


@pytest.mark.parametrize("field", ["seed", "salt"])
@pytest.mark.parametrize("text", not_lowercase(HEX32))
def test_seed_reveal_not_lowercase_blames_its_author(field: str, text: str) -> None:
    reveals, peer = _committed()
    with pytest.raises(MalformedMessage, match="seed and salt") as info:
        peer.receive(1, dict(reveals[1], **{field: text}))
    assert info.value.seat == 1
    peer.receive(1, reveals[1])  # the lowercase reveal is still taken


# -- signed messages ----------------------------------------------------------------------

ALICE = Identity.from_private_bytes(b"\x01" * 32)
BOB = Identity.from_private_bytes(b"\x03" * 32)


def _signed() -> SignedMessage:
    return sign_message(ALICE, Message("ab" * 16, 0, 0, HEX32, "test", {"n": 0}))


def test_a_lowercase_message_decodes() -> None:
    signed = _signed()
    assert SignedMessage.decode(signed.encode(), 0) == signed


@pytest.mark.parametrize("text", not_lowercase(_signed().sig.hex()))
def test_a_sig_not_lowercase_blames_the_sender(text: str) -> None:
    wire = canonical_json({"msg": _signed().msg.to_json(), "sig": text})
    with pytest.raises(RemoteProtocolError, match="sig is not") as info:
        SignedMessage.decode(wire, 1)
    assert info.value.seat == 1


@pytest.mark.parametrize("field, text", [
    *(("prev", t) for t in not_lowercase(HEX32)),
    *(("game", t) for t in not_lowercase("ab" * 16)),
])
def test_a_prev_or_game_not_lowercase_blames_the_sender(field: str, text: str) -> None:
    signed = _signed()
    wire = canonical_json({"msg": {**signed.msg.to_json(), field: text}, "sig": signed.sig.hex()})
    with pytest.raises(RemoteProtocolError, match=f"{field}( id)? is not") as info:
        SignedMessage.decode(wire, 1)
    assert info.value.seat == 1


def test_genesis_prev_is_lowercase_hex() -> None:
    assert is_lower_hex(GENESIS, 32)


# -- sealed boxes -------------------------------------------------------------------------

KEY = box_key(b"\x02" * 32, "ab" * 16)
PUBLIC = bytes(KEY.public_key).hex()


def test_a_lowercase_box_key_is_taken() -> None:
    assert bytes(parse_public_key(1, PUBLIC)) == bytes(KEY.public_key)


@pytest.mark.parametrize("text", not_lowercase(PUBLIC))
def test_a_box_key_not_lowercase_blames_its_author(text: str) -> None:
    with pytest.raises(RemoteProtocolError, match="lowercase hex") as info:
        parse_public_key(1, text)
    assert info.value.seat == 1


def test_a_sealed_payload_not_lowercase_blames_its_sender() -> None:
    box = seal(KEY.public_key, b"slot keys")
    assert unseal(KEY, 1, box) == b"slot keys"
    for text in not_lowercase(box):
        with pytest.raises(RemoteProtocolError, match="sealed payload") as info:
            unseal(KEY, 1, text)
        assert info.value.seat == 1


# -- the host's watchers notice -----------------------------------------------------------

def test_a_watchers_notice_with_a_sig_not_lowercase_is_refused() -> None:
    players = tuple(RosterEntry(i, name, ident.public_bytes, "127.0.0.1", 4000 + i)
                    for i, (ident, name) in enumerate(((ALICE, "alice"), (BOB, "bob"))))
    roster = Roster(new_game_id(), players, b"").sign(ALICE)
    frame = watchers_frame(ALICE, roster.game_id, 1, [])
    assert check_notice(roster, 0, frame) == (1, ())
    notice = parse_json(frame[1:])
    for text in not_lowercase(notice["sig"]):
        forged = FRAME_WATCHERS + canonical_json({**notice, "sig": text})
        with pytest.raises(BadWatchersNotice, match="malformed") as info:
            check_notice(roster, 0, forged)
        assert info.value.seat == 0
