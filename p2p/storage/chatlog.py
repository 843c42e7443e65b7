"""A peer's stored chat of one game: ``HOME/games/<game id>/chat.jsonl``, one line per kept
chat message (canonical JSON of ``ChatLine.to_json()``); the lobby's chat, kept when the
roster came in, in ``lobby_chat.jsonl`` (``LobbyChatLine.to_json()``).

Kept so that a resumed game goes on counting our lines from where it stopped (the others drop
a counter they have seen) and so that the transcript holds the chat of the whole game. Our own
lines are fsynced before they are sent; a damaged line is skipped on load (chat is never part
of the game's verdict).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from engine.canonical import canonical_json, parse_json
from p2p.errors import RemoteProtocolError
from p2p.net.chat import ChatLine
from p2p.net.lobbychat import LobbyChatLine

CHAT_FILE = "chat.jsonl"
LOBBY_CHAT_FILE = "lobby_chat.jsonl"
T = TypeVar("T")


def load_chat(game_dir: Path) -> list[ChatLine]:
    """The stored chat lines (none if the file is missing; damaged lines are skipped)."""
    return _load(Path(game_dir) / CHAT_FILE, ChatLine.from_json)


def _load(path: Path, parse: Callable[[object], T]) -> list[T]:
    try:
        raw = path.read_bytes()
    except OSError:
        return []
    lines = []
    for text in raw.split(b"\n"):
        try:
            lines.append(parse(parse_json(text)))
        except (ValueError, RemoteProtocolError):
            continue
    return lines


def append_chat(game_dir: Path, line: ChatLine, durable: bool) -> None:
    """Add ``line`` to the chat file; ``durable``: fsynced before we return (our own)."""
    with open(Path(game_dir) / CHAT_FILE, "ab") as handle:
        handle.write(canonical_json(line.to_json()) + b"\n")
        if durable:
            handle.flush()
            os.fsync(handle.fileno())


def save_lobby_chat(game_dir: Path, lines: Sequence[LobbyChatLine]) -> None:
    """Store the lobby's chat once the roster is in (fsynced; none: no file). Written once;
    a line a crash cut short is skipped on load, like a damaged one."""
    if lines:
        with open(Path(game_dir) / LOBBY_CHAT_FILE, "wb") as handle:
            handle.write(b"".join(canonical_json(line.to_json()) + b"\n" for line in lines))
            handle.flush()
            os.fsync(handle.fileno())


def load_lobby_chat(game_dir: Path) -> list[LobbyChatLine]:
    """The stored lobby chat lines (none if the file is missing; damaged lines skipped)."""
    return _load(Path(game_dir) / LOBBY_CHAT_FILE, LobbyChatLine.from_json)
