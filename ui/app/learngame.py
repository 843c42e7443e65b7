"""``solstice play --learn``: a curated first game, the same every time, that meets every lesson.

The deal comes from the peers' secrets (seeds and deck keys); in a learning game every peer is
in this process (the player's own and its local bot), so there is nobody to hide them from:
each peer's master secret is fixed by ``LEARN_SEED`` (``p2p.session.secrets.fixed_master``)
and so is the game id it is bound to, which fixes the deal without changing the protocol (the
game is an ordinary one: audited, its transcript verifies). A game with anyone else at the
table never uses this.

``LEARN_SEED`` was picked by playing candidate seeds over the whole protocol in one process
with automatic players in the player's seat: its 2-player setup has a claim event
(Messenger) and, against the teaching ``random`` bot, every lesson came up for ``greedy``
and for 55 of 62 stand-ins (greedy, learned, 60 seeded random players; the misses: 6 games
without a kill, 1 without a claim). The rulebook's 2-player setup has one Fortune event, so
a claim and a heal never meet in a 2-player game (healing is taught with the casualties).
The bot takes a prisoner at its first chance, so that the prisoner's lesson comes up whatever
the player does. ``tests/test_ui_learn_deal.py`` checks every lesson comes up.
"""

from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path
from typing import Any

from bots.base import Bot, GameInfo, Turn
from engine import Action, Capture

LEARN_SEED = b"solstice/learn/9"  # the curated deal (see the module docstring)
LEARN_BOT_SEED = hashlib.sha256(b"solstice/learn-bot/" + LEARN_SEED).digest()[:16]


def learn_game_id(seed: bytes = LEARN_SEED) -> str:
    """The learning game's id (fixed: the peers' secrets derive from it too)."""
    return hashlib.sha256(b"solstice/learn-game/v1\x00" + seed).hexdigest()[:32]


def learning_home(home: Path) -> Path:
    """A home of its own for one learning game, under ``home``'s ``learn`` folder: every
    learning game has the same id, so two at once (two browser tabs of ``solstice serve``)
    or the last one's records must never share a game folder. Its transcript stays there."""
    parent = home / "learn"
    parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    return Path(tempfile.mkdtemp(prefix="game-", dir=parent))


class TeachingBot(Bot):
    """The learning game's opponent: ``inner``'s moves, except that it takes a prisoner the
    first time it may (so that a capture, and its lesson, comes up in every learning game)."""

    def __init__(self, inner: Bot) -> None:
        self.inner = inner
        self.name = inner.name
        self.time_budget = inner.time_budget
        self.captured = False

    def start(self, info: GameInfo) -> None:
        self.captured = False
        self.inner.start(info)

    def choose(self, turn: Turn) -> Action:
        if not self.captured:
            capture = next((a for a in turn.legal if isinstance(a, Capture)), None)
            if capture is not None:
                self.captured = True
                return capture
        return self.inner.choose(turn)

    def end(self, result: dict[str, Any]) -> None:
        self.inner.end(result)

    def close(self) -> None:
        self.inner.close()
