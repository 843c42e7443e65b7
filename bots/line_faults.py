"""The faults of a bot program's lines, worded and counted per wait.

Every line that is not the awaited message is skipped and reported as a ``Fault`` naming its
line number and (sanitised) text, so one bad line costs no move. Within one wait (for an answer
or for ``ready``) the first ``MAX_REPORTED`` are reported one by one and the rest counted by
kind, so a program that writes thousands of bad lines gets a few reports, not thousands.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence

from bots import bot_output
from bots.faults import Fault
from bots.program_lines import Line

MAX_REPORTED = 5             # skipped lines reported one by one per wait (then counted)


def show(text: str) -> str:
    """A program's text as a fault quotes it: sanitised, cut short, in quotes."""
    return repr(bot_output.sanitize(text, 120))


class LineFaults:
    """The faults noted since they were last taken, and the counts of the current wait."""

    def __init__(self) -> None:
        self._faults: list[Fault] = []
        self.skipped = 0  # lines skipped in the current wait (for the flood limit)
        self._noted = 0   # ... of them reported
        self._unreported: dict[str, int] = {}

    def add(self, fault: Fault | None) -> None:
        if fault is not None:
            self._faults.append(fault)

    def note(self, kind: str, message: str, decision: int | None) -> None:
        """A skipped line: reported, or counted once this wait has reported enough."""
        self._noted += 1
        if self._noted > MAX_REPORTED:
            self._unreported[kind] = self._unreported.get(kind, 0) + 1
        else:
            self._faults.append(Fault(kind, message, decision=decision))

    def note_unparsed(self, lines: Sequence[Line], decision: int | None) -> None:
        """Lines that looked like the start of a (pretty-printed) message and were none."""
        first, last = lines[0].number, lines[-1].number
        span = f"line {first}" if first == last else f"lines {first}-{last}"
        text = "\n".join(line.text or "" for line in lines)
        self.note("not-json", f"wrote {span}, which is not JSON: {show(text)}; skipped",
                  decision)

    @contextlib.contextmanager
    def wait(self, decision: int | None) -> Iterator[None]:
        """One wait: its skipped lines are counted together, and what was not reported one
        by one is reported as a count per kind at its end."""
        self.skipped = self._noted = 0
        self._unreported = {}
        try:
            yield
        finally:
            for kind, count in self._unreported.items():
                self._faults.append(Fault(kind, f"wrote {count} more lines of this kind, "
                                          "skipped (not reported one by one)",
                                          decision=decision))
            self._unreported = {}

    def take(self) -> list[Fault]:
        faults, self._faults = self._faults, []
        return faults
