"""What one seat may know: ``view`` (a JSON-ready dict), ``redact`` (a state holding only that
knowledge, for search bots), and ``determinize`` (fill the unknown cards at random, consistent
with every public disclosure, to get a full-information state to search on).
"""

from __future__ import annotations

from typing import Any

from engine.cards import CARDS, PLANET_LIMIT, PLANETS
from engine.disclosure import claims_by_card
from engine.dispatch import planet_limit
from engine.draft import active_claim, must_pick, undo_picks
from engine.game import legal_actions, to_move
from engine.randomness import RandomStream
from engine.resolution import decision_options
from engine.state import GameState, Phase
from engine.strength import strongest_and_favored

# globals: faster to read than the enum members
_DRAFT, _DISPATCH, _RESOLVE = Phase.DRAFT, Phase.DISPATCH, Phase.RESOLVE


def _hide_unknown(s: GameState, card_of: list[int], seat: int | None,
                 live: list[int]) -> list[int]:
    """Set every card of ``card_of`` (a copy of ``s.card_of``) that ``seat`` may not know to
    -1 (None: keep only public cards); return it.

    Only the ``live`` slots need looking at: a slot leaves play only when the round's discards
    go back under the deck as new slots, and those discards were all made public first (the
    invariant tests check it), so every other slot is known to everyone."""
    known = s.known
    if seat is None:
        full = s.all_mask
        for x in live:
            if known[x] != full:
                card_of[x] = -1
    else:
        bit = 1 << seat
        for x in live:
            if not known[x] & bit:
                card_of[x] = -1
    return card_of


def _all_known(card_of: list[int], slots: list[int]) -> bool:
    return not slots or min(map(card_of.__getitem__, slots)) >= 0


def redact(s: GameState, seat: int | None) -> GameState:
    """A copy holding only what ``seat`` may know (None: only public information)."""
    r = s.clone()
    live = s.live_slots()
    _hide_unknown(s, r.card_of, seat, live)
    undo_picks(r, keep=seat)
    r.omniscient = _all_known(r.card_of, live)
    return r


LABELS: tuple[str, ...] = tuple(card.label for card in CARDS)

# What a pending decision is about, read from the step that takes its answer: for each step,
# the positions (in ``Decision.then``) of the planet and of the card in question (None: the
# decision is not about one). Steps not listed are about neither.
_SUBJECT: dict[str, tuple[int | None, int | None]] = {
    "reveal_cards": (1, None),      # Whispered Secrets: the planet it was played to
    "vision": (1, None),            # Vision: the planet it was played to
    "sacrifice": (1, 2),            # the card about to be killed, and its planet
    "mercenaries": (1, 2),          # the Assassin whose kill Mercenaries may replace
    "assassin_target": (1, 2),      # the Assassin that kills
    "ambush": (1, None),
    "transport_to": (1, None),      # the planet cards would move from
    "transport_card": (1, None),
    "use_prisoner": (1, None),      # Mimic, Escape, Martyr: the planet; the card: the prisoner
}


def decision_subject(s: GameState, seat: int) -> tuple[int | None, int | None]:
    """(planet, slot) the pending decision of ``seat`` is about, each None if it is not about
    one: Prophecy's next leftover card, the card a sacrifice would save, the Assassin of an
    Assassin or Mercenaries choice, the prisoner of Mimic, Escape and Martyr, the planet of
    Vision, Whispered Secrets, Transport, Ambush and the kills."""
    d = s.decision
    if d is None or d.seat != seat or not d.then:
        return None, None
    step = d.then[0]
    if step == "prophecy_place":
        return None, s.leftovers[0] if s.leftovers else None
    where = _SUBJECT.get(step)
    if where is None:
        return None, None
    planet_at, card_at = where
    planet = d.then[planet_at] if planet_at is not None else None
    slot = d.then[card_at] if card_at is not None else None
    if step == "use_prisoner" and s.prisoner[seat] >= 0:
        slot = s.prisoner[seat]
    return planet, slot


_RULE_TEXT: dict[str, str] = {name: planet.rule_text() for name, planet in PLANETS.items()}
_VP: dict[str, int] = {name: planet.vp for name, planet in PLANETS.items()}
_SLOT_TEXTS: tuple[str, ...] = tuple(str(x) for x in range(1024))  # str(slot), looked up


