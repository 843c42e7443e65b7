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
    view: dict[str, Any] = field(default_factory=dict, compare=False)  # the decision's view


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
            lines.append(f"  decision {d.decision} ({d.where}): recorded "
                         f"{_shown(d.recorded, d.view)}, now {_shown(d.now, d.view)}")
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
                view = message.get("view", {})
                report.differences.append(Difference(ident, where(view, legal),
                                                     recorded.answer, now, view))
            if bot.gone_reason is not None:
                break
        end = game.end or {"type": "end", "seat": seat, "scores": [], "winner": 0}
        bot.end({k: v for k, v in end.items() if k != "type"})
    finally:
        bot.close()
    return report


def _shown(answer: str | None, view: dict[str, Any]) -> str:
    if answer is None:
        return "(a fault)"
    cards = cards_of(answer, view)
    return repr(answer) + (f" [{cards}]" if cards else "")


def cards_of(action: str, view: dict[str, Any]) -> str:
    """What an action's slot numbers stand for, from the view it answered: its cards' labels
    and the planet's name (``0 dispatch 12 2 Duchess`` -> ``white:Duchess to Capital``); slots
    are places that change between decisions, so a slot number alone says little."""
    words = action.split()
    if len(words) < 3 or not words[2].isdigit():
        return ""
    known = view.get("known")
    known = known if isinstance(known, dict) else {}
    planets = view.get("planets")
    planets = planets if isinstance(planets, list) else []

    def label(slot: str) -> str:
        return str(known.get(slot) or f"slot {slot} (face down)")

    verb = words[1]
    if verb == "pick":
        return ", ".join(label(slot) for slot in words[2:] if slot.isdigit())
    if verb in ("capture", "discard"):
        return label(words[2])
    if verb == "dispatch" and len(words) > 3 and words[3].isdigit():
        planet = int(words[3])
        name = (planets[planet].get("name") if 0 <= planet < len(planets) and
                isinstance(planets[planet], dict) else None) or f"planet {planet}"
        return f"{label(words[2])} to {name}"
    if verb == "choose":  # Whispered Secrets names a face-down card by its slot
        return label(words[2])
    return ""
