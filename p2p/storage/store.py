"""A peer's on-disk record of one game: its master secret and every accepted message.

``HOME/games/<game id>/`` holds ``secret.json`` (0600: master secret and our peer index) and
``messages.jsonl`` (each accepted signed message, canonical JSON, one per line). Our own
messages are written and fsynced before they are sent (``append(..., durable=True)``), and the
secret before anything is signed, so after a crash or a power loss a restarted peer replays
exactly what it said. What the disk may still lose (a torn or damaged line, a deleted log) is
repaired on open and re-fetched from the other peers before we sign anything new
(protocol.md, "Persistence and restart").
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path
from typing import Any

from engine.canonical import canonical_json
from p2p.durable import fsync_dir, make_dirs, write_durably
from p2p.errors import LocalFileError
from p2p.session.envelope import SignedMessage

DAMAGED_SUFFIX = ".damaged"


class StoreError(LocalFileError):
    """Our own game files cannot be read or written (the disk, a permission, a deleted file)."""


class GameStore:
    def __init__(self, home: Path, game_id: str) -> None:
        self.dir = Path(home) / "games" / game_id
        self.game_id = game_id
        self._fd: int | None = None  # the log, open for appending
        # Problems found and repaired by the last load_messages (for the user to see).
        self.repairs: list[str] = []
        self.log_missing = False

    @property
    def secret_path(self) -> Path:
        return self.dir / "secret.json"

    @property
    def messages_path(self) -> Path:
        return self.dir / "messages.jsonl"

    @property
    def finished_path(self) -> Path:
        return self.dir / "finished.json"

    def exists(self) -> bool:
        return self.secret_path.exists()

    def create(self, me: int, master: bytes | None = None) -> bytes:
        """Store this game's master secret (``master``; None: a random one), durable before
        anything is signed, and an empty log."""
        try:
            make_dirs(self.dir)
            master = master if master is not None else secrets.token_bytes(32)
            data = canonical_json({"game": self.game_id, "me": me, "master": master.hex()})
            write_durably(self.messages_path, b"")
            write_durably(self.secret_path, data, 0o600)
        except OSError as exc:
            raise StoreError(f"cannot create the game files in {self.dir}: "
                             f"{exc.strerror or exc}") from None
        return master

    def load_secret(self) -> tuple[int, bytes]:
        try:
            data = json.loads(self.secret_path.read_text())
            return int(data["me"]), bytes.fromhex(data["master"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise StoreError(f"cannot read {self.secret_path}: {exc}") from exc

    def load_messages(self) -> list[SignedMessage]:
        """Every stored message, in the order stored. Repairs the file on disk first: a line
        torn by a crash at the end is cut off; a damaged line elsewhere is dropped (the
        original file is kept next to it with ``.damaged`` appended) and listed in
        ``repairs``. What was dropped is re-fetched from the other peers."""
        self.repairs, self.log_missing = [], False
        try:
            raw = self.messages_path.read_bytes()
        except FileNotFoundError:
            self.log_missing = self.exists()
            return []
        except OSError as exc:
            raise StoreError(f"cannot read {self.messages_path}: {exc.strerror}") from None
        lines = raw.split(b"\n")
        tail = lines.pop()  # b"" when the file ends with a newline, else a torn last line
        messages: list[SignedMessage] = []
        damaged: list[int] = []
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                messages.append(SignedMessage.decode(line))
            except Exception as exc:  # any line that does not decode is damage
                damaged.append(number)
                self.repairs.append(f"{self.messages_path}:{number}: damaged line dropped "
                                    f"({str(exc)[:100]})")
        try:
            if damaged:
                backup = self.messages_path.with_name(self.messages_path.name + DAMAGED_SUFFIX)
                os.replace(self.messages_path, backup)
                write_durably(self.messages_path, b"".join(m.encode() + b"\n" for m in messages))
                self.repairs.append(f"the original log is kept in {backup}")
            elif tail:
                # Torn by a crash in the middle of a write: never sent (we send only what is
                # on disk), so cutting it off loses nothing the peers have seen from us.
                with open(self.messages_path, "r+b") as handle:
                    handle.truncate(len(raw) - len(tail))
                    os.fsync(handle.fileno())
        except OSError as exc:
            raise StoreError(f"cannot repair {self.messages_path}: {exc.strerror}") from None
        return messages

    def append(self, signed: SignedMessage, durable: bool = False) -> None:
        """Add one message to the log; ``durable``: on the disk (fsync) before we return,
        for our own messages, which are sent only after this.

        Written with ``os.write`` (no buffer of our own): a write that fails half way (a
        full disk) is cut off again with ``ftruncate`` on the same descriptor, so nothing
        torn stays on disk and the next append starts on a fresh line. A buffered file
        would retry the write when closed, fail again and never reach the cut."""
        try:
            if self._fd is None:
                created = not self.messages_path.exists()
                make_dirs(self.dir)
                self._fd = os.open(self.messages_path,
                                   os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
                if created:
                    fsync_dir(self.dir)
            fd = self._fd
            start = os.lseek(fd, 0, os.SEEK_END)
            try:
                _write_all(fd, signed.encode() + b"\n")
                if durable:
                    os.fsync(fd)
            except OSError:
                self._cut(start)
                raise
        except OSError as exc:
            raise StoreError(f"cannot write {self.messages_path}: {exc.strerror}") from None

    def _cut(self, size: int) -> None:
        """Cut the log back to ``size`` bytes after a failed append (shrinking a file needs
        no free space). If even that fails, the descriptor is dropped: the next open cuts
        the torn tail (``load_messages``)."""
        assert self._fd is not None
        try:
            os.ftruncate(self._fd, size)
        except OSError:
            self.close()

    def mark_finished(self, outcome: dict[str, Any]) -> None:
        try:
            write_durably(self.finished_path, canonical_json(outcome))
        except OSError as exc:
            raise StoreError(f"cannot write {self.finished_path}: {exc.strerror}") from None

    @property
    def finished(self) -> bool:
        return self.finished_path.exists()

    def close(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` (a write may take part of it, e.g. up to a file size limit)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