def view(s: GameState, seat: int) -> dict[str, Any]:
    """Everything ``seat`` may know, as plain data (safe to send to a bot or a UI).

    Built from ``s`` and the cards ``seat`` may know (``_hide_unknown``), without a redacted
    copy: every other field of the state is public, or (``hands[seat]``, ``drafted[seat]``,
    the seat's prisoner and pick) the seat's own."""
    live = s.live_slots()
    card_of = _hide_unknown(s, s.card_of[:], seat, live)

    def label(slot: int) -> str | None:
        cid = card_of[slot]
        return LABELS[cid] if cid >= 0 else None

    def card(slot: int) -> dict[str, Any]:
        cid = card_of[slot]
        return {"slot": slot, "label": LABELS[cid] if cid >= 0 else None}

    face_up, dispatcher, claim = s.face_up, s.dispatcher, s.claim
    controller, resolved = s.controller, s.resolved
    vision, discarded, started = s.vision_up, s.planet_discarded, s.planet_started
    resolving, sentry = s.phase is _RESOLVE, s.sentry_planet
    blockade = "Blockade" in s.config.events  # else every planet's limit is the printed one
    planets = []
    for p, (name, here) in enumerate(zip(s.config.planets, s.planets, strict=True)):
        cards = []
        limit_known = True  # the limit shows only when every face-up card here is known
        for slot in here:
            up = face_up[slot]
            cid = card_of[slot]
            if cid < 0 and up:
                limit_known = False
            cards.append({"slot": slot, "label": LABELS[cid] if cid >= 0 else None,
                          "face_up": up, "dispatcher": dispatcher[slot],
                          "claim": claim[slot] or None,
                          "controller": controller[slot] if up else None,
                          "resolved": resolved[slot]})
        planet: dict[str, Any] = {
            "name": name, "vp": _VP[name], "rule": _RULE_TEXT[name],
            "limit": (planet_limit(s, p) if blockade else PLANET_LIMIT) if limit_known
            else None,
            "vision_face_up": vision[p], "cards": cards, "strongest": None,
            "favored": None, "sentry": sentry == p,
            "discarded": [label(x) for x in discarded[p]],
        }
        if resolving and started[p]:
            st, fv = strongest_and_favored(s, p)
            planet["strongest"] = st if st >= 0 else None
            planet["favored"] = fv if fv >= 0 else None
        planets.append(planet)
    decision = s.decision
    # What legal_actions reads of the cards is the seat's own (its hand, its prisoner), so
    # listing them on the full state gives what a redacted copy would.
    can_list = _all_known(card_of, live) or _all_known(card_of, s.hands[seat])
    subject = decision_subject(s, seat)
    # Another seat's pick of this pick round is counted as still in its hand, as ``redact``
    # holds it: the others learn only that it picked (ruling 38).
    pending = [len(made) // 2 if made is not None and other != seat else 0
               for other, made in enumerate(s.picks)]
    # Only the options the seat may take (ruling 41); the state keeps the public ones.
    shown = decision_options(s, decision) if decision is not None and decision.seat == seat \
        else ()
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
        "hand": [card(x) for x in s.hands[seat]],
        "drafted": [card(x) for x in s.drafted[seat]],
        "hand_sizes": [len(h) + pending[i] for i, h in enumerate(s.hands)],
        "drafted_counts": [len(d) - pending[i] for i, d in enumerate(s.drafted)],
        "pick_count": must_pick(s, seat),  # the seat's pick_count while it is a waiting picker
        "picked": [p is not None for p in s.picks] if s.phase is _DRAFT else [False] * s.n,
        "prisoner": card(s.prisoner[seat]) if s.prisoner[seat] >= 0 else None,
        "has_prisoner": [x >= 0 for x in s.prisoner],
        "captured": list(s.captured),
        "claims": [{"event": CARDS[s.card_of[slot]].name, "seat": who, "round": rnd,
                    "active": rnd == s.round - 1} for slot, who, rnd in s.claims],
        "scores": [{"vp": vp, "casualties": lost} for vp, lost in zip(s.vp, s.casualties,
                                                                     strict=True)],
        "deck_size": len(s.deck),
        "turn": s.turn if s.phase is _DISPATCH else None,
        "decision": None if decision is None or decision.seat != seat else {
            "kind": decision.kind, "options": list(shown),
            "default": decision.default if decision.default in shown else shown[0],
            "prompt": decision.prompt,
            "planet": subject[0], "card": card(subject[1]) if subject[1] is not None else None},
        "waiting_for_decision": decision.seat if decision is not None else None,
        "messenger": active_claim(s, "Messenger"),
        "poison": active_claim(s, "Poison"),
        "known": {_SLOT_TEXTS[x]: LABELS[cid] for x in live if (cid := card_of[x]) >= 0}
        if len(card_of) <= len(_SLOT_TEXTS) else
        {str(x): LABELS[cid] for x in live if (cid := card_of[x]) >= 0},
        "legal": [a.text() for a in legal_actions(s, seat)] if can_list else [],
        "log": s.log[-30:],
    }


