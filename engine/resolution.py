"""Resolve Planets: reveal, arrange by initiative, resolve every card (rulings 9-21).

Each card's effect is a step; effects that need a choice ask a decision whose answer continues
in another step, and every effect returns to ``("resolve", p)`` which picks the next card.
"""

from __future__ import annotations

from typing import Final

from engine.cards import CARDS
from engine.dispatch import verify_claim
from engine.errors import RuleViolationError
from engine.events import (
    AssassinsTie,
    Bombarded,
    Claimed,
    Healed,
    KillAbsorbed,
    Killed,
    LostVP,
    MartyrKilled,
    MercenariesUsed,
    PlanetOpened,
    PrisonerAdded,
    ResolveStarted,
    Sacrificed,
    Scored,
    SentryPlaced,
    SiegeStopsDuchess,
    Transported,
)
from engine.flow import ask, make_public, seat_name, step
from engine.state import Decision, GameState, Phase, StepCall
from engine.strength import favored, sentry_holder, strongest, strongest_and_favored, totals

_NAME_OF_CARD: Final = [card.name for card in CARDS]  # by card id: effects ask names all the time
# by card id too: a compiled build reads a Final table directly, where ``CARDS[cid].faction``
# (an interpreted module's list of interpreted objects) costs two dictionary lookups
_FACTION_OF_CARD: Final = [card.faction for card in CARDS]
_VP_OF_CARD: Final = [card.vp for card in CARDS]
_VP2_OF_CARD: Final = [card.vp2 for card in CARDS]


def _name(s: GameState, slot: int) -> str:
    return _NAME_OF_CARD[s.card_of[slot]]


def _alive_named(s: GameState, p: int, name: str) -> bool:
    card_of = s.card_of
    return any(_NAME_OF_CARD[card_of[x]] == name for x in s.planets[p])


@step("start_resolve")
def start_resolve(s: GameState) -> None:
    s.phase = Phase.RESOLVE
    if s.keep_log:
        s.emit(ResolveStarted())
    holder = sentry_holder(s)
    if holder >= 0:
        names = list(s.config.planets)
        ask(s, holder, "sentry", names, names[0],
            "Sentry: choose the planet where you gain 1 strength and 1 favor",
            ("place_sentry",))
        return
    s.step = ("resolve", 0)


@step("place_sentry")
def place_sentry(s: GameState, answer: str) -> None:
    s.sentry_planet = s.config.planets.index(answer)
    if s.keep_log:
        s.emit(SentryPlaced(seat_name(s, sentry_holder(s)), answer))
    s.step = ("resolve", 0)


# Resolution order as one integer per card: initiative, then at equal initiative actions (by
# seat from the first player, added per card) before events (in table order).
_KEY_OF_CARD: Final = [card.initiative * 64 + (32 + card.order if card.faction is None else 0)
                for card in CARDS]
_IS_ACTION: Final = [card.faction is not None for card in CARDS]


def sort_key(s: GameState, slot: int) -> int:
    """Initiative; at equal initiative actions (in seat order from the first player) before
    events (in table order). Ruling 11."""
    cid = s.card_of[slot]
    if _IS_ACTION[cid]:
        return _KEY_OF_CARD[cid] + (s.controller[slot] - s.first_player) % s.n
    return _KEY_OF_CARD[cid]


