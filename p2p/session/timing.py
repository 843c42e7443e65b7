"""The table's clock: seconds per human decision and per automatic protocol step, and each
player's game clock (a chess clock with increment, one for decisions and one for steps).

The host (peer 0) sets it: its ``setup/commit`` body carries ``"clock": {"decision": D,
"step": S, "decision_bank": Bd, "decision_increment": Id, "step_bank": Bs,
"step_increment": Is}``, which every peer adopts when that stage completes (see ``clock``).
A bank of 0 turns that game clock off; a clock with only ``decision`` and ``step`` (an older
transcript) has no game clock.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from p2p.errors import RemoteProtocolError

# The two game clocks a player has: one for its decisions, one for its automatic steps (each
# stage kind runs on one of them: its ``StageSpec.clock``).
DECISION, STEP = "decision", "step"

# Whole seconds on the wire (canonical JSON has no floats).
DECISION_RANGE = (1, 3600)
STEP_RANGE = (1, 600)
BANK_RANGE = (0, 86400)       # 0: no game clock of that kind
INCREMENT_RANGE = (0, 3600)
# A game clock is agreed run out only this far past zero (a claimant waits the grace on top),
# so that the differences between peers' measures, which add up over a game, never make an
# honest claimant wrong: this share of the bank, and at least MIN_MARGIN seconds.
BANK_TOLERANCE = 0.05
# The clock floor: what no host can take away, because an honest peer on a loaded machine
# needs it. Each stage a peer answers gives at least MIN_INCREMENT seconds back (the time a
# message takes to be made, sent and read, even with every core busy, is no player's
# choice), and a bank is overdrawn only past MIN_MARGIN seconds (a stall of the machine).
# A host's smaller increment (0 included) is raised to the floor, on every peer alike.
MIN_INCREMENT = 2
MIN_MARGIN = 5.0


@dataclass(frozen=True)
class Timing:
    decision: int = 120   # seconds per human decision
    step: int = 30        # seconds for an automatic protocol step
    grace: float = 5.0    # extra wait before a late peer is declared unresponsive
    # Game clocks, per player: a bank of seconds, and seconds given back after each stage.
    # A player has some 20 to 25 decisions a game: deciding in 30 s on average it spends
    # about 10 of its 20 minutes; a peer that answers just before every deadline loses over
    # 2 minutes per decision and is stopped after some 9 of them. Steps take well under a
    # second each (some 100 a game); a crawler loses half a minute on each.
    decision_bank: int = 1200
    decision_increment: int = 20
    step_bank: int = 300
    step_increment: int = 2

    def to_json(self) -> dict[str, Any]:
        return {"decision": self.decision, "step": self.step,
                "decision_bank": self.decision_bank,
                "decision_increment": self.decision_increment,
                "step_bank": self.step_bank, "step_increment": self.step_increment}

    def limit(self, clock: str) -> float:
        """Seconds a peer has for a stage on game clock ``clock`` before it is late."""
        return self.decision + self.step if clock == DECISION else self.step

    def bank(self, clock: str) -> tuple[int, int]:
        """Game clock ``clock`` (DECISION or STEP): (bank, increment in force, the floor
        applied); bank 0: none."""
        bank, increment = ((self.decision_bank, self.decision_increment) if clock == DECISION
                           else (self.step_bank, self.step_increment))
        return bank, max(increment, MIN_INCREMENT) if bank else 0

    def margin(self, clock: str) -> float:
        """How far past zero a game clock must be before a peer agrees that it ran out."""
        return max(BANK_TOLERANCE * self.bank(clock)[0], MIN_MARGIN)

    def tolerance(self, clock: str) -> float:
        """How far past zero a game clock must be before a peer declares it run out: the
        margin, and the grace on top (as for a stage's deadline)."""
        return self.grace + self.margin(clock)

    def describe(self) -> str:
        def bank(clock: str) -> str:
            seconds, increment = self.bank(clock)
            return f"{_minutes(seconds)} + {increment} s each" if seconds else "none"
        return (f"{self.decision} s per decision, {self.step} s per automatic step; game "
                f"clock per player: decisions {bank(DECISION)}, steps {bank(STEP)}")


def _minutes(seconds: float) -> str:
    whole = max(0, int(seconds))
    return f"{whole // 60}:{whole % 60:02d}"


def clock_text(seconds: float) -> str:
    """A game clock's time left as m:ss (negative: overdrawn)."""
    return ("-" if seconds < 0 else "") + _minutes(abs(seconds))


_FIELDS = {"decision": DECISION_RANGE, "step": STEP_RANGE, "decision_bank": BANK_RANGE,
           "decision_increment": INCREMENT_RANGE, "step_bank": BANK_RANGE,
           "step_increment": INCREMENT_RANGE}
_LEGACY = {"decision", "step"}


def parse_clock(peer: int, value: Any, local: Timing) -> Timing:
    """The host's clock from its setup/commit body (``local`` supplies the grace)."""
    if not isinstance(value, dict) or set(value) not in (set(_FIELDS), _LEGACY):
        raise RemoteProtocolError(peer, "clock must be {'decision': s, 'step': s, "
                                        "'decision_bank': s, 'decision_increment': s, "
                                        "'step_bank': s, 'step_increment': s}")
    for name, number in value.items():
        low, high = _FIELDS[name]
        if isinstance(number, bool) or not isinstance(number, int) or not low <= number <= high:
            what = name.replace("_", " ")
            raise RemoteProtocolError(peer, f"clock {what}{'' if '_' in name else ' time'} "
                                            f"must be {low} to {high} whole seconds")
    if set(value) == _LEGACY:
        return Timing(value["decision"], value["step"], local.grace, 0, 0, 0, 0)
    return Timing(grace=local.grace, **value)
