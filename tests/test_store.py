"""A peer's game store: the master secret and a write-ahead log of signed messages."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from p2p.errors import LocalProtocolError
from p2p.identity import Identity
from p2p.session.envelope import MessageLog
from p2p.storage.store import GameStore

GAME = "ab" * 16


def _messages(count: int):
    author = Identity.from_private_bytes(b"\x05" * 32)
    log = MessageLog(GAME, [author.public_bytes])
    return [log.create(author, 0, "action", {"n": i}) for i in range(count)]


def test_the_master_secret_is_private_and_reads_back(tmp_path: Path) -> None:
    store = GameStore(tmp_path, GAME)
    master = store.create(me=2)
    assert stat.S_IMODE(store.secret_path.stat().st_mode) == 0o600
    assert GameStore(tmp_path, GAME).load_secret() == (2, master)


def test_messages_read_back_in_order(tmp_path: Path) -> None:
    store = GameStore(tmp_path, GAME)
    store.create(me=0)
    sent = _messages(3)
    for message in sent:
        store.append(message)
    store.close()
    assert GameStore(tmp_path, GAME).load_messages() == sent


def test_a_line_torn_by_a_crash_at_the_end_is_dropped(tmp_path: Path) -> None:
    store = GameStore(tmp_path, GAME)
    store.create(me=0)
    sent = _messages(2)
    for message in sent:
        store.append(message)
    store.close()
    with open(store.messages_path, "ab") as handle:
        handle.write(_messages(3)[2].encode()[:40])
    assert GameStore(tmp_path, GAME).load_messages() == sent


def test_a_damaged_line_before_the_end_is_an_error(tmp_path: Path) -> None:
    store = GameStore(tmp_path, GAME)
    store.create(me=0)
    sent = _messages(2)
    store.messages_path.write_bytes(b"garbage\n" + sent[1].encode() + b"\n")
    with pytest.raises(LocalProtocolError, match=":1:"):
        store.load_messages()
