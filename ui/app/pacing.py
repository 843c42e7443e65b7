"""A round's resolution revealed step by step in the game's log pane.

The session hands the UI the whole Resolve phase at once (the engine resolves every planet in
one go once the cards are opened). ``Pacer`` lets the log lines through in their order, but
from the line that starts the Resolve phase to the round's scores it waits ``pace`` seconds
after each one, so each planet and each card's effect shows before the next; ``skip()`` shows
the rest of the round at once (key space). Lines outside a resolution pass at once (unless
paced lines are still ahead of them: the order is kept). The round's scores line is released
last, so the round summary the app opens on it comes after the reveal.

Where a resolution starts and ends is told by the engine's events (``ResolveStarted``; a
round's ``RoundScores`` or the ``GameOver``), never by the words of its log lines.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from engine.events import Event, GameOver, ResolveStarted, RoundScores

PACE_ENV = "SOLSTICE_PACE"
DEFAULT_PACE = 0.6  # seconds between the steps of a resolution
RESOLVE_ENDS = (RoundScores, GameOver)

T = TypeVar("T")


def pace_from_env(default: float = DEFAULT_PACE) -> float:
    """``$SOLSTICE_PACE`` seconds (0: no pacing), else ``default``; a bad value is ignored."""
    try:
        pace = float(os.environ.get(PACE_ENV, default))
    except ValueError:
        return default
    return pace if 0 <= pace <= 10 else default


class Pacer(Generic[T]):
    """Releases items to ``show`` in order, pacing those of a resolution.

    ``later(seconds, callback)`` schedules a callback (Textual's ``set_timer``) and returns
    something with ``stop()``; ``on_idle`` runs when the last held item was shown."""

    def __init__(self, show: Callable[[T], None], later: Callable[[float, Callable[[], None]],
                 Any], pace: float, on_idle: Callable[[], None] = lambda: None) -> None:
        self.show, self.later, self.pace, self.on_idle = show, later, pace, on_idle
        self.queue: deque[tuple[T, Event | None]] = deque()
        self.resolving = False   # the last line shown was inside a resolution
        self.skipped = False     # space pressed: the rest of this resolution at once
        self.held = False        # ``hold``: nothing more is shown until ``resume``
        self._timer: Any = None

    @property
    def busy(self) -> bool:
        """Items are held back (the reveal is still running)."""
        return bool(self.queue) or self._timer is not None or self.held

    def push(self, item: T, event: Event | None = None) -> None:
        """``event``: the engine event ``item`` shows (None: not a line of the game's own)."""
        self.queue.append((item, event))
        self._release()

    def hold(self) -> None:
        """Show nothing more until ``resume`` (a lesson explains what was just shown)."""
        self.held = True

    def resume(self) -> None:
        self.held = False
        if self.queue:
            self._release()
        elif self._timer is None:
            self.on_idle()  # the hold was all that kept the reveal busy

    def skip(self) -> None:
        """Show everything held back now (a hold too: a stop is news now)."""
        self.held = False
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.skipped = self.resolving
        self._release()

    def _release(self) -> None:
        was_busy = self.busy
        while self.queue and self._timer is None and not self.held:
            item, event = self.queue.popleft()
            if isinstance(event, ResolveStarted):
                self.resolving, self.skipped = True, False
            elif isinstance(event, RESOLVE_ENDS):
                self.resolving = False
            self.show(item)
            if self.resolving and not self.skipped and self.pace > 0 and event is not None:
                self._timer = self.later(self.pace, self._tick)
        if was_busy and not self.busy:
            self.on_idle()

    def _tick(self) -> None:
        self._timer = None
        if not self.queue:
            self.on_idle()
            return
        self._release()
