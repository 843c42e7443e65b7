"""Fixed-size encodings of one seat's view and of its actions, for learning agents (numpy only).

Both are built from the seat's view, the very dict every bot gets (``Turn.view``, see
``engine.view.view``), so an agent trained on them learns nothing a bot could not know, and a
trained agent sits at any table, engine-only or over the network, without change.

Actions name cards by their card id (the seat always knows its own cards), never by slot:
slot numbers are bookkeeping that changes when a hand is relabelled, card ids do not. One
action space serves 2, 3 and 4 players (``ACTION_SIZE`` entries):

============  ========================================  ==================================
range          action                                    index within the range
============  ========================================  ==================================
pick1          draft one card                            card id
pick2          draft two cards                           the unordered pair of card ids
dispatch       dispatch a card to a planet with a claim  (card id, planet, claim)
capture        capture a card from the hand              card id
discard        discard a card (no dispatch, no capture)  card id
choose         answer a decision (Assassin target, ...)  the option's position in the list
============  ========================================  ==================================

Observations are relative to the acting seat (seat offset 0 is "me", 1 the next seat, ...),
so one policy plays every seat. They leave out the slot numbers and which seats have made
their draft pick (a network peer's view knows it from the commitments, not from the state),
so that an engine-only table and a network table give the same observation.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from itertools import combinations
from typing import Any

import numpy as np

from engine.actions import CLAIMS, Action, Capture, Choose, Discard, Dispatch, Pick
from engine.cards import CARD_BY_LABEL, CARDS, FACTIONS, PLANETS, TYPES
from engine.resolution import decision_options
from engine.state import GameState

N_CARDS = len(CARDS)
MAX_SEATS = 4
MAX_PLANETS = 5  # four planets besides the Desert is the most a setup allows
MAX_OPTIONS = 24  # a decision lists "no"/"done" and at most the cards on one planet
PLANET_NAMES: tuple[str, ...] = tuple(PLANETS)
N_CLAIMS = len(CLAIMS)
CLAIM_INDEX = {claim: i for i, claim in enumerate(CLAIMS)}
WORDS: tuple[str, ...] = ("no", "yes", "done", "reveal", "face_up")
DECISION_KINDS: tuple[str, ...] = (
    "whispered_secrets", "vision", "prophecy", "sentry", "sacrifice", "mercenaries",
    "assassin_target", "ambush", "transport", "transport_card", "mimic", "escape", "martyr")
PHASES: tuple[str, ...] = ("draft", "dispatch", "resolve", "over")
CARD_KINDS: tuple[str, ...] = (*TYPES, "event")

_PAIRS: tuple[tuple[int, int], ...] = tuple(combinations(range(N_CARDS), 2))
_PAIR_INDEX = {pair: i for i, pair in enumerate(_PAIRS)}

# the action ranges, in order: (name, size)
RANGES: tuple[tuple[str, int], ...] = (
    ("pick1", N_CARDS), ("pick2", len(_PAIRS)),
    ("dispatch", N_CARDS * MAX_PLANETS * N_CLAIMS), ("capture", N_CARDS),
    ("discard", N_CARDS), ("choose", MAX_OPTIONS))
OFFSET: dict[str, int] = {}
_at = 0
for _name, _size in RANGES:
    OFFSET[_name] = _at
    _at += _size
ACTION_SIZE = _at


class EncodingError(ValueError):
    """An action or view the fixed encoding cannot hold (a bug here, not the caller's)."""


def hand_cards(view: dict[str, Any]) -> dict[int, int]:
    """slot -> card id for every card of the seat's hand (its own cards are always known)."""
    out = {}
    for entry in view["hand"]:
        label = entry["label"]
        if label is None:
            raise EncodingError(f"seat {view['seat']} does not know its card in slot "
                                f"{entry['slot']}")
        out[entry["slot"]] = CARD_BY_LABEL[label].id
    return out


def action_index(action: Action, cards: dict[int, int], options: Sequence[str] = ()) -> int:
    """The index of ``action``; ``cards`` maps the seat's hand slots to card ids (``hand_cards``)
    and ``options`` are the pending decision's options."""
    cls = action.__class__
    if cls is Dispatch:
        assert isinstance(action, Dispatch)
        planet = action.planet
        if not 0 <= planet < MAX_PLANETS:
            raise EncodingError(f"planet {planet} is beyond the encoding's {MAX_PLANETS}")
        return (OFFSET["dispatch"] + (cards[action.slot] * MAX_PLANETS + planet) * N_CLAIMS
                + CLAIM_INDEX[action.claim])
    if cls is Pick:
        assert isinstance(action, Pick)
        if len(action.slots) == 1:
            return OFFSET["pick1"] + cards[action.slots[0]]
        a, b = sorted(cards[x] for x in action.slots)
        return OFFSET["pick2"] + _PAIR_INDEX[a, b]
    if cls is Capture:
        assert isinstance(action, Capture)
        return OFFSET["capture"] + cards[action.slot]
    if cls is Discard:
        assert isinstance(action, Discard)
        return OFFSET["discard"] + cards[action.slot]
    if cls is Choose:
        assert isinstance(action, Choose)
        position = list(options).index(action.option)
        if position >= MAX_OPTIONS:
            raise EncodingError(f"a decision with {len(options)} options; the encoding holds "
                                f"{MAX_OPTIONS}")
        return OFFSET["choose"] + position
    raise EncodingError(f"no index for {action!r}")


def legal_indices(legal: Sequence[Action], view: dict[str, Any]) -> list[int]:
    """The index of every legal action, in the order of ``legal``."""
    cards = hand_cards(view)
    decision = view["decision"]
    options = decision["options"] if decision else ()
    return [action_index(a, cards, options) for a in legal]


def state_legal_indices(s: GameState, seat: int, legal: Sequence[Action]) -> list[int]:
    """``legal_indices`` read from a state that knows the seat's own cards (a search's
    world, the seat's redaction), without building the view: the same indices."""
    card_of = s.card_of
    cards = {slot: card_of[slot] for slot in s.hands[seat]}
    decision = s.decision
    # the options as the seat's view shows them: only those it may take (ruling 41)
    options = decision_options(s, decision) if decision is not None and decision.seat == seat \
        else ()
    return [action_index(a, cards, options) for a in legal]


def describe_action(index: int) -> str:
    """A readable name of an action index (for ``render`` and logs)."""
    for name, size in RANGES:
        at = OFFSET[name]
        if at <= index < at + size:
            i = index - at
            if name in ("pick1", "capture", "discard"):
                return f"{name} {CARDS[i].label}"
            if name == "pick2":
                a, b = _PAIRS[i]
                return f"pick {CARDS[a].label} {CARDS[b].label}"
            if name == "dispatch":
                card, rest = divmod(i, MAX_PLANETS * N_CLAIMS)
                planet, claim = divmod(rest, N_CLAIMS)
                return f"dispatch {CARDS[card].label} to planet {planet} claiming {CLAIMS[claim]}"
            return f"choose option {i}"
    raise EncodingError(f"action index {index} is outside 0..{ACTION_SIZE - 1}")


# --- observations ----------------------------------------------------------------------------
#
# Per card id (48 rows): where the seat knows it to be. Per planet (5 rows): what is public
# there. Then the table: seats, scores, phase, the decision and its options.

CARD_FEATURES: tuple[str, ...] = (
    "in_game", "my_hand", "my_drafted", "my_prisoner", "claimed_event", "discarded",
    *(f"planet{p}_face_up" for p in range(MAX_PLANETS)),
    *(f"planet{p}_face_down" for p in range(MAX_PLANETS)),
    *(f"controller{r}" for r in range(MAX_SEATS)),
    "resolved",
    "known_elsewhere")
_CF = {name: i for i, name in enumerate(CARD_FEATURES)}
PLANET_FEATURES: tuple[str, ...] = (
    "exists", "vp", "limit", "vision_face_up", "sentry", "started",
    *(f"name_{name}" for name in PLANET_NAMES),
    *(f"strongest{r}" for r in range(MAX_SEATS)),
    *(f"favored{r}" for r in range(MAX_SEATS)),
    *(f"cards_by{r}" for r in range(MAX_SEATS)),
    *(f"unknown_by{r}" for r in range(MAX_SEATS)),
    *(f"unknown_claim_{claim}" for claim in CLAIMS))
_PF = {name: i for i, name in enumerate(PLANET_FEATURES)}
TABLE_FEATURES: tuple[str, ...] = (
    *(f"players{n}" for n in (2, 3, 4)),
    *(f"phase_{p}" for p in PHASES),
    "round", "direction_left",
    *(f"first_player{r}" for r in range(MAX_SEATS)),
    *(f"turn{r}" for r in range(MAX_SEATS)),
    *(f"faction{r}_{f}" for r in range(MAX_SEATS) for f in FACTIONS),
    *(f"vp{r}" for r in range(MAX_SEATS)),
    *(f"casualties{r}" for r in range(MAX_SEATS)),
    *(f"hand_size{r}" for r in range(MAX_SEATS)),
    *(f"drafted{r}" for r in range(MAX_SEATS)),
    *(f"has_prisoner{r}" for r in range(MAX_SEATS)),
    *(f"captured{r}" for r in range(MAX_SEATS)),
    *(f"messenger{r}" for r in range(MAX_SEATS)),
    *(f"poison{r}" for r in range(MAX_SEATS)),
    "pick_count1", "pick_count2", "deck_size",
    *(f"decision_{kind}" for kind in DECISION_KINDS))
_TF = {name: i for i, name in enumerate(TABLE_FEATURES)}
OPTION_FEATURES: tuple[str, ...] = (
    "present", *(f"word_{w}" for w in WORDS), *(f"planet{p}" for p in range(MAX_PLANETS)),
    *(f"kind_{k}" for k in CARD_KINDS), *(f"owner{r}" for r in range(MAX_SEATS)), "slot")
_OF = {name: i for i, name in enumerate(OPTION_FEATURES)}

_CARD_BLOCK = N_CARDS * len(CARD_FEATURES)
_PLANET_BLOCK = MAX_PLANETS * len(PLANET_FEATURES)
_TABLE_BLOCK = len(TABLE_FEATURES)
_OPTION_BLOCK = MAX_OPTIONS * len(OPTION_FEATURES)
OBS_SIZE = _CARD_BLOCK + _PLANET_BLOCK + _TABLE_BLOCK + _OPTION_BLOCK

_KIND_OF_CARD = [CARD_KINDS.index(card.type) for card in CARDS]
_FACTION_OF_CARD = [card.faction for card in CARDS]
_ID_OF_LABEL = {label: card.id for label, card in CARD_BY_LABEL.items()}
_EVENT_ID = {card.name: card.id for card in CARDS if card.faction is None}
_WORD_INDEX = {w: i for i, w in enumerate(WORDS)}


def observation_layout() -> list[tuple[str, int, int]]:
    """(block, offset, size) of the observation's four blocks, for docs and tests."""
    return [("cards", 0, _CARD_BLOCK), ("planets", _CARD_BLOCK, _PLANET_BLOCK),
            ("table", _CARD_BLOCK + _PLANET_BLOCK, _TABLE_BLOCK),
            ("options", _CARD_BLOCK + _PLANET_BLOCK + _TABLE_BLOCK, _OPTION_BLOCK)]


def observation_names() -> list[str]:
    """The name of every index of the observation, in order: ``card:<label>:<feature>``,
    ``planet<p>:<feature>``, ``table:<feature>``, ``option<k>:<feature>`` (the features of
    ``CARD_FEATURES`` and the others; seats are offsets from the observer, 0 being itself)."""
    return ([f"card:{card.label}:{f}" for card in CARDS for f in CARD_FEATURES]
            + [f"planet{p}:{f}" for p in range(MAX_PLANETS) for f in PLANET_FEATURES]
            + [f"table:{f}" for f in TABLE_FEATURES]
            + [f"option{k}:{f}" for k in range(MAX_OPTIONS) for f in OPTION_FEATURES])


def _per_seat(prefix: str, table: dict[str, int]) -> tuple[int, ...]:
    return tuple(table[f"{prefix}{r}"] for r in range(MAX_SEATS))


# feature positions, looked up once (encode_view runs for every step of every game)
_C_KNOWN, _C_HAND, _C_DRAFTED = _CF["known_elsewhere"], _CF["my_hand"], _CF["my_drafted"]
_C_PRISONER, _C_CLAIMED, _C_IN_GAME = _CF["my_prisoner"], _CF["claimed_event"], _CF["in_game"]
_C_DISCARDED, _C_RESOLVED = _CF["discarded"], _CF["resolved"]
_C_UP = tuple(_CF[f"planet{p}_face_up"] for p in range(MAX_PLANETS))
_C_DOWN = tuple(_CF[f"planet{p}_face_down"] for p in range(MAX_PLANETS))
_C_CONTROLLER = _per_seat("controller", _CF)
_P_EXISTS, _P_VP, _P_LIMIT = _PF["exists"], _PF["vp"], _PF["limit"]
_P_VISION, _P_SENTRY, _P_STARTED = _PF["vision_face_up"], _PF["sentry"], _PF["started"]
_P_NAME = {name: _PF["name_" + name] for name in PLANET_NAMES}
_P_STRONGEST, _P_FAVORED = _per_seat("strongest", _PF), _per_seat("favored", _PF)
_P_CARDS_BY, _P_UNKNOWN_BY = _per_seat("cards_by", _PF), _per_seat("unknown_by", _PF)
_P_CLAIM = {claim: _PF["unknown_claim_" + claim] for claim in CLAIMS}
_T_PLAYERS = {n: _TF[f"players{n}"] for n in (2, 3, 4)}
_T_PHASE = {p: _TF["phase_" + p] for p in PHASES}
_T_ROUND, _T_LEFT, _T_DECK = _TF["round"], _TF["direction_left"], _TF["deck_size"]
_T_FIRST, _T_TURN = _per_seat("first_player", _TF), _per_seat("turn", _TF)
_T_FACTION = {(r, f): _TF[f"faction{r}_{f}"] for r in range(MAX_SEATS) for f in FACTIONS}
_T_VP, _T_CASUALTIES = _per_seat("vp", _TF), _per_seat("casualties", _TF)
_T_HAND, _T_DRAFTED = _per_seat("hand_size", _TF), _per_seat("drafted", _TF)
_T_HAS_PRISONER, _T_CAPTURED = _per_seat("has_prisoner", _TF), _per_seat("captured", _TF)
_T_MESSENGER, _T_POISON = _per_seat("messenger", _TF), _per_seat("poison", _TF)
_T_PICK = {1: _TF["pick_count1"], 2: _TF["pick_count2"]}
_T_DECISION = {kind: _TF["decision_" + kind] for kind in DECISION_KINDS}
_SIXTH = 1.0 / 6.0
_IN_GAME_CACHE: dict[tuple[tuple[str, ...], tuple[str, ...]], list[int]] = {}


def _in_game(factions: Sequence[str], events: Sequence[str]) -> list[int]:
    key = (tuple(factions), tuple(events))
    ids = _IN_GAME_CACHE.get(key)
    if ids is None:
        ids = [card.id for card in CARDS if card.faction in key[0]
               or (card.faction is None and card.name in key[1])]
        if len(_IN_GAME_CACHE) > 10_000:
            _IN_GAME_CACHE.clear()
        _IN_GAME_CACHE[key] = ids
    return ids


def encode_view(view: dict[str, Any], out: np.ndarray | None = None) -> np.ndarray:
    """The seat's view as a float32 vector of ``OBS_SIZE`` (values in [0, 1])."""
    obs = np.zeros(OBS_SIZE, dtype=np.float32) if out is None else out
    if out is not None:
        obs[:] = 0.0
    # The few non-zero entries (a hundred or so of nearly 1,900) gather in a dict and go into
    # the array at once: item assignment on a numpy array, or copying a whole list into it,
    # costs several times as much.
    v: defaultdict[int, float] = defaultdict(float)
    me, n = view["seat"], view["players"]
    factions = view["factions"]
    rel = [(seat - me) % n for seat in range(n)]  # seat -> its offset from me (0 = me)
    width = len(CARD_FEATURES)
    ids = _ID_OF_LABEL
    for label in view["known"].values():
        v[ids[label] * width + _C_KNOWN] = 1.0
    for entry in view["hand"]:
        v[ids[entry["label"]] * width + _C_HAND] = 1.0
    for entry in view["drafted"]:
        if entry["label"] is not None:
            v[ids[entry["label"]] * width + _C_DRAFTED] = 1.0
    prisoner = view["prisoner"]
    if prisoner is not None and prisoner["label"] is not None:
        v[ids[prisoner["label"]] * width + _C_PRISONER] = 1.0
    for claim in view["claims"]:
        v[_EVENT_ID[claim["event"]] * width + _C_CLAIMED] = 1.0
    for cid in _in_game(factions, view["events_in_play"]):
        v[cid * width + _C_IN_GAME] = 1.0
    pw = len(PLANET_FEATURES)
    for p, planet in enumerate(view["planets"]):
        row = _CARD_BLOCK + p * pw
        v[row + _P_EXISTS] = 1.0
        v[row + _P_VP] = planet["vp"] / 10.0
        if planet["limit"] is not None:
            v[row + _P_LIMIT] = planet["limit"] / 6.0
        if planet["vision_face_up"]:
            v[row + _P_VISION] = 1.0
        if planet["sentry"]:
            v[row + _P_SENTRY] = 1.0
        v[row + _P_NAME[planet["name"]]] = 1.0
        if planet["strongest"] is not None:
            v[row + _P_STARTED] = 1.0
            v[row + _P_STRONGEST[rel[planet["strongest"]]]] = 1.0
        if planet["favored"] is not None:
            v[row + _P_FAVORED[rel[planet["favored"]]]] = 1.0
        up_at, down_at = _C_UP[p], _C_DOWN[p]
        for entry in planet["cards"]:
            dispatcher = entry["dispatcher"]
            by = rel[dispatcher] if dispatcher >= 0 else -1
            if by >= 0:
                v[row + _P_CARDS_BY[by]] += _SIXTH
            label = entry["label"]
            if label is None:
                if by >= 0:
                    v[row + _P_UNKNOWN_BY[by]] += _SIXTH
                if entry["claim"]:
                    v[row + _P_CLAIM[entry["claim"]]] += _SIXTH
                continue
            at = ids[label] * width
            v[at + (up_at if entry["face_up"] else down_at)] = 1.0
            controller = entry["controller"]
            if controller is not None and controller >= 0:
                v[at + _C_CONTROLLER[rel[controller]]] = 1.0
            if entry["resolved"]:
                v[at + _C_RESOLVED] = 1.0
        for label in planet["discarded"]:
            if label is not None:
                v[ids[label] * width + _C_DISCARDED] = 1.0
    t = _CARD_BLOCK + _PLANET_BLOCK
    v[t + _T_PLAYERS[n]] = 1.0
    v[t + _T_PHASE[view["phase"]]] = 1.0
    v[t + _T_ROUND] = view["round"] / 10.0
    if view["direction"] == "left":
        v[t + _T_LEFT] = 1.0
    v[t + _T_FIRST[rel[view["first_player"]]]] = 1.0
    if view["turn"] is not None and view["turn"] >= 0:
        v[t + _T_TURN[rel[view["turn"]]]] = 1.0
    scores, hand_sizes, drafted = view["scores"], view["hand_sizes"], view["drafted_counts"]
    has_prisoner, captured = view["has_prisoner"], view["captured"]
    for seat in range(n):
        r = rel[seat]
        v[t + _T_FACTION[r, factions[seat]]] = 1.0
        v[t + _T_VP[r]] = scores[seat]["vp"] / 20.0
        v[t + _T_CASUALTIES[r]] = scores[seat]["casualties"] / 3.0
        v[t + _T_HAND[r]] = hand_sizes[seat] / 10.0
        v[t + _T_DRAFTED[r]] = drafted[seat] / 10.0
        if has_prisoner[seat]:
            v[t + _T_HAS_PRISONER[r]] = 1.0
        if captured[seat]:
            v[t + _T_CAPTURED[r]] = 1.0
    if view["messenger"] is not None and view["messenger"] >= 0:
        v[t + _T_MESSENGER[rel[view["messenger"]]]] = 1.0
    if view["poison"] is not None and view["poison"] >= 0:
        v[t + _T_POISON[rel[view["poison"]]]] = 1.0
    if view["pick_count"] in (1, 2):
        v[t + _T_PICK[view["pick_count"]]] = 1.0
    v[t + _T_DECK] = view["deck_size"] / 48.0
    obs[list(v)] = list(v.values())
    decision = view["decision"]
    if decision is not None:
        kind_at = _T_DECISION.get(decision["kind"])
        if kind_at is None:
            raise EncodingError(f"decision kind {decision['kind']!r} is not in the encoding")
        obs[t + kind_at] = 1.0
        options_v = obs[t + _TABLE_BLOCK:].reshape(MAX_OPTIONS, len(OPTION_FEATURES))
        _encode_options(decision["options"], options_v, rel, factions,
                        [planet["name"] for planet in view["planets"]])
    np.minimum(obs, 1.0, out=obs)  # long games and crowded planets pass the scales' ends
    return obs


def _encode_options(options: Sequence[str], out: np.ndarray, rel: list[int],
                    factions: Sequence[str], planet_names: list[str]) -> None:
    """What each option of a decision names: a word, a planet, a card (its kind and owner)
    or a slot (Whispered Secrets)."""
    for k, option in enumerate(options[:MAX_OPTIONS]):
        row = out[k]
        row[_OF["present"]] = 1.0
        if option in _WORD_INDEX:
            row[_OF[f"word_{option}"]] = 1.0
        elif option in planet_names:
            row[_OF[f"planet{planet_names.index(option)}"]] = 1.0
        elif option in _ID_OF_LABEL:
            cid = _ID_OF_LABEL[option]
            row[_OF[f"kind_{CARD_KINDS[_KIND_OF_CARD[cid]]}"]] = 1.0
            faction = _FACTION_OF_CARD[cid]
            if faction is not None and faction in factions:
                row[_OF[f"owner{rel[list(factions).index(faction)]}"]] = 1.0
        else:
            row[_OF["slot"]] = 1.0


def mask_of(indices: Sequence[int]) -> np.ndarray:
    """An int8 mask of ``ACTION_SIZE`` with the legal indices set."""
    mask = np.zeros(ACTION_SIZE, dtype=np.int8)
    # an index array from an iterator: numpy converts a list item by item, as scalars
    mask[np.fromiter(indices, np.intp, len(indices))] = 1
    return mask
