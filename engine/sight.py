"""What a seat is shown, without slot numbers: ``view`` as a perfect-recall record keeps it.

A perfect-recall information state (``bots.rl.recall``) records every view its seat is shown,
after every step of the game, without the slot numbers (bookkeeping a secret relabel order
decides), each as the keys that changed since the one before. Building the whole view of
every state for every seat (``engine.view.view``: every card as a dict with its slot, the
legal actions' texts, the log), taking the slots back out and comparing every key cost most of
a learning step. Here a ``Sight`` of each state of the game's trail reads once, for every
seat, what is the same for all (the public keys, each planet without its labels) and what
changed since the state before; a seat's ``Record`` then reads only its own knowledge (its
cards, the labels it knows) and takes the rest from the sight, in the record's form
(``bots.rl.recall.canonical_view`` of the view, each planet under its own key).
``tests/test_rl_recall_fast.py`` compares the records with ones made from the views over
random games, entry for entry.
"""

from __future__ import annotations

import json
import json.encoder
from typing import Any

from engine.cards import CARDS, PLANET_LIMIT, PLANETS
from engine.dispatch import planet_limit
from engine.draft import active_claim, must_pick
from engine.game import to_move
from engine.resolution import decision_options
from engine.state import GameState, Phase
from engine.strength import strongest_and_favored
from engine.view import LABELS, decision_subject

_DRAFT, _DISPATCH, _RESOLVE = Phase.DRAFT, Phase.DISPATCH, Phase.RESOLVE
_RULE_TEXT: dict[str, str] = {name: planet.rule_text() for name, planet in PLANETS.items()}
_VP: dict[str, int] = {name: planet.vp for name, planet in PLANETS.items()}
_PLANET_KEYS: tuple[str, ...] = tuple(f"planet{p}" for p in range(64))

# Where a ``Record`` notes a card was last seen (the first of these that shows it, in this
# order): the seat's hand, its drafted cards, its prisoner, a planet (face up:
# ``PLACE_UP + 2 * p``, face down: ``PLACE_DOWN + 2 * p``) or its discards, or known elsewhere
# (a hand it passed, ...).
PLACE_HAND, PLACE_DRAFTED, PLACE_PRISONER, PLACE_DISCARDED, PLACE_ELSEWHERE = 0, 1, 2, 3, 4
PLACE_UP, PLACE_DOWN = 5, 6


def _label(card_of: list[int], slot: int) -> str | None:
    cid = card_of[slot]
    return LABELS[cid] if cid >= 0 else None


def _sorted_labels(card_of: list[int], slots: list[int]) -> list[str]:
    out: list[str] = []
    for x in slots:
        cid = card_of[x]
        out.append(LABELS[cid] if cid >= 0 else "?")
    out.sort()
    return out


def _decision(s: GameState, seat: int, card_of: list[int]) -> dict[str, Any]:
    """The seat's pending decision as ``canonical_view`` writes it: a slot option (Whispered
    Secrets) as its rank among the slot options, the card in question by its label."""
    decision = s.decision
    assert decision is not None
    shown = decision_options(s, decision)  # only the options the seat may take (ruling 41)
    options = list(shown)
    default = decision.default if decision.default in shown else shown[0]
    slots = sorted(int(o) for o in options if o.isdigit())
    rank = {str(x): f"slot#{i}" for i, x in enumerate(slots)}
    planet, slot = decision_subject(s, seat)
    return {"kind": decision.kind,
            "options": [rank.get(o, o) for o in options],
            "default": rank.get(default, default),
            "prompt": decision.prompt,
            "planet": planet,
            "card": None if slot is None else _label(card_of, slot) or "?"}


# --- the record, kept incrementally ---------------------------------------------------------

# ``json.dumps(value, sort_keys=True, separators=(",", ":"))``, straight from the C encoder
# it uses: ``dumps`` makes an encoder object and a new C encoder at every call, which cost as
# much as the encoding of a small value. A planet's dicts are made with their keys in sorted
# order, so its JSON is the same without sorting every card's keys again.
_SORTED: Any = None
_UNSORTED: Any = None
_MAKE: Any = getattr(json.encoder, "c_make_encoder", None)
if _MAKE is not None:  # CPython's accelerator (else the Python encoder)
    _SORTED = _MAKE(
        None, json.JSONEncoder().default, json.encoder.encode_basestring_ascii, None, ":", ",",
        True, False, True)
    _UNSORTED = _MAKE(
        None, json.JSONEncoder().default, json.encoder.encode_basestring_ascii, None, ":", ",",
        False, False, True)
