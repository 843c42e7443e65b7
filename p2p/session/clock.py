"""Deadlines of a game session: the table's clock and who is late.

The sans-IO session has no clock of its own; its driver feeds the time (``GameSession.tick``).
Every stage gets a deadline from the moment this peer entered it: ``step`` seconds for an
automatic step, ``decision + step`` for a human decision (the decider's own client plays a
legal default after ``decision`` seconds, its message then needs at most a step to arrive).
A peer still missing ``grace`` seconds after the deadline is declared unresponsive.

The host (peer 0) sets the table's clock: its ``setup/commit`` body carries ``"clock":
{"decision": D, "step": S}``, which every peer adopts when that stage completes. The setup
stages themselves run on the default step time.
"""

from __future__ import annotations

from typing import Any

from p2p.session.events import ClockRanOut, DecisionClock, Peer, Seat, SessionEvent, TableClock
from p2p.session.stages import Stage
from p2p.session.timing import DECISIONS, Timing


class StageClock:
    """When this peer entered the current stage, and the table's timing."""

    def __init__(self, timing: Timing) -> None:
        self.timing = timing
        self.now = 0.0
        self.started = 0.0
        self.running = False  # False until the driver first feeds the time

    def enter_stage(self) -> None:
        self.started = self.now

    def advance(self, now: float) -> None:
        if not self.running:
            self.running, self.started = True, now
        self.now = now

    def input_deadline(self) -> float:
        return self.started + self.timing.decision

    def overdue(self, kind: str) -> bool:
        return self.running and \
            self.now > self.started + self.timing.limit(kind) + self.timing.grace


class Deadlines:
    """The time-driven part of ``GameSession`` (a mixin: it uses the session's state)."""

    timing: Timing
    clock: StageClock
    me: Peer | None
    stage: Stage | None
    seat_of_peer: list[Seat]
    pending_input: Any
    events: list[SessionEvent]
    queues: Any
    referee: Any
    away: set[int]

    @property
    def finished(self) -> bool:  # provided by GameSession
        raise NotImplementedError

    def submit(self, action: Any) -> None:  # provided by GameSession
        raise NotImplementedError

    def tick(self, now: float) -> None:
        """The driver's clock (seconds, any origin): plays our default when our own decision
        time ran out, and declares peers that missed their deadline unresponsive."""
        self.clock.advance(now)
        if self.finished:
            return
        if self.referee.auditing:
            late = [p for p in self.referee.unopened() if p != self.me and p not in self.away]
            if late and self.clock.overdue("audit"):
                self.referee.abandoned(late, "did not open its deck keys in time")
            return
        if self.stage is None:
            return
        stage = self.stage
        if (self.pending_input and self.me in stage.missing
                and now > self.clock.input_deadline()):
            action = self.pending_input[0]
            self.events.append(ClockRanOut(action))
            self.submit(action)
            return
        late = [p for p in stage.missing
                if p != self.me and p not in self.away and not self._has_news(p)]
        if late and self.clock.overdue(stage.kind):
            self.referee.abandoned(late, f"no {stage.kind} message within "
                                         f"{self.timing.limit(stage.kind):g} s")

    def _has_news(self, peer: int) -> bool:
        return any(m.msg.type != "abort" for m in self.queues[peer])

    def _set_timing(self, timing: Timing) -> None:
        self.timing = self.clock.timing = timing
        self.events.append(TableClock(timing.decision, timing.step))

    def _entered(self, stage: Stage) -> None:
        """A new stage began: its deadlines run from now; a decision's clock is announced."""
        self.clock.enter_stage()
        if stage.kind in DECISIONS and self.seat_of_peer:
            self.events.append(DecisionClock(
                stage.kind, tuple(sorted(stage.peers)), self.timing.decision,
                self.clock.input_deadline() if self.clock.running else None, stage.index))
