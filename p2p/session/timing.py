"""The table's clock: seconds per human decision and per automatic protocol step.

The host (peer 0) sets it: its ``setup/commit`` body carries ``"clock": {"decision": D,
"step": S}``, which every peer adopts when that stage completes (see ``clock``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from p2p.errors import RemoteProtocolError

# Stage kinds that wait for a human (or bot) decision.
DECISIONS = ("action", "pick/commit")

# Whole seconds on the wire (canonical JSON has no floats).
DECISION_RANGE = (1, 3600)
STEP_RANGE = (1, 600)


@dataclass(frozen=True)
class Timing:
    decision: int = 120   # seconds per human decision
    step: int = 30        # seconds for an automatic protocol step
    grace: float = 5.0    # extra wait before a late peer is declared unresponsive

    def to_json(self) -> dict[str, Any]:
        return {"decision": self.decision, "step": self.step}

    def limit(self, kind: str) -> float:
        """Seconds a peer has for a stage of ``kind`` before it is late."""
        return self.decision + self.step if kind in DECISIONS else self.step


def parse_clock(peer: int, value: Any, local: Timing) -> Timing:
    """The host's clock from its setup/commit body (``local`` supplies the grace)."""
    if not isinstance(value, dict) or set(value) != {"decision", "step"}:
        raise RemoteProtocolError(peer, "clock must be {'decision': s, 'step': s}")
    decision, step = value["decision"], value["step"]
    for name, number, (low, high) in (("decision", decision, DECISION_RANGE),
                                      ("step", step, STEP_RANGE)):
        if isinstance(number, bool) or not isinstance(number, int) or not low <= number <= high:
            raise RemoteProtocolError(peer, f"clock {name} time must be {low} to {high} whole "
                                            "seconds")
    return Timing(decision, step, local.grace)
