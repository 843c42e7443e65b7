"""What a seat is shown, without slot numbers: ``view`` as a perfect-recall record keeps it.

A perfect-recall information state (``bots.rl.recall``) records every view its seat is shown,
after every step of the game, without the slot numbers (bookkeeping a secret relabel order
decides). Building the whole view (``engine.view.view``: every card as a dict with its slot,
the legal actions' texts, the log) and then taking the slots back out cost most of a learning
step. ``sighting`` reads the same facts straight from the state, the way ``view`` derives them,
into the record's form at once (``bots.rl.recall.canonical_view`` of the view, its planets as
one key each), and says where each card the seat knows is. ``tests/test_rl_recall_fast.py``
compares the two over random games, value for value.
"""

from __future__ import annotations

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

# Where ``sighting`` says a card is (the first of these that shows it, in this order): the
# seat's hand, its drafted cards, its prisoner, a planet (face up: ``PLACE_UP + 2 * p``, face
# down: ``PLACE_DOWN + 2 * p``) or its discards, or known elsewhere (a hand it passed, ...).
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


def sighting(s: GameState, seat: int) -> tuple[dict[str, Any], list[int]]:
    """``seat``'s view of ``s`` without its slot numbers, as ``canonical_view`` writes it, with
    each planet under its own key (``planet0``, ...), and without the log and the legal
    actions; then where the view shows each card: card id, place (``PLACE_*``), card id, ..."""
    live = s.live_slots()
    card_of = s.card_of[:]  # the cards the seat may know; -1 elsewhere (as ``view`` hides)
    known = s.known
    bit = 1 << seat
    for x in live:
        if not known[x] & bit:
            card_of[x] = -1
    places: list[int] = []
    seen = [False] * len(CARDS)

    def place(cid: int, where: int) -> None:
        if cid >= 0 and not seen[cid]:
            seen[cid] = True
            places.append(cid)
            places.append(where)

    n = s.n
    config = s.config
    hand, drafted, mine = s.hands[seat], s.drafted[seat], s.prisoner[seat]
    for x in hand:
        place(card_of[x], PLACE_HAND)
    for x in drafted:
        place(card_of[x], PLACE_DRAFTED)
    if mine >= 0:
        place(card_of[mine], PLACE_PRISONER)
    phase = s.phase
    pending = [len(made) // 2 if made is not None and other != seat else 0
               for other, made in enumerate(s.picks)]
    decision = s.decision
    out: dict[str, Any] = {
        "seat": seat,
        "players": n,
        "factions": list(config.factions),
        "events_in_play": list(config.events),
        "round": s.round,
        "phase": phase.value,
        "direction": "left" if s.direction == 1 else "right",
        "first_player": s.first_player,
        "to_move": to_move(s),
        "hand": _sorted_labels(card_of, hand),
        "drafted": _sorted_labels(card_of, drafted),
        "hand_sizes": [len(h) + pending[i] for i, h in enumerate(s.hands)],
        "drafted_counts": [len(d) - pending[i] for i, d in enumerate(s.drafted)],
        "pick_count": must_pick(s, seat),
        "picked": [p is not None for p in s.picks] if phase is _DRAFT else [False] * n,
        "prisoner": None if mine < 0 else _label(card_of, mine) or "?",
        "has_prisoner": [x >= 0 for x in s.prisoner],
        "captured": list(s.captured),
        "claims": [{"event": CARDS[s.card_of[slot]].name, "seat": who, "round": rnd,
                    "active": rnd == s.round - 1} for slot, who, rnd in s.claims],
        "scores": [{"vp": vp, "casualties": lost} for vp, lost in zip(s.vp, s.casualties,
                                                                     strict=True)],
        "deck_size": len(s.deck),
        "turn": s.turn if phase is _DISPATCH else None,
        "decision": None if decision is None or decision.seat != seat
        else _decision(s, seat, card_of),
        "waiting_for_decision": decision.seat if decision is not None else None,
        "messenger": active_claim(s, "Messenger"),
        "poison": active_claim(s, "Poison"),
    }
    face_up, dispatcher, claim = s.face_up, s.dispatcher, s.claim
    controller, resolved = s.controller, s.resolved
    vision, discarded, started = s.vision_up, s.planet_discarded, s.planet_started
    resolving, sentry = phase is _RESOLVE, s.sentry_planet
    blockade = "Blockade" in config.events
    for p, (name, here) in enumerate(zip(config.planets, s.planets, strict=True)):
        cards: list[dict[str, Any]] = []
        limit_known = True
        up_at, down_at = PLACE_UP + 2 * p, PLACE_DOWN + 2 * p
        for slot in here:
            up = face_up[slot]
            cid = card_of[slot]
            if cid < 0 and up:
                limit_known = False
            place(cid, up_at if up else down_at)
            cards.append({"label": LABELS[cid] if cid >= 0 else None,
                          "face_up": up, "dispatcher": dispatcher[slot],
                          "claim": claim[slot] or None,
                          "controller": controller[slot] if up else None,
                          "resolved": resolved[slot]})
        gone = [_label(card_of, x) for x in discarded[p]]
        for x in discarded[p]:
            place(card_of[x], PLACE_DISCARDED)
        planet: dict[str, Any] = {
            "name": name, "vp": _VP[name], "rule": _RULE_TEXT[name],
            "limit": (planet_limit(s, p) if blockade else PLANET_LIMIT) if limit_known
            else None,
            "vision_face_up": vision[p], "cards": cards, "strongest": None,
            "favored": None, "sentry": sentry == p, "discarded": gone,
        }
        if resolving and started[p]:
            st, fv = strongest_and_favored(s, p)
            planet["strongest"] = st if st >= 0 else None
            planet["favored"] = fv if fv >= 0 else None
        out[_PLANET_KEYS[p]] = planet
    labels: list[str] = []
    for x in live:
        cid = card_of[x]
        if cid >= 0:
            labels.append(LABELS[cid])
            place(cid, PLACE_ELSEWHERE)
    labels.sort()
    out["known"] = labels
    return out, places


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
