"""A seat's knowledge as sparse numeric features, and its legal actions as numbers, at C speed.

Learning environments encode a seat's view into a fixed vector at every step; building the
view's dict (``engine.view.view``) and then reading it back costs more than the rest of the
step. ``seat_features`` reads the same facts straight from the state, the way ``view`` derives
them (a card counts as known to the seat only where ``known`` has its bit), and writes each
non-zero feature at the position a caller's ``Layout`` gives it; ``action_numbers`` numbers
legal actions by card id the same way. The engine knows no encoding: the layout (every
position, every table) is the caller's (``bots.rl.state_encoding`` fills one from
``bots.rl.encoding``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from engine.actions import Action, Capture, Choose, Discard, Dispatch, Pick
from engine.cards import PLANET_LIMIT
from engine.dispatch import planet_limit
from engine.draft import active_claim, must_pick
from engine.resolution import decision_options
from engine.state import GameState, Phase
from engine.strength import strongest_and_favored

_RESOLVE, _DISPATCH = Phase.RESOLVE, Phase.DISPATCH


class Layout:
    """Where each feature goes: absolute positions in the caller's vector, per-seat tuples
    indexed by a seat's offset from the observer (0: the observer), and the caller's tables.
    Every attribute is set by the caller before use."""

    def __init__(self) -> None:
        # per card id: its row is ``card_id * card_width``; the rest are column offsets
        self.card_width = 0
        self.c_known = self.c_hand = self.c_drafted = self.c_prisoner = 0
        self.c_claimed = self.c_in_game = self.c_discarded = self.c_resolved = 0
        self.c_up: list[int] = []          # per planet
        self.c_down: list[int] = []        # per planet
        self.c_controller: list[int] = []  # per seat offset
        self.event_column: list[int] = []  # per card id: the event's card id (-1 if none)
        # per planet: its row is ``planet_block + p * planet_width``; then column offsets
        self.planet_block = 0
        self.planet_width = 0
        self.p_exists = self.p_vp = self.p_limit = self.p_vision = 0
        self.p_sentry = self.p_started = 0
        self.p_name: dict[str, int] = {}
        self.p_vp_value: dict[str, float] = {}
        self.p_strongest: list[int] = []
        self.p_favored: list[int] = []
        self.p_cards_by: list[int] = []
        self.p_unknown_by: list[int] = []
        self.p_claim: dict[str, int] = {}
        # the table's features: absolute positions
        self.t_players: dict[int, int] = {}
        self.t_phase: dict[str, int] = {}
        self.t_round = self.t_left = self.t_deck = 0
        self.t_first: list[int] = []
        self.t_turn: list[int] = []
        self.t_faction: dict[tuple[int, str], int] = {}
        self.t_vp: list[int] = []
        self.t_casualties: list[int] = []
        self.t_hand: list[int] = []
        self.t_drafted: list[int] = []
        self.t_has_prisoner: list[int] = []
        self.t_captured: list[int] = []
        self.t_messenger: list[int] = []
        self.t_poison: list[int] = []
        self.t_pick: dict[int, int] = {}
        self.sixth = 1.0 / 6.0
        # action numbers
        self.a_pick1 = self.a_pick2 = self.a_dispatch = self.a_capture = 0
        self.a_discard = self.a_choose = 0
        self.a_planets = 0  # planets the dispatch range holds
        self.a_claims = 0
        self.a_options = 0  # options the choose range holds
        self.claim_number: dict[str, int] = {}
        self.pair_number: dict[tuple[int, int], int] = {}


def seat_features(s: GameState, seat: int, layout: Layout,
                  in_game: Sequence[int]) -> tuple[list[int], list[int], list[float]]:
    """Every non-zero feature of ``seat``'s view but its decision's options: the positions
    whose value is 1, then the other positions and their values (each at most 1). A position
    may be listed twice, with the same value. ``in_game``: the card ids of the game's
    factions and events."""
    # Flat lists, not a dict: a dict's inserts cost most of the time here. Only the counts of
    # cards on a planet add up, and they add up locally, in the order the view lists the
    # cards, so every sum is the view's sum.
    L = layout
    ones: list[int] = []
    at: list[int] = []
    value: list[float] = []
    n = s.n
    config = s.config
    factions = config.factions
    rel = [(other - seat) % n for other in range(n)]
    width = L.card_width
    bit = 1 << seat
    card_of, known = s.card_of, s.known
    hands, drafted, prisoner = s.hands, s.drafted, s.prisoner
    c_known = L.c_known
    for x in s.live_slots():
        if known[x] & bit:
            cid = card_of[x]
            if cid >= 0:
                ones.append(cid * width + c_known)
    for x in hands[seat]:
        cid = card_of[x] if known[x] & bit else -1
        if cid < 0:
            raise ValueError(f"seat {seat} does not know its card in slot {x}")
        ones.append(cid * width + L.c_hand)
    for x in drafted[seat]:
        cid = card_of[x] if known[x] & bit else -1
        if cid >= 0:
            ones.append(cid * width + L.c_drafted)
    mine = prisoner[seat]
    if mine >= 0 and known[mine] & bit and card_of[mine] >= 0:
        ones.append(card_of[mine] * width + L.c_prisoner)
    for claimed in s.claims:
        ones.append(L.event_column[card_of[claimed[0]]] * width + L.c_claimed)
    for cid in in_game:
        ones.append(cid * width + L.c_in_game)
    face_up, dispatcher, claim = s.face_up, s.dispatcher, s.claim
    controller, resolved = s.controller, s.resolved
    vision, discarded, started = s.vision_up, s.planet_discarded, s.planet_started
    resolving, sentry = s.phase is _RESOLVE, s.sentry_planet
    blockade = "Blockade" in config.events
    sixth = L.sixth
    names = config.planets
    planets = s.planets
    for p in range(len(planets)):
        name = names[p]
        row = L.planet_block + p * L.planet_width
        ones.append(row + L.p_exists)
        limit_known = True
        up_at, down_at = L.c_up[p], L.c_down[p]
        cards_by = [0.0] * n
        unknown_by = [0.0] * n
        claimed_as: dict[str, float] = {}
        for slot in planets[p]:
            up = face_up[slot]
            cid = card_of[slot] if known[slot] & bit else -1
            if cid < 0 and up:
                limit_known = False
            who = dispatcher[slot]
            by = rel[who] if who >= 0 else -1
            if by >= 0:
                cards_by[by] += sixth
            if cid < 0:
                if by >= 0:
                    unknown_by[by] += sixth
                said = claim[slot]
                if said:
                    claimed_as[said] = claimed_as.get(said, 0.0) + sixth
                continue
            card_row = cid * width
            ones.append(card_row + (up_at if up else down_at))
            if up and controller[slot] >= 0:
                ones.append(card_row + L.c_controller[rel[controller[slot]]])
            if resolved[slot]:
                ones.append(card_row + L.c_resolved)
        for by in range(n):
            if cards_by[by]:
                value.append(min(cards_by[by], 1.0))
                at.append(row + L.p_cards_by[by])
            if unknown_by[by]:
                value.append(min(unknown_by[by], 1.0))
                at.append(row + L.p_unknown_by[by])
        for said, total in claimed_as.items():
            value.append(min(total, 1.0))
            at.append(row + L.p_claim[said])
        value.append(min(L.p_vp_value[name], 1.0))
        at.append(row + L.p_vp)
        if limit_known:
            limit = planet_limit(s, p) if blockade else PLANET_LIMIT
            value.append(min(limit / 6.0, 1.0))
            at.append(row + L.p_limit)
        if vision[p]:
            ones.append(row + L.p_vision)
        if sentry == p:
            ones.append(row + L.p_sentry)
        ones.append(row + L.p_name[name])
        if resolving and started[p]:
            strongest, favored = strongest_and_favored(s, p)
            if strongest >= 0:
                ones.append(row + L.p_started)
                ones.append(row + L.p_strongest[rel[strongest]])
            if favored >= 0:
                ones.append(row + L.p_favored[rel[favored]])
        for x in discarded[p]:
            cid = card_of[x] if known[x] & bit else -1
            if cid >= 0:
                ones.append(cid * width + L.c_discarded)
    ones.append(L.t_players[n])
    # the member itself: a StrEnum's member is its value as a key (``.value`` is a Python
    # property call, a few microseconds from compiled code)
    ones.append(L.t_phase[s.phase])
    if s.direction == 1:
        ones.append(L.t_left)
    ones.append(L.t_first[rel[s.first_player]])
    if s.phase is _DISPATCH and s.turn >= 0:
        ones.append(L.t_turn[rel[s.turn]])
    picks, vp, casualties, captured = s.picks, s.vp, s.casualties, s.captured
    for other in range(n):
        r = rel[other]
        ones.append(L.t_faction[r, factions[other]])
        if prisoner[other] >= 0:
            ones.append(L.t_has_prisoner[r])
        if captured[other]:
            ones.append(L.t_captured[r])
    if s.claims:
        messenger, poison = active_claim(s, "Messenger"), active_claim(s, "Poison")
        if messenger >= 0:
            ones.append(L.t_messenger[rel[messenger]])
        if poison >= 0:
            ones.append(L.t_poison[rel[poison]])
    pick_count = must_pick(s, seat)
    if pick_count == 1 or pick_count == 2:
        ones.append(L.t_pick[pick_count])
    scaled: list[tuple[int, float]] = [
        (L.t_round, s.round / 10.0), (L.t_deck, len(s.deck) / 48.0)]
    for other in range(n):
        r = rel[other]
        made = picks[other]
        pending = len(made) // 2 if made is not None and other != seat else 0
        scaled.append((L.t_vp[r], vp[other] / 20.0))
        scaled.append((L.t_casualties[r], casualties[other] / 3.0))
        scaled.append((L.t_hand[r], (len(hands[other]) + pending) / 10.0))
        scaled.append((L.t_drafted[r], (len(drafted[other]) - pending) / 10.0))
    for position, figure in scaled:
        if figure:
            value.append(min(figure, 1.0))
            at.append(position)
    return ones, at, value


def action_numbers(s: GameState, seat: int, legal: Sequence[Action], layout: Layout) -> list[int]:
    """The number of each of ``seat``'s ``legal`` actions, by card id (the seat's own cards,
    which the state must know), as ``layout`` numbers them; a decision's option by its place
    among the options the seat may take (ruling 41)."""
    L = layout
    card_of = s.card_of
    decision = s.decision
    options: tuple[str, ...] = decision_options(s, decision) \
        if decision is not None and decision.seat == seat else ()
    hand = s.hands[seat]
    out: list[int] = []
    for action in legal:
        cls = action.__class__
        if cls is Dispatch:
            d = cast(Dispatch, action)
            if d.slot not in hand or not 0 <= d.planet < L.a_planets:
                raise ValueError(f"no number for {d!r}")
            out.append(L.a_dispatch + (card_of[d.slot] * L.a_planets + d.planet) * L.a_claims
                       + L.claim_number[d.claim])
        elif cls is Pick:
            pick = cast(Pick, action)
            slots = pick.slots
            if any(x not in hand for x in slots):
                raise ValueError(f"no number for {pick!r}")
            if len(slots) == 1:
                out.append(L.a_pick1 + card_of[slots[0]])
            else:
                a, b = card_of[slots[0]], card_of[slots[1]]
                out.append(L.a_pick2 + L.pair_number[(a, b) if a < b else (b, a)])
        elif cls is Capture:
            slot = cast(Capture, action).slot
            if slot not in hand:
                raise ValueError(f"no number for {action!r}")
            out.append(L.a_capture + card_of[slot])
        elif cls is Discard:
            slot = cast(Discard, action).slot
            if slot not in hand:
                raise ValueError(f"no number for {action!r}")
            out.append(L.a_discard + card_of[slot])
        elif cls is Choose:
            option = cast(Choose, action).option
            if option not in options or options.index(option) >= L.a_options:
                raise ValueError(f"no number for {action!r} among {len(options)} options")
            out.append(L.a_choose + options.index(option))
        else:
            raise ValueError(f"no number for {action!r}")
    return out


def scatter(out: list[Any], at: list[int], values: Sequence[Any], offset: int) -> None:
    """``out[offset + at[i]] = values[i]`` for each i, in order (a later position written
    twice wins, as numpy's assignment of an index array does). A tensor returned as a list
    is made of its few non-zero values over zeros: a Python loop of item assignments cost
    more than the values did, and numpy's ``tolist`` makes a float object for every entry.
    ``values`` are stored as they are (the same objects)."""
    for i in range(len(at)):
        out[offset + at[i]] = values[i]


def scatter_same(out: list[Any], at: list[int], value: Any, offset: int) -> None:
    """``out[offset + x] = value`` for each x of ``at``."""
    for x in at:
        out[offset + x] = value
