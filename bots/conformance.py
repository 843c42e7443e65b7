"""``solstice bot-check``: drive a bot through scripted decisions of every kind and phase and
report, for a bot author, everything it got wrong.

The script: seeded games of 2, 3 and 4 players played with random choices; from each, the
first decision of every (phase, kind) not yet scripted for that player count is put to the
bot (``scripted_decisions``; the seeds in ``CHECK_SEEDS`` are chosen so that together they
reach every decision kind the engine has). Decisions of one game and seat form one protocol
game: ``hello``, the ``decide``s, ``end``. A process bot is also checked on the protocol's
edges: ``ready`` within the handshake time, ids that jump (a bot must copy them, not count),
an unknown message type (ignored), every answer within the time budget, nothing written
after ``end``, and an exit within 1 s of ``quit``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from bots.base import Bot, GameInfo, Turn
from bots.faults import HINTS, Fault
from bots.guard import GuardedSeat
from bots.match import Stepper, seeded_game, stream_orders
from bots.process_bot import ProcessBot
from engine import (
    Action,
    GameState,
    legal_actions,
    random_chance,
)
from engine.randomness import RandomStream
from engine.relabel import RelabelSchedule

# Seeds ``check/{players}/{n}`` whose random games together reach every decision kind.
CHECK_SEEDS: dict[int, tuple[int, ...]] = {2: (0, 1, 3, 4, 52, 122), 3: (3, 4, 31, 322),
                                           4: (4, 17, 161)}

# Every (phase, kind) a bot can be asked: the action verb outside a pending decision, else
# the decision's kind (protocol.md lists the options of each).
DECISION_KINDS: frozenset[tuple[str, str]] = frozenset({
    ("draft", "pick"), ("draft", "prophecy"),
    ("dispatch", "dispatch"), ("dispatch", "capture"), ("dispatch", "discard"),
    ("dispatch", "vision"), ("dispatch", "whispered_secrets"),
    ("resolve", "sentry"), ("resolve", "sacrifice"), ("resolve", "mercenaries"),
    ("resolve", "assassin_target"), ("resolve", "ambush"), ("resolve", "transport"),
    ("resolve", "transport_card"), ("resolve", "mimic"), ("resolve", "escape"),
    ("resolve", "martyr"),
})

ID_GAPS = (0, 2, 0, 5, 1)  # ids skipped before successive decisions (ids only increase)
SHOWN_PER_KIND = 3  # faults quoted per kind in the report (the count says how many more)


def decision_kind(state: GameState, seat: int, legal: list[Action]) -> str:
    """The kind of decision ``seat`` faces: the pending decision's kind, else the action verb
    ("capture" when a prisoner may be taken instead of dispatching)."""
    pending = state.decision
    if pending is not None and pending.seat == seat:
        return pending.kind
    return kind_of_turn({a.text().split()[1] for a in legal})


def kind_of_turn(verbs: set[str]) -> str:
    """The kind of a decision outside a pending one, from the verbs of its legal actions."""
    return next((verb for verb in ("capture", "discard", "pick", "dispatch") if verb in verbs),
                min(verbs, default="?"))


@dataclass(frozen=True)
class Scripted:
    """One decision of the script: a state, the seat to move and its legal actions."""

    players: int
    seed: str
    seat: int
    phase: str
    kind: str
    state: GameState
    legal: tuple[Action, ...]

    def turn(self) -> Turn:
        return Turn(self.state.clone(), self.seat, list(self.legal))


def decisions_of_game(players: int, seed: str) -> Iterator[tuple[GameState, int, list[Action]]]:
    """The decisions of a game played with random choices (chance from the seed), hands
    relabelled on the engine's schedule as in every other game (``bots.match.play_match``)."""
    stream = RandomStream(seed)
    state = seeded_game(stream, players)
    chance, pick = stream.fork("chance"), stream.fork("pick")
    stepper = Stepper(state, lambda s: random_chance(s, chance),
                      RelabelSchedule(stream_orders(stream.fork("relabel"), players)))
    while (seat := stepper.next_seat()) is not None:
        # a pick round's seats are asked one after another on the same state, as at a table
        legal = legal_actions(state, seat)
        yield state, seat, legal
        stepper.play(legal[pick.randbelow(len(legal))])


