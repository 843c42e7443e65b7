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

from collections.abc import Sequence
from itertools import combinations
from typing import Any

import numpy as np

from engine.actions import CLAIMS, Action, Capture, Choose, Discard, Dispatch, Pick
from engine.cards import CARD_BY_LABEL, CARDS, FACTIONS, PLANETS, TYPES

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
_PHASE_INDEX = {p: i for i, p in enumerate(PHASES)}
_KIND_INDEX = {k: i for i, k in enumerate(DECISION_KINDS)}
_WORD_INDEX = {w: i for i, w in enumerate(WORDS)}


def observation_layout() -> list[tuple[str, int, int]]:
    """(block, offset, size) of the observation's four blocks, for docs and tests."""
    return [("cards", 0, _CARD_BLOCK), ("planets", _CARD_BLOCK, _PLANET_BLOCK),
            ("table", _CARD_BLOCK + _PLANET_BLOCK, _TABLE_BLOCK),
            ("options", _CARD_BLOCK + _PLANET_BLOCK + _TABLE_BLOCK, _OPTION_BLOCK)]


def encode_view(view: dict[str, Any], out: np.ndarray | None = None) -> np.ndarray:
    """The seat's view as a float32 vector of ``OBS_SIZE`` (values in [0, 1])."""
    obs = np.zeros(OBS_SIZE, dtype=np.float32) if out is None else out
    if out is not None:
        obs[:] = 0.0
    me, n = view["seat"], view["players"]
    factions = view["factions"]
    # seat -> its offset from me (0 = me)
    rel = [(seat - me) % n for seat in range(n)]
    width = len(CARD_FEATURES)
    cards = obs[:_CARD_BLOCK].reshape(N_CARDS, width)
    planets_v = obs[_CARD_BLOCK:_CARD_BLOCK + _PLANET_BLOCK].reshape(MAX_PLANETS,
                                                                     len(PLANET_FEATURES))
    table = obs[_CARD_BLOCK + _PLANET_BLOCK:_CARD_BLOCK + _PLANET_BLOCK + _TABLE_BLOCK]
    options_v = obs[_CARD_BLOCK + _PLANET_BLOCK + _TABLE_BLOCK:].reshape(MAX_OPTIONS,
                                                                         len(OPTION_FEATURES))
    ids = _ID_OF_LABEL
    for label in view["known"].values():
        cards[ids[label], _CF["known_elsewhere"]] = 1.0
    for entry in view["hand"]:
        cards[ids[entry["label"]], _CF["my_hand"]] = 1.0
    for entry in view["drafted"]:
        if entry["label"] is not None:
            cards[ids[entry["label"]], _CF["my_drafted"]] = 1.0
    prisoner = view["prisoner"]
    if prisoner is not None and prisoner["label"] is not None:
        cards[ids[prisoner["label"]], _CF["my_prisoner"]] = 1.0
    for claim in view["claims"]:
        cards[_EVENT_ID[claim["event"]], _CF["claimed_event"]] = 1.0
    in_game_factions = set(factions)
    events = set(view["events_in_play"])
    for card in CARDS:
        if card.faction in in_game_factions or (card.faction is None and card.name in events):
            cards[card.id, _CF["in_game"]] = 1.0
    for p, planet in enumerate(view["planets"]):
        row = planets_v[p]
        row[_PF["exists"]] = 1.0
        row[_PF["vp"]] = planet["vp"] / 10.0
        row[_PF["limit"]] = (planet["limit"] / 6.0) if planet["limit"] is not None else 0.0
        row[_PF["vision_face_up"]] = float(planet["vision_face_up"])
        row[_PF["sentry"]] = float(planet["sentry"])
        row[_PF["name_" + planet["name"]]] = 1.0
        if planet["strongest"] is not None:
            row[_PF["started"]] = 1.0
            row[_PF[f"strongest{rel[planet['strongest']]}"]] = 1.0
        if planet["favored"] is not None:
            row[_PF[f"favored{rel[planet['favored']]}"]] = 1.0
        for entry in planet["cards"]:
            by = rel[entry["dispatcher"]] if entry["dispatcher"] >= 0 else None
            if by is not None:
                row[_PF[f"cards_by{by}"]] += 1.0 / 6.0
            label = entry["label"]
            if label is None:
                if by is not None:
                    row[_PF[f"unknown_by{by}"]] += 1.0 / 6.0
                if entry["claim"]:
                    row[_PF["unknown_claim_" + entry["claim"]]] += 1.0 / 6.0
                continue
            c = cards[ids[label]]
            c[_CF[("planet%d_face_up" if entry["face_up"] else "planet%d_face_down") % p]] = 1.0
            if entry["controller"] is not None and entry["controller"] >= 0:
                c[_CF[f"controller{rel[entry['controller']]}"]] = 1.0
            if entry["resolved"]:
                c[_CF["resolved"]] = 1.0
        for label in planet["discarded"]:
            if label is not None:
                cards[ids[label], _CF["discarded"]] = 1.0
    t = table
    t[_TF[f"players{n}"]] = 1.0
    t[_TF["phase_" + view["phase"]]] = 1.0
    t[_TF["round"]] = view["round"] / 10.0
    t[_TF["direction_left"]] = float(view["direction"] == "left")
    t[_TF[f"first_player{rel[view['first_player']]}"]] = 1.0
    if view["turn"] is not None and view["turn"] >= 0:
        t[_TF[f"turn{rel[view['turn']]}"]] = 1.0
    for seat in range(n):
        r = rel[seat]
        t[_TF[f"faction{r}_{factions[seat]}"]] = 1.0
        score = view["scores"][seat]
        t[_TF[f"vp{r}"]] = score["vp"] / 20.0
        t[_TF[f"casualties{r}"]] = score["casualties"] / 3.0
        t[_TF[f"hand_size{r}"]] = view["hand_sizes"][seat] / 10.0
        t[_TF[f"drafted{r}"]] = view["drafted_counts"][seat] / 10.0
        t[_TF[f"has_prisoner{r}"]] = float(view["has_prisoner"][seat])
        t[_TF[f"captured{r}"]] = float(view["captured"][seat])
    if view["messenger"] is not None and view["messenger"] >= 0:
        t[_TF[f"messenger{rel[view['messenger']]}"]] = 1.0
    if view["poison"] is not None and view["poison"] >= 0:
        t[_TF[f"poison{rel[view['poison']]}"]] = 1.0
    if view["pick_count"] in (1, 2):
        t[_TF[f"pick_count{view['pick_count']}"]] = 1.0
    t[_TF["deck_size"]] = view["deck_size"] / 48.0
    decision = view["decision"]
    if decision is not None:
        t[_TF["decision_" + decision["kind"]]] = 1.0
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
            if faction in factions:
                row[_OF[f"owner{rel[list(factions).index(faction)]}"]] = 1.0
        else:
            row[_OF["slot"]] = 1.0


def mask_of(indices: Sequence[int]) -> np.ndarray:
    """An int8 mask of ``ACTION_SIZE`` with the legal indices set."""
    mask = np.zeros(ACTION_SIZE, dtype=np.int8)
    mask[list(indices)] = 1
    return mask
