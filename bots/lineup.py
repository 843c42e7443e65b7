"""Lineups: which bot plays which seat, as a user writes it, and when a bot program that
cannot play makes a whole run an error rather than a run of random moves.

A lineup is a list of bot specs, one per seat; ``SPEC*K`` stands for K seats of SPEC (not for
a ``cmd:`` spec, whose command line is taken whole); seats left free are filled with the
``fill`` bot if one is given, else with the last bot of the list (``ismcts,greedy`` for 4
players is ismcts + greedy x3; ``cmd:./mybot`` with ``fill=greedy`` is the program against
three greedy bots).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from bots.faults import Fault
from bots.registry import BotSpecError

_COUNT = re.compile(r"^(?P<spec>.+?)\s*\*\s*(?P<count>\d+)$")

# Faults that mean a bot program is not playing at all: it never started, or it is gone.
FATAL_KINDS = frozenset({"start", "protocol", "gone", "flood"})


class BotProgramError(RuntimeError):
    """A ``cmd:`` bot could not play its first game (it did not start, or died): the run
    would only have measured random moves."""


def expand(specs: Iterable[str]) -> list[str]:
    """The specs with every ``SPEC*K`` written out as K copies of SPEC."""
    out: list[str] = []
    for spec in specs:
        match = None if spec.startswith("cmd:") else _COUNT.match(spec)
        if match is None:
            out.append(spec)
            continue
        count = int(match.group("count"))
        if count < 1:
            raise BotSpecError(f"{spec!r}: a bot needs at least one seat")
        out += [match.group("spec")] * count
    return out


def seats_of(specs: Sequence[str], players: int, fill: str | None = None,
             what: str = "a tournament") -> list[str]:
    """The bot of each of ``players`` seats (see the module docstring). Refuses more bots than
    seats and a lineup of fewer than two different bots."""
    seats = expand(specs)
    if not seats and fill is None:
        raise BotSpecError("no bots given (e.g. --bots greedy,random)")
    if len(seats) > players:
        raise BotSpecError(f"{len(seats)} bots cannot share {players} seats")
    free = players - len(seats)
    if fill is not None:
        if not free:
            raise BotSpecError(f"--fill {fill!r}: the {players} seats are all taken already")
        seats += [fill] * free
    else:
        seats += [seats[-1]] * free
    if len(set(seats)) < 2:
        comma = any(spec.startswith("cmd:") and "," in spec for spec in seats)
        hint = ("; a cmd: spec takes the rest of --bots, commas included: put it last and "
                "name the other seats' bot with --fill") if comma else ""
        raise BotSpecError(f"{what} needs at least two different bots, not only {seats[0]!r} "
                           f"(e.g. --bots cmd:./mybot --fill greedy, or --bots greedy*2,random)"
                           f"{hint}")
    return seats


def seating(specs: Sequence[str], players: int, fill: str | None = None) -> str:
    """One line naming the bot of each seat before rotation, how the free seats were filled,
    and how many processes a ``cmd:`` bot in several seats runs (the lineup trap:
    ``greedy,cmd:X`` for 4 players puts X in three seats)."""
    given = len(expand(specs))
    seats = seats_of(specs, players, fill)
    parts = []
    start = 0
    for seat in range(1, players + 1):
        if seat == players or seats[seat] != seats[start]:
            where = f"seat {start}" if seat - start == 1 else f"seats {start}-{seat - 1}"
            parts.append(f"{where} {seats[start]}")
            start = seat
    line = "seating (rotated every game): " + ", ".join(parts)
    free = players - given
    if free:
        source = "--fill" if fill is not None else "the last bot of --bots (--fill names another)"
        line += f"; {free} free seat(s) filled by {source}"
    for spec in sorted(cmd_specs(seats)):
        if (count := seats.count(spec)) > 1:
            line += f"; {spec} plays {count} seats, one process each"
    return line


def fatal_fault(faults: Iterable[Fault], seats: Sequence[str],
                first: set[str]) -> Fault | None:
    """The first fault of ``faults`` (one game's, seated as ``seats``) that shows a ``cmd:``
    bot of ``first`` (the programs playing their first game) failed to start or died."""
    for fault in faults:
        if fault.kind in FATAL_KINDS and fault.seat is not None and \
                0 <= fault.seat < len(seats) and seats[fault.seat] in first:
            return fault
    return None


def program_failure(fault: Fault, spec: str) -> BotProgramError:
    """The error for ``fault`` of the program of ``spec`` in its first game."""
    hint = ""
    if "," in spec[4:]:
        hint = ("; note that a cmd: spec takes the rest of --bots, commas included: put it "
                "last and name the other seats' bot with --fill")
    return BotProgramError(f"{spec!r} cannot play: {fault}{hint}")


def cmd_specs(seats: Iterable[str]) -> set[str]:
    return {spec for spec in seats if spec.startswith("cmd:")}
