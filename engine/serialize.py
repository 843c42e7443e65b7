"""Canonical serialization of a state (round-trips) and its hash.

``state_to_dict`` is plain data; ``canonical_json`` of it is the byte form. ``public_hash`` hashes
the state without the card values, so that peers who know different secrets still agree on it:
peers compare it at every stage.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from engine.canonical import canonical_json
from engine.config import GameConfig
from engine.draft import undo_picks
from engine.state import Decision, GameState, Phase, StepCall

_LISTS = ("card_of", "known", "face_up", "dispatcher", "claim", "claim_vision", "controller",
          "resolved", "claimer", "deck", "hands", "drafted", "planets", "prisoner", "discard",
          "leftovers", "vp", "casualties", "quota", "captured", "vision_up", "planet_started",
          "stopped", "duchess_scored", "planet_discarded", "awaiting")
_SCALARS = ("first_player", "round", "direction", "first_pick", "turn", "sentry_planet",
            "omniscient")


def _step(value: StepCall | None) -> list[Any] | None:
    return None if value is None else list(value)


def state_to_dict(s: GameState) -> dict[str, Any]:
    data: dict[str, Any] = {"config": s.config.to_dict(), "phase": s.phase.value}
    for name in _LISTS:
        data[name] = getattr(s, name)
    for name in _SCALARS:
        data[name] = getattr(s, name)
    data["claims"] = [list(c) for c in s.claims]
    data["picks"] = [None if p is None else list(p) for p in s.picks]
    data["initial_sf"] = [list(x) for x in s.initial_sf]
    data["step"] = _step(s.step)
    data["chance"] = None if s.chance is None else list(s.chance)
    d = s.decision
    data["decision"] = None if d is None else {
        "seat": d.seat, "kind": d.kind, "options": list(d.options), "default": d.default,
        "prompt": d.prompt, "then": list(d.then)}
    return data


def state_from_dict(data: dict[str, Any], *, keep_log: bool = True) -> GameState:
    s = GameState(GameConfig.from_dict(data["config"]), keep_log=keep_log)
    s.phase = Phase(data["phase"])
    for name in _LISTS:
        value = data[name]
        setattr(s, name, [v[:] if isinstance(v, list) else v for v in value])
    for name in _SCALARS:
        setattr(s, name, data[name])
    s.claims = [tuple(c) for c in data["claims"]]
    s.picks = [None if p is None else tuple(p) for p in data["picks"]]
    s.initial_sf = [tuple(x) for x in data["initial_sf"]]
    s.step = None if data["step"] is None else tuple(data["step"])
    s.chance = None if data["chance"] is None else tuple(data["chance"])
    d = data["decision"]
    s.decision = None if d is None else Decision(
        d["seat"], d["kind"], tuple(d["options"]), d["default"], d["prompt"], tuple(d["then"]))
    return s


def state_bytes(s: GameState) -> bytes:
    return canonical_json(state_to_dict(s))


# Per-slot lists: one entry per slot ever used (retired slots included), so they grow all game
# while a stage changes few of them. Their JSON text is kept with a private copy of the list
# it encodes, and reused while the list is equal to that copy (the bytes are the same either
# way; comparing is much cheaper than encoding). Every entry is a flat scalar.
_PER_SLOT = frozenset(("known", "face_up", "dispatcher", "claim", "claim_vision", "controller",
                       "resolved", "claimer"))
_encode = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                           allow_nan=False).encode
_slot_text: dict[str, tuple[list[int], str]] = {}


def _per_slot_text(name: str, value: list[int]) -> str:
    known = _slot_text.get(name)
    if known is not None and known[0] == value:
        return known[1]
    text = _encode(value)
    _slot_text[name] = (value[:], text)
    return text


def public_hash(s: GameState) -> str:
    """SHA-256 (hex) of the public part of the state: everything but the card values and the
    pending secret draft picks. Peers who know different cards agree on it; the card values
    themselves are bound by the deck protocol, and a card being opened is known to some peers
    a moment before the others."""
    if any(made is not None for made in s.picks):
        # a pick of this pick round counts as not yet made (its cards still in the hand): a
        # peer knows only its own (ruling 38)
        s = s.clone()
        undo_picks(s)
    public = state_to_dict(s)
    for name in ("card_of", "omniscient", "picks"):
        public.pop(name)
    # The bytes of ``canonical_json(public)``, written key by key (sorted) without its type
    # check: a state holds only integers, strings, booleans, None and lists, and this runs at
    # every stage of a networked game on every peer.
    text = ",".join(
        f"{_encode(name)}:{_per_slot_text(name, value) if name in _PER_SLOT else _encode(value)}"
        for name, value in sorted(public.items()))
    return hashlib.sha256(b"solstice/state/v1\x00{" + text.encode() + b"}").hexdigest()
