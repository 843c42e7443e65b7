"""An example in-process bot plugin: copy this file and change ``choose``.

Use it with ``--bot bots/examples/my_bot.py:MyBot`` (options: ``...:MyBot:greed=2``), or
package it and register it under the entry point group ``solstice.bots``::

    [project.entry-points."solstice.bots"]
    mybot = "my_package.my_bot:MyBot"

then ``--bot mybot``. The bot below reads only its ``Turn``: the legal actions (engine action
objects, see ``engine.actions``) and the seat's view (the same JSON-ready dict that process bots
receive). It prefers its own faction's cards in the draft and otherwise plays at random.
"""

from __future__ import annotations

from typing import Any

from bots.base import Bot, GameInfo, Turn
from engine import Action, Pick


class MyBot(Bot):
    name = "mybot"
    description = "example plugin: drafts its own faction's cards, otherwise random"

    def __init__(self, greed: float = 1.0) -> None:
        # Options from the --bot spec arrive as keyword arguments (numbers already converted).
        self.greed = float(greed)

    def start(self, info: GameInfo) -> None:
        super().start(info)  # sets self.rng, a random stream seeded for this seat and game
        self.faction = info.config.factions[info.seat]

    def choose(self, turn: Turn) -> Action:
        known = turn.view["known"]  # slot (as a string) -> card label, for cards we may see

        def value(action: Action) -> float:
            if not isinstance(action, Pick):
                return 0.0
            labels: list[str] = [known.get(str(slot), "") for slot in action.slots]
            return self.greed * sum(label.startswith(self.faction + ":") for label in labels)

        best = max(value(a) for a in turn.legal)
        options = [a for a in turn.legal if value(a) == best]
        return options[self.rng.randbelow(len(options))]

    def end(self, result: dict[str, Any]) -> None:
        # Optional hook: result = {"seat", "scores", "winner"}. Nothing to clean up here.
        pass