def next_card(s: GameState, p: int) -> int:
    """The next unresolved card on planet p, applying the Assassin tie rules; -1 if none."""
    resolved, card_of, controller = s.resolved, s.card_of, s.controller
    first, n = s.first_player, s.n
    best, best_key = -1, 1 << 30
    for x in s.planets[p]:  # sort_key inline: this runs for every card resolved
        if resolved[x]:
            continue
        cid = card_of[x]
        key = _KEY_OF_CARD[cid] + (controller[x] - first) % n if _IS_ACTION[cid] \
            else _KEY_OF_CARD[cid]
        if key < best_key:
            best, best_key = x, key
    if best < 0 or _NAME_OF_CARD[card_of[best]] != "Assassin":
        return best
    assassins = [x for x in s.planets[p] if not resolved[x] and _name(s, x) == "Assassin"]
    if len(assassins) == 1:
        return best
    strength, _, _, peace = totals(s, p)
    owners = {s.controller[x] for x in assassins}
    values = {k: strength[k] for k in owners}
    target = min(values.values()) if peace else max(values.values())
    top = [k for k, v in values.items() if v == target]
    if len(top) != 1:
        for x in assassins:
            s.resolved[x] = True
        if s.keep_log:
            s.emit(AssassinsTie())
        return next_card(s, p)
    return next(x for x in assassins if s.controller[x] == top[0])


@step("resolve")
def resolve(s: GameState, p: int) -> None:
    if p >= len(s.planets):
        s.step = ("end_round",)
        return
    if not s.planet_started[p]:
        face_up = s.face_up
        face_down = [x for x in s.planets[p] if not face_up[x]]
        if not make_public(s, face_down):
            s.step = ("resolve", p)
            return
        controller, card_of, seat_of_faction = s.controller, s.card_of, s.seat_of_faction
        for slot in face_down:
            verify_claim(s, slot, p)
            face_up[slot] = True
            faction = _FACTION_OF_CARD[card_of[slot]]  # s.owner(slot) inline
            controller[slot] = -1 if faction is None else seat_of_faction[faction]
        s.planet_started[p] = True
        s.initial_sf[p] = strongest_and_favored(s, p)
        if s.keep_log:
            st, fv = s.initial_sf[p]
            s.emit(PlanetOpened(s.planet_name(p), tuple(s.label(x) for x in s.planets[p]),
                                seat_name(s, st) if st >= 0 else None,
                                seat_name(s, fv) if fv >= 0 else None))
    # Card after card while no effect stops the loop (a decision, a kill's follow-up step, a
    # reveal): what the step loop would do by running this step again, without its overhead.
    # ``StepCall``, not ``tuple[str, int]``: a compiled build (mypyc) keeps a typed tuple unboxed,
    # and this one is compared by identity below.
    here: StepCall = ("resolve", p)
    resolved, card_of, stopped = s.resolved, s.card_of, s.stopped
    while True:
        slot = -1 if stopped[p] else next_card(s, p)
        if slot < 0:
            finish_planet(s, p)
            return
        resolved[slot] = True
        s.step = here
        effect = EFFECT_OF_CARD[card_of[slot]]
        if effect is not None:
            effect(s, p, slot)
            if s.step is not here or s.decision is not None or s.chance is not None \
                    or s.awaiting:
                return


def finish_planet(s: GameState, p: int) -> None:
    for slot in list(s.planets[p]):
        if s.claimer[slot] >= 0:
            s.planets[p].remove(slot)
            s.claims.append((slot, s.claimer[slot], s.round))
            if s.keep_log:
                s.emit(Claimed(seat_name(s, s.claimer[slot]), _name(s, slot)))
            s.claimer[slot] = -1
    s.step = ("resolve", p + 1)


def score(s: GameState, seat: int, vp: int, why: str) -> None:
    """``why``: the log's words, the scoring card's name first ("Elder, strongest")."""
    s.vp[seat] += vp
    if s.keep_log:
        s.emit(Scored(seat_name(s, seat), vp, _scoring_card(why), why))


# Longest first: "Medical Team, no casualties" names Medical Team, not a shorter name.
_NAMES_LONGEST_FIRST = sorted({card.name for card in CARDS}, key=lambda name: -len(name))


def _scoring_card(why: str) -> str:
    """The card's name a scoring reason starts with (every ``score`` call names it first)."""
    return next((name for name in _NAMES_LONGEST_FIRST if why.startswith(name)), why)


def remove_from_planet(s: GameState, p: int, slot: int) -> None:
    s.planets[p].remove(slot)
    s.discard.append(slot)
    s.planet_discarded[p].append(slot)
    s.claimer[slot] = -1