_SLOW = json.JSONEncoder(sort_keys=True, separators=(",", ":")).encode


def _dumps(value: Any) -> str:
    if _SORTED is None:
        return _SLOW(value)
    return "".join(_SORTED(value, 0))


def _planet_dumps(value: Any) -> str:
    if _UNSORTED is None:
        return _SLOW(value)
    return "".join(_UNSORTED(value, 0))


class Sight:
    """One state of a game's trail as every seat is shown it: what no seat's knowledge changes
    (the public keys, each planet without its labels) is read once and shared by every seat's
    ``Record``, and so is what changed since the state before (``prev``). ``state`` must not
    change afterwards (a trail's copy)."""

    def __init__(self, state: GameState, prev: Sight | None) -> None:
        self.state = state
        self.prev = prev
        self._live: list[int] | None = None
        self._public: dict[str, Any] | None = None
        self._public_changed: list[str] | None = None
        self._skeletons: list[dict[str, Any] | None] | None = None
        self._planet_same: list[bool] | None = None
        self._json: dict[str, str] = {}             # public key -> its JSON
        self._planets: dict[tuple[int, tuple[int, ...]], dict[str, Any]] = {}
        self._planet_json: dict[tuple[int, tuple[int, ...]], str] = {}

    def live(self) -> list[int]:
        if self._live is None:
            self._live = self.state.live_slots()
        return self._live

    def public(self) -> dict[str, Any]:
        """The keys of a view that are the same for every seat."""
        if self._public is None:
            self._public = _public(self.state)
        return self._public

    def public_changed(self) -> list[str]:
        """The public keys whose value differs from ``prev``'s (every key without one)."""
        if self._public_changed is None:
            now = self.public()
            prev = self.prev
            if prev is None:
                self._public_changed = list(now)
            else:
                before = prev.public()
                self._public_changed = [key for key, value in now.items()
                                        if before[key] != value]
        return self._public_changed

    def public_json(self, key: str) -> str:
        text = self._json.get(key)
        if text is None:
            text = self._json[key] = _dumps(self.public()[key])
        return text

    def skeleton(self, p: int) -> dict[str, Any]:
        """Planet ``p`` as a view shows it, but with no card's label and its limit as if
        known (made when a seat's record first needs it)."""
        if self._skeletons is None:
            self._skeletons = [None] * len(self.state.planets)
        made = self._skeletons[p]
        if made is None:
            made = self._skeletons[p] = _skeleton(self.state, p)
        return made

    def planet_same(self) -> list[bool]:
        """Per planet: whether every fact its skeleton is made of is as in ``prev``'s state
        (False without one, or where a resolution's strongest seat would need working out),
        read from the two states without making the skeletons."""
        if self._planet_same is None:
            prev = self.prev
            count = len(self.state.planets)
            self._planet_same = [False] * count if prev is None \
                else [_planet_same(prev.state, self.state, p) for p in range(count)]
        return self._planet_same

    def planet(self, p: int, cids: tuple[int, ...]) -> dict[str, Any]:
        """Planet ``p`` as a seat that knows the cards ``cids`` (its cards' ids, -1 where
        unknown, then its discards') is shown it."""
        key = (p, cids)
        value = self._planets.get(key)
        if value is None:
            value = self._planets[key] = _dress(self.skeleton(p), cids)
        return value

    def planet_json(self, p: int, cids: tuple[int, ...]) -> str:
        key = (p, cids)
        text = self._planet_json.get(key)
        if text is None:
            text = self._planet_json[key] = _planet_dumps(self.planet(p, cids))
        return text


