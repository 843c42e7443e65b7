"""Deadlines of a game session: the table's clock, each player's game clock, and who is late.

The sans-IO session has no clock of its own; its driver feeds the time (``GameSession.tick``,
also just before each frame it passes in, so a stage is timed from when it really began).
Every stage gives each peer it needs a deadline, counted from the moment this peer entered the
stage and only while that peer is here to answer (not while the driver reports it away: down,
reconnecting, replaying or resyncing): ``step`` seconds for an automatic step, ``decision +
step`` for a human decision (the decider's own client plays a legal default after
``decision`` seconds, its message then needs at most a step to arrive). A peer still missing
``grace`` seconds after its deadline is declared silent.

The same waiting is charged to the peer's game clock of that kind (decisions or steps): a bank
of seconds that each stage it answers gives ``increment`` seconds back (never above the full
bank), like a chess clock. A
peer whose bank is overdrawn by more than the tolerance (``Timing.tolerance``) is declared to
have abandoned the game, as a silent one is. Our own client plays its default before our bank
runs out. While we ourselves replay or resync, nothing is timed and nobody is judged.

The host (peer 0) sets the table's clock: its ``setup/commit`` body carries it (``timing``),
and every peer adopts it when that stage completes; the game clocks run from then on (the
first stage is timed from each peer's own start, which says nothing about the others).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from p2p.session.events import (
    ABANDONED,
    ClockRanOut,
    DecisionClock,
    Peer,
    Seat,
    SessionEvent,
    TableClock,
)
from p2p.session.stages import Stage, StageSpec
from p2p.session.timing import DECISION, STEP, Timing

OWN_MARGIN = 1.0  # our own default is played this many seconds before our bank runs out


class StageClock:
    """When this peer entered the current stage, how long it waited for each peer in it, and
    every peer's game clocks as this peer measures them."""

    def __init__(self, timing: Timing) -> None:
        self.timing = timing
        self.now = 0.0
        self.started = 0.0
        self.running = False  # False until the driver first feeds the time
        self.waited: dict[int, float] = {}  # this stage: seconds each peer was waited for
        # Per (peer, clock kind): seconds charged minus increments earned, over past stages.
        self.used: dict[tuple[int, str], float] = {}
        # Game clocks run from the host's clock on (after setup/commit): before it, peers
        # start at different moments (the mesh forms), which says nothing about anyone.
        self.adopted = False

    def enter_stage(self) -> None:
        self.started = self.now
        self.waited = {}

    def advance(self, now: float, waiting: Iterable[int] = ()) -> None:
        """The time is ``now``; ``waiting``: the peers the stage waited for since the last
        time (and who were here to answer)."""
        if not self.running:
            self.running, self.started, self.now = True, now, now
            return
        elapsed = max(0.0, now - self.now)
        for peer in waiting:
            self.waited[peer] = self.waited.get(peer, 0.0) + elapsed
        self.now = max(self.now, now)

    def answered(self, peer: int, clock: str) -> None:
        """``peer``'s message for the current stage (on game clock ``clock``) is in: charge
        its wait."""
        if not self.adopted:
            return
        _, increment = self.timing.bank(clock)
        key = (peer, clock)
        # Never above the full bank: what a peer saves by playing fast early cannot be spent
        # crawling later, so the bank bounds the table's wait.
        self.used[key] = max(0.0, self.used.get(key, 0.0) + self.waited.get(peer, 0.0)
                             - increment)

    def bank_left(self, peer: int, clock: str) -> float | None:
        """Seconds left on ``peer``'s game clock ``clock`` now (None: no game clock)."""
        bank, _ = self.timing.bank(clock)
        if not bank or not self.adopted:
            return None
        return bank - self.used.get((peer, clock), 0.0) - self.waited.get(peer, 0.0)

    def input_deadline(self, peer: int | None = None) -> float:
        """When our own client plays its default: after ``decision`` seconds, or just before
        our game clock runs out."""
        deadline = self.started + self.timing.decision
        left = self.bank_left(peer, DECISION) if peer is not None else None
        if left is not None:
            deadline = min(deadline, self.now + left - OWN_MARGIN)
        return deadline

    def late(self, peer: int, spec: StageSpec) -> str | None:
        """Why ``peer`` is declared silent now in a stage of ``spec`` (None: it is not): its
        stage deadline plus the grace passed, or its game clock ran out beyond the
        tolerance."""
        limit = self.timing.limit(spec.clock)
        if self.running and self.waited.get(peer, 0.0) > limit + self.timing.grace:
            return f"no {spec.kind} message within {limit:g} s"
        left = self.bank_left(peer, spec.clock)
        if left is not None and left < -self.timing.tolerance(spec.clock):
            return f"its game clock for {spec.clock}s ran out"
        return None

    def due(self, peer: int, clock: str) -> bool:
        """Has ``peer``'s own deadline for the current stage passed, as this peer measures it
        (the stage's time, or its game clock)? A claim that it is silent is agreed to only
        then: the claimant waited the grace on top, which covers the peers' differences. A bank
        is agreed run out past the margin (``Timing.margin``), never at zero: a peer's own
        client plays its default only just before zero, and a message takes time."""
        if self.waited.get(peer, 0.0) > self.timing.limit(clock):
            return True
        return self.overdrawn(peer, clock)

    def overdrawn(self, peer: int, clock: str) -> bool:
        """Is ``peer``'s game clock ``clock`` past zero by more than the margin, as this peer
        measures it (the claimant's own threshold less the grace, as for a stage)?"""
        left = self.bank_left(peer, clock)
        return left is not None and left < -self.timing.margin(clock)