def kill(s: GameState, p: int, slot: int) -> None:
    """Kill: discard the card; an action card gives its printed owner a casualty."""
    remove_from_planet(s, p, slot)
    owner = s.owner(slot)
    if owner >= 0:
        s.casualties[owner] += 1
        if s.keep_log:
            s.emit(Killed(s.label(slot) or "?", seat_name(s, owner)))
    elif s.keep_log:
        s.emit(Killed(s.label(slot) or "?", None))


# -- targeted kills: Honor Guards absorbs, Legions may be sacrificed ------------------------

def targeted_kill(s: GameState, p: int, target: int, killer: int, cause: str) -> None:
    guards = [x for x in s.planets[p] if _name(s, x) == "Honor Guards" and x != target]
    if guards:
        kill(s, p, guards[0])
        if s.keep_log:
            s.emit(KillAbsorbed())
        s.step = ("after_kill", p, killer, cause, "absorbed")
        return
    if _name(s, target) == "Honor Guards":
        # Ruling 26: killing Honor Guards never scores, aimed at it or absorbed by it.
        kill(s, p, target)
        s.step = ("after_kill", p, killer, cause, "absorbed")
        return
    if _FACTION_OF_CARD[s.card_of[target]] is not None:
        victim = s.controller[target]
        legions = [x for x in s.planets[p] if x != target and _name(s, x) == "Legions"
                   and s.controller[x] == victim]
        if legions:
            ask(s, victim, "sacrifice", ("yes", "no"), "no",
                f"{CARDS[s.card_of[target]].label} is about to be killed: sacrifice your "
                "Legions instead?",
                ("sacrifice", p, target, legions[0], killer, cause))
            return
    kill(s, p, target)
    s.step = ("after_kill", p, killer, cause, "killed")


@step("sacrifice")
def sacrifice(s: GameState, p: int, target: int, legions: int, killer: int, cause: str,
              answer: str) -> None:
    if answer == "yes":
        if s.keep_log:
            s.emit(Sacrificed(seat_name(s, s.controller[legions])))
        kill(s, p, legions)
    else:
        kill(s, p, target)
    s.step = ("after_kill", p, killer, cause, "killed")


@step("after_kill")
def after_kill(s: GameState, p: int, killer: int, cause: str, outcome: str) -> None:
    if outcome == "killed":
        if cause.startswith("assassin:"):
            score(s, killer, int(cause.split(":")[1]), "Assassin kill")
        elif cause == "mercenaries":
            score(s, killer, 2, "Mercenaries kill")
    s.step = ("resolve", p)


# -- action cards -----------------------------------------------------------------------------

def _diplomat(s: GameState, p: int, slot: int) -> None:
    k = s.controller[slot]
    if favored(s, p) == k:
        score(s, k, _VP_OF_CARD[s.card_of[slot]], "Diplomat, favored")


def _marshal(s: GameState, p: int, slot: int) -> None:
    k = s.controller[slot]
    if strongest(s, p) == k:
        score(s, k, _VP_OF_CARD[s.card_of[slot]], "Marshal, strongest")


def _elder(s: GameState, p: int, slot: int) -> None:
    k = s.controller[slot]
    st, fv = strongest_and_favored(s, p)
    cid = s.card_of[slot]
    if st == k:
        score(s, k, _VP_OF_CARD[cid], "Elder, strongest")
    if fv == k:
        score(s, k, _VP2_OF_CARD[cid], "Elder, favored")


def _duchess(s: GameState, p: int, slot: int) -> None:
    k = s.controller[slot]
    fv = favored(s, p)
    duchesses = [x for x in s.planets[p] if _name(s, x) == "Duchess"]
    if len(duchesses) > 1 and fv != k:
        return
    if _alive_named(s, p, "Planetary Siege"):
        if s.keep_log:
            s.emit(SiegeStopsDuchess())
        return
    vp = s.planet_vp(p) + (2 if _alive_named(s, p, "Hidden Base") else 0)
    if fv == k:
        vp += _VP_OF_CARD[s.card_of[slot]]
    s.duchess_scored[p] = True
    score(s, k, vp, f"Duchess scores {s.planet_name(p)}")


