"""Planet-resolution scenarios: ``solstice rules resolve`` (format in the rulings).

A scenario lays cards face up on planets and resolves them, answering decisions from
``choices`` in order (or with each decision's documented default once they run out).
"""

from __future__ import annotations

from typing import Any

from engine.cards import CARD_BY_LABEL, CARDS, FACTIONS, PLANETS
from engine.config import ConfigError, GameConfig
from engine.events import ScriptedChoice
from engine.flow import STEPS
from engine.resolution import decision_options
from engine.state import GameState, Phase


class ScenarioError(ValueError):
    """A malformed scenario; ``field`` names the offending part (e.g. ``planets[0].cards[2]``)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"scenario field {field!r}: {message}")
        self.field = field


FIELDS = ("players", "scores", "planets", "prisoners", "sentry", "choices")


def _known_fields(data: dict[str, Any], where: str, known: tuple[str, ...]) -> None:
    """A misspelt field would silently take its default: refuse it."""
    for key in data:
        if key not in known:
            raise ScenarioError(f"{where}{key}", f"unknown field; known fields are "
                                                 f"{', '.join(known)}")


def _require(data: dict[str, Any], key: str, typ: type, where: str) -> Any:
    if key not in data:
        raise ScenarioError(f"{where}{key}", "is missing")
    value = data[key]
    if not isinstance(value, typ):
        raise ScenarioError(f"{where}{key}", f"must be a {typ.__name__}")
    return value


def _label(value: Any, field: str, factions: list[str]) -> int:
    if not isinstance(value, str) or value not in CARD_BY_LABEL:
        raise ScenarioError(field, f"unknown card label {value!r} (use e.g. 'white:Duchess' "
                                   "or 'event:Famine')")
    card = CARD_BY_LABEL[value]
    if card.faction is not None and card.faction not in factions:
        raise ScenarioError(field, f"{value} belongs to {card.faction}, who is not a player")
    return card.id


def _faction(value: Any, field: str, factions: list[str]) -> int:
    if value not in factions:
        raise ScenarioError(field, f"unknown player {value!r}; players are {factions}")
    return factions.index(value)


def build(data: Any) -> tuple[GameState, list[str]]:
    """The state at the start of Resolve Planets described by ``data``, and the choices."""
    if not isinstance(data, dict):
        raise ScenarioError("$", "a scenario must be a JSON object")
    _known_fields(data, "", FIELDS)
    factions = _require(data, "players", list, "")
    if not 2 <= len(factions) <= 4 or any(f not in FACTIONS for f in factions) \
            or len(set(factions)) != len(factions):
        raise ScenarioError("players", f"must be 2-4 distinct factions from {list(FACTIONS)}")
    planets_data = _require(data, "planets", list, "")
    if not planets_data:
        raise ScenarioError("planets", "needs at least one planet")
    used: dict[int, str] = {}

    def use(cid: int, field: str) -> int:
        if cid in used:
            raise ScenarioError(field, f"{CARDS[cid].label} is already used at {used[cid]}")
        used[cid] = field
        return cid

    planet_names: list[str] = []
    planet_cards: list[list[int]] = []
    for i, planet in enumerate(planets_data):
        where = f"planets[{i}]."
        if not isinstance(planet, dict):
            raise ScenarioError(f"planets[{i}]", "must be an object")
        _known_fields(planet, where, ("name", "cards"))
        name = _require(planet, "name", str, where)
        if name not in PLANETS:
            raise ScenarioError(f"{where}name", f"unknown planet {name!r}; one of "
                                                f"{', '.join(PLANETS)}")
        if name in planet_names:
            raise ScenarioError(f"{where}name", f"{name} is listed twice")
        planet_names.append(name)
        cards = _require(planet, "cards", list, where)
        planet_cards.append([use(_label(c, f"{where}cards[{j}]", factions),
                                 f"{where}cards[{j}]") for j, c in enumerate(cards)])
    prisoners: dict[int, int] = {}
    for who, label in (data.get("prisoners") or {}).items():
        seat = _faction(who, f"prisoners.{who}", factions)
        prisoners[seat] = use(_label(label, f"prisoners.{who}", factions), f"prisoners.{who}")
    sentry = data.get("sentry")
    sentry_seat = sentry_planet = -1
    if sentry is not None:
        if not isinstance(sentry, dict):
            raise ScenarioError("sentry", "must be an object with 'player' and 'planet'")
        sentry_seat = _faction(sentry.get("player"), "sentry.player", factions)
        if sentry.get("planet") not in planet_names:
            raise ScenarioError("sentry.planet", f"must be one of {planet_names}")
        sentry_planet = planet_names.index(sentry["planet"])
        use(CARD_BY_LABEL["event:Sentry"].id, "sentry")
    scores = data.get("scores") or {}
    if not isinstance(scores, dict):
        raise ScenarioError("scores", "must be an object")
    choices = data.get("choices") or []
    if not isinstance(choices, list) or not all(isinstance(c, str) for c in choices):
        raise ScenarioError("choices", "must be a list of strings")

    events = tuple(CARDS[cid].name for cid in sorted(used) if CARDS[cid].is_event)
    try:
        config = GameConfig(tuple(factions), tuple(planet_names), events, 0)
    except ConfigError as exc:
        raise ScenarioError("$", str(exc)) from exc
    s = _blank_state(config)
    for seat, f in enumerate(factions):
        entry = scores.get(f, {})
        if not isinstance(entry, dict):
            raise ScenarioError(f"scores.{f}", "must be an object with 'vp' and 'casualties'")
        for key, target in (("vp", s.vp), ("casualties", s.casualties)):
            value = entry.get(key, 0)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ScenarioError(f"scores.{f}.{key}", "must be a whole number >= 0")
            target[seat] = value
    for who in scores:
        _faction(who, f"scores.{who}", factions)
    for p, cards in enumerate(planet_cards):
        for cid in cards:
            slot = s.new_slot(cid, s.all_mask)
            s.planets[p].append(slot)
            s.face_up[slot] = True
            s.controller[slot] = s.owner(slot)
    for seat, cid in prisoners.items():
        s.prisoner[seat] = s.new_slot(cid, s.all_mask)
    if sentry_seat >= 0:
        s.claims.append((s.new_slot(CARD_BY_LABEL["event:Sentry"].id, s.all_mask),
                         sentry_seat, s.round - 1))
        s.sentry_planet = sentry_planet
    return s, list(choices)


def _blank_state(config: GameConfig) -> GameState:
    s = GameState(config)
    s.phase = Phase.RESOLVE
    s.step = ("resolve", 0)
    return s


def run(s: GameState, choices: list[str]) -> None:
    """Resolve every planet, answering decisions from ``choices`` then by default."""
    queue = list(choices)
    used = 0
    while True:
        if s.decision is not None:
            d = s.decision
            legal = decision_options(s, d)
            if len(legal) == 1:
                answer = legal[0]  # a single legal option is taken without asking
            elif queue:
                answer = queue.pop(0)
                if answer not in legal:
                    raise ScenarioError(f"choices[{used}]", f"{answer!r} is not an option for "
                                                            f"{d.kind}: {list(legal)}")
                used += 1
            else:
                answer = d.default
            s.emit(ScriptedChoice(s.config.factions[d.seat], answer, d.kind))
            s.decision = None
            s.step = (*d.then, answer)
            continue
        if s.step is None or s.step[0] == "end_round":
            return
        current, s.step = s.step, None
        STEPS[current[0]](s, *current[1:])


def resolve_scenario(data: Any) -> dict[str, Any]:
    """Resolve a scenario and report scores, per-planet results and claims."""
    s, choices = build(data)
    run(s, choices)
    factions = s.config.factions

    def name(seat: int) -> str | None:
        return factions[seat] if seat >= 0 else None

    return {
        "scores": {f: {"vp": s.vp[i], "casualties": s.casualties[i]}
                   for i, f in enumerate(factions)},
        "planets": [{"name": planet, "strongest": name(s.initial_sf[p][0]),
                     "favored": name(s.initial_sf[p][1]),
                     "discarded": [s.label(x) for x in s.planet_discarded[p]]}
                    for p, planet in enumerate(s.config.planets)],
        "claims": {CARDS[s.card_of[slot]].name: factions[seat]
                   for slot, seat, rnd in s.claims if rnd == s.round},
        "log": s.log,
    }