class Deadlines:
    """The time-driven part of ``GameSession`` (a mixin: it uses the session's state)."""

    timing: Timing
    clock: StageClock
    me: Peer | None
    stage: Stage | None
    stage_index: int
    seat_of_peer: list[Seat]
    pending_input: Any
    events: list[SessionEvent]
    queues: Any
    referee: Any
    away: set[int]
    replaying: bool
    msglog: Any
    escrow_claims: Any
    overdrawn_in: set[tuple[int, int]]  # (peer, stage number): answered past its game clock
    _escrow_overdue: Callable[[float], bool]  # provided by Recoveries

    def _pump(self) -> None:  # provided by GameSession
        raise NotImplementedError

    @property
    def finished(self) -> bool:  # provided by GameSession
        raise NotImplementedError

    def submit(self, action: Any) -> None:  # provided by GameSession
        raise NotImplementedError

    def tick(self, now: float, stalled: bool = False) -> None:
        """The driver's clock (seconds, any origin): plays our default when our own decision
        time ran out, and declares peers that missed their deadline unresponsive.
        ``stalled``: the driver itself was not running since its last tick (a suspended or
        starved process): what arrived meanwhile may have waited unread in its socket, so
        that time is charged to nobody."""
        self.clock.advance(now, () if stalled else self._timed())
        if self.finished or self.replaying:
            return  # while we catch up we judge nobody: what we lack may be on its way
        if self.escrow_claims:  # our claim waits for the others' shares, and nothing else
            self._pump()  # (the last share may be in already)
            if not self.finished:
                self._escrow_overdue(self.clock.now)
            return
        if self.referee.auditing:
            late = [p for p in self.referee.unopened() if p != self.me and p not in self.away]
            if late and self.clock.running and self.clock.now > (
                    self.clock.started + self.timing.limit(STEP) + self.timing.grace):
                self.referee.abandoned(late, "did not open its deck keys in time")
            return
        if self.referee.claims and self.referee.settle():
            return  # a claim of silence waited for our own deadline, which has now passed
        if self.stage is None:
            return
        stage = self.stage
        if (self.pending_input and self.me in stage.missing
                and now > self.clock.input_deadline(self.me)):
            action = self.pending_input[0]
            self.events.append(ClockRanOut(action))
            self.submit(action)
            return
        why = {p: self.clock.late(p, stage.spec) for p in stage.missing
               if p != self.me and p not in self.away and not self._has_news(p)}
        late = [p for p, reason in why.items() if reason is not None]
        if late:
            self.referee.abandoned(late, str(why[late[0]]))

    def answered(self, peer: int, stage: Stage) -> None:
        """``peer``'s message for ``stage`` was taken: charge its wait to its game clock (not
        while replaying: that wait was measured, or not, before the restart)."""
        if not self.replaying and self.clock.running:
            if self.clock.overdrawn(peer, stage.spec.clock):
                # Its message came, but after its game clock ran out by our measure: a claim
                # that its clock ran out in this stage is still agreed to (the message
                # refutes a stage's deadline, not a bank spent before it came).
                self.overdrawn_in.add((peer, stage.index))
            self.clock.answered(peer, stage.spec.clock)

    def due(self, peer: int, stage: int) -> bool:
        """Is ``peer``'s deadline for stage number ``stage`` (the current one) past, so that a
        claim of its silence there can be agreed to? An observer re-checking a transcript
        agrees at the log's end (``final``, see ``blame``); while we replay or resync we agree
        exactly where our own log says we did."""
        if self.replaying or not self.clock.running:
            return self._we_said_silent(peer, stage)
        assert self.stage is not None
        return self.clock.due(peer, self.stage.spec.clock)

    def came_overdrawn(self, peer: int, stage: int) -> bool:
        """Did ``peer``'s message for stage number ``stage`` come after its game clock had
        run out, as we measured it (while we replay: where our own log says we agreed)?"""
        if self.replaying or not self.clock.running:
            return self._we_said_silent(peer, stage)
        return (peer, stage) in self.overdrawn_in

    def bank_left(self, peer: int, clock: str) -> float | None:
        return self.clock.bank_left(peer, clock) if self.clock.running else None

    def _timed(self) -> list[int]:
        """The peers whose time is running now: those the current stage still needs that
        are here to answer (never while we replay or resync, or before the game started)."""
        if self.finished or self.replaying or self.stage is None or self.referee.auditing:
            return []
        return [p for p in self.stage.missing
                if p not in self.away and (p == self.me or not self._has_news(p))]

    def _we_said_silent(self, peer: int, stage: int) -> bool:
        return any(m.msg.seat == self.me and m.msg.type == "abort"
                   and m.msg.body.get("kind") == ABANDONED and m.msg.body.get("blame") == peer
                   and m.msg.body.get("stage") == stage for m in self.msglog.messages)

    def _has_news(self, peer: int) -> bool:
        return any(m.msg.type != "abort" for m in self.queues[peer])

    def _set_timing(self, timing: Timing) -> None:
        self.timing = self.clock.timing = timing
        self.clock.adopted = True
        self.events.append(TableClock(timing.decision, timing.step, timing.describe()))

    def _entered(self, stage: Stage) -> None:
        """A new stage began: its deadlines run from now; a decision's clock is announced."""
        self.clock.enter_stage()
        if stage.spec.clock == DECISION and self.seat_of_peer:
            peers = tuple(sorted(stage.peers))
            mine = self.me if self.me in stage.peers else None
            self.events.append(DecisionClock(
                stage.kind, peers, self.timing.decision,
                self.clock.input_deadline(mine) if self.clock.running else None,
                stage.index, tuple(self.bank_left(p, DECISION) for p in peers)))