def in_resolution_order(s: GameState, slots: list[int]) -> list[int]:
    """Card options are offered (and defaulted) in the order the cards resolve."""
    return sorted(slots, key=lambda x: sort_key(s, x))


def _assassin_targets(s: GameState, p: int, slot: int) -> tuple[list[int], bool]:
    """(the cards the Assassin may kill, whether it must kill one). Ruling 28: it may spare
    an Imposter; only with an enemy Duchess on the planet must it kill."""
    k = s.controller[slot]
    targets = in_resolution_order(s, [x for x in s.planets[p] if x != slot and (
        (_name(s, x) == "Duchess" and s.controller[x] != k) or _name(s, x) == "Imposter")])
    return targets, any(_name(s, x) == "Duchess" for x in targets)


def _unspent_mercenaries(s: GameState, p: int) -> int:
    """The Mercenaries card on planet ``p`` that no Assassin has used yet, or -1. Ruling 30:
    using it spends it, which the engine records by marking it resolved (it has no effect of
    its own, and at initiative 7 it resolves after every Assassin there anyway)."""
    for x in s.planets[p]:
        if _name(s, x) == "Mercenaries" and not s.resolved[x]:
            return x
    return -1


def _assassin(s: GameState, p: int, slot: int) -> None:
    k = s.controller[slot]
    if _unspent_mercenaries(s, p) >= 0 and strongest(s, p) == k:
        # Ruling 27: Mercenaries cannot target the Mercenaries card itself.
        others = in_resolution_order(s, [x for x in s.planets[p]
                                         if x != slot and _name(s, x) != "Mercenaries"])
        ask(s, k, "mercenaries", ("no", *(s.label(x) or "" for x in others)), "no",
            "Mercenaries: kill any one card for 2 VP instead of a Duchess? (no = usual kill)",
            ("mercenaries", p, slot))
        return
    _assassin_kill(s, p, slot)


def _assassin_kill(s: GameState, p: int, slot: int) -> None:
    targets, forced = _assassin_targets(s, p, slot)
    if not targets:
        return
    labels = [s.label(x) or "" for x in targets]
    if forced:
        ask(s, s.controller[slot], "assassin_target", labels, labels[0],
            "Assassin: choose the Duchess to kill", ("assassin_target", p, slot))
    else:
        ask(s, s.controller[slot], "assassin_target", ("no", *labels), "no",
            "Assassin: kill an Imposter? (no = kill nothing)", ("assassin_target", p, slot))


@step("mercenaries")
def mercenaries(s: GameState, p: int, slot: int, answer: str) -> None:
    s.step = ("resolve", p)
    if answer == "no":
        _assassin_kill(s, p, slot)
        return
    target = _slot_by_label(s, p, answer)
    s.resolved[_unspent_mercenaries(s, p)] = True  # spent: no later Assassin uses it
    if s.keep_log:
        s.emit(MercenariesUsed(seat_name(s, s.controller[slot]), answer))
    targeted_kill(s, p, target, s.controller[slot], "mercenaries")


@step("assassin_target")
def assassin_target(s: GameState, p: int, slot: int, answer: str) -> None:
    if answer == "no":
        s.step = ("resolve", p)
        return
    target = _slot_by_label(s, p, answer)
    vp = _VP_OF_CARD[s.card_of[slot]]
    targeted_kill(s, p, target, s.controller[slot], f"assassin:{vp}")


def _slot_by_label(s: GameState, p: int, label: str) -> int:
    return next(x for x in s.planets[p] if s.label(x) == label)


# -- events -------------------------------------------------------------------------------------

