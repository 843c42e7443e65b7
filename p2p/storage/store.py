"""A peer's on-disk record of one game: its master secret and every accepted message.

``HOME/games/<game id>/`` holds ``secret.json`` (0600: master secret and our peer index) and
``messages.jsonl`` (each accepted signed message, canonical JSON, one per line). Our own
messages are written before they are sent, so a restarted peer replays exactly what it said
and never signs a second, different message with the same sequence number.
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path
from typing import Any

from engine.canonical import canonical_json
from p2p.errors import LocalProtocolError
from p2p.session.envelope import SignedMessage


class GameStore:
    def __init__(self, home: Path, game_id: str) -> None:
        self.dir = Path(home) / "games" / game_id
        self.game_id = game_id
        self._file: Any = None

    @property
    def secret_path(self) -> Path:
        return self.dir / "secret.json"

    @property
    def messages_path(self) -> Path:
        return self.dir / "messages.jsonl"

    def exists(self) -> bool:
        return self.secret_path.exists()

    def create(self, me: int) -> bytes:
        """A fresh master secret for this game, stored before anything is signed."""
        self.dir.mkdir(parents=True, exist_ok=True)
        master = secrets.token_bytes(32)
        data = canonical_json({"game": self.game_id, "me": me, "master": master.hex()})
        fd = os.open(self.secret_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        self.messages_path.write_bytes(b"")
        return master

    def load_secret(self) -> tuple[int, bytes]:
        try:
            data = json.loads(self.secret_path.read_text())
            return int(data["me"]), bytes.fromhex(data["master"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise LocalProtocolError(f"cannot read {self.secret_path}: {exc}") from exc

    def load_messages(self) -> list[SignedMessage]:
        messages: list[SignedMessage] = []
        if not self.messages_path.exists():
            return messages
        lines = self.messages_path.read_bytes().splitlines()
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                messages.append(SignedMessage.decode(line))
            except Exception as exc:
                if number == len(lines):
                    break  # a torn last line after a crash is dropped
                raise LocalProtocolError(f"{self.messages_path}:{number}: {exc}") from exc
        return messages

    def append(self, signed: SignedMessage) -> None:
        if self._file is None:
            self.dir.mkdir(parents=True, exist_ok=True)
            self._file = open(self.messages_path, "ab")  # noqa: SIM115 - kept open on purpose
        self._file.write(signed.encode() + b"\n")
        self._file.flush()

    def mark_finished(self, outcome: dict[str, Any]) -> None:
        (self.dir / "finished.json").write_bytes(canonical_json(outcome))

    @property
    def finished(self) -> bool:
        return (self.dir / "finished.json").exists()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