def scripted_decisions(players: tuple[int, ...] = (2, 3, 4)) -> list[Scripted]:
    """The script: per player count, the first decision of each (phase, kind) in the check
    games, in game order."""
    script = []
    for n in players:
        seen: set[tuple[str, str]] = set()
        for number in CHECK_SEEDS[n]:
            seed = f"check/{n}/{number}"
            for state, seat, legal in decisions_of_game(n, seed):
                key = (state.phase.value, decision_kind(state, seat, legal))
                if key not in seen:
                    seen.add(key)
                    script.append(Scripted(n, seed, seat, *key, state.clone(), tuple(legal)))
    return script


@dataclass
class CheckReport:
    """What ``check_bot`` found: ``notes`` (what went right, with figures) and ``faults``."""

    spec: str
    notes: list[str] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)
    decisions: int = 0
    covered: set[tuple[int, str, str]] = field(default_factory=set)

    @property
    def ok(self) -> bool:
        return not self.faults

    def render(self) -> str:
        lines = [f"bot-check {self.spec}"]
        lines += [f"  {note}" for note in self.notes]
        if self.faults:
            lines.append(f"FAULTS ({len(self.faults)}), by kind:")
            by_kind: dict[str, list[Fault]] = {}
            for fault in self.faults:
                by_kind.setdefault(fault.kind, []).append(fault)
            for kind, faults in by_kind.items():
                times = f" ({len(faults)} times; the first {SHOWN_PER_KIND})" \
                    if len(faults) > SHOWN_PER_KIND else ""
                lines.append(f"  [{kind}]{times} fix: {HINTS.get(kind, 'see below')}")
                lines += [f"    {fault}" for fault in faults[:SHOWN_PER_KIND]]
            lines.append(f"FAIL: {len(self.faults)} fault(s) in {self.decisions} decisions")
        else:
            kinds = len({(phase, kind) for _, phase, kind in self.covered})
            lines.append(f"OK: {self.decisions} decisions of {kinds} kinds answered legally "
                         "and in time, no protocol faults")
        return "\n".join(lines)


def _groups(script: list[Scripted]) -> list[list[Scripted]]:
    """Consecutive decisions of one game and seat: one protocol game each."""
    groups: list[list[Scripted]] = []
    for item in script:
        last = groups[-1][0] if groups else None
        if last is not None and (last.seed, last.seat) == (item.seed, item.seat):
            groups[-1].append(item)
        else:
            groups.append([item])
    return groups


def check_bot(bot: Bot, spec: str, script: list[Scripted] | None = None,
              progress: Callable[[str], None] | None = None) -> CheckReport:
    """Run the conformance check on ``bot`` (made from ``spec``); closes the bot."""
    script = scripted_decisions() if script is None else script
    report = CheckReport(spec)
    process = bot if isinstance(bot, ProcessBot) else None
    logger = logging.getLogger("solstice.bots")
    was_disabled, logger.disabled = logger.disabled, True  # the report says it all, once
    try:
        slowest, last = _put_script(bot, script, report, progress)
        budget = bot.time_budget
        if report.decisions:
            report.notes.append(f"slowest answer {_ms(slowest)}" +
                                (f" (budget {budget:g} s)" if budget is not None else ""))
        report.notes += _coverage(report.covered)
        if process is not None:
            time.sleep(0.2)  # a line written after the last 'end' is a fault too
            process.collect_stray()
            report.faults += [f.at(bot=bot.name, seat=last.seat, game=last.game)
                              for f in process.take_faults()]
            if report.decisions > len(ID_GAPS):
                report.notes.append("ids: " + ", ".join(str(n) for n in ID_GAPS) +
                                    " ids skipped between decisions (a bot copies the id)")
            report.notes.append(_quit(process, report))
    finally:
        logger.disabled = was_disabled
        bot.close()
    return report