def _ambush(s: GameState, p: int, slot: int) -> None:
    k = strongest(s, p)
    if k < 0:
        return
    others = in_resolution_order(s, [x for x in s.planets[p] if x != slot])
    if not others:
        return
    ask(s, k, "ambush", ("no", *(s.label(x) or "" for x in others)), "no",
        "Ambush: kill one card on this planet? (no VP)", ("ambush", p))


@step("ambush")
def ambush(s: GameState, p: int, answer: str) -> None:
    s.step = ("resolve", p)
    if answer != "no":
        targeted_kill(s, p, _slot_by_label(s, p, answer), strongest(s, p), "ambush")


def _peace_accords(s: GameState, p: int, slot: int) -> None:
    k = favored(s, p)
    if k >= 0:
        score(s, k, 1, "Peace Accords, favored")


def _transport(s: GameState, p: int, slot: int) -> None:
    k = favored(s, p)
    if k < 0:
        return
    score(s, k, 1, "Transport, favored")
    last = p == len(s.planets) - 1
    options = ["discard"] if last else [s.planet_name(q) for q in range(p + 1, len(s.planets))]
    if not any(not s.resolved[x] for x in s.planets[p]):
        return
    ask(s, k, "transport", ("no", *options), "no",
        "Transport: move unresolved cards to which planet? (no = keep them here)",
        ("transport_to", p, k))


@step("transport_to")
def transport_to(s: GameState, p: int, k: int, answer: str) -> None:
    s.step = ("resolve", p)
    if answer != "no":
        _transport_ask(s, p, k, answer)


def _transport_ask(s: GameState, p: int, k: int, dest: str) -> None:
    movable = in_resolution_order(s, [x for x in s.planets[p] if not s.resolved[x]])
    if not movable:
        return
    ask(s, k, "transport_card", ("done", *(s.label(x) or "" for x in movable)), "done",
        f"Transport to {dest}: choose a card to move, or done", ("transport_card", p, k, dest))


@step("transport_card")
def transport_card(s: GameState, p: int, k: int, dest: str, answer: str) -> None:
    s.step = ("resolve", p)
    if answer == "done":
        return
    slot = _slot_by_label(s, p, answer)
    if dest == "discard":
        remove_from_planet(s, p, slot)
        if s.keep_log:
            s.emit(Transported(answer, None))
    else:
        q = s.config.planets.index(dest)
        s.planets[p].remove(slot)
        s.planets[q].append(slot)
        s.controller[slot] = s.owner(slot)
        if s.keep_log:
            s.emit(Transported(answer, dest))
    _transport_ask(s, p, k, dest)


def _prophecy_like(s: GameState, p: int, slot: int) -> None:
    name = _NAME_OF_CARD[s.card_of[slot]]
    by_favor = name in ("Prophecy", "Messenger")
    k = favored(s, p) if by_favor else strongest(s, p)
    if k < 0:
        return
    if name != "Poison":
        score(s, k, 1, f"{name}, {'favored' if by_favor else 'strongest'}")
    s.claimer[slot] = k


def _honor_guards(s: GameState, p: int, slot: int) -> None:
    k = favored(s, p)
    if k >= 0 and s.casualties[k] > 0:
        s.casualties[k] -= 1
        if s.keep_log:
            s.emit(Healed(seat_name(s, k), "Honor Guards"))


def _medical_team(s: GameState, p: int, slot: int) -> None:
    k = favored(s, p)
    if k < 0:
        return
    if s.casualties[k] > 0:
        s.casualties[k] -= 1
        if s.keep_log:
            s.emit(Healed(seat_name(s, k), "Medical Team"))
    else:
        score(s, k, 2, "Medical Team, no casualties")


def _imposter(s: GameState, p: int, slot: int) -> None:
    if s.duchess_scored[p] or _alive_named(s, p, "Planetary Siege"):
        return
    k = favored(s, p)
    if k >= 0:
        score(s, k, s.planet_vp(p), "Imposter scores the planet")


def _orbital_bombardment(s: GameState, p: int, slot: int) -> None:
    s.stopped[p] = True
    if s.keep_log:
        s.emit(Bombarded())


