"""What one seat may know: ``view`` (a JSON-ready dict), ``redact`` (a state holding only that
knowledge, for search bots), and ``determinize`` (fill the unknown cards at random, consistent
with every public disclosure, to get a full-information state to search on).
"""

from __future__ import annotations

from typing import Any

from engine.cards import CARDS, PLANETS
from engine.disclosure import legal_claims
from engine.dispatch import planet_limit
from engine.draft import active_claim, pick_count, waiting_pickers
from engine.game import legal_actions, to_move
from engine.randomness import RandomStream
from engine.state import GameState, Phase
from engine.strength import strongest_and_favored


def redact(s: GameState, seat: int | None) -> GameState:
    """A copy holding only what ``seat`` may know (None: only public information)."""
    r = s.clone()
    mask = s.all_mask if seat is None else 1 << seat
    full = s.all_mask
    r.card_of = [cid if (known & mask) == mask or known == full else -1
                 for cid, known in zip(s.card_of, s.known, strict=True)]
    if seat is not None:
        r.picks = [p if i == seat else None for i, p in enumerate(s.picks)]
    else:
        r.picks = [None] * s.n
    r.omniscient = all(r.card_of[x] >= 0 for x in r.live_slots())
    return r


def _card(s: GameState, slot: int) -> dict[str, Any]:
    cid = s.card_of[slot]
    return {"slot": slot, "label": CARDS[cid].label if cid >= 0 else None}


def view(s: GameState, seat: int) -> dict[str, Any]:
    """Everything ``seat`` may know, as plain data (safe to send to a bot or a UI)."""
    r = redact(s, seat)
    planets = []
    for p, name in enumerate(s.config.planets):
        cards = []
        for slot in r.planets[p]:
            entry = _card(r, slot)
            entry.update({"face_up": r.face_up[slot], "dispatcher": r.dispatcher[slot],
                          "claim": r.claim[slot] or None,
                          "controller": r.controller[slot] if r.face_up[slot] else None,
                          "resolved": r.resolved[slot]})
            cards.append(entry)
        planet: dict[str, Any] = {
            "name": name, "vp": PLANETS[name].vp, "rule": PLANETS[name].rule_text(),
            "limit": planet_limit(r, p) if all(r.card_of[x] >= 0 or not r.face_up[x]
                                               for x in r.planets[p]) else None,
            "vision_face_up": r.vision_up[p], "cards": cards, "strongest": None,
            "favored": None, "sentry": r.sentry_planet == p,
            "discarded": [r.label(x) for x in r.planet_discarded[p]],
        }
        if r.planet_started[p] and s.phase is Phase.RESOLVE:
            st, fv = strongest_and_favored(s, p)
            planet["strongest"] = st if st >= 0 else None
            planet["favored"] = fv if fv >= 0 else None
        planets.append(planet)
    decision = s.decision
    return {
        "seat": seat,
        "players": s.n,
        "factions": list(s.config.factions),
        "events_in_play": list(s.config.events),
        "round": s.round,
        "phase": s.phase.value,
        "direction": "left" if s.direction == 1 else "right",
        "first_player": s.first_player,
        "to_move": to_move(s),
        "planets": planets,
        "hand": [_card(r, x) for x in r.hands[seat]],
        "drafted": [_card(r, x) for x in r.drafted[seat]],
        "hand_sizes": [len(h) for h in s.hands],
        "drafted_counts": [len(d) for d in s.drafted],
        "pick_count": pick_count(s, seat) if seat in waiting_pickers(s) else 0,
        "picked": [s.picks[i] is not None for i in range(s.n)] if s.phase is Phase.DRAFT
        else [False] * s.n,
        "prisoner": _card(r, s.prisoner[seat]) if s.prisoner[seat] >= 0 else None,
        "has_prisoner": [x >= 0 for x in s.prisoner],
        "captured": list(s.captured),
        "claims": [{"event": CARDS[s.card_of[slot]].name, "seat": who, "round": rnd,
                    "active": rnd == s.round - 1} for slot, who, rnd in s.claims],
        "scores": [{"vp": s.vp[i], "casualties": s.casualties[i]} for i in range(s.n)],
        "deck_size": len(s.deck),
        "turn": s.turn if s.phase is Phase.DISPATCH else None,
        "decision": None if decision is None or decision.seat != seat else {
            "kind": decision.kind, "options": list(decision.options),
            "default": decision.default, "prompt": decision.prompt},
        "waiting_for_decision": decision.seat if decision is not None else None,
        "messenger": active_claim(s, "Messenger"),
        "poison": active_claim(s, "Poison"),
        "known": {str(x): r.label(x) for x in r.live_slots() if r.card_of[x] >= 0},
        "legal": [a.text() for a in legal_actions(r, seat)] if r.omniscient or
        all(r.card_of[x] >= 0 for x in r.hands[seat]) else [],
        "log": s.log[-30:],
    }


def _allowed(s: GameState, slot: int, cid: int) -> bool:
    """Could card ``cid`` be in ``slot`` given the public record?"""
    if s.dispatcher[slot] >= 0 and s.claim[slot]:
        p = next(p for p in range(len(s.planets)) if slot in s.planets[p])
        return s.claim[slot] in legal_claims(cid, s.config.planets[p], s.claim_vision[slot])
    return True


def determinize(r: GameState, stream: RandomStream, tries: int = 20) -> GameState:
    """A full-information state consistent with what ``r`` knows (a redacted state): unknown
    slots get the unseen cards at random, respecting face-down disclosures where possible."""
    live = r.live_slots()
    unknown = [x for x in live if r.card_of[x] < 0]
    seen = {r.card_of[x] for x in live if r.card_of[x] >= 0}
    pool = [cid for cid in r.config.card_ids() if cid not in seen]
    constrained = [x for x in unknown if r.dispatcher[x] >= 0 and r.claim[x]]
    free = [x for x in unknown if not (r.dispatcher[x] >= 0 and r.claim[x])]
    d = r.clone()
    for attempt in range(tries):
        cards = pool[:]
        stream.shuffle(cards)
        assignment: dict[int, int] = {}
        ok = True
        for slot in constrained:
            fit = [c for c in cards if _allowed(r, slot, c)]
            if not fit:
                ok = attempt == tries - 1  # last try: accept an inconsistent guess
                if not ok:
                    break
                fit = cards
            chosen = fit[stream.randbelow(len(fit))]
            cards.remove(chosen)
            assignment[slot] = chosen
        if not ok:
            continue
        for slot, cid in zip(free, cards, strict=False):
            assignment[slot] = cid
        for slot, cid in assignment.items():
            d.card_of[slot] = cid
        break
    d.omniscient = True
    d.keep_log = False
    d.log = []  # a search never reads the log: do not copy it on every clone
    return d
