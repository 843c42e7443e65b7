"""Perfect-recall information states: the record of what one seat has seen, when, and what it
did (numpy only).

The observation (``bots.rl.encoding.encode_view``) is a snapshot: a card the seat saw in a
hand it passed, or face up before it went back under the deck, is gone from it. A ``Recall``
keeps every view the seat was shown, in order, with its own actions between them.

Views are made *canonical* first (``canonical_view``): slot numbers are bookkeeping, and a
relabelled hand's fresh slots follow its holder's secret order, so two histories the seat
cannot tell apart may show different slots. The canonical view names cards by label only,
lists a hand sorted, and writes a slot option (Whispered Secrets) as its rank among the
slot options. Whatever the seat cannot tell apart gives one record.

``Recall.string()`` is the whole record as text (each view as the keys that changed since
the one before, as JSON, and ``act N`` for the seat's own actions); ``Recall.tensor()`` is
the current observation followed by a fixed-size memory per card id (``RECALL_FEATURES``):
whether, when and where the seat last saw it, and what the seat itself did with it.

The record is kept from the states themselves (``see_sight``: ``engine.sight`` reads each
state once for every seat and each seat's own knowledge from it, and writes only what
changed); ``see`` takes a view dict, made canonical here (``canonical_view``), for the same
record (``tests/test_rl_recall_fast.py`` checks them against records made from the views).
"""

from __future__ import annotations

import json
import struct
from typing import Any

import numpy as np

from bots.rl import encoding as enc
from bots.rl.state_encoding import encode_state, plain_features
from engine import sight
from engine.cards import CARDS
from engine.features import scatter, scatter_same
from engine.state import GameState

_DROP = ("log", "legal")  # the log names slots; the legal actions follow from the rest
_ID = {card.label: card.id for card in CARDS}


def _labels(entries: list[dict[str, Any]]) -> list[str]:
    return sorted(entry["label"] or "?" for entry in entries)


def canonical_view(view: dict[str, Any]) -> dict[str, Any]:
    """``view`` without slot numbers, in an order no secret relabel order decides."""
    out = {key: value for key, value in view.items() if key not in _DROP}
    out["hand"] = _labels(view["hand"])
    out["drafted"] = _labels(view["drafted"])
    prisoner = view["prisoner"]
    out["prisoner"] = None if prisoner is None else prisoner["label"] or "?"
    out["known"] = sorted(view["known"].values())
    # a planet's cards stay in the order they were dispatched (public); only slots go
    out["planets"] = [{**planet, "cards": [{k: v for k, v in card.items() if k != "slot"}
                                           for card in planet["cards"]]}
                      for planet in view["planets"]]
    decision = view["decision"]
    if decision is not None:
        slots = sorted(int(o) for o in decision["options"] if o.isdigit())
        rank = {str(x): f"slot#{i}" for i, x in enumerate(slots)}
        card = decision["card"]
        out["decision"] = {**decision,
                           "options": [rank.get(o, o) for o in decision["options"]],
                           "default": rank.get(decision["default"], decision["default"]),
                           "card": None if card is None else card["label"] or "?"}
    return out


# --- the memory per card id ------------------------------------------------------------------

_PLACES: tuple[str, ...] = (
    "my_hand", "my_drafted", "my_prisoner", "discarded",
    *(f"planet{p}_face_up" for p in range(enc.MAX_PLANETS)),
    *(f"planet{p}_face_down" for p in range(enc.MAX_PLANETS)),
    "elsewhere")  # known, but in none of the places above (a hand I passed, a Vision, ...)
RECALL_FEATURES: tuple[str, ...] = (
    "seen", "gone", "first_seen_round", "last_seen_round",
    *(f"last_seen_{place}" for place in _PLACES),
    "i_picked", *(f"i_dispatched_to_planet{p}" for p in range(enc.MAX_PLANETS)),
    "i_captured", "i_discarded")
