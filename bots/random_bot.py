"""``random``: a uniformly random legal action."""

from __future__ import annotations

from bots.base import Bot, GameInfo, Turn
from engine import Action


class RandomBot(Bot):
    name = "random"
    description = "plays a uniformly random legal action"
    reads_log = False

    def start(self, info: GameInfo) -> None:
        super().start(info)

    def choose(self, turn: Turn) -> Action:
        return turn.draw(self.rng)  # legal[rng.randbelow(len(legal))], without listing them