def _public(s: GameState) -> dict[str, Any]:
    n = s.n
    config = s.config
    phase = s.phase
    decision = s.decision
    return {
        "players": n,
        "factions": list(config.factions),
        "events_in_play": list(config.events),
        "round": s.round,
        "phase": phase.value,
        "direction": "left" if s.direction == 1 else "right",
        "first_player": s.first_player,
        "to_move": to_move(s),
        "picked": [p is not None for p in s.picks] if phase is _DRAFT else [False] * n,
        "has_prisoner": [x >= 0 for x in s.prisoner],
        "captured": list(s.captured),
        "claims": [{"event": CARDS[s.card_of[slot]].name, "seat": who, "round": rnd,
                    "active": rnd == s.round - 1} for slot, who, rnd in s.claims],
        "scores": [{"vp": vp, "casualties": lost} for vp, lost in zip(s.vp, s.casualties,
                                                                     strict=True)],
        "deck_size": len(s.deck),
        "turn": s.turn if phase is _DISPATCH else None,
        "waiting_for_decision": decision.seat if decision is not None else None,
        "messenger": active_claim(s, "Messenger"),
        "poison": active_claim(s, "Poison"),
    }


def _skeleton(s: GameState, p: int) -> dict[str, Any]:
    face_up, dispatcher, claim = s.face_up, s.dispatcher, s.claim
    controller, resolved = s.controller, s.resolved
    config = s.config
    name = config.planets[p]
    cards: list[dict[str, Any]] = []
    for slot in s.planets[p]:
        up = face_up[slot]
        # the keys in sorted order: a planet's JSON is written without sorting (_planet_dumps)
        cards.append({"claim": claim[slot] or None,
                      "controller": controller[slot] if up else None,
                      "dispatcher": dispatcher[slot], "face_up": up, "label": None,
                      "resolved": resolved[slot]})
    planet: dict[str, Any] = {
        "cards": cards, "discarded": [None] * len(s.planet_discarded[p]), "favored": None,
        "limit": planet_limit(s, p) if "Blockade" in config.events else PLANET_LIMIT,
        "name": name, "rule": _RULE_TEXT[name], "sentry": s.sentry_planet == p,
        "strongest": None, "vision_face_up": s.vision_up[p], "vp": _VP[name],
    }
    if s.phase is _RESOLVE and s.planet_started[p]:
        st, fv = strongest_and_favored(s, p)
        planet["strongest"] = st if st >= 0 else None
        planet["favored"] = fv if fv >= 0 else None
    return planet


def _planet_same(a: GameState, b: GameState, p: int) -> bool:
    """Whether ``_skeleton(a, p)`` and ``_skeleton(b, p)`` are sure to be equal: every fact
    they are made of is (a resolving planet's strongest seat is not worked out: not sure)."""
    if (a.phase is _RESOLVE and a.planet_started[p]) or \
            (b.phase is _RESOLVE and b.planet_started[p]):
        return False
    here_a, here_b = a.planets[p], b.planets[p]
    if len(here_a) != len(here_b) or a.vision_up[p] != b.vision_up[p] or \
            (a.sentry_planet == p) != (b.sentry_planet == p) or \
            len(a.planet_discarded[p]) != len(b.planet_discarded[p]):
        return False
    if a.config is not b.config and a.config.planets[p] != b.config.planets[p]:
        return False
    up_a, up_b = a.face_up, b.face_up
    for i in range(len(here_a)):
        x, y = here_a[i], here_b[i]
        up = up_a[x]
        if up != up_b[y] or a.dispatcher[x] != b.dispatcher[y] or \
                a.claim[x] != b.claim[y] or a.resolved[x] != b.resolved[y] or \
                (up and a.controller[x] != b.controller[y]):
            return False
    if "Blockade" in b.config.events or "Blockade" in a.config.events:
        return planet_limit(a, p) == planet_limit(b, p)
    return True


def _dress(skeleton: dict[str, Any], cids: tuple[int, ...]) -> dict[str, Any]:
    """``skeleton`` with the labels of ``cids`` (``Sight.planet``), and no limit unless every
    face-up card is known, as ``view`` shows a planet."""
    planet = dict(skeleton)
    limit_known = True
    cards: list[dict[str, Any]] = []
    i = 0
    for card in skeleton["cards"]:
        cid = cids[i]
        i += 1
        if cid < 0:
            if card["face_up"]:
                limit_known = False
            cards.append(card)
        else:
            dressed = dict(card)
            dressed["label"] = LABELS[cid]
            cards.append(dressed)
    planet["cards"] = cards
    planet["discarded"] = [LABELS[cid] if cid >= 0 else None for cid in cids[i:]]
    if not limit_known:
        planet["limit"] = None
    return planet


