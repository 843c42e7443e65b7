"""Engine errors. Each says who is at fault and exactly what is wrong."""

from __future__ import annotations


class EngineError(Exception):
    """Base class of every error raised by engine/."""


class MalformedActionError(EngineError):
    """An action could not be parsed (bad text or fields): malformed input, not a game move."""


class IllegalActionError(EngineError):
    """A well-formed action that the rules do not allow now. The state is left unchanged."""

    def __init__(self, seat: int | None, reason: str) -> None:
        who = f"seat {seat}" if seat is not None else "chance"
        super().__init__(f"{who} {reason}")
        self.seat = seat
        self.reason = reason


class RuleViolationError(EngineError):
    """A revealed card proves an earlier move of ``seat`` broke the rules (e.g. a false
    disclosure). Raised when the proof appears, which can be long after the move."""

    def __init__(self, seat: int, reason: str) -> None:
        super().__init__(f"seat {seat} broke the rules: {reason}")
        self.seat = seat
        self.reason = reason


class NotWaitingError(EngineError):
    """The caller supplied something the engine is not waiting for (e.g. a reveal)."""
