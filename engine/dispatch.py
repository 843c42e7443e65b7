"""Dispatch Cards: turns, planet limits, disclosures, face-up events, prisoners."""

from __future__ import annotations

from typing import Final

from engine.actions import Capture, Discard, Dispatch
from engine.cards import CARDS, PLANET_LIMIT, PLANETS
from engine.disclosure import claims_by_card, describe_claim, plausible_claims
from engine.errors import IllegalActionError, RuleViolationError
from engine.events import (
    Captured,
    DiscardedForRoom,
    DispatchedFaceDown,
    DispatchedFaceUp,
    DispatchStarted,
    Revealed,
    SecretsScored,
    VisionFaceUp,
)
from engine.flow import ask, make_public, seat_name, step
from engine.state import GameState, Phase

BLOCKADE: Final = next(c.id for c in CARDS if c.name == "Blockade")
_NAME_OF_CARD: Final = [c.name for c in CARDS]  # by card id (a Final table: see resolution)
_DISPATCH: Final = Phase.DISPATCH  # a global: faster to read than the enum member
# by planet name: ``claims_by_card`` without and with Vision's face-up mark (``verify_claim``
# checks every card revealed; a str-keyed table instead of the cache's tuple of arguments)
_CLAIMS_AT: Final = {name: (claims_by_card(name, False), claims_by_card(name, True))
                     for name in PLANETS}


def planet_limit(s: GameState, p: int) -> int:
    if "Blockade" not in s.config.events:
        return PLANET_LIMIT
    card_of, face_up = s.card_of, s.face_up
    for slot in s.planets[p]:
        if card_of[slot] == BLOCKADE and face_up[slot]:
            return PLANET_LIMIT - 1
    return PLANET_LIMIT


def open_planets(s: GameState) -> list[int]:
    if "Blockade" not in s.config.events:
        return [p for p, cards in enumerate(s.planets) if len(cards) < PLANET_LIMIT]
    # only a planet one card short of the limit can be closed by a face-up Blockade
    return [p for p, cards in enumerate(s.planets) if len(cards) < PLANET_LIMIT - 1
            or (len(cards) < PLANET_LIMIT and planet_limit(s, p) == PLANET_LIMIT)]


@step("start_dispatch")
def start_dispatch(s: GameState) -> None:
    s.phase = Phase.DISPATCH
    s.captured = [False] * s.n
    s.turn = s.first_player
    if s.keep_log:
        s.emit(DispatchStarted(seat_name(s, s.turn)))
    if not s.hands[s.turn]:
        next_turn(s)


def next_turn(s: GameState) -> None:
    for i in range(1, s.n + 1):
        seat = (s.turn + i * s.direction) % s.n
        if s.hands[seat]:
            s.turn = seat
            return
    s.turn = -1
    s.step = ("start_resolve",)


def _check_turn(s: GameState, seat: int, slot: int) -> None:
    if s.turn != seat or s.phase is not _DISPATCH or s.step is not None or s.decision \
            or s.awaiting:
        raise IllegalActionError(seat, "cannot play now: it is not its dispatch turn")
    if slot not in s.hands[seat]:
        raise IllegalActionError(seat, f"cannot play slot {slot}: it is not in its hand")


def apply_dispatch(s: GameState, action: Dispatch) -> None:
    check_dispatch(s, action)
    place_dispatch(s, action)


def check_dispatch(s: GameState, action: Dispatch) -> None:
    """Raise IllegalActionError unless ``action`` is a legal dispatch now."""
    seat, slot, p, claim = action.seat, action.slot, action.planet, action.claim
    _check_turn(s, seat, slot)
    planets = s.planets
    if not 0 <= p < len(planets):
        raise IllegalActionError(seat, f"cannot dispatch to planet {p}: no such planet")
    here = planets[p]
    name = s.config.planets[p]
    if len(here) >= PLANET_LIMIT - 1:  # only a full or a Blockaded planet can refuse
        limit = planet_limit(s, p)
        if len(here) >= limit:
            raise IllegalActionError(
                seat, f"cannot dispatch to {name}: planet is full ({len(here)}/{limit})")
    vision = s.vision_up[p]
    cid = s.card_of[slot]
    if cid >= 0:
        allowed = claims_by_card(name, vision)[cid]
        if claim not in allowed:
            raise IllegalActionError(
                seat, f"cannot dispatch {s.label(slot)} to {name} as "
                      f"{describe_claim(claim)}: allowed {', '.join(allowed)}")
    elif claim not in plausible_claims(name, vision):
        raise IllegalActionError(seat, f"cannot claim {claim!r} at {name}")