_RF = {name: i for i, name in enumerate(RECALL_FEATURES)}
_PLACE_AT = {place: _RF[f"last_seen_{place}"] for place in _PLACES}
_SEEN, _GONE = _RF["seen"], _RF["gone"]
_FIRST, _LAST = _RF["first_seen_round"], _RF["last_seen_round"]
# the places in the order of engine.sight's place codes (PLACE_HAND .. PLACE_ELSEWHERE, then
# planet p face up at PLACE_UP + 2p and face down at PLACE_DOWN + 2p)
_PLACE_OF_CODE: tuple[str, ...] = (
    "my_hand", "my_drafted", "my_prisoner", "discarded", "elsewhere",
    *(f"planet{p}_{side}" for p in range(enc.MAX_PLANETS) for side in ("face_up", "face_down")))
_PLACE_CODE = {place: code for code, place in enumerate(_PLACE_OF_CODE)}
_COLUMN_LIST = [_PLACE_AT[place] for place in _PLACE_OF_CODE]  # place code -> memory column
_DUMPS = json.JSONEncoder(sort_keys=True, separators=(",", ":")).encode
RECALL_SIZE = enc.N_CARDS * len(RECALL_FEATURES)
INFO_STATE_SIZE = enc.OBS_SIZE + RECALL_SIZE


def info_state_names() -> list[str]:
    """The name of every index of the information state tensor: the observation's
    (``encoding.observation_names``), then ``recall:<label>:<feature>``."""
    return enc.observation_names() + [f"recall:{card.label}:{feature}" for card in CARDS
                                      for feature in RECALL_FEATURES]


def _places(view: dict[str, Any]) -> dict[int, str]:
    """card id -> where this view shows it (the first place that names it)."""
    seen: dict[int, str] = {}
    for entry in view["hand"]:
        seen.setdefault(_ID[entry["label"]], "my_hand")
    for entry in view["drafted"]:
        if entry["label"] is not None:
            seen.setdefault(_ID[entry["label"]], "my_drafted")
    if view["prisoner"] is not None and view["prisoner"]["label"] is not None:
        seen.setdefault(_ID[view["prisoner"]["label"]], "my_prisoner")
    for p, planet in enumerate(view["planets"]):
        for card in planet["cards"]:
            if card["label"] is not None:
                side = "face_up" if card["face_up"] else "face_down"
                seen.setdefault(_ID[card["label"]], f"planet{p}_{side}")
        for label in planet["discarded"]:
            if label is not None:
                seen.setdefault(_ID[label], "discarded")
    for label in view["known"].values():
        seen.setdefault(_ID[label], "elsewhere")
    return seen


