"""Draft Cards: simultaneous picks, passing, quotas, and the leftovers dealt face up."""

from __future__ import annotations

from typing import Final

from engine.actions import Pick
from engine.cards import CARDS, DRAFT_QUOTA
from engine.errors import IllegalActionError
from engine.events import DealtFaceUp, DraftOver, LeftoversPlaced, RoundStarted
from engine.flow import ask, make_public, seat_name, step
from engine.state import GameState, Phase

_DRAFT: Final = Phase.DRAFT  # a global: faster to read than the enum member


def active_claim(s: GameState, name: str) -> int:
    """Seat holding the claimed ``name`` event that acts this round, or -1."""
    for slot, seat, claimed_round in s.claims:
        if claimed_round == s.round - 1 and CARDS[s.card_of[slot]].name == name:
            return seat
    return -1


@step("start_round")
def start_round(s: GameState) -> None:
    s.phase = Phase.DRAFT
    s.direction = 1 if s.round % 2 == 1 else -1
    s.quota = round_quotas(s)
    s.first_pick = s.n == 2
    if s.keep_log:
        s.emit(RoundStarted(s.round, "left" if s.direction == 1 else "right"))
    s.step = ("pick_round",)


def round_quotas(s: GameState) -> list[int]:
    """Cards each seat drafts this round: 5, Messenger 6, Poison 4, both 5 (ruling 2)."""
    quota = [DRAFT_QUOTA] * s.n
    messenger, poison = active_claim(s, "Messenger"), active_claim(s, "Poison")
    if messenger >= 0:
        quota[messenger] += 1
    if poison >= 0:
        quota[poison] -= 1
    return quota


def pick_count(s: GameState, seat: int) -> int:
    """Cards ``seat`` must take this pick round (0 when it only passes)."""
    return cards_to_take(s.quota[seat] - len(s.drafted[seat]), len(s.hands[seat]),
                         s.first_pick)


def cards_to_take(need: int, held: int, first_pick: bool) -> int:
    """The pick rule: cards a seat takes in a pick round, given how many it still needs and
    holds (two in the first pick round of a two-player draft, else one)."""
    if need <= 0 or not held:
        return 0
    take = 2 if first_pick else 1
    if need < take:
        take = need
    return held if held < take else take


@step("pick_round")
def pick_round(s: GameState) -> None:
    if not any(pick_count(s, seat) for seat in range(s.n)):
        s.step = ("end_draft",)
        return
    s.picks = [None] * s.n


def _picking(s: GameState) -> bool:
    return s.phase is _DRAFT and s.step is None and not s.chance and not s.decision


def must_pick(s: GameState, seat: int) -> int:
    """Cards ``seat`` must pick now (0 if it has nothing to pick or has picked already)."""
    if not _picking(s) or s.picks[seat] is not None:
        return 0
    return pick_count(s, seat)


def waiting_pickers(s: GameState) -> list[int]:
    if not _picking(s):
        return []
    picks = s.picks
    return [seat for seat in range(s.n) if picks[seat] is None and pick_count(s, seat)]


def apply_pick(s: GameState, action: Pick) -> None:
    seat, chosen = action.seat, action.slots
    need = must_pick(s, seat) if 0 <= seat < s.n else 0
    if not need:
        if _picking(s) and 0 <= seat < s.n and s.picks[seat] is not None:
            raise IllegalActionError(seat, "has already picked this pick round")
        raise IllegalActionError(seat, "cannot pick now")
    if len(chosen) != need:
        raise IllegalActionError(seat, f"must pick exactly {need} card(s), not "
                                       f"{len(chosen)}")
    hand = s.hands[seat]
    if need == 1:
        if chosen[0] not in hand:
            raise IllegalActionError(seat, f"cannot pick slot {chosen[0]}: it is not in its "
                                           "hand")
    else:
        if len(set(chosen)) != len(chosen):
            raise IllegalActionError(seat, "picked the same slot twice")
        for slot in chosen:
            if slot not in hand:
                raise IllegalActionError(seat, f"cannot pick slot {slot}: it is not in its "
                                               "hand")
    take_pick(s, action)