def place_dispatch(s: GameState, action: Dispatch) -> None:
    """Play a (checked) dispatch."""
    seat, slot, p, claim = action.seat, action.slot, action.planet, action.claim
    vision = s.vision_up[p]
    s.hands[seat].remove(slot)
    s.planets[p].append(slot)
    s.dispatcher[slot] = seat
    s.claim[slot] = claim
    s.claim_vision[slot] = vision
    s.known[slot] |= 1 << seat
    if claim == "up":
        s.face_up[slot] = True
        s.step = ("face_up_dispatch", slot, p)
    else:
        if s.keep_log:
            s.emit(DispatchedFaceDown(seat_name(s, seat), s.config.planets[p], claim))
        next_turn(s)


def verify_claim(s: GameState, slot: int, p: int) -> None:
    """Check the dispatch claim of ``slot`` on planet ``p`` against the now-known card
    (ruling 7)."""
    seat = s.dispatcher[slot]
    if seat < 0 or not s.claim[slot]:
        return
    pair = _CLAIMS_AT[s.config.planets[p]]
    allowed = (pair[1] if s.claim_vision[slot] else pair[0])[s.card_of[slot]]
    if s.claim[slot] not in allowed:
        raise RuleViolationError(
            seat, f"dispatched {s.label(slot)} claiming {describe_claim(s.claim[slot])}")
    s.claim[slot] = ""  # checked once


@step("face_up_dispatch")
def face_up_dispatch(s: GameState, slot: int, p: int) -> None:
    if not make_public(s, [slot]):
        s.step = ("face_up_dispatch", slot, p)
        return
    verify_claim(s, slot, p)
    seat = s.dispatcher[slot]
    name = _NAME_OF_CARD[s.card_of[slot]]
    s.controller[slot] = s.owner(slot)
    if s.keep_log:
        s.emit(DispatchedFaceUp(seat_name(s, seat), CARDS[s.card_of[slot]].label,
                                s.planet_name(p)))
    face_down = [x for x in s.planets[p] if not s.face_up[x]]
    if name == "Whispered Secrets":
        s.vp[seat] += 1
        if s.keep_log:
            s.emit(SecretsScored(seat_name(s, seat), 1, name, name))
        if face_down:
            ask(s, seat, "whispered_secrets", map(str, face_down), str(face_down[0]),
                f"Whispered Secrets: reveal one face-down card on {s.planet_name(p)}",
                ("reveal_cards", p))
            return
    elif name == "Vision":
        ask(s, seat, "vision", ("reveal", "face_up"), "reveal",
            f"Vision on {s.planet_name(p)}: reveal all cards here, or play all future cards "
            "here face up", ("vision", p))
        return
    s.step = ("end_turn",)


@step("vision")
def vision(s: GameState, p: int, answer: str) -> None:
    if answer == "face_up":
        s.vision_up[p] = True
        if s.keep_log:
            s.emit(VisionFaceUp(s.planet_name(p)))
        s.step = ("end_turn",)
        return
    face_down = [x for x in s.planets[p] if not s.face_up[x]]
    s.step = ("reveal_cards", p, ",".join(map(str, face_down)))


@step("reveal_cards")
def reveal_cards(s: GameState, p: int, slots: str) -> None:
    chosen = [int(x) for x in slots.split(",") if x]
    if not make_public(s, chosen):
        s.step = ("reveal_cards", p, slots)
        return
    for slot in chosen:
        verify_claim(s, slot, p)
        s.face_up[slot] = True
        s.controller[slot] = s.owner(slot)
        if s.keep_log:
            s.emit(Revealed(s.planet_name(p), s.label(slot) or "?"))
    s.step = ("end_turn",)


@step("end_turn")
def end_turn(s: GameState) -> None:
    next_turn(s)


def apply_capture(s: GameState, action: Capture) -> None:
    _check_turn(s, action.seat, action.slot)
    if s.captured[action.seat]:
        raise IllegalActionError(action.seat, "has already captured a prisoner this round")
    take_prisoner(s, action)


def take_prisoner(s: GameState, action: Capture) -> None:
    """Play a (checked) capture."""
    s.hands[action.seat].remove(action.slot)
    s.prisoner[action.seat] = action.slot
    s.captured[action.seat] = True
    if s.keep_log:
        s.emit(Captured(seat_name(s, action.seat)))
    next_turn(s)


def apply_discard(s: GameState, action: Discard) -> None:
    _check_turn(s, action.seat, action.slot)
    if open_planets(s) or not s.captured[action.seat]:
        raise IllegalActionError(action.seat, "may only discard when every planet is full and "
                                              "it has already captured a prisoner")
    s.hands[action.seat].remove(action.slot)
    s.discard.append(action.slot)
    if s.keep_log:
        s.emit(DiscardedForRoom(seat_name(s, action.seat)))
    next_turn(s)