def _put_script(bot: Bot, script: list[Scripted], report: CheckReport,
                progress: Callable[[str], None] | None) -> tuple[float, GameInfo]:
    """Play the script's games with ``bot``, its faults into ``report``: the slowest answer
    (seconds) and the last game started."""
    process = bot if isinstance(bot, ProcessBot) else None
    fallback = RandomStream("bot-check")
    slowest = 0.0
    info = GameInfo(0, script[0].state.config, b"", game="(none)")
    for number, group in enumerate(_groups(script)):
        first = group[0]
        if progress is not None:
            progress(f"{first.players} players, seed {first.seed}, seat {first.seat}")
        guard = GuardedSeat(bot, first.seat)
        info = GameInfo(first.seat, first.state.config, number.to_bytes(8, "big"),
                        game=first.seed.replace("/", "-"))  # a trace: check-2-0-seat1
        started = time.perf_counter()
        guard.start(info, report.faults)
        if guard.gone:
            break
        if number == 0:
            report.notes.append(f"ready: answered 'hello' as {bot.name!r} in "
                                f"{_ms(time.perf_counter() - started)}")
            if process is not None:
                process.notify({"type": "x-unknown", "note": "a bot ignores unknown message "
                                "types"})
        for index, item in enumerate(group):
            if process is not None:
                process.next_id(skip=ID_GAPS[(number + index) % len(ID_GAPS)])
            started = time.perf_counter()
            guard.ask(item.turn(), fallback, report.faults)
            slowest = max(slowest, time.perf_counter() - started)
            report.decisions += 1
            report.covered.add((item.players, item.phase, item.kind))
            if guard.gone:
                break
        bot.end({"seat": first.seat, "scores": [0] * first.players, "winner": 0})
        if guard.gone:
            break
    return slowest, info


def _quit(process: ProcessBot, report: CheckReport) -> str:
    if process.gone_reason is not None or not process.started:
        return "quit: not checked (the program is not running)"
    started = time.perf_counter()
    code = process.quit()
    took = _ms(time.perf_counter() - started)
    if code is None:
        report.faults.append(Fault("quit", "did not exit within 1 s of 'quit'; it was killed",
                                   bot=process.name))
        return "quit: no exit"
    if code != 0:
        report.faults.append(Fault("quit", f"exited with status {code} after 'quit'",
                                   bot=process.name))
    return f"quit: exited with status {code} after {took}"


def _coverage(covered: set[tuple[int, str, str]]) -> list[str]:
    lines = []
    for players in sorted({p for p, _, _ in covered}):
        kinds = sorted((phase, kind) for p, phase, kind in covered if p == players)
        lines.append(f"{players} players: " + ", ".join(f"{ph}/{k}" for ph, k in kinds))
    return lines


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 10 else f"{seconds:.1f} s"


def decide_examples() -> dict[str, dict[str, object]]:
    """One ``decide`` message per (phase, kind), as a bot receives it (3 players where the
    kind occurs at that size): shipped as ``bots/schema/decide-examples.json``."""
    script = scripted_decisions()
    examples: dict[str, dict[str, object]] = {}
    for item in sorted(script, key=lambda s: s.players != 3):
        key = f"{item.phase}/{item.kind}"
        if key not in examples:
            turn = item.turn()
            examples[key] = {"type": "decide", "id": len(examples) + 1, "view": turn.view,
                             "legal": turn.legal_texts}
    return dict(sorted(examples.items()))


if __name__ == "__main__":  # python -m bots.conformance FILE: write the decide examples
    import json
    import sys

    with open(sys.argv[1], "w", encoding="utf-8") as out:  # one example per line
        out.write("{\n" + ",\n".join(f"{json.dumps(key)}: {json.dumps(message)}"
                                      for key, message in decide_examples().items()) + "\n}\n")
