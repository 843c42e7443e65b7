"""Helpers for the tests that compare what bots are shown: a bot that keeps its views, and the
seed ``play_match`` gives each seat's bot."""

from __future__ import annotations

from bots.base import Bot, GameInfo, Turn
from engine import Action
from engine.canonical import canonical_json
from engine.randomness import RandomStream


class Recording(Bot):
    """Plays as ``inner`` and keeps every view it was shown, as canonical JSON bytes."""

    def __init__(self, inner: Bot) -> None:
        self.inner = inner
        self.name = inner.name
        self.views: list[bytes] = []

    def start(self, info: GameInfo) -> None:
        self.inner.start(info)

    def choose(self, turn: Turn) -> Action:
        self.views.append(canonical_json(turn.view))
        return self.inner.choose(turn)


def bot_seed(seed: str, seat: int) -> bytes:
    """The seed ``play_match`` gives the bot of ``seat``."""
    return RandomStream(seed).fork(f"bot{seat}").word().to_bytes(8, "big")