def _place(cid: int, where: int, rnd: int, taken: list[bool], now: list[int],
           first: list[int], latest: list[int], place_of: list[int]) -> None:
    """Note card ``cid`` (-1: none) seen at ``where`` in round ``rnd``, unless this state
    already showed it in a place that comes first."""
    if cid >= 0 and not taken[cid]:
        taken[cid] = True
        now.append(cid)
        if first[cid] < 0:
            first[cid] = rnd
        latest[cid] = rnd
        place_of[cid] = where


class Record:
    """What one seat's record has been shown: its last values (``sighting``'s keys), where
    it last saw each card and when, for ``see`` to tell what a new state changes."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.values: dict[str, Any] = {}  # replaced, never changed in place (copies share it)
        self.last: Sight | None = None
        self.cids: list[tuple[int, ...]] = []   # per planet: the card ids it was shown there
        # per card id: the round it was first and last seen (-1: never), the place last seen
        self.first = [-1] * len(CARDS)
        self.latest = [-1] * len(CARDS)
        self.place = [-1] * len(CARDS)
        self.now: list[int] = []  # the card ids the last state shows

    def copy(self) -> Record:
        new = Record(self.seat)
        new.values, new.last, new.cids = self.values, self.last, self.cids
        new.first, new.latest, new.place = self.first[:], self.latest[:], self.place[:]
        new.now = self.now
        return new

    def memory_entries(self, width: int, columns: list[int], seen: int, gone: int,
                       first_at: int, last_at: int) -> tuple[list[int], list[float]]:
        """The non-zero entries of a memory of every card seen (``bots.rl.recall``): their
        positions in a block of ``width`` columns per card id, and their values. A seen card
        has ``seen`` 1, ``gone`` 1 unless the last state shows it, the rounds it was first and
        last seen over 10 (at most 1) and 1 in the column ``columns`` gives its last place."""
        at: list[int] = []
        values: list[float] = []
        showing = [False] * len(CARDS)
        for cid in self.now:
            showing[cid] = True
        first, latest, place_of = self.first, self.latest, self.place
        for cid in range(len(CARDS)):
            rnd = first[cid]
            if rnd < 0:
                continue
            row = cid * width
            at.append(row + seen)
            values.append(1.0)
            if not showing[cid]:
                at.append(row + gone)
                values.append(1.0)
            at.append(row + first_at)
            values.append(min(rnd / 10.0, 1.0))
            at.append(row + last_at)
            values.append(min(latest[cid] / 10.0, 1.0))
            at.append(row + columns[place_of[cid]])
            values.append(1.0)
        return at, values

    def memory_into(self, out: list[Any], offset: int, width: int, columns: list[int],
                    seen: int, gone: int, first_at: int, last_at: int,
                    round_value: list[Any]) -> None:
        """``memory_entries`` written straight into ``out`` from ``offset`` (a tensor made as a
        list), in the same order; a round's value is ``round_value[round]`` (the caller's
        figure for it, rounded as its tensor rounds it; the last one for any later round)."""
        one: Any = 1.0
        showing = [False] * len(CARDS)
        for cid in self.now:
            showing[cid] = True
        first, latest, place_of = self.first, self.latest, self.place
        top = len(round_value) - 1
        for cid in range(len(CARDS)):
            rnd = first[cid]
            if rnd < 0:
                continue
            row = offset + cid * width
            out[row + seen] = one
            if not showing[cid]:
                out[row + gone] = one
            out[row + first_at] = round_value[rnd if rnd < top else top]
            last = latest[cid]
            out[row + last_at] = round_value[last if last < top else top]
            out[row + columns[place_of[cid]]] = one

    def see(self, sight: Sight) -> str | None:
        """Take in the seat's view of ``sight``'s state: ``note_places``, then ``entry``."""
        self.note_places(sight)
        return self.entry(sight)

    def note_places(self, sight: Sight) -> None:
        """Note where the seat's view of ``sight``'s state shows each card it knows, and when
        (what the memory block of a tensor is made of). Cheap next to ``entry``: the tensor
        needs this at every state, the string only when it is read, so a record may take in
        the places of a state at once and its entry later (each reads nothing the other
        writes)."""
        s = sight.state
        bit = 1 << self.seat
        card_of, known = s.card_of, s.known
        rnd = s.round
        first, latest, place_of = self.first, self.latest, self.place
        taken = [False] * len(CARDS)
        now: list[int] = []
        seat = self.seat
        # (a module function, not a closure: a closure is called through Python's protocol)
        for x in s.hands[seat]:
            if known[x] & bit:
                _place(card_of[x], PLACE_HAND, rnd, taken, now, first, latest, place_of)
        for x in s.drafted[seat]:
            if known[x] & bit:
                _place(card_of[x], PLACE_DRAFTED, rnd, taken, now, first, latest, place_of)
        mine = s.prisoner[seat]
        if mine >= 0 and known[mine] & bit:
            _place(card_of[mine], PLACE_PRISONER, rnd, taken, now, first, latest, place_of)
        face_up, discarded = s.face_up, s.planet_discarded
        planets = s.planets
        for p in range(len(planets)):
            up_at, down_at = PLACE_UP + 2 * p, PLACE_DOWN + 2 * p
            for x in planets[p]:
                if known[x] & bit:
                    _place(card_of[x], up_at if face_up[x] else down_at, rnd, taken, now,
                           first, latest, place_of)
            for x in discarded[p]:  # not live: shown to every seat (as in ``entry``)
                _place(card_of[x], PLACE_DISCARDED, rnd, taken, now, first, latest, place_of)
        for x in sight.live():
            if known[x] & bit:
                _place(card_of[x], PLACE_ELSEWHERE, rnd, taken, now, first, latest, place_of)
        self.now = now

    def entry(self, sight: Sight) -> str | None:
        """The entry ``Recall.see`` writes for the seat's view of ``sight``'s state
        (``see {...}``: the keys that changed since the state this record's entries last
        took in, as JSON), or None when nothing changed. Entries must be taken in the
        order of the states."""
        s = sight.state
        seat = self.seat
        live = sight.live()
        card_of = s.card_of[:]
        known = s.known
        bit = 1 << seat
        for x in live:
            if not known[x] & bit:
                card_of[x] = -1
        hand, drafted, mine = s.hands[seat], s.drafted[seat], s.prisoner[seat]
        planets, discarded = s.planets, s.planet_discarded
        cids_now: list[tuple[int, ...]] = []
        for p in range(len(planets)):
            ids: list[int] = []
            for slot in planets[p]:
                ids.append(card_of[slot])
            for x in discarded[p]:
                ids.append(card_of[x])
            cids_now.append(tuple(ids))
        labels: list[str] = []
        for x in live:
            cid = card_of[x]
            if cid >= 0:
                labels.append(LABELS[cid])
        labels.sort()
        # the seat's own keys
        pending = [len(made) // 2 if made is not None and other != seat else 0
                   for other, made in enumerate(s.picks)]
        decision = s.decision
        own: dict[str, Any] = {
            "seat": seat,
            "hand": _sorted_labels(card_of, hand),
            "drafted": _sorted_labels(card_of, drafted),
            "hand_sizes": [len(h) + pending[i] for i, h in enumerate(s.hands)],
            "drafted_counts": [len(d) - pending[i] for i, d in enumerate(s.drafted)],
            "pick_count": must_pick(s, seat),
            "prisoner": None if mine < 0 else _label(card_of, mine) or "?",
            "decision": None if decision is None or decision.seat != seat
            else _decision(s, seat, card_of),
            "known": labels,
        }
        values = self.values
        changed: dict[str, str] = {}  # key -> its JSON
        fresh: dict[str, Any] = {}    # key -> its new value
        for key, value in own.items():
            if key not in values or values[key] != value:
                changed[key] = _dumps(value)
                fresh[key] = value
        following = self.last is not None and self.last is sight.prev
        public = sight.public()
        if following:  # what changed since the state before is what changed since the last
            for key in sight.public_changed():
                changed[key] = sight.public_json(key)
                fresh[key] = public[key]
        else:
            for key, value in public.items():
                if key not in values or values[key] != value:
                    changed[key] = sight.public_json(key)
                    fresh[key] = value
        same = sight.planet_same() if following else []
        last_cids = self.cids
        for p in range(len(cids_now)):
            cids = cids_now[p]
            if following and same[p] and cids == last_cids[p]:
                continue
            key = _PLANET_KEYS[p]
            value = sight.planet(p, cids)
            if key not in values or values[key] != value:
                changed[key] = sight.planet_json(p, cids)
                fresh[key] = value
        self.cids = cids_now
        self.last = sight
        if not changed:
            return None
        merged = dict(values)
        merged.update(fresh)
        self.values = merged
        return "see {" + ",".join(f'"{key}":{changed[key]}' for key in sorted(changed)) + "}"
