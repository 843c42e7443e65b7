"""A peer's game store: the master secret and a write-ahead log of signed messages."""

from __future__ import annotations

import errno
import os
import resource
import signal
import stat
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p.identity import Identity
from p2p.session.envelope import MessageLog
from p2p.storage.store import GameStore, StoreError

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


def test_a_line_torn_by_a_crash_at_the_end_is_cut_off_on_disk(tmp_path: Path) -> None:
    store = GameStore(tmp_path, GAME)
    store.create(me=0)
    sent = _messages(3)
    for message in sent[:2]:
        store.append(message)
    store.close()
    intact = store.messages_path.read_bytes()
    with open(store.messages_path, "ab") as handle:
        handle.write(sent[2].encode()[:40])
    reopened = GameStore(tmp_path, GAME)
    assert reopened.load_messages() == sent[:2]
    assert store.messages_path.read_bytes() == intact  # cut on disk, not only in memory
    # the next append starts on a fresh line, so a second restart reads everything
    reopened.append(sent[2], durable=True)
    reopened.close()
    assert GameStore(tmp_path, GAME).load_messages() == sent
    assert reopened.repairs == []


def test_a_damaged_line_is_reported_with_file_and_line_and_dropped(tmp_path: Path) -> None:
    store = GameStore(tmp_path, GAME)
    store.create(me=0)
    sent = _messages(3)
    original = sent[0].encode() + b"\ngarbage\n" + sent[2].encode() + b"\n"
    store.messages_path.write_bytes(original)
    assert store.load_messages() == [sent[0], sent[2]]
    assert store.repairs[0].startswith(f"{store.messages_path}:2: damaged line dropped")
    # the log on disk is readable again; the original is kept for a human to look at
    assert GameStore(tmp_path, GAME).load_messages() == [sent[0], sent[2]]
    assert (store.dir / "messages.jsonl.damaged").read_bytes() == original


def test_a_missing_log_with_the_secret_present_is_noticed(tmp_path: Path) -> None:
    store = GameStore(tmp_path, GAME)
    store.create(me=1)
    store.messages_path.unlink()
    assert store.load_messages() == []
    assert store.log_missing
    store.append(_messages(1)[0], durable=True)  # recreated on the first append
    assert len(GameStore(tmp_path, GAME).load_messages()) == 1


def test_a_failed_write_leaves_no_partial_line(tmp_path: Path, monkeypatch) -> None:
    """Disk full in the middle of a line: the line is cut away again, so the next append
    does not glue onto it."""
    store = GameStore(tmp_path, GAME)
    store.create(me=0)
    sent = _messages(3)
    store.append(sent[0])
    real_fsync = os.fsync

    def full_disk(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(StoreError, match="No space left on device"):
        store.append(sent[1], durable=True)
    monkeypatch.setattr(os, "fsync", real_fsync)
    store.append(sent[2], durable=True)
    store.close()
    assert GameStore(tmp_path, GAME).load_messages() == [sent[0], sent[2]]


def _disk_fills_after(limit: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """``os.write`` takes at most ``limit`` more bytes in all, then fails as a full disk does
    (a part of a line first, then ENOSPC)."""
    real_write = os.write
    room = [limit]

    def write(fd: int, data: bytes | memoryview) -> int:
        if room[0] <= 0:
            raise OSError(errno.ENOSPC, "No space left on device")
        taken = real_write(fd, bytes(data)[:room[0]])
        room[0] -= taken
        return taken

    monkeypatch.setattr(os, "write", write)


@settings(max_examples=40, deadline=None)
@given(room=st.integers(0, len(_messages(2)[1].encode())), durable=st.booleans())
def test_an_append_the_disk_cannot_hold_leaves_nothing_torn_and_the_store_usable(
        room: int, durable: bool) -> None:
    """Issue 33 item 4: the disk fills anywhere in a line (or before it; the newline is the
    last byte): the file is as it was before the append (not only after the next open), and
    once there is room again the same store appends on a fresh line."""
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as patch:
        store = GameStore(Path(tmp), GAME)
        store.create(me=0)
        sent = _messages(3)
        store.append(sent[0], durable=True)
        before = store.messages_path.read_bytes()
        with patch.context() as full:
            _disk_fills_after(room, full)
            with pytest.raises(StoreError, match="No space left on device"):
                store.append(sent[1], durable=durable)
        assert store.messages_path.read_bytes() == before
        store.append(sent[2], durable=True)
        store.close()
        reopened = GameStore(Path(tmp), GAME)
        assert reopened.load_messages() == [sent[0], sent[2]]
        assert reopened.repairs == []


def test_a_real_file_size_limit_mid_line_leaves_nothing_torn(tmp_path: Path) -> None:
    """The same with the kernel refusing the write (RLIMIT_FSIZE: the write stops short at the
    limit, the next one fails with EFBIG), no Python function patched."""
    store = GameStore(tmp_path, GAME)
    store.create(me=0)
    sent = _messages(2)
    store.append(sent[0], durable=True)
    before = store.messages_path.read_bytes()
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    old_handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    try:
        resource.setrlimit(resource.RLIMIT_FSIZE, (len(before) + 30, hard))
        with pytest.raises(StoreError, match="too large"):
            store.append(sent[1], durable=True)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, old_handler)
    assert store.messages_path.read_bytes() == before
    store.append(sent[1], durable=True)
    store.close()
    assert GameStore(tmp_path, GAME).load_messages() == sent


def test_own_messages_are_fsynced_before_append_returns(tmp_path: Path, monkeypatch) -> None:
    store = GameStore(tmp_path, GAME)
    store.create(me=0)
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd)))
    first, second = _messages(2)
    store.append(first)  # another peer's: fetched again if lost
    assert synced == []
    store.append(second, durable=True)
    assert len(synced) == 1
    store.close()


def test_creating_the_game_makes_the_secret_and_the_directory_entries_durable(
        tmp_path: Path, monkeypatch) -> None:
    synced: list[str] = []
    real_fsync = os.fsync

    def spy(fd: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", spy)
    store = GameStore(tmp_path, GAME)
    store.create(me=0)
    assert any(path.endswith("secret.json.tmp") or path.endswith("secret.json")
               for path in synced)
    assert str(store.dir) in synced and str(store.dir.parent) in synced
