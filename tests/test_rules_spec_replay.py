"""A second implementation of the rules engine, written from rules.md's text: ``Replay`` the
state, the draft and the dispatch phase (sections 2, 3, 5 and 6), ``FullReplay`` adds
Resolve Planets, the end and clean-up (sections 7 and 8). It uses nothing of the engine but
canonical JSON (protocol.md, "Canonical encoding") and the card labels of
tests/vectors/cards.json; replayed over the whole-game vectors, it gives the state hash of
protocol.md after every action, so rules.md is precise enough to reproduce them. (It trusts
the vectors' dispatch claims, which are truthful, instead of checking them.)"""

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


# -- sections 7 and 8: resolution, the end and clean-up ----------------------------------------

INITIATIVE = {"Legions": 0, "Diplomat": 5, "Assassin": 7, "Duchess": 9, "Marshal": 12,
              "Elder": 13}
EVENT_INITIATIVE = [0, 0, 0, 0, 0, 4, 9, 9, 1, 5, 8, 11, 12, 15, 0, 0, 2, 9, 10, 11, 14, 15,
                    6, 7]  # the event table's rows, in order
NEUTRAL = {"Atmospheric Storm": 3, "Quagmire": 2}
PLANET_VP = {"Capital": 3, "Industrial": 2, "Water": 2, "Jungle": 2, "Desert": 2}


