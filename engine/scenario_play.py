"""Whole-game scenarios: ``solstice rules play`` (format in README, "Rules scenarios").

A play scenario states a game in progress (seats, round, phase, hands, planets, claims,
scores, the deck's top cards...) and a list of actions in the project's action text, where a
seat may be written as its faction, a slot as the label of the card in it and a planet as its
name. ``play_scenario`` applies them in order and reports what happened; it is pure (the CLI
reads the file and prints the result).

Every card of the game is in exactly one zone. The game's cards are its factions' action
cards and the events in play; slot *i* holds the *i*-th of them in card-table order
(``solstice rules cards``), so slot numbers do not depend on where a card lies. Cards the
scenario does not place go to the deck, below the listed top cards, in that same order.
"""

from __future__ import annotations

import re
from typing import Any

from engine.actions import CLAIMS, Action, Choose, Dispatch, Pick, Shuffle, parse_action
from engine.cards import (
    CARD_BY_LABEL,
    CARDS,
    FACTIONS,
    HAND_SIZE,
    MAX_CASUALTIES,
    PLANETS,
    WIN_VP,
)
from engine.cleanup import final_scores, ranking
from engine.config import ConfigError, GameConfig
from engine.disclosure import legal_claims
from engine.dispatch import next_turn
from engine.draft import pick_count, round_quotas
from engine.errors import IllegalActionError, MalformedActionError, RuleViolationError
from engine.flow import advance, advance_until
from engine.game import apply_in_place, apply_until, legal_actions, to_move, unasked_answer
from engine.resolution import decision_options
from engine.scenario import ScenarioError
from engine.scenario_setup import check_new_game, seeded_game, setup_report
from engine.state import GameState, Phase
from engine.strength import strongest_and_favored
from engine.view import view

PHASES = ("draft", "dispatch", "resolve")
# Every top-level field a play scenario may have, with the default a missing one takes.
FIELDS: dict[str, Any] = {
    "players": None, "first_player": None, "round": 1, "phase": "draft", "events": None,
    "planets": None, "hands": {}, "drafted": {}, "prisoners": {}, "claims": {}, "scores": {},
    "deck": [], "discard": [], "turn": None, "captured": [], "first_pick": None,
    "claimed_this_round": {}, "new_game": None, "until": None, "actions": [],
}
# Where a run may stop: ``until`` -> the engine step it stops before.
UNTIL = {"resolved": "end_round"}
# The fields that state a position: a new game drawn from a seed states none of them.
POSITION_FIELDS = ("first_player", "round", "phase", "events", "planets", "hands", "drafted",
                   "prisoners", "claims", "scores", "deck", "discard", "turn", "captured",
                   "first_pick", "claimed_this_round")
PLANET_FIELDS = ("name", "cards", "vision_face_up")
CARD_FIELDS = ("card", "by", "claim")


def _where(field: str, key: str | int) -> str:
    return f"{field}[{key}]" if isinstance(key, int) else f"{field}.{key}" if field else key


class _Table:
    """The scenario being read: its players, its cards by label, and where each lies."""

    def __init__(self, factions: list[str]) -> None:
        self.factions = factions
        self.zone_of: dict[str, str] = {}  # label -> the field that placed it

    def seat(self, value: Any, field: str) -> int:
        if isinstance(value, str) and value in self.factions:
            return self.factions.index(value)
        raise ScenarioError(field, f"unknown player {value!r}; players are {self.factions}")

    def label(self, value: Any, field: str) -> str:
        if not isinstance(value, str) or value not in CARD_BY_LABEL:
            raise ScenarioError(field, f"unknown card label {value!r} (use e.g. "
                                       "'white:Duchess' or 'event:Famine')")
        faction = CARD_BY_LABEL[value].faction
        if faction is not None and faction not in self.factions:
            raise ScenarioError(field, f"{value} belongs to {faction}, who is not a player")
        return value

    def place(self, value: Any, field: str) -> str:
        label = self.label(value, field)
        if label in self.zone_of:
            raise ScenarioError(field, f"{label} is already used at {self.zone_of[label]}")
        self.zone_of[label] = field
        return label