def take_pick(s: GameState, action: Pick) -> None:
    """Record a (checked) pick: the cards leave the picker's hand for its drafted cards at once
    (ruling 38); when every seat has picked, pass the hands."""
    seat = action.seat
    picks = s.picks
    held, kept = s.hands[seat], s.drafted[seat]
    made: list[int] = []
    for slot in action.slots:
        at = held.index(slot)
        del held[at]
        kept.append(slot)
        made += (slot, at)
    picks[seat] = tuple(made)
    # Everyone picks at once: wait for each seat that still has to (pick_count inline).
    quota, drafted, hands, n = s.quota, s.drafted, s.hands, s.n
    for x in range(n):
        if picks[x] is None and quota[x] > len(drafted[x]) and hands[x]:
            return
    s.first_pick = False
    # Pass every hand on; the receiver sees the cards in it.
    direction, known = s.direction, s.known
    passed = [hands[(who - direction) % n] for who in range(n)]
    s.hands = passed
    for who in range(n):
        bit = 1 << who
        for slot in passed[who]:
            known[slot] |= bit
    s.picks = [None] * n
    s.step = ("pick_round",)


def undo_pick(s: GameState, seat: int) -> None:
    """Take back ``seat``'s pick of this pick round (``s.picks[seat]``: each picked slot with
    its place in the hand it left), putting the hand back exactly as it was: the others learn
    only that it picked (ruling 38), so a redacted state and the public hash hold the pick as
    not yet made."""
    made = s.picks[seat]
    assert made is not None
    kept, held = s.drafted[seat], s.hands[seat]
    del kept[len(kept) - len(made) // 2:]
    for i in range(len(made) - 2, -1, -2):
        held.insert(made[i + 1], made[i])
    s.picks[seat] = None


def undo_picks(s: GameState, keep: int | None = None) -> None:
    """``undo_pick`` for every seat that has picked this pick round but ``keep``."""
    for seat, made in enumerate(s.picks):
        if made is not None and seat != keep:
            undo_pick(s, seat)


def non_desert_planets(s: GameState) -> list[int]:
    return [p for p, name in enumerate(s.config.planets) if name != "Desert"]


@step("end_draft")
def end_draft(s: GameState) -> None:
    leftovers = []
    for seat in range(s.n):
        leftovers += s.hands[seat]
        s.hands[seat] = s.drafted[seat]
        s.drafted[seat] = []
    s.leftovers = leftovers
    if s.keep_log:
        s.emit(DraftOver(len(leftovers)))
    if len(leftovers) > 1:  # one card or none needs no shuffle
        s.chance = ("leftovers", len(leftovers))
    s.step = ("deal_leftovers",)


def apply_leftover_shuffle(s: GameState, perm: tuple[int, ...]) -> None:
    s.leftovers = [s.leftovers[i] for i in perm]


@step("deal_leftovers")
def deal_leftovers(s: GameState) -> None:
    targets = non_desert_planets(s)
    cards = s.leftovers
    while len(cards) < len(targets) and s.deck:
        slot = s.deck.pop(0)
        cards.append(slot)
    for extra in cards[len(targets):]:
        s.discard.append(extra)
    s.leftovers = cards[: len(targets)]
    if not make_public(s, s.leftovers):
        s.step = ("deal_leftovers",)
        return
    prophet = active_claim(s, "Prophecy")
    if prophet >= 0:
        s.step = ("prophecy_next",)
        if s.keep_log:
            s.emit(LeftoversPlaced(seat_name(s, prophet)))
        return
    for p, slot in zip(targets, s.leftovers, strict=False):
        place_leftover(s, slot, p)
    s.leftovers = []
    s.step = ("start_dispatch",)


def place_leftover(s: GameState, slot: int, p: int) -> None:
    s.planets[p].append(slot)
    s.face_up[slot] = True
    s.dispatcher[slot] = -1
    s.controller[slot] = s.owner(slot)
    card = CARDS[s.card_of[slot]]
    if card.name == "Vision":
        s.vision_up[p] = True
    if s.keep_log:
        s.emit(DealtFaceUp(card.label, s.planet_name(p)))


@step("prophecy_next")
def prophecy_next(s: GameState) -> None:
    if not s.leftovers:
        s.step = ("start_dispatch",)
        return
    prophet = active_claim(s, "Prophecy")
    slot = s.leftovers[0]
    options = [s.planet_name(p) for p in non_desert_planets(s) if len(s.planets[p]) < 6]
    ask(s, prophet, "prophecy", options, options[0],
        f"Prophecy: choose the planet for {s.label(slot)}", ("prophecy_place",))


@step("prophecy_place")
def prophecy_place(s: GameState, answer: str) -> None:
    slot = s.leftovers.pop(0)
    place_leftover(s, slot, s.config.planets.index(answer))
    s.step = ("prophecy_next",)