def _famine(s: GameState, p: int, slot: int) -> None:
    k = favored(s, p)
    if k >= 0:
        loss = min(2, s.vp[k])
        s.vp[k] -= loss
        if s.keep_log:
            s.emit(LostVP(seat_name(s, k), loss))


def _quagmire(s: GameState, p: int, slot: int) -> None:
    for x in [x for x in s.planets[p] if _name(s, x) == "Legions"]:
        kill(s, p, x)


def _prisoner_event(s: GameState, p: int, slot: int) -> None:
    name = _NAME_OF_CARD[s.card_of[slot]]
    k = favored(s, p) if name in ("Mimic", "Escape") else strongest(s, p)
    if k < 0 or s.prisoner[k] < 0:
        return
    # Asked whenever the player has a prisoner: whether it may say yes depends on the
    # prisoner's card, which other peers cannot see, so that goes into legality instead
    # (``decision_options``) and every engine stops at the same decision.
    ask(s, k, name.lower(), ("yes", "no"), "no", _PRISONER_PROMPTS[name],
        ("use_prisoner", p, k, name))


_PRISONER_PROMPTS: Final = {
    "Mimic": "Mimic: place your prisoner here and play it as your own?",
    "Escape": "Escape: add your prisoner to this planet?",
    "Martyr": "Martyr: kill your prisoner to score 1 VP?",
}


def decision_options(s: GameState, d: Decision) -> tuple[str, ...]:
    """The options ``d.seat`` may legally choose: Mimic and Martyr take only an action card,
    so with a prisoner known to be an event the only legal answer is no."""
    if d.kind in ("mimic", "martyr"):
        prisoner = s.prisoner[d.seat]
        if prisoner >= 0 and s.card_of[prisoner] >= 0 and \
                CARDS[s.card_of[prisoner]].faction is None:
            return ("no",)
    return d.options


@step("use_prisoner")
def use_prisoner(s: GameState, p: int, k: int, event: str, answer: str) -> None:
    if answer != "yes":
        s.step = ("resolve", p)
        return
    prisoner = s.prisoner[k]
    if not make_public(s, [prisoner]):
        s.step = ("use_prisoner", p, k, event, answer)
        return
    card = CARDS[s.card_of[prisoner]]
    if event != "Escape" and card.faction is None:
        raise RuleViolationError(k, f"used an event prisoner ({card.label}) for {event}")
    s.prisoner[k] = -1
    s.face_up[prisoner] = True
    if event == "Martyr":
        s.discard.append(prisoner)
        owner = s.owner(prisoner)
        s.casualties[owner] += 1
        if s.keep_log:
            s.emit(MartyrKilled(seat_name(s, k), card.label, seat_name(s, owner)))
        score(s, k, 1, "Martyr")
    else:
        s.planets[p].append(prisoner)
        s.controller[prisoner] = k if event == "Mimic" else s.owner(prisoner)
        if s.keep_log:
            s.emit(PrisonerAdded(event, seat_name(s, k), card.label, s.planet_name(p)))
    s.step = ("resolve", p)


EFFECTS = {
    "Diplomat": _diplomat, "Assassin": _assassin, "Duchess": _duchess, "Marshal": _marshal,
    "Elder": _elder, "Ambush": _ambush, "Peace Accords": _peace_accords,
    "Transport": _transport, "Prophecy": _prophecy_like, "Sentry": _prophecy_like,
    "Messenger": _prophecy_like, "Poison": _prophecy_like, "Honor Guards": _honor_guards,
    "Medical Team": _medical_team, "Imposter": _imposter,
    "Orbital Bombardment": _orbital_bombardment, "Famine": _famine, "Quagmire": _quagmire,
    "Mimic": _prisoner_event, "Escape": _prisoner_event, "Martyr": _prisoner_event,
}
# by card id (the effect runs once for every card resolved)
EFFECT_OF_CARD: Final = [EFFECTS.get(card.name) for card in CARDS]
