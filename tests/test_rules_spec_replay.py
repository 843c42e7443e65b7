"""A second implementation of part of rules.md, written from its text alone: the state, the
draft and the dispatch phase of round 1 (sections 2, 3, 5 and 6: picks, the leftovers,
dispatches face down and face up with Whispered Secrets' and Vision's decisions, captures,
discards), replayed over the whole-game vectors with the state hash of protocol.md after
every action. It uses nothing of the engine but canonical JSON and the card labels of
tests/vectors/cards.json, and stops at Resolve Planets: each vector game's first round is
checked up to there."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from engine.canonical import canonical_json

VECTORS = Path(__file__).resolve().parent / "vectors"
FACTIONS = ("black", "white", "blue", "green")
TYPES = ("Legions", "Diplomat", "Assassin", "Duchess", "Marshal", "Elder")
FACE_UP = ("Whispered Secrets", "Vision", "Hidden Base", "Blockade")
RULE = {"Capital": "type", "Industrial": "type", "Water": "faction_or_type",
        "Jungle": "jungle", "Desert": "nothing"}
LABELS = [c["label"] for c in
          json.loads((VECTORS / "cards.json").read_text(encoding="utf-8"))["cases"][0]["cards"]]


class Unsupported(Exception):
    """An action this partial replay does not implement."""


class Replay:
    def __init__(self, config: dict[str, Any], deck_order: list[int]) -> None:
        n = self.n = len(config["factions"])
        planets = len(config["planets"])
        m = len(deck_order)
        self.config, self.card = config, list(deck_order)
        self.s: dict[str, Any] = {
            "config": config, "phase": "draft", "known": [0] * m, "face_up": [False] * m,
            "dispatcher": [-1] * m, "claim": [""] * m, "claim_vision": [False] * m,
            "controller": [-1] * m, "resolved": [False] * m, "claimer": [-1] * m,
            "deck": list(range(m)), "hands": [[] for _ in range(n)],
            "drafted": [[] for _ in range(n)], "planets": [[] for _ in range(planets)],
            "prisoner": [-1] * n, "claims": [], "discard": [], "leftovers": [],
            "vp": [0] * n, "casualties": [0] * n, "quota": [0] * n,
            "captured": [False] * n, "vision_up": [False] * planets,
            "planet_started": [False] * planets, "stopped": [False] * planets,
            "duchess_scored": [False] * planets, "initial_sf": [[-1, -1]] * planets,
            "planet_discarded": [[] for _ in range(planets)], "awaiting": [],
            "first_player": config["first_player"], "round": 1, "direction": 1,
            "first_pick": False, "turn": -1, "sentry_planet": -1, "step": None,
            "chance": None, "decision": None}
        self.picks: list[list[int] | None] = [None] * n
        s = self.s
        for seat in range(n):
            for _ in range(6):
                slot = s["deck"].pop(0)
                s["hands"][seat].append(slot)
                s["known"][slot] |= 1 << seat
        self.start_round()

    # -- section 2's helpers ------------------------------------------------------------------

    def is_event(self, slot: int) -> bool:
        return self.card[slot] >= 24

    def name(self, slot: int) -> str:
        cid = self.card[slot]
        return LABELS[cid].split(":", 1)[1]

    def owner(self, slot: int) -> int:
        cid = self.card[slot]
        return -1 if cid >= 24 else self.config["factions"].index(FACTIONS[cid // 6])

    def claims(self, slot: int, p: int) -> tuple[str, ...]:
        planet, vision = self.config["planets"][p], self.s["vision_up"][p]
        name, event, rule = self.name(slot), self.is_event(slot), RULE[planet]
        if (event and name in FACE_UP) or vision:
            return ("up",)
        if rule == "jungle":
            return ("up",) if event else ("none",)
        if rule == "nothing":
            return ("none",)
        if name == "Rumor":
            return ("event", *TYPES, *(FACTIONS if rule == "faction_or_type" else ()))
        if name == "Imposter":
            return ("event", "Duchess")
        if event:
            return ("event",)
        faction = FACTIONS[self.card[slot] // 6]
        return (faction, name) if rule == "faction_or_type" else (name,)

    def make_public(self, slots: list[int]) -> None:
        for slot in slots:
            self.s["known"][slot] = (1 << self.n) - 1

    # -- section 5 ----------------------------------------------------------------------------

    def start_round(self) -> None:
        s = self.s
        s["phase"] = "draft"
        s["direction"] = 1 if s["round"] % 2 else -1
        s["quota"] = [5] * self.n  # round 1: no claim acts
        s["first_pick"] = self.n == 2
        self.pick_round()

    def pick_count(self, seat: int) -> int:
        s = self.s
        need = s["quota"][seat] - len(s["drafted"][seat])
        held = len(s["hands"][seat])
        if need <= 0 or held == 0:
            return 0
        return min(held, min(need, 2 if s["first_pick"] else 1))

    def pick_round(self) -> None:
        if not any(self.pick_count(seat) for seat in range(self.n)):
            self.end_draft()
            return
        self.picks = [None] * self.n

    def pick(self, seat: int, slots: list[int]) -> None:
        # Held apart until the last pick: the hash holds every pending pick as not yet made.
        self.picks[seat] = slots
        s = self.s
        if any(self.picks[x] is None and s["quota"][x] > len(s["drafted"][x]) and s["hands"][x]
               for x in range(self.n)):
            return
        for who, made in enumerate(self.picks):
            for slot in made or []:
                s["hands"][who].remove(slot)
                s["drafted"][who].append(slot)
        s["first_pick"] = False
        d = s["direction"]
        s["hands"] = [s["hands"][(x - d) % self.n] for x in range(self.n)]
        for who in range(self.n):
            for slot in s["hands"][who]:
                s["known"][slot] |= 1 << who
        self.pick_round()

    def end_draft(self) -> None:
        s = self.s
        s["leftovers"] = [x for hand in s["hands"] for x in hand]
        s["hands"], s["drafted"] = s["drafted"], [[] for _ in range(self.n)]
        if len(s["leftovers"]) > 1:
            s["chance"] = ["leftovers", len(s["leftovers"])]
            s["step"] = ["deal_leftovers"]
            return
        self.deal_leftovers()

    def shuffle(self, perm: list[int]) -> None:
        s = self.s
        if s["chance"] is None or s["chance"][0] != "leftovers":
            raise Unsupported("the clean-up reshuffle")
        s["leftovers"] = [s["leftovers"][i] for i in perm]
        s["chance"], s["step"] = None, None
        self.deal_leftovers()

    def deal_leftovers(self) -> None:
        s = self.s
        targets = [p for p, name in enumerate(self.config["planets"]) if name != "Desert"]
        while len(s["leftovers"]) < len(targets) and s["deck"]:
            s["leftovers"].append(s["deck"].pop(0))
        s["discard"] += s["leftovers"][len(targets):]
        s["leftovers"] = s["leftovers"][:len(targets)]
        self.make_public(s["leftovers"])
        for p, slot in zip(targets, s["leftovers"], strict=False):
            s["planets"][p].append(slot)
            s["face_up"][slot] = True
            s["dispatcher"][slot] = -1
            s["controller"][slot] = self.owner(slot)
            if self.is_event(slot) and self.name(slot) == "Vision":
                s["vision_up"][p] = True
        s["leftovers"] = []
        self.start_dispatch()

    # -- section 6 ----------------------------------------------------------------------------

    def start_dispatch(self) -> None:
        s = self.s
        s["phase"] = "dispatch"
        s["captured"] = [False] * self.n
        s["turn"] = s["first_player"]
        if not s["hands"][s["turn"]]:
            self.next_turn()

    def next_turn(self) -> None:
        s = self.s
        for i in range(1, self.n + 1):
            seat = (s["turn"] + i * s["direction"]) % self.n
            if s["hands"][seat]:
                s["turn"] = seat
                return
        raise Unsupported("Resolve Planets")

    def dispatch(self, seat: int, slot: int, p: int, claim: str) -> None:
        assert claim in self.claims(slot, p)
        s = self.s
        s["hands"][seat].remove(slot)
        s["planets"][p].append(slot)
        s["dispatcher"][slot] = seat
        s["claim"][slot] = claim
        s["claim_vision"][slot] = s["vision_up"][p]
        s["known"][slot] |= 1 << seat
        if claim == "up":
            s["face_up"][slot] = True
            self.face_up_dispatch(slot, p)
        else:
            self.next_turn()

    def verify_claim(self, slot: int) -> None:
        self.s["claim"][slot] = ""  # the vectors' games claim truthfully

    def face_up_dispatch(self, slot: int, p: int) -> None:
        s = self.s
        self.make_public([slot])
        self.verify_claim(slot)
        seat = s["dispatcher"][slot]
        s["controller"][slot] = self.owner(slot)
        planet = self.config["planets"][p]
        face_down = [x for x in s["planets"][p] if not s["face_up"][x]]
        if self.name(slot) == "Whispered Secrets":
            s["vp"][seat] += 1
            if face_down:
                self.ask(seat, "whispered_secrets", [str(x) for x in face_down],
                         str(face_down[0]),
                         f"Whispered Secrets: reveal one face-down card on {planet}",
                         ["reveal_cards", p])
                return
        elif self.name(slot) == "Vision":
            self.ask(seat, "vision", ["reveal", "face_up"], "reveal",
                     f"Vision on {planet}: reveal all cards here, or play all future cards "
                     "here face up", ["vision", p])
            return
        self.next_turn()

    def ask(self, seat: int, kind: str, options: list[str], default: str, prompt: str,
            then: list[Any]) -> None:
        if len(options) == 1:
            self.run([*then, options[0]])
            return
        self.s["decision"] = {"seat": seat, "kind": kind, "options": options,
                              "default": default, "prompt": prompt, "then": then}

    def run(self, step: list[Any]) -> None:
        s = self.s
        name, args = step[0], step[1:]
        if name == "vision":
            p, answer = args
            if answer == "face_up":
                s["vision_up"][p] = True
                self.next_turn()
                return
            face_down = [x for x in s["planets"][p] if not s["face_up"][x]]
            self.run(["reveal_cards", p, ",".join(map(str, face_down))])
        elif name == "reveal_cards":
            p, slots = args
            chosen = [int(x) for x in slots.split(",") if x]
            self.make_public(chosen)
            for slot in chosen:
                self.verify_claim(slot)
                s["face_up"][slot] = True
                s["controller"][slot] = self.owner(slot)
            self.next_turn()
        else:
            raise Unsupported(f"step {name}")

    def choose(self, seat: int, option: str) -> None:
        d = self.s["decision"]
        assert d is not None and d["seat"] == seat and option in d["options"]
        self.s["decision"] = None
        self.run([*d["then"], option])

    def capture(self, seat: int, slot: int) -> None:
        s = self.s
        assert not s["captured"][seat]
        s["hands"][seat].remove(slot)
        s["prisoner"][seat] = slot
        s["captured"][seat] = True
        self.next_turn()

    def discard(self, seat: int, slot: int) -> None:
        s = self.s
        s["hands"][seat].remove(slot)
        s["discard"].append(slot)
        self.next_turn()

    def apply(self, action: dict[str, Any]) -> None:
        kind = action["type"]
        if kind == "pick":
            self.pick(action["seat"], list(action["slots"]))
        elif kind == "shuffle":
            self.shuffle(list(action["perm"]))
        elif kind == "dispatch":
            self.dispatch(action["seat"], action["slot"], action["planet"], action["claim"])
        elif kind == "capture":
            self.capture(action["seat"], action["slot"])
        elif kind == "discard":
            self.discard(action["seat"], action["slot"])
        elif kind == "choose":
            self.choose(action["seat"], action["option"])
        else:
            raise Unsupported(kind)

    def hash(self) -> str:
        return hashlib.sha256(b"solstice/state/v1\x00" + canonical_json(self.s)).hexdigest()


def test_rules_md_alone_replays_round_one_of_every_vector_game() -> None:
    compared = 0
    stops = set()
    for case in json.loads((VECTORS / "engine.json").read_text(encoding="utf-8"))["cases"]:
        replay = Replay(case["config"], case["deck_order"])
        assert replay.hash() == case["initial_state"]
        for step in case["steps"]:
            try:
                replay.apply(step["action"])
            except Unsupported as stop:
                stops.add(str(stop))
                break
            assert replay.hash() == step["state"], (case["setup_seed"], step["action"])
            compared += 1
    assert compared > 150
    assert stops == {"Resolve Planets"}  # every game checked to the end of its dispatch