def _values(cid: int) -> tuple[int, int, int, int]:
    """(strength, favor, vp, vp2) of an action card, from rules.md's table."""
    faction, kind = FACTIONS[cid // 6], TYPES[cid % 6]
    base = {"Legions": (2, 2, 0, 0), "Diplomat": (1, 1, 2, 0), "Assassin": (1, 0, 2, 0),
            "Duchess": (0, 1, 1, 0), "Marshal": (1, 0, 2, 0), "Elder": (1, 1, 1, 1)}[kind]
    special = {("green", "Diplomat"): (0, 3, 3, 0), ("black", "Assassin"): (1, 0, 3, 0),
               ("white", "Duchess"): (0, 1, 3, 0), ("blue", "Marshal"): (1, 0, 3, 0)}
    return special.get((faction, kind), base)


class FullReplay(Replay):
    def __init__(self, config: dict[str, Any], deck_order: list[int]) -> None:
        super().__init__(config, deck_order)

    # -- helpers --------------------------------------------------------------------------

    def label(self, slot: int) -> str:
        return LABELS[self.card[slot]]

    def active_claim(self, name: str) -> int:
        for slot, seat, rnd in self.s["claims"]:
            if rnd == self.s["round"] - 1 and self.name(slot) == name:
                return seat
        return -1

    def totals(self, p: int) -> tuple[list[int], list[int], int, bool]:
        s = self.s
        strength, favor, neutral, peace = [0] * self.n, [0] * self.n, 0, False
        for slot in s["planets"][p]:
            if self.is_event(slot):
                neutral = max(neutral, NEUTRAL.get(self.name(slot), 0))
                peace = peace or self.name(slot) == "Peace Accords"
            else:
                st, fv, _, _ = _values(self.card[slot])
                strength[s["controller"][slot]] += st
                favor[s["controller"][slot]] += fv
        holder = self.active_claim("Sentry")
        if s["sentry_planet"] == p and holder >= 0:
            strength[holder] += 1
            favor[holder] += 1
        return strength, favor, neutral, peace

    @staticmethod
    def unique_best(values: list[int], floor: int) -> int:
        best = max(values)
        return values.index(best) if best > floor and values.count(best) == 1 else -1

    def strongest(self, p: int) -> int:
        strength, _, neutral, peace = self.totals(p)
        if peace:
            some = [v for v in strength if v >= 1]
            if not some:
                return -1
            least = min(some)
            return strength.index(least) if some.count(least) == 1 else -1
        return self.unique_best(strength, max(neutral, 0))

    def favored(self, p: int) -> int:
        return self.unique_best(self.totals(p)[1], 0)

    def key(self, slot: int) -> int:
        if self.is_event(slot):
            order = self.card[slot] - 24
            return EVENT_INITIATIVE[order] * 64 + 32 + order
        s = self.s
        return INITIATIVE[self.name(slot)] * 64 + (s["controller"][slot] - s["first_player"]) \
            % self.n

    def in_order(self, slots: list[int]) -> list[int]:
        return sorted(slots, key=self.key)

    def here(self, p: int, name: str) -> list[int]:
        return [x for x in self.s["planets"][p] if self.name(x) == name]

    def score(self, seat: int, vp: int) -> None:
        self.s["vp"][seat] += vp

    def slot_by_label(self, p: int, label: str) -> int:
        return next(x for x in self.s["planets"][p] if self.label(x) == label)

    # -- the step loop (section 3) ------------------------------------------------------------

    def ask(self, seat: int, kind: str, options: list[str], default: str, prompt: str,
            then: list[Any]) -> None:
        if len(options) == 1:
            self.s["step"] = [*then, options[0]]
            return
        self.s["decision"] = {"seat": seat, "kind": kind, "options": options,
                              "default": default, "prompt": prompt, "then": then}

    def advance(self) -> None:
        s = self.s
        while s["step"] is not None and s["decision"] is None and s["chance"] is None:
            step, s["step"] = s["step"], None
            self.step(step)

    def choose(self, seat: int, option: str) -> None:
        d = self.s["decision"]
        assert d is not None and d["seat"] == seat and option in d["options"]
        self.s["decision"] = None
        self.s["step"] = [*d["then"], option]
        self.advance()

    def next_turn(self) -> None:
        s = self.s
        for i in range(1, self.n + 1):
            seat = (s["turn"] + i * s["direction"]) % self.n
            if s["hands"][seat]:
                s["turn"] = seat
                return
        s["turn"] = -1
        s["step"] = ["start_resolve"]
        self.advance()

    def dispatch(self, seat: int, slot: int, p: int, claim: str) -> None:
        super().dispatch(seat, slot, p, claim)
        self.advance()  # a single option taken at once is a step left to run

    def run(self, step: list[Any]) -> None:  # the dispatch phase's steps go through advance
        self.s["step"] = step
        self.advance()

    # -- section 5 with claims ------------------------------------------------------------

    def start_round(self) -> None:
        s = self.s
        s["phase"] = "draft"
        s["direction"] = 1 if s["round"] % 2 else -1
        s["quota"] = [5] * self.n
        if self.active_claim("Messenger") >= 0:
            s["quota"][self.active_claim("Messenger")] += 1
        if self.active_claim("Poison") >= 0:
            s["quota"][self.active_claim("Poison")] -= 1
        s["first_pick"] = self.n == 2
        self.pick_round()

    def deal_leftovers(self) -> None:
        s = self.s
        targets = [p for p, name in enumerate(self.config["planets"]) if name != "Desert"]
        while len(s["leftovers"]) < len(targets) and s["deck"]:
            s["leftovers"].append(s["deck"].pop(0))
        s["discard"] += s["leftovers"][len(targets):]
        s["leftovers"] = s["leftovers"][:len(targets)]
        self.make_public(s["leftovers"])
        if self.active_claim("Prophecy") >= 0:
            s["step"] = ["prophecy_next"]
            self.advance()
            return
        for p, slot in zip(targets, s["leftovers"], strict=False):
            self.place_leftover(slot, p)
        s["leftovers"] = []
        self.start_dispatch()

    def place_leftover(self, slot: int, p: int) -> None:
        s = self.s
        s["planets"][p].append(slot)
        s["face_up"][slot] = True
        s["dispatcher"][slot] = -1
        s["controller"][slot] = self.owner(slot)
        if self.is_event(slot) and self.name(slot) == "Vision":
            s["vision_up"][p] = True

    def shuffle(self, perm: list[int]) -> None:
        s = self.s
        if s["chance"] is not None and s["chance"][0] == "leftovers":
            s["leftovers"] = [s["leftovers"][i] for i in perm]
            s["chance"], s["step"] = None, None
            self.deal_leftovers()
            return
        old, s["discard"] = s["discard"], []
        for i in perm:  # fresh slots at the end, the cards in the permutation's order
            self.card.append(self.card[old[i]])
            for field, empty in (("known", 0), ("face_up", False), ("dispatcher", -1),
                                 ("claim", ""), ("claim_vision", False), ("controller", -1),
                                 ("resolved", False), ("claimer", -1)):
                s[field].append(empty)
            s["deck"].append(len(self.card) - 1)
        s["chance"] = None
        self.advance()

    # -- every step ---------------------------------------------------------------------------

    def step(self, step: list[Any]) -> None:
        s = self.s
        name, a = step[0], step[1:]
        if name == "prophecy_next":
            if not s["leftovers"]:
                s["leftovers"] = []
                self.start_dispatch()
                return
            options = [self.config["planets"][p] for p in range(len(s["planets"]))
                       if self.config["planets"][p] != "Desert" and len(s["planets"][p]) < 6]
            self.ask(self.active_claim("Prophecy"), "prophecy", options, options[0],
                     f"Prophecy: choose the planet for {self.label(s['leftovers'][0])}",
                     ["prophecy_place"])
        elif name == "prophecy_place":
            self.place_leftover(s["leftovers"].pop(0), self.config["planets"].index(a[0]))
            s["step"] = ["prophecy_next"]
        elif name == "vision" or name == "reveal_cards":
            super().run(step)
        elif name == "end_turn":
            self.next_turn()
        elif name == "start_resolve":
            s["phase"] = "resolve"
            holder = self.active_claim("Sentry")
            if holder >= 0:
                names = list(self.config["planets"])
                self.ask(holder, "sentry", names, names[0],
                         "Sentry: choose the planet where you gain 1 strength and 1 favor",
                         ["place_sentry"])
                return
            s["step"] = ["resolve", 0]
        elif name == "place_sentry":
            s["sentry_planet"] = self.config["planets"].index(a[0])
            s["step"] = ["resolve", 0]
        elif name == "resolve":
            self.resolve(a[0])
        elif name == "sacrifice":
            p, target, legions, killer, cause, answer = a
            self.kill(p, legions if answer == "yes" else target)
            s["step"] = ["after_kill", p, killer, cause, "killed"]
        elif name == "after_kill":
            p, killer, cause, outcome = a
            if outcome == "killed":
                if cause.startswith("assassin:"):
                    self.score(killer, int(cause.split(":")[1]))
                elif cause == "mercenaries":
                    self.score(killer, 2)
            s["step"] = ["resolve", p]
        elif name == "mercenaries":
            p, slot, answer = a
            s["step"] = ["resolve", p]
            if answer == "no":
                self.assassin_kill(p, slot)
                return
            target = self.slot_by_label(p, answer)
            merc = next(x for x in self.here(p, "Mercenaries") if not s["resolved"][x])
            s["resolved"][merc] = True
            self.targeted_kill(p, target, s["controller"][slot], "mercenaries")
        elif name == "assassin_target":
            p, slot, answer = a
            if answer == "no":
                s["step"] = ["resolve", p]
                return
            vp = _values(self.card[slot])[2]
            self.targeted_kill(p, self.slot_by_label(p, answer), s["controller"][slot],
                               f"assassin:{vp}")
        elif name == "ambush":
            p, answer = a
            s["step"] = ["resolve", p]
            if answer != "no":
                self.targeted_kill(p, self.slot_by_label(p, answer), self.strongest(p),
                                   "ambush")
        elif name == "transport_to":
            p, k, answer = a
            s["step"] = ["resolve", p]
            if answer != "no":
                self.transport_ask(p, k, answer)
        elif name == "transport_card":
            p, k, dest, answer = a
            s["step"] = ["resolve", p]
            if answer == "done":
                return
            slot = self.slot_by_label(p, answer)
            if dest == "discard":
                self.remove(p, slot)
            else:
                q = self.config["planets"].index(dest)
                s["planets"][p].remove(slot)
                s["planets"][q].append(slot)
                s["controller"][slot] = self.owner(slot)
            self.transport_ask(p, k, dest)
        elif name == "use_prisoner":
            p, k, event, answer = a
            s["step"] = ["resolve", p]
            if answer != "yes":
                return
            prisoner = s["prisoner"][k]
            self.make_public([prisoner])
            s["prisoner"][k] = -1
            s["face_up"][prisoner] = True
            if event == "Martyr":
                s["discard"].append(prisoner)
                s["casualties"][self.owner(prisoner)] += 1
                self.score(k, 1)
            else:
                s["planets"][p].append(prisoner)
                s["controller"][prisoner] = k if event == "Mimic" else self.owner(prisoner)
        elif name == "end_round":
            self.end_round()
        elif name == "gather_discards":
            s["chance"] = ["reshuffle", len(s["discard"])]
            s["step"] = ["deal"]
        elif name == "deal":
            self.deal()
        else:
            raise Unsupported(f"step {name}")

    def resolve(self, p: int) -> None:
        s = self.s
        if p >= len(s["planets"]):
            s["step"] = ["end_round"]
            return
        if not s["planet_started"][p]:
            face_down = [x for x in s["planets"][p] if not s["face_up"][x]]
            self.make_public(face_down)
            for slot in face_down:
                self.verify_claim(slot)
                s["face_up"][slot] = True
                s["controller"][slot] = self.owner(slot)
            s["planet_started"][p] = True
            s["initial_sf"][p] = [self.strongest(p), self.favored(p)]
        while True:
            slot = -1 if s["stopped"][p] else self.next_card(p)
            if slot < 0:
                for x in list(s["planets"][p]):
                    if s["claimer"][x] >= 0:
                        s["planets"][p].remove(x)
                        s["claims"].append([x, s["claimer"][x], s["round"]])
                        s["claimer"][x] = -1
                s["step"] = ["resolve", p + 1]
                return
            s["resolved"][slot] = True
            here = ["resolve", p]
            s["step"] = here
            self.effect(p, slot)
            if s["step"] is not here or s["decision"] is not None:
                return

    def next_card(self, p: int) -> int:
        s = self.s
        left = [x for x in s["planets"][p] if not s["resolved"][x]]
        if not left:
            return -1
        best = min(left, key=lambda x: (self.key(x), s["planets"][p].index(x)))
        assassins = [x for x in left if self.name(x) == "Assassin" and not self.is_event(x)]
        if self.is_event(best) or self.name(best) != "Assassin" or len(assassins) == 1:
            return best
        strength, _, _, peace = self.totals(p)
        values = {s["controller"][x]: strength[s["controller"][x]] for x in assassins}
        target = min(values.values()) if peace else max(values.values())
        top = [k for k, v in values.items() if v == target]
        if len(top) != 1:
            for x in assassins:
                s["resolved"][x] = True
            return self.next_card(p)
        return next(x for x in assassins if s["controller"][x] == top[0])

    def remove(self, p: int, slot: int) -> None:
        s = self.s
        s["planets"][p].remove(slot)
        s["discard"].append(slot)
        s["planet_discarded"][p].append(slot)
        s["claimer"][slot] = -1

    def kill(self, p: int, slot: int) -> None:
        self.remove(p, slot)
        if self.owner(slot) >= 0:
            self.s["casualties"][self.owner(slot)] += 1

    def targeted_kill(self, p: int, target: int, killer: int, cause: str) -> None:
        s = self.s
        guards = [x for x in self.here(p, "Honor Guards") if x != target]
        if guards or self.name(target) == "Honor Guards":
            self.kill(p, guards[0] if guards else target)
            s["step"] = ["after_kill", p, killer, cause, "absorbed"]
            return
        if not self.is_event(target):
            victim = s["controller"][target]
            legions = [x for x in s["planets"][p] if x != target and not self.is_event(x)
                       and self.name(x) == "Legions" and s["controller"][x] == victim]
            if legions:
                self.ask(victim, "sacrifice", ["yes", "no"], "no",
                         f"{self.label(target)} is about to be killed: sacrifice your Legions "
                         "instead?", ["sacrifice", p, target, legions[0], killer, cause])
                return
        self.kill(p, target)
        s["step"] = ["after_kill", p, killer, cause, "killed"]

    def assassin_kill(self, p: int, slot: int) -> None:
        s = self.s
        k = s["controller"][slot]
        targets = self.in_order([x for x in s["planets"][p] if x != slot and (
            (self.name(x) == "Duchess" and not self.is_event(x) and s["controller"][x] != k)
            or self.name(x) == "Imposter")])
        if not targets:
            return
        labels = [self.label(x) for x in targets]
        if any(self.name(x) == "Duchess" for x in targets):
            self.ask(k, "assassin_target", labels, labels[0],
                     "Assassin: choose the Duchess to kill", ["assassin_target", p, slot])
        else:
            self.ask(k, "assassin_target", ["no", *labels], "no",
                     "Assassin: kill an Imposter? (no = kill nothing)",
                     ["assassin_target", p, slot])

    def transport_ask(self, p: int, k: int, dest: str) -> None:
        s = self.s
        movable = self.in_order([x for x in s["planets"][p] if not s["resolved"][x]])
        if movable:
            self.ask(k, "transport_card", ["done", *map(self.label, movable)], "done",
                     f"Transport to {dest}: choose a card to move, or done",
                     ["transport_card", p, k, dest])

    def effect(self, p: int, slot: int) -> None:
        s = self.s
        name, k = self.name(slot), s["controller"][slot]
        planet_vp = PLANET_VP[self.config["planets"][p]]
        if not self.is_event(slot):
            _, _, vp, vp2 = _values(self.card[slot])
            if (name == "Diplomat" and self.favored(p) == k) or \
                    (name == "Marshal" and self.strongest(p) == k):
                self.score(k, vp)
            elif name == "Elder":
                st, fv = self.strongest(p), self.favored(p)
                if st == k:
                    self.score(k, vp)
                if fv == k:
                    self.score(k, vp2)
            elif name == "Duchess":
                fv = self.favored(p)
                if (len(self.here(p, "Duchess")) > 1 and fv != k) or \
                        self.here(p, "Planetary Siege"):
                    return
                self.score(k, planet_vp + (2 if self.here(p, "Hidden Base") else 0)
                           + (vp if fv == k else 0))
                s["duchess_scored"][p] = True
            elif name == "Assassin":
                unspent = [x for x in self.here(p, "Mercenaries") if not s["resolved"][x]]
                if unspent and self.strongest(p) == k:
                    others = self.in_order([x for x in s["planets"][p] if x != slot
                                            and self.name(x) != "Mercenaries"])
                    self.ask(k, "mercenaries", ["no", *map(self.label, others)], "no",
                             "Mercenaries: kill any one card for 2 VP instead of a Duchess? "
                             "(no = usual kill)", ["mercenaries", p, slot])
                    return
                self.assassin_kill(p, slot)
            return
        if name == "Ambush":
            k = self.strongest(p)
            others = self.in_order([x for x in s["planets"][p] if x != slot])
            if k >= 0 and others:
                self.ask(k, "ambush", ["no", *map(self.label, others)], "no",
                         "Ambush: kill one card on this planet? (no VP)", ["ambush", p])
        elif name == "Peace Accords":
            if self.favored(p) >= 0:
                self.score(self.favored(p), 1)
        elif name == "Transport":
            k = self.favored(p)
            if k < 0:
                return
            self.score(k, 1)
            last = p == len(s["planets"]) - 1
            options = ["discard"] if last else [self.config["planets"][q]
                                                 for q in range(p + 1, len(s["planets"]))]
            if any(not s["resolved"][x] for x in s["planets"][p]):
                self.ask(k, "transport", ["no", *options], "no",
                         "Transport: move unresolved cards to which planet? (no = keep them "
                         "here)", ["transport_to", p, k])
        elif name in ("Prophecy", "Messenger", "Sentry", "Poison"):
            k = self.favored(p) if name in ("Prophecy", "Messenger") else self.strongest(p)
            if k >= 0:
                if name != "Poison":
                    self.score(k, 1)
                s["claimer"][slot] = k
        elif name == "Honor Guards":
            k = self.favored(p)
            if k >= 0 and s["casualties"][k] > 0:
                s["casualties"][k] -= 1
        elif name == "Medical Team":
            k = self.favored(p)
            if k >= 0:
                if s["casualties"][k] > 0:
                    s["casualties"][k] -= 1
                else:
                    self.score(k, 2)
        elif name == "Imposter":
            if not s["duchess_scored"][p] and not self.here(p, "Planetary Siege") \
                    and self.favored(p) >= 0:
                self.score(self.favored(p), planet_vp)
        elif name == "Orbital Bombardment":
            s["stopped"][p] = True
        elif name == "Famine":
            k = self.favored(p)
            if k >= 0:
                s["vp"][k] -= min(2, s["vp"][k])
        elif name == "Quagmire":
            for x in [x for x in s["planets"][p] if self.name(x) == "Legions"
                      and not self.is_event(x)]:
                self.kill(p, x)
        elif name in ("Mimic", "Escape", "Martyr"):
            k = self.favored(p) if name in ("Mimic", "Escape") else self.strongest(p)
            if k >= 0 and s["prisoner"][k] >= 0:
                prompt = {"Mimic": "Mimic: place your prisoner here and play it as your own?",
                          "Escape": "Escape: add your prisoner to this planet?",
                          "Martyr": "Martyr: kill your prisoner to score 1 VP?"}[name]
                self.ask(k, name.lower(), ["yes", "no"], "no", prompt,
                         ["use_prisoner", p, k, name])

    # -- section 8 --------------------------------------------------------------------------

    def end_round(self) -> None:
        s = self.s
        if max(s["vp"]) >= 16 or max(s["casualties"]) >= 3:
            s["phase"] = "over"
            return
        for claim in [c for c in s["claims"] if c[2] < s["round"]]:
            s["claims"].remove(claim)
            s["discard"].append(claim[0])
        for p in range(len(s["planets"])):
            s["discard"] += s["planets"][p]
            s["planets"][p] = []
        s["step"] = ["gather_discards"]

    def deal(self) -> None:
        s = self.s
        for seat in range(self.n):
            if s["prisoner"][seat] >= 0:
                s["hands"][seat].append(s["prisoner"][seat])
                s["prisoner"][seat] = -1
        for i in range(self.n):
            seat = (s["first_player"] + i) % self.n
            while len(s["hands"][seat]) < 6 and s["deck"]:
                slot = s["deck"].pop(0)
                s["known"][slot] |= 1 << seat
                s["hands"][seat].append(slot)
        best = max(s["vp"])
        s["first_player"] = next(
            seat for i in range(1, self.n + 1)
            if s["vp"][seat := (s["first_player"] + i) % self.n] == best)
        s["round"] += 1
        planets = len(s["planets"])
        s["vision_up"], s["planet_started"] = [False] * planets, [False] * planets
        s["stopped"], s["duchess_scored"] = [False] * planets, [False] * planets
        s["initial_sf"] = [[-1, -1]] * planets
        s["planet_discarded"] = [[] for _ in range(planets)]
        s["sentry_planet"], s["captured"] = -1, [False] * self.n
        self.start_round()

    def pick_round(self) -> None:
        if not any(self.pick_count(seat) for seat in range(self.n)):
            self.end_draft()
            return
        self.picks = [None] * self.n


def test_rules_md_alone_replays_every_vector_game_whole() -> None:
    """The same second implementation, with sections 7 and 8: every vector game, every state
    hash, to its end."""
    for case in json.loads((VECTORS / "engine.json").read_text(encoding="utf-8"))["cases"]:
        replay = FullReplay(case["config"], case["deck_order"])
        for i, step in enumerate(case["steps"]):
            replay.apply(step["action"])
            assert replay.hash() == step["state"], (case["setup_seed"][:8], i, step["action"])
        assert replay.s["phase"] == "over"
