"""``encode_view(view(s, seat))`` and ``legal_indices`` read straight from the state.

The environments encode an observation and number the legal actions at every step; building
the view dict first (every planet's cards as dicts, the legal actions' texts) and reading it
back cost more than the rest of the step. ``engine.features`` reads the same facts from the
state at C speed (in the compiled engine), the way ``engine.view.view`` derives them, into
this module's ``LAYOUT`` of ``bots.rl.encoding``'s positions, so the arrays and indices are the
same, entry for entry (``tests/test_rl_encoding.py`` compares them over random games).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from bots.rl import encoding as enc
from engine.actions import Action
from engine.cards import CARDS, PLANETS
from engine.features import Layout, action_numbers, seat_features
from engine.resolution import decision_options
from engine.state import GameState


def _layout() -> Layout:
    L = Layout()
    L.card_width = len(enc.CARD_FEATURES)
    L.c_known, L.c_hand, L.c_drafted = enc._C_KNOWN, enc._C_HAND, enc._C_DRAFTED
    L.c_prisoner, L.c_claimed, L.c_in_game = enc._C_PRISONER, enc._C_CLAIMED, enc._C_IN_GAME
    L.c_discarded, L.c_resolved = enc._C_DISCARDED, enc._C_RESOLVED
    L.c_up, L.c_down, L.c_controller = list(enc._C_UP), list(enc._C_DOWN), \
        list(enc._C_CONTROLLER)
    L.event_column = [enc._EVENT_ID.get(card.name, -1) if card.faction is None else -1
                      for card in CARDS]
    L.planet_block, L.planet_width = enc._CARD_BLOCK, len(enc.PLANET_FEATURES)
    L.p_exists, L.p_vp, L.p_limit = enc._P_EXISTS, enc._P_VP, enc._P_LIMIT
    L.p_vision, L.p_sentry, L.p_started = enc._P_VISION, enc._P_SENTRY, enc._P_STARTED
    L.p_name = dict(enc._P_NAME)
    L.p_vp_value = {name: PLANETS[name].vp / 10.0 for name in enc.PLANET_NAMES}
    L.p_strongest, L.p_favored = list(enc._P_STRONGEST), list(enc._P_FAVORED)
    L.p_cards_by, L.p_unknown_by = list(enc._P_CARDS_BY), list(enc._P_UNKNOWN_BY)
    L.p_claim = dict(enc._P_CLAIM)
    t = enc._CARD_BLOCK + enc._PLANET_BLOCK  # the table's features are absolute positions

    def at(table: Sequence[int]) -> list[int]:
        return [t + i for i in table]

    L.t_players = {k: t + i for k, i in enc._T_PLAYERS.items()}
    L.t_phase = {k: t + i for k, i in enc._T_PHASE.items()}
    L.t_round, L.t_left, L.t_deck = t + enc._T_ROUND, t + enc._T_LEFT, t + enc._T_DECK
    L.t_first, L.t_turn = at(enc._T_FIRST), at(enc._T_TURN)
    L.t_faction = {k: t + i for k, i in enc._T_FACTION.items()}
    L.t_vp, L.t_casualties = at(enc._T_VP), at(enc._T_CASUALTIES)
    L.t_hand, L.t_drafted = at(enc._T_HAND), at(enc._T_DRAFTED)
    L.t_has_prisoner, L.t_captured = at(enc._T_HAS_PRISONER), at(enc._T_CAPTURED)
    L.t_messenger, L.t_poison = at(enc._T_MESSENGER), at(enc._T_POISON)
    L.t_pick = {k: t + i for k, i in enc._T_PICK.items()}
    L.sixth = enc._SIXTH
    L.a_pick1, L.a_pick2 = enc.OFFSET["pick1"], enc.OFFSET["pick2"]
    L.a_dispatch, L.a_capture = enc.OFFSET["dispatch"], enc.OFFSET["capture"]
    L.a_discard, L.a_choose = enc.OFFSET["discard"], enc.OFFSET["choose"]
    L.a_planets, L.a_claims, L.a_options = enc.MAX_PLANETS, enc.N_CLAIMS, enc.MAX_OPTIONS
    L.claim_number = dict(enc.CLAIM_INDEX)
    L.pair_number = dict(enc._PAIR_INDEX)
    return L


LAYOUT = _layout()


def encode_state(s: GameState, seat: int, out: np.ndarray | None = None) -> np.ndarray:
    """The observation of ``seat`` on ``s``: what ``encode_view(view(s, seat))`` returns."""
    obs = np.zeros(enc.OBS_SIZE, dtype=np.float32) if out is None else out
    if out is not None:
        obs[:] = 0.0
    config = s.config
    try:
        ones, at, values = seat_features(s, seat, LAYOUT,
                                         enc._in_game(config.factions, config.events))
    except ValueError as exc:
        raise enc.EncodingError(str(exc)) from None
    obs[np.fromiter(ones, np.intp, len(ones))] = 1.0
    obs[np.fromiter(at, np.intp, len(at))] = np.fromiter(values, np.float32, len(values))
    decision = s.decision
    if decision is not None and decision.seat == seat:
        t = enc._CARD_BLOCK + enc._PLANET_BLOCK
        kind_at = enc._T_DECISION.get(decision.kind)
        if kind_at is None:
            raise enc.EncodingError(f"decision kind {decision.kind!r} is not in the encoding")
        obs[t + kind_at] = 1.0
        options_v = obs[t + enc._TABLE_BLOCK:].reshape(enc.MAX_OPTIONS,
                                                       len(enc.OPTION_FEATURES))
        enc._encode_options(list(decision_options(s, decision)), options_v,
                            [(other - seat) % s.n for other in range(s.n)],
                            list(config.factions), list(config.planets))
    return obs  # every value at most 1 (seat_features clips; an option's marks are ones)


def plain_features(s: GameState, seat: int) -> tuple[list[int], list[int], list[float]] | None:
    """``encode_state``'s entries as ``seat_features`` gives them (the positions of the
    ones, then positions and values), or None when the seat has a decision pending (its
    kind and options are written by ``encode_state`` alone)."""
    decision = s.decision
    if decision is not None and decision.seat == seat:
        return None
    config = s.config
    try:
        return seat_features(s, seat, LAYOUT, enc._in_game(config.factions, config.events))
    except ValueError as exc:
        raise enc.EncodingError(str(exc)) from None


def state_indices(s: GameState, seat: int, legal: Sequence[Action]) -> list[int]:
    """``encoding.state_legal_indices``: the index of each legal action of ``seat``."""
    try:
        return action_numbers(s, seat, legal, LAYOUT)
    except ValueError as exc:
        raise enc.EncodingError(str(exc)) from None