def _claims_here(s: GameState, slot: int) -> tuple[tuple[str, ...], ...]:
    """The truthful claims of every card id for the planet ``slot`` was dispatched to."""
    p = next(p for p in range(len(s.planets)) if slot in s.planets[p])
    return claims_by_card(s.config.planets[p], s.claim_vision[slot])


def determinize(r: GameState, stream: RandomStream, tries: int = 20) -> GameState:
    """A full-information state consistent with what ``r`` knows (a redacted state): unknown
    slots get the unseen cards at random, and every face-down disclosure holds whenever some
    assignment of the unseen cards makes it hold (it always does unless a seat lied)."""
    card_of, dispatcher, claim = r.card_of, r.dispatcher, r.claim
    live = r.live_slots()
    unknown = [x for x in live if card_of[x] < 0]
    seen = {card_of[x] for x in live}
    pool = [cid for cid in r.config.card_ids() if cid not in seen]
    constrained = [x for x in unknown if dispatcher[x] >= 0 and claim[x]]
    free = [x for x in unknown if not (dispatcher[x] >= 0 and claim[x])]
    # each constrained slot's claim, and the claims every card could truthfully make there
    checks = [(claim[x], _claims_here(r, x)) for x in constrained]
    assignment: dict[int, int] | None = None
    for _ in range(tries):
        # Quick and nearly always enough: each disclosure in turn takes a random card that fits.
        cards = pool[:]
        stream.shuffle(cards)
        assignment = {}
        for slot, (said, truthful) in zip(constrained, checks, strict=True):
            fit = [c for c in cards if said in truthful[c]]
            if not fit:
                assignment = None
                break
            chosen = fit[stream.randbelow(len(fit))]
            cards.remove(chosen)
            assignment[slot] = chosen
        if assignment is not None:
            break
    if assignment is None:
        # Earlier disclosures kept taking the few unseen cards a later one needs (several
        # face-down cards competing for them): match them all at once.
        cards = pool[:]
        stream.shuffle(cards)
        fits = [[c for c in cards if said in truthful[c]] for said, truthful in checks]
        assignment = dict(zip(constrained, _fitting_cards(fits, cards), strict=True))
        taken = set(assignment.values())
        cards = [c for c in cards if c not in taken]
    assignment.update(zip(free, cards, strict=False))
    return deal(r, assignment)


def deal(r: GameState, assignment: dict[int, int]) -> GameState:
    """A full-information copy of ``r`` (a redacted state) with the card ``assignment`` gives
    each of its slots, without ``r``'s log (a search never reads it)."""
    log, events, r.log, r.events = r.log, r.events, [], []
    try:
        d = r.clone()
    finally:
        r.log, r.events = log, events
    dealt = d.card_of
    for slot, cid in assignment.items():
        dealt[slot] = cid
    d.omniscient = True
    d.keep_log = False
    return d


def _fitting_cards(fits: list[list[int]], cards: list[int]) -> list[int]:
    """One distinct card per entry of ``fits`` (the cards each slot may hold), as many of them
    from their own list as any assignment can manage (a maximum matching, by augmenting paths);
    a slot no assignment can serve gets one of the cards left over. ``cards``: every card to
    choose from, in the order to prefer them."""
    holder: dict[int, int] = {}  # card -> the index of the slot holding it

    def place(i: int, tried: set[int]) -> bool:
        for c in fits[i]:
            if c not in tried:
                tried.add(c)
                if c not in holder or place(holder[c], tried):
                    holder[c] = i
                    return True
        return False

    unserved = [i for i in range(len(fits)) if not place(i, set())]
    chosen = {i: c for c, i in holder.items()}
    spare = iter(c for c in cards if c not in holder)
    for i in unserved:
        chosen[i] = next(spare)
    return [chosen[i] for i in range(len(fits))]