class Recall:
    """One seat's record: ``see_sight`` every state of a trail it is shown (or ``see`` its
    view of a state), ``act`` each of its own actions."""

    __slots__ = ("_entries", "_mine", "_mine_at", "_now_state", "_now_view", "_pending",
                 "_record", "_text", "seat")

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self._entries: list[str] = []
        # What the entries have yet to take in, in order: states shown (their entries are
        # written when the string is read: the tensor, read at every step, needs only the
        # places of the cards, a tenth of the cost) and the text of the seat's own actions.
        self._pending: list[sight.Sight | str] = []
        # the last values shown, and where and when each card was seen (engine.sight)
        self._record = sight.Record(seat)
        self._mine = np.zeros((enc.N_CARDS, len(RECALL_FEATURES)), np.float32)
        self._mine_at: list[int] = []  # the positions of ``_mine``'s ones, flat
        # what the seat is shown now: a state (``see_sight``) or its view (``see``)
        self._now_state: GameState | None = None
        self._now_view: dict[str, Any] | None = None
        self._text: str | None = None  # string(), kept until the record grows

    def see_sight(self, shown: sight.Sight) -> None:
        """The seat is shown its view of ``shown.state``: what ``see(view(state, seat))``
        records, read from the state and from what the trail's states share
        (``engine.sight``)."""
        self._record.note_places(shown)
        self._pending.append(shown)
        self._text = None
        self._now_state = shown.state
        self._now_view = None

    def note_places(self, shown: sight.Sight) -> None:
        """``see_sight`` for the tensor alone: the places of the cards of ``shown.state``
        (the memory block) and the state as the current one, which may go on changing (the
        holder's live state: the tensor reads it as it is when asked). No entry is kept for
        the string: a holder that notes places must not ask for this record's string (the
        OpenSpiel game replaces its records first)."""
        self._record.note_places(shown)
        self._now_state = shown.state
        self._now_view = None

    def follow(self, s: GameState) -> None:
        """The current state is ``s`` (a copied holder's own live state, for ``note_places``),
        where the record has been shown one."""
        if self._now_state is not None:
            self._now_state = s

    def see_state(self, s: GameState) -> None:
        """``see_sight`` of a state alone (``s`` must not change afterwards)."""
        self.see_sight(sight.Sight(s, None))

    def see(self, view: dict[str, Any]) -> None:
        """The seat is shown ``view`` (its own view, as every bot gets it): the reference
        ``see_sight`` is checked against (``tests/test_rl_recall_fast.py``)."""
        self.flush()
        flat = canonical_view(view)
        # one key per planet, so that an entry holds the planet that changed, not all five
        for p, planet in enumerate(flat.pop("planets")):
            flat[f"planet{p}"] = planet
        record = self._record
        last = record.values
        # compared as values (cheap) and written as JSON only where they changed (one JSON
        # object of them, its keys sorted: what writing each key's JSON in turn gives)
        changed = {key: value for key, value in flat.items()
                   if key not in last or last[key] != value}
        if changed:
            self._entries.append("see " + _DUMPS(changed))
            record.values = flat
            self._text = None
        record.last = None  # the next sight compares every key
        rnd = view["round"]
        places = _places(view)
        for cid, place in places.items():
            if record.first[cid] < 0:
                record.first[cid] = rnd
            record.latest[cid] = rnd
            record.place[cid] = _PLACE_CODE[place]
        record.now = list(places)
        self._now_view = view
        self._now_state = None

    def act(self, index: int) -> None:
        """The seat played the action of this index (``bots.rl.encoding``)."""
        self._pending.append(f"act {index}")
        self._text = None
        name, at = _range_of(index)
        i = index - at
        if name == "pick1":
            self._mark(i, _RF["i_picked"])
        elif name == "pick2":
            for cid in enc._PAIRS[i]:
                self._mark(cid, _RF["i_picked"])
        elif name == "dispatch":
            cid, rest = divmod(i, enc.MAX_PLANETS * enc.N_CLAIMS)
            self._mark(cid, _RF[f"i_dispatched_to_planet{rest // enc.N_CLAIMS}"])
        elif name == "capture":
            self._mark(i, _RF["i_captured"])
        elif name == "discard":
            self._mark(i, _RF["i_discarded"])

    def _mark(self, cid: int, column: int) -> None:
        self._mine[cid, column] = 1.0
        self._mine_at.append(cid * len(RECALL_FEATURES) + column)

    @property
    def entries(self) -> list[str]:
        """The record's entries, in order (``string`` without its first line)."""
        self.flush()
        return self._entries

    def flush(self) -> None:
        """Write the entries still pending, in order: a holder that does not keep the states
        it showed (``Table``) calls it so that the record does not keep them either."""
        pending = self._pending
        if pending:
            self._pending = []
            entries, record = self._entries, self._record
            for item in pending:
                if isinstance(item, str):
                    entries.append(item)
                else:
                    entry = record.entry(item)
                    if entry is not None:
                        entries.append(entry)

    def string(self) -> str:
        self.flush()
        if self._text is None:
            self._text = f"seat {self.seat}\n" + "\n".join(self.entries)
        return self._text

    def memory(self, out: np.ndarray | None = None) -> np.ndarray:
        """The memory block alone (``RECALL_SIZE`` values in [0, 1])."""
        block = self._mine.copy() if out is None else out
        if out is not None:
            block[:] = self._mine
        at, values = self._record.memory_entries(len(RECALL_FEATURES), _COLUMN_LIST, _SEEN,
                                                  _GONE, _FIRST, _LAST)
        # at once (item assignment on a numpy array costs a call each)
        block.reshape(RECALL_SIZE)[np.fromiter(at, np.intp, len(at))] = \
            np.fromiter(values, np.float64, len(values))
        return block.reshape(RECALL_SIZE)

    def tensor(self, out: np.ndarray | None = None) -> np.ndarray:
        """The current observation, then the memory (``INFO_STATE_SIZE`` values)."""
        vec = np.zeros(INFO_STATE_SIZE, np.float32) if out is None else out
        if self._now_state is not None:
            encode_state(self._now_state, self.seat, out=vec[:enc.OBS_SIZE])
        elif self._now_view is not None:
            enc.encode_view(self._now_view, out=vec[:enc.OBS_SIZE])
        else:
            vec[:] = 0.0
            return vec
        self.memory(out=vec[enc.OBS_SIZE:].reshape(enc.N_CARDS, len(RECALL_FEATURES)))
        return vec

    def tensor_list(self) -> list[float]:
        """``tensor().tolist()``, made as a list of its non-zero values over zeros without
        the array (OpenSpiel's tensors are lists): numpy's fills, index arrays and
        ``tolist`` cost more than the values. Each value is rounded to float32 as the array
        rounds it (``_float32``). A pending decision's options are written by the array's
        path."""
        s = self._now_state
        plain = None if s is None else plain_features(s, self.seat)
        if plain is None:  # a view, nothing shown yet, or the seat's decision pending
            tensor = self.tensor()
            out = [0.0] * INFO_STATE_SIZE
            where = tensor.view(np.uint32).nonzero()[0]  # the bits: -0.0 is written too
            scatter(out, where.tolist(), tensor[where].tolist(), 0)
            return out
        ones, at, values = plain
        out = [0.0] * INFO_STATE_SIZE
        # in the array's order: the observation's ones, then its values; the memory's ones
        # (the seat's own actions), then its entries (a later write wins, as it does there)
        scatter_same(out, ones, 1.0, 0)
        scatter(out, at, _float32(values), 0)
        scatter_same(out, self._mine_at, 1.0, enc.OBS_SIZE)
        self._record.memory_into(out, enc.OBS_SIZE, len(RECALL_FEATURES), _COLUMN_LIST, _SEEN,
                                 _GONE, _FIRST, _LAST, _ROUND_VALUE)
        return out

    def copy(self) -> Recall:
        new = Recall.__new__(Recall)
        new.seat = self.seat
        new._entries = self._entries[:]
        new._pending = self._pending[:]  # states never changed once shown
        new._record = self._record.copy()
        new._mine = self._mine.copy()
        new._mine_at = self._mine_at[:]
        new._now_state = self._now_state  # never changed once shown
        new._now_view = self._now_view
        new._text = self._text
        return new

    def __deepcopy__(self, memo: dict[int, Any]) -> Recall:
        return self.copy()


_PACKERS: dict[int, struct.Struct] = {}  # per count of values: their C float layout


def _float32(values: list[float]) -> tuple[float, ...]:
    """``values`` rounded to float32, as a float32 array holds them (``pack`` rounds each to a
    C float, as numpy's cast does; a third of ``np.array(values, np.float32).tolist()``'s
    cost)."""
    packer = _PACKERS.get(len(values))
    if packer is None:
        packer = _PACKERS[len(values)] = struct.Struct(f"{len(values)}f")
    return packer.unpack(packer.pack(*values))


# a round's value in the memory (first and last seen), as the float32 tensor holds it
_ROUND_VALUE: list[float] = list(_float32([min(r / 10.0, 1.0) for r in range(64)]))


def _range_of(index: int) -> tuple[str, int]:
    for name, size in enc.RANGES:
        at = enc.OFFSET[name]
        if at <= index < at + size:
            return name, at
    raise enc.EncodingError(f"action index {index} is outside 0..{enc.ACTION_SIZE - 1}")