def _obj(value: Any, field: str, keys: tuple[str, ...] | dict[str, Any]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ScenarioError(field or "$", "must be a JSON object")
    unknown = [key for key in value if key not in keys]
    if unknown:
        raise ScenarioError(_where(field, str(unknown[0])),
                            f"unknown field; known fields are {', '.join(keys)}")
    return value


def _list(value: Any, field: str) -> list[Any]:
    if not isinstance(value, list):
        raise ScenarioError(field, "must be a list")
    return value


def _count(value: Any, field: str, low: int = 0) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise ScenarioError(field, f"must be a whole number >= {low}")
    return value


def _per_player(data: dict[str, Any], key: str, t: _Table) -> dict[int, Any]:
    value = _obj(data[key], key, tuple(t.factions)) if data[key] else {}
    return {t.seat(who, _where(key, who)): v for who, v in value.items()}


def build_play(data: Any) -> tuple[GameState, list[Any], str | None]:
    """The state a play scenario describes, its list of actions (not yet read), and the
    engine step the run stops before (``until``), if any."""
    given = _obj(data, "", FIELDS)
    data = {**FIELDS, **given}
    factions = _list(data["players"], "players")
    if not 2 <= len(factions) <= 4 or any(f not in FACTIONS for f in factions) \
            or len(set(map(str, factions))) != len(factions):
        raise ScenarioError("players", f"must be 2-4 distinct factions from {list(FACTIONS)}")
    until = data["until"]
    if until is not None and until not in UNTIL:
        raise ScenarioError("until", f"must be one of {', '.join(UNTIL)}")
    stop = UNTIL[until] if until is not None else None
    new = data["new_game"]
    if isinstance(new, str):
        stated = [key for key in POSITION_FIELDS if key in given]
        if stated:
            raise ScenarioError(stated[0], "a new game drawn from a seed states no position")
        return seeded_game(factions, new), _list(data["actions"], "actions"), stop
    if new is not None and new is not True:
        raise ScenarioError("new_game", "must be a seed (text) or true")
    t = _Table(factions)
    first = 0 if data["first_player"] is None else t.seat(data["first_player"], "first_player")
    rnd = _count(data["round"], "round", 1)
    if data["phase"] not in PHASES:
        raise ScenarioError("phase", f"must be one of {', '.join(PHASES)}")
    phase = data["phase"]

    planets: list[tuple[str, list[Any], Any]] = []
    for i, planet in enumerate(_list(data["planets"], "planets")):
        where = f"planets[{i}]"
        if isinstance(planet, str):
            planet = {"name": planet}
        planet = _obj(planet, where, PLANET_FIELDS)
        name = planet.get("name")
        if not isinstance(name, str) or name not in PLANETS:
            raise ScenarioError(f"{where}.name", f"unknown planet {name!r}; one of "
                                                 f"{', '.join(PLANETS)}")
        planets.append((name, _list(planet.get("cards", []), f"{where}.cards"),
                        planet.get("vision_face_up")))
    names = [name for name, _, _ in planets]
    if not names:
        raise ScenarioError("planets", "needs at least one planet")
    if "Desert" in names:
        if names[-1] != "Desert":
            raise ScenarioError(f"planets[{names.index('Desert')}]",
                                "the Desert is always placed last")
        if len(factions) != 2:
            raise ScenarioError(f"planets[{names.index('Desert')}]",
                                f"the Desert is for 2 players, not {len(factions)}")

    # First pass: where every named card lies (and so which events are in play).
    placed_planets: list[list[tuple[str, int, str]]] = []  # (label, dispatcher, claim)
    for i, (_, cards, _) in enumerate(planets):
        here = []
        for j, entry in enumerate(cards):
            where = f"planets[{i}].cards[{j}]"
            if isinstance(entry, str):
                here.append((t.place(entry, where), -1, "up"))
                continue
            entry = _obj(entry, where, CARD_FIELDS)
            label = t.place(entry.get("card"), f"{where}.card")
            by = t.seat(entry.get("by"), f"{where}.by")
            claim = entry.get("claim")
            if claim is not None and claim not in CLAIMS:
                raise ScenarioError(f"{where}.claim", f"unknown claim {claim!r}; one of "
                                                      f"{', '.join(CLAIMS)}")
            here.append((label, by, claim or ""))
        placed_planets.append(here)
    hands = {seat: [t.place(x, f"hands.{factions[seat]}[{j}]")
                    for j, x in enumerate(_list(v, f"hands.{factions[seat]}"))]
             for seat, v in _per_player(data, "hands", t).items()}
    drafted = {seat: [t.place(x, f"drafted.{factions[seat]}[{j}]")
                      for j, x in enumerate(_list(v, f"drafted.{factions[seat]}"))]
               for seat, v in _per_player(data, "drafted", t).items()}
    prisoners = {seat: t.place(v, f"prisoners.{factions[seat]}")
                 for seat, v in _per_player(data, "prisoners", t).items()}
    claims_data = _obj(data["claims"] or {}, "claims", tuple(
        c.label for c in CARDS if c.claim))
    claims = [(t.place(label, f"claims.{label}"), t.seat(who, f"claims.{label}"))
              for label, who in claims_data.items()]
    made_data = _obj(data["claimed_this_round"] or {}, "claimed_this_round", tuple(
        c.label for c in CARDS if c.claim))
    if made_data and phase != "resolve":
        raise ScenarioError("claimed_this_round", "claims are made in Resolve Planets")
    made = [(t.place(label, f"claimed_this_round.{label}"),
             t.seat(who, f"claimed_this_round.{label}")) for label, who in made_data.items()]
    deck_top = [t.place(x, f"deck[{j}]") for j, x in enumerate(_list(data["deck"], "deck"))]
    discard = [t.place(x, f"discard[{j}]")
               for j, x in enumerate(_list(data["discard"], "discard"))]

    named_events = [CARD_BY_LABEL[x].name for x in t.zone_of if CARD_BY_LABEL[x].is_event]
    if data["events"] is None:
        events = named_events
    else:
        events = [t.label(f"event:{e}" if isinstance(e, str) else e, f"events[{j}]")[6:]
                  for j, e in enumerate(_list(data["events"], "events"))]
        missing = [e for e in named_events if e not in events]
        if missing:
            raise ScenarioError("events", f"event:{missing[0]} is used but not in play")
    events = [c.name for c in CARDS if c.is_event and c.name in events]  # table order
    try:
        config = GameConfig(tuple(factions), tuple(names), tuple(events), first)
    except ConfigError as exc:
        raise ScenarioError("planets" if "planet" in str(exc) else "$", str(exc)) from exc

    s = GameState(config)
    ids = config.card_ids()
    slot_of = {CARDS[cid].label: s.new_slot(cid, 0) for cid in ids}
    everyone = s.all_mask
    s.round, s.first_player = rnd, first
    s.direction = 1 if rnd % 2 == 1 else -1  # ruling 4
    for p, here in enumerate(placed_planets):
        vision = planets[p][2]
        if vision is None:  # ruling 8: a Vision dealt face up makes later cards face up
            vision = any(label == "event:Vision" and by < 0 for label, by, _ in here)
        elif not isinstance(vision, bool):
            raise ScenarioError(f"planets[{p}].vision_face_up", "must be true or false")
        s.vision_up[p] = vision
        for label, by, claim in here:
            slot = slot_of[label]
            s.planets[p].append(slot)
            s.dispatcher[slot] = by
            up = by < 0 or claim == "up" or (not claim and legal_claims(
                CARD_BY_LABEL[label].id, names[p], vision)[0] == "up")
            s.face_up[slot] = up
            if up:
                s.known[slot] = everyone
                s.controller[slot] = s.owner(slot)
                if by >= 0 and claim == "up":
                    s.claim[slot] = ""  # a face-up card proves its own claim
            else:
                # Face down where Vision has made every card face up: it was played before
                # the Vision, under the planet's own disclosure rule.
                s.known[slot] = 1 << by
                s.claim[slot] = claim or legal_claims(
                    CARD_BY_LABEL[label].id, names[p], False)[0]
    for seat, labels in hands.items():
        s.hands[seat] = [slot_of[x] for x in labels]
    for seat, labels in drafted.items():
        s.drafted[seat] = [slot_of[x] for x in labels]
    for zone in (s.hands, s.drafted):
        for seat, slots in enumerate(zone):
            for slot in slots:
                s.known[slot] |= 1 << seat
    for seat, label in prisoners.items():
        s.prisoner[seat] = slot_of[label]
        s.known[slot_of[label]] = 1 << seat
    for label, seat in claims:  # claimed last round: they act in this one (ruling 21)
        s.claims.append((slot_of[label], seat, rnd - 1))
        s.known[slot_of[label]] = everyone
    for label, seat in made:  # claimed earlier in this Resolve Planets: they act next round
        s.claims.append((slot_of[label], seat, rnd))
        s.known[slot_of[label]] = everyone
        s.claimer[slot_of[label]] = seat
    s.discard = [slot_of[x] for x in discard]
    s.deck = [slot_of[x] for x in deck_top] + [
        slot_of[CARDS[cid].label] for cid in ids if CARDS[cid].label not in t.zone_of]
    _read_scores(s, data["scores"], t)
    for seat, labels in hands.items():
        if len(labels) > HAND_SIZE:
            raise ScenarioError(f"hands.{factions[seat]}",
                                f"a hand holds at most {HAND_SIZE} cards, not {len(labels)}")
    if new is True:
        check_new_game(s, given, FIELDS)
    try:
        _start_phase(s, data, phase, t, stop)
    except RuleViolationError as exc:  # a face-down card's claim, checked as the phase opens
        raise ScenarioError("planets", f"the position breaks the rules: {exc}") from exc
    return s, _list(data["actions"], "actions"), stop


def _read_scores(s: GameState, scores: Any, t: _Table) -> None:
    for seat, entry in _per_player({"scores": scores}, "scores", t).items():
        where = f"scores.{t.factions[seat]}"
        entry = _obj(entry, where, ("vp", "casualties"))
        s.vp[seat] = _count(entry.get("vp", 0), f"{where}.vp")
        s.casualties[seat] = _count(entry.get("casualties", 0), f"{where}.casualties")


def _start_phase(s: GameState, data: dict[str, Any], phase: str, t: _Table,
                 stop: str | None) -> None:
    if phase == "draft":
        _open(s, ("start_round",), stop)  # quotas from the claims (ruling 2), direction, log
        if s.phase is Phase.DRAFT and s.step is None:
            first_pick = data["first_pick"]
            if first_pick is None:  # ruling 1: only a draft's first pick takes two
                first_pick = s.n == 2 and not any(s.drafted)
            elif not isinstance(first_pick, bool):
                raise ScenarioError("first_pick", "must be true or false")
            s.first_pick = first_pick
        return
    if data["first_pick"] is not None:
        raise ScenarioError("first_pick", "only a draft has a first pick")
    if any(s.drafted):
        raise ScenarioError("drafted", "only a draft has drafted cards")
    s.quota = round_quotas(s)  # as this round's draft left them
    if phase == "dispatch":
        s.phase = Phase.DISPATCH
        for j, who in enumerate(_list(data["captured"], "captured")):
            s.captured[t.seat(who, f"captured[{j}]")] = True
        s.turn = s.first_player if data["turn"] is None else t.seat(data["turn"], "turn")
        if not s.hands[s.turn]:
            next_turn(s)
        _run(s, stop)
        return
    if data["turn"] is not None or data["captured"]:
        raise ScenarioError("turn" if data["turn"] is not None else "captured",
                            "only a dispatch phase has a turn and captures")
    _open(s, ("start_resolve",), stop)


def _open(s: GameState, step: tuple[str, ...], stop: str | None) -> None:
    """Run the engine from ``step`` (in a function of its own: a compiled build would
    otherwise keep ``s.step`` narrowed to the tuple set here after ``advance`` cleared it)."""
    s.step = step
    _run(s, stop)


def _run(s: GameState, stop: str | None) -> None:
    if stop is None:
        advance(s)
    else:
        advance_until(s, stop)


def _apply(s: GameState, action: Action, stop: str | None) -> None:
    if stop is None:
        apply_in_place(s, action)
    else:
        apply_until(s, action, stop)


# -- actions ------------------------------------------------------------------------------------

LABEL_WORDS = max(len(label.split()) for label in CARD_BY_LABEL)


def _slot_words(s: GameState, words: list[str], field: str) -> list[str]:
    """Read slots given as numbers or card labels (a label may hold spaces: the longest
    label that the words spell is taken)."""
    slots: list[str] = []
    i = 0
    while i < len(words):
        # No label is longer than LABEL_WORDS words: the cost stays linear in the words.
        for j in range(min(len(words), i + LABEL_WORDS), i, -1):
            text = " ".join(words[i:j])
            if text in CARD_BY_LABEL:
                slots.append(str(_slot_of_label(s, text, field)))
                i = j
                break
        else:
            slots.append(words[i])
            i += 1
    return slots


def _slot_of_label(s: GameState, label: str, field: str) -> int:
    cid = CARD_BY_LABEL[label].id
    for slot in s.live_slots():
        if s.card_of[slot] == cid:
            return slot
    raise MalformedActionError(f"{label} is not in this game")


def canonical(s: GameState, text: str, field: str) -> str:
    """The project's action text for ``text``, which may name seats, cards and planets."""
    if not isinstance(text, str) or not text.strip():
        raise ScenarioError(field, "an action must be a non-empty string")
    words = text.split()
    if len(words) < 2:
        raise MalformedActionError(f"action needs a seat and a verb: {text!r}")
    seat, verb, rest = words[0], words[1], words[2:]
    if seat in s.config.factions:
        seat = str(s.config.factions.index(seat))
    elif seat in FACTIONS:
        raise MalformedActionError(f"{seat} is not a player; the players are "
                                   f"{', '.join(s.config.factions)}")
    if verb in ("pick", "capture", "discard"):
        rest = _slot_words(s, rest, field)
    elif verb == "dispatch" and len(rest) >= 3:
        claim, planet = rest[-1], rest[-2]
        if planet in s.config.planets:
            planet = str(s.config.planets.index(planet))
        elif not planet.isdigit():
            raise MalformedActionError(
                f"{planet} is not in play; the planets are {', '.join(s.config.planets)}"
                if planet in PLANETS else
                f"unknown planet {planet!r}; the planets are {', '.join(s.config.planets)}")
        rest = [*_slot_words(s, rest[:-2], field), planet, claim]
    elif verb == "choose" and s.decision is not None:
        option = " ".join(rest)
        # Whispered Secrets names the slot it reveals: a label may stand for it.
        if option not in s.decision.options and option in CARD_BY_LABEL:
            slot = str(_slot_of_label(s, option, field))
            if slot in s.decision.options:
                rest = [slot]
    return " ".join([seat, verb, *rest])


def named(s: GameState, action: Action) -> str:
    """An action as a scenario writes it: faction, card labels, planet names."""
    if isinstance(action, Shuffle):
        return action.text()
    who = s.config.factions[action.seat]
    if isinstance(action, Pick):
        return f"{who} pick " + " ".join(s.label(x) or str(x) for x in action.slots)
    if isinstance(action, Dispatch):
        return (f"{who} dispatch {s.label(action.slot) or action.slot} "
                f"{s.config.planets[action.planet]} {action.claim}")
    if isinstance(action, Choose):
        option = action.option
        if s.decision is not None and s.decision.kind == "whispered_secrets" \
                and option.isdigit() and int(option) < len(s.card_of):
            option = s.label(int(option)) or option
        return f"{who} choose {option}"
    return f"{who} {action.verb} {s.label(action.slot) or action.slot}"


_SEAT = re.compile(r"\bseat (\d+)\b")
_SLOT = re.compile(r"\bslot (\d+)\b")
_PLANET = re.compile(r"\bplanet (\d+)\b")


def in_scenario_words(s: GameState, reason: str) -> str:
    """An engine refusal as a scenario writes it: factions for seats, card labels for slots
    and planet names for planet numbers (where they exist)."""
    factions, planets = s.config.factions, s.config.planets

    def seat(m: re.Match[str]) -> str:
        k = int(m.group(1))
        return factions[k] if k < len(factions) else m.group(0)

    def slot(m: re.Match[str]) -> str:
        k = int(m.group(1))
        return (s.label(k) or m.group(0)) if k < len(s.card_of) else m.group(0)

    def planet(m: re.Match[str]) -> str:
        k = int(m.group(1))
        return planets[k] if k < len(planets) else m.group(0)

    reason = _PLANET.sub(planet, _SLOT.sub(slot, _SEAT.sub(seat, reason)))
    d = s.decision
    if d is not None and d.kind == "whispered_secrets" and "options are " in reason:
        head, _, listed = reason.partition("options are ")
        reason = head + "options are " + ", ".join(
            (s.label(int(x)) or x) if x.isdigit() and int(x) < len(s.card_of) else x
            for x in listed.split(", "))
    return reason


def _entry(value: Any, field: str) -> tuple[str, str | None]:
    """(action text, the refusal expected or None): ``"..."`` or ``{"action", "refused"}``."""
    if isinstance(value, str):
        return value, None
    value = _obj(value, field, ("action", "refused"))
    refused = value.get("refused", "")
    if not isinstance(value.get("action"), str) or not isinstance(refused, str):
        raise ScenarioError(field, "needs 'action' (text) and 'refused' (text expected in the "
                                   "reason, or \"\" for any reason)")
    return value["action"], refused


def _default_chance(s: GameState, steps: list[dict[str, Any]], stop: str | None) -> None:
    """Chance outcomes a scenario does not give are the identity permutation (documented)."""
    while s.chance is not None:
        before = len(s.log)
        shuffle = Shuffle(tuple(range(s.chance[1])))
        _apply(s, shuffle, stop)
        steps.append({"action": shuffle.text(), "named": "- shuffle (default: identity)",
                      "log": s.log[before:]})
        _unasked(s, steps, stop)


def _unasked(s: GameState, steps: list[dict[str, Any]], stop: str | None) -> None:
    """Answer each decision with a single legal option, as every driver does (ruling 41)."""
    while (answer := unasked_answer(s)) is not None:
        before = len(s.log)
        shown = named(s, answer)
        _apply(s, answer, stop)
        steps.append({"action": answer.text(), "named": f"{shown} (not asked: the only option)",
                      "log": s.log[before:]})


_REFUSAL_KIND: dict[type, str] = {MalformedActionError: "malformed",
                                  IllegalActionError: "illegal",
                                  RuleViolationError: "violation"}


def play_scenario(data: Any) -> dict[str, Any]:
    """Play a scenario's actions and report every step and the final position."""
    s, actions, stop = build_play(data)
    steps: list[dict[str, Any]] = [{"action": None, "named": "(setup)", "log": s.log[:]}]
    _unasked(s, steps, stop)
    stopped: dict[str, Any] | None = None
    for i, value in enumerate(actions):
        where = f"actions[{i}]"
        text, expected = _entry(value, where)
        if s.chance is not None and not text.strip().startswith("- shuffle"):
            _default_chance(s, steps, stop)
        before = len(s.log)
        refusal: tuple[str, str] | None = None
        action: Action | None = None
        try:
            action = parse_action(canonical(s, text, where))
            trial = s.clone()
            _apply(trial, action, stop)
            shown = named(s, action)  # legal, so every seat, slot and planet in it exists
        except (MalformedActionError, IllegalActionError, RuleViolationError) as exc:
            # one handler: a compiled build types a name bound by several handlers by the first
            refusal = (next(kind for cls, kind in _REFUSAL_KIND.items() if isinstance(exc, cls)),
                       in_scenario_words(s, str(exc)))
        if refusal is None:
            assert action is not None
            s = trial
            step: dict[str, Any] = {"action": action.text(), "named": shown,
                                    "log": s.log[before:]}
            steps.append(step)
            _unasked(s, steps, stop)
            if expected is not None:
                stopped = {"index": i, "action": text, "kind": "accepted",
                           "reason": "the scenario expected this action to be refused"
                                     + (f" ({expected!r})" if expected else "")}
                break
            continue
        kind, reason = refusal
        steps.append({"action": text, "refused": {"kind": kind, "reason": reason}, "log": []})
        if expected is None:
            stopped = {"index": i, "action": text, "kind": kind, "reason": reason}
            break
        if expected.lower() not in reason.lower():
            stopped = {"index": i, "action": text, "kind": "wrong_refusal",
                       "reason": f"refused, but not for {expected!r}: {reason}"}
            break
    if stopped is None:
        _default_chance(s, steps, stop)
    out = {"steps": steps, "stopped": stopped, **report(s)}
    if isinstance(data, dict) and isinstance(data.get("new_game"), str):
        out["setup"] = setup_report(s)
    return out


def report(s: GameState) -> dict[str, Any]:
    """The position: public state, each seat's view, who must act and how, scores, the end."""
    factions = s.config.factions

    def name(seat: int) -> str | None:
        return factions[seat] if seat >= 0 else None

    movers = [m for m in to_move(s) if m >= 0]
    over = s.phase is Phase.OVER
    end = None
    if over:
        order = ranking(s)
        end = {"reason": " and ".join(
            r for r, hit in ((f"{WIN_VP} VP", max(s.vp) >= WIN_VP),
                             (f"{MAX_CASUALTIES} casualties",
                              max(s.casualties) >= MAX_CASUALTIES)) if hit),
            "winner": factions[order[0]], "ranking": [factions[x] for x in order]}
    final = final_scores(s)
    planets = []
    for p, planet in enumerate(s.config.planets):
        cards = []
        for slot in s.planets[p]:
            up = s.face_up[slot]
            cards.append({"card": s.label(slot) if up else None, "face_up": up,
                          "by": name(s.dispatcher[slot]),
                          "claim": (s.claim[slot] or None) if not up else None})
        entry: dict[str, Any] = {"name": planet, "cards": cards,
                                 "vision_face_up": s.vision_up[p],
                                 "sentry": s.sentry_planet == p}
        if s.planet_started[p]:
            st, fv = s.initial_sf[p]
            entry.update(strongest=name(st), favored=name(fv),
                         discarded=[s.label(x) for x in s.planet_discarded[p]])
            if s.phase is Phase.RESOLVE:
                now = strongest_and_favored(s, p)
                entry.update(strongest_now=name(now[0]), favored_now=name(now[1]))
        planets.append(entry)
    decision = s.decision
    return {
        "state": {
            "round": s.round, "phase": s.phase.value,
            "direction": "left" if s.direction == 1 else "right",
            "first_player": factions[s.first_player],
            "turn": name(s.turn) if s.phase is Phase.DISPATCH else None,
            "planets": planets,
            "hand_sizes": {f: len(s.hands[i]) for i, f in enumerate(factions)},
            "drafted_counts": {f: len(s.drafted[i]) for i, f in enumerate(factions)},
            "quotas": {f: s.quota[i] for i, f in enumerate(factions)},
            "picked": [f for i, f in enumerate(factions)
                       if s.phase is Phase.DRAFT and s.picks[i] is not None],
            "pick_counts": {f: _pick_size(s, i) for i, f in enumerate(factions)},
            "prisoners": [f for i, f in enumerate(factions) if s.prisoner[i] >= 0],
            "captured": [f for i, f in enumerate(factions) if s.captured[i]],
            "claims": [{"card": s.label(slot), "player": factions[who],
                        "acts_this_round": rnd == s.round - 1} for slot, who, rnd in s.claims],
            "deck_size": len(s.deck),
            # the table's truth, which no player sees: what Prophecy and Clean Up work on
            "deck": [s.label(x) for x in s.deck],
            "discard": [s.label(x) for x in s.discard],
        },
        "views": {f: _seat_view(s, i) for i, f in enumerate(factions)},
        "to_move": [factions[m] for m in movers],
        "decision": None if decision is None else {
            "player": factions[decision.seat], "kind": decision.kind,
            "options": list(decision_options(s, decision)), "default": decision.default,
            "prompt": decision.prompt},
        "legal_actions": {factions[m]: [named(s, a) for a in legal_actions(s, m)]
                          for m in movers},
        "scores": {f: {"vp": s.vp[i], "casualties": s.casualties[i], "final": final[i]}
                   for i, f in enumerate(factions)},
        "over": over,
        "end": end,
    }


def _pick_size(s: GameState, seat: int) -> int:
    """Cards ``seat`` picks this pick round: the pick it made (its cards already drafted,
    ruling 38), else the pick it must make."""
    if s.phase is not Phase.DRAFT:
        return 0
    made = s.picks[seat]
    return len(made) // 2 if made is not None else pick_count(s, seat)


def _seat_view(s: GameState, seat: int) -> dict[str, Any]:
    """What ``seat`` sees, as labels (the engine's view without its slot-keyed extras)."""
    v = view(s, seat)

    def labels(cards: list[dict[str, Any]]) -> list[str | None]:
        return [c["label"] for c in cards]

    return {"hand": labels(v["hand"]), "drafted": labels(v["drafted"]),
            "prisoner": v["prisoner"]["label"] if v["prisoner"] else None,
            "planets": {planet["name"]: labels(planet["cards"]) for planet in v["planets"]},
            "pick_count": v["pick_count"],
            "decision": v["decision"]}

