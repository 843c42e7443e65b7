"""``solstice bot-replay``: put a recorded game's decisions (a ``--record-bot`` trace) to a
bot again and show where its answers differ from the recorded ones: the debugging loop of a
bot author (record a game that went wrong, change the bot, replay).

A bot that draws its randomness from the ``hello`` seed answers a replay exactly as it did in
the game, so every difference comes from a change in the bot.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bots.base import GameInfo
from bots.conformance import kind_of_turn
from bots.faults import BotError, Fault
from bots.process_bot import ProcessBot
from bots.trace import RecordedGame, read_trace
from engine import GameConfig


@dataclass(frozen=True)
class Difference:
    decision: int
    where: str            # "round 2, dispatch/dispatch"
    recorded: str | None  # None: the recorded answer was a fault
    now: str | None       # None: the bot faulted now (see the report's faults)


@dataclass
class ReplayReport:
    path: Path
    decisions: int = 0
    differences: list[Difference] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)

    @property
    def same(self) -> bool:
        return not self.differences and not self.faults

    def render(self) -> str:
        lines = [f"bot-replay {self.path}: {self.decisions} decisions replayed"]
        for d in self.differences:
            lines.append(f"  decision {d.decision} ({d.where}): recorded {_shown(d.recorded)}, "
                         f"now {_shown(d.now)}")
        for fault in self.faults:
            lines.append(f"  fault: {fault}")
        differ = len(self.differences)
        lines.append(f"{self.decisions - differ} same, {differ} differ" +
                     (f", {len(self.faults)} fault(s)" if self.faults else ""))
        return "\n".join(lines)


def where(view: dict[str, Any], legal: list[str]) -> str:
    """Round, phase and kind of a recorded decision, from its view."""
    pending = view.get("decision")
    if isinstance(pending, dict) and pending.get("kind"):
        kind = str(pending["kind"])
    else:
        kind = kind_of_turn({text.split()[1] for text in legal if len(text.split()) > 1})
    return f"round {view.get('round', '?')}, {view.get('phase', '?')}/{kind}"


def replay_trace(path: Path, bot: ProcessBot) -> ReplayReport:
    """Replay the trace at ``path`` to ``bot`` (started fresh; closed at the end)."""
    game: RecordedGame = read_trace(path)
    report = ReplayReport(path)
    hello = game.hello
    seat = int(hello.get("seat", 0))
    info = GameInfo(seat, GameConfig.from_dict(hello["config"]),
                    bytes.fromhex(str(hello.get("seed", ""))), game=f"replay of {path.name}")
    try:
        try:
            bot.start(info)
        except BotError as exc:
            report.faults.append(Fault(exc.kind, f"failed to start: {exc}", bot=bot.name,
                                       seat=seat, game=info.game))
            return report
        for recorded in game.decisions:
            message = recorded.message
            ident = int(message["id"])
            legal = [str(text) for text in message.get("legal", [])]
            try:
                now: str | None = bot.ask(message.get("view", {}), legal, ident)
            except BotError as exc:
                now = None
                report.faults.append(Fault(exc.kind, str(exc), bot=bot.name, seat=seat,
                                           game=info.game, decision=ident))
            report.faults += [f.at(bot=bot.name, seat=seat, game=info.game)
                              for f in bot.take_faults()]
            report.decisions += 1
            if now != recorded.answer:
                report.differences.append(Difference(ident, where(message.get("view", {}),
                                                                  legal),
                                                     recorded.answer, now))
            if bot.gone_reason is not None:
                break
        end = game.end or {"type": "end", "seat": seat, "scores": [], "winner": 0}
        bot.end({k: v for k, v in end.items() if k != "type"})
    finally:
        bot.close()
    return report


def _shown(answer: str | None) -> str:
    return repr(answer) if answer is not None else "(a fault)"
