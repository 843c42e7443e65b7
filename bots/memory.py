"""What a seat remembers of a round's draft, and worlds sampled consistently with it.

The honest view forgets, on purpose, which slot holds a card that passed through the seat's
hands: every hand is relabelled when a pick makes it linkable and again when dispatch starts
(``engine.relabel``). What a player at the table still knows are *sets*: the cards of each
hand it passed on, and which of them came back. ``DraftMemory`` keeps exactly that, from the
seat's own successive views (``Turn.state()``, nothing else): at each of its picks the cards
of the hand it picks from, every seat's drafted count and hand size (public), and, once the
draft is over, its own drafted cards and the leftovers shown face up.

From these it knows, for every hand the seat passed on, which cards the next holders took
(the cards missing when the hand came back, or that were not among the leftovers) and in what
numbers each holder took them (the public counts and the pick rules), and, while the draft
goes on, which cards are still in the hand now held by someone else. With two players that
pins most of the opponent's cards exactly (all but its first pick); with more it narrows each
card to a few seats. ``Sampler.world`` deals the unseen cards so that every such set is
honoured: the cards a holder took go to that holder's face-down slots (its drafted cards, its
hand, its prisoner, its face-down dispatches), which of several holders took which is drawn
by the holders' draft values if the sampler is given them (``weights``: a likelier taker of a
card it values more), else at random (a card since revealed in a seat's play goes to that
seat), and the rest of the unseen cards are dealt at random as ``engine.view.determinize``
deals them (those of a seat's drafted cards by its draft values too, with ``weights``).
Every face-down disclosure must hold too; a sample that cannot satisfy them after a few tries
falls back to ``determinize`` (which also copes with a seat that lied).

Nothing here reads hidden state: ``observe`` takes the redacted state of the seat's own turn.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from engine import GameState, Phase
from engine.disclosure import claims_by_card
from engine.draft import cards_to_take, pick_count
from engine.randomness import RandomStream
from engine.view import deal, determinize

_DRAFT = Phase.DRAFT


@dataclass(frozen=True)
class PickSeen:
    """One of the seat's pick rounds: the cards of the hand it picked from (before its pick),
    and every seat's drafted count and hand size at that moment (public)."""

    cards: frozenset[int]
    drafted: tuple[int, ...]
    sizes: tuple[int, ...]
    mine_before: frozenset[int]  # the seat's own drafted cards before this pick


def pick_schedule(quota: Sequence[int], drafted: Sequence[int], sizes: Sequence[int],
                  direction: int, first_round: int) -> list[list[int]]:
    """The cards each seat takes in every pick round from ``first_round`` (1-based) to the end
    of the draft, by the pick rules, from the public drafted counts and hand sizes at its
    start: one list per pick round (index 0 is ``first_round``), one count per seat."""
    n = len(quota)
    dc, hs = list(drafted), list(sizes)
    out: list[list[int]] = []
    r = first_round
    while r < 100:  # a bound: each pick round takes a card
        takes = [cards_to_take(quota[s] - dc[s], hs[s], n == 2 and r == 1) for s in range(n)]
        if not any(takes):
            break
        out.append(takes)
        for s in range(n):
            dc[s] += takes[s]
        hs = [hs[(s - direction) % n] - takes[(s - direction) % n] for s in range(n)]
        r += 1
    return out


@dataclass(frozen=True)
class Interval:
    """A hand the seat passed on and what became of it.

    ``cards``: the hand as passed (the seat's pick removed); ``takers``: one seat per card
    taken from it afterwards, in pick order; ``kind``: ``"back"`` (the hand came back to the
    seat: ``cards`` minus what came back is exactly what was taken), ``"transit"`` (the draft
    goes on and ``holder`` holds the rest now) or ``"end"`` (the draft ended before it came
    back: what was not among the leftovers shown was taken, or discarded unseen as an extra
    leftover). For ``"back"`` and ``"end"``, ``cards`` is already reduced to the candidates."""

    cards: tuple[int, ...]
    takers: tuple[int, ...]
    kind: str
    holder: int = -1


class DraftMemory:
    """A seat's memory of the current round's draft (see the module docstring)."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.round = -1
        self.reset(-1)

    def reset(self, round_: int) -> None:
        """Forget everything: a new round starts."""
        self.round = round_
        self.picks: list[PickSeen] = []
        self.final: frozenset[int] | None = None       # own drafted cards, after the draft
        self.leftovers: frozenset[int] | None = None   # leftovers shown, after the draft
        self.quota: tuple[int, ...] = ()
        self.direction = 1
        self.broken = False  # something did not add up: sample as if nothing was remembered

    def observe(self, s: GameState) -> None:
        """Remember what the seat's redacted state ``s`` shows (call at every decision)."""
        seat = self.seat
        if s.round != self.round:
            self.reset(s.round)
        if self.broken:
            return
        card_of = s.card_of
        picking = s.phase is _DRAFT and s.step is None and s.chance is None and \
            s.decision is None and s.picks[seat] is None and \
            pick_count(s, seat) > 0
        if picking:
            drafted = tuple(len(d) for d in s.drafted)
            if self.picks and self.picks[-1].drafted == drafted:
                return  # the same pick round, seen again
            if self.final is not None:
                self.broken = True
                return
            if not self.picks:
                self.quota = tuple(s.quota)
                self.direction = s.direction
                if any(drafted):
                    self.broken = True  # joined the round late: nothing to build on
                    return
            cards = frozenset(card_of[x] for x in s.hands[seat])
            mine = frozenset(card_of[x] for x in s.drafted[seat])
            if -1 in cards or -1 in mine:
                self.broken = True
                return
            self.picks.append(PickSeen(cards, drafted, tuple(len(h) for h in s.hands),
                                       mine))
            return
        if self.picks and self.final is None and (s.phase is not _DRAFT or not any(s.drafted)):
            # The draft is over and the seat has not acted since: its hand is what it drafted.
            own = [card_of[x] for x in s.hands[seat]]
            if s.prisoner[seat] >= 0:
                own.append(card_of[s.prisoner[seat]])
            self.final = frozenset(own)
            shown = [x for x in s.leftovers]
            for here in s.planets:
                shown += [x for x in here if s.dispatcher[x] < 0]
            shown += s.discard
            self.leftovers = frozenset(card_of[x] for x in shown if card_of[x] >= 0)

    # -- what it adds up to ------------------------------------------------------------------

    def intervals(self, s: GameState) -> list[Interval] | None:
        """The hands passed on and what became of them, as of ``s`` (the seat's redacted state
        now); None if nothing is remembered or something does not add up."""
        if self.broken or not self.picks or s.round != self.round:
            return None
        seat, n, direction = self.seat, s.n, self.direction
        picks = self.picks
        first = picks[0]
        schedule = pick_schedule(self.quota, first.drafted, first.sizes, direction, 1)
        # the counts the seat saw must be the ones the rules give
        for j, seen in enumerate(picks):
            if j >= len(schedule) or [sum(t[x] for t in schedule[:j]) for x in range(n)] != \
                    list(seen.drafted):
                return None
        current = -1  # the pick round being played now (0-based), if the seat picks now
        if self.final is None:
            current = len(picks) - 1
            if s.phase is not _DRAFT:
                return None
        out: list[Interval] = []
        for j, seen in enumerate(picks):
            if j == current:
                break
            later = picks[j + 1].mine_before if j + 1 < len(picks) else self.final
            assert later is not None
            mine = later - seen.mine_before
            if not mine <= seen.cards or len(mine) != schedule[j][seat]:
                return None
            passed = seen.cards - mine
            takers: list[int] = []
            for i in range(1, n):
                r = j + i
                if r >= len(schedule) or r == current:
                    break
                holder = (seat + i * direction) % n
                takers += [holder] * schedule[r][holder]
            back = j + n
            if back < len(picks):
                came_back = picks[back].cards
                if not came_back <= passed or len(passed) - len(came_back) != len(takers):
                    return None
                out.append(Interval(tuple(sorted(passed - came_back)), tuple(takers), "back"))
            elif current >= 0:
                holder = (seat + (current - j) * direction) % n
                if len(passed) - len(takers) != len(s.hands[holder]):
                    return None
                out.append(Interval(tuple(sorted(passed)), tuple(takers), "transit", holder))
            else:
                assert self.leftovers is not None
                candidates = passed - self.leftovers
                if len(candidates) < len(takers):
                    return None
                out.append(Interval(tuple(sorted(candidates)), tuple(takers), "end"))
        return out


def _seat_of_shown(s: GameState, seat: int) -> dict[int, int]:
    """Cards the seat can see and knows came from another seat's hand this round: face-up
    (or otherwise known) cards dispatched by it, and its prisoner if known."""
    out: dict[int, int] = {}
    card_of, dispatcher = s.card_of, s.dispatcher
    for here in s.planets:
        for x in here:
            who = dispatcher[x]
            if who >= 0 and who != seat and card_of[x] >= 0:
                out[card_of[x]] = who
    for who, x in enumerate(s.prisoner):
        if who != seat and x >= 0 and card_of[x] >= 0:
            out[card_of[x]] = who
    return out


class Sampler:
    """Worlds for one decision: ``world(stream)`` deals the unseen cards of the redacted state
    ``r`` consistently with ``memory`` (or as ``determinize`` does when it has nothing)."""

    def __init__(self, r: GameState, memory: DraftMemory | None, tries: int = 30,
                 weights: Sequence[Sequence[float]] | None = None) -> None:
        self.r = r
        self.weights = weights
        self.tries = tries
        self.fallbacks = 0
        self.intervals = memory.intervals(r) if memory is not None else None
        if not self.intervals:
            self.intervals = None
            return
        card_of = r.card_of
        live = r.live_slots()
        seen = {card_of[x] for x in live}
        self.pool = [cid for cid in r.config.card_ids() if cid not in seen]
        self.pool_set = frozenset(self.pool)
        assert memory is not None
        seat, n = memory.seat, r.n
        self.pins = _seat_of_shown(r, seat)
        unknown = [x for x in live if card_of[x] < 0]
        drafting = r.phase is _DRAFT and memory.final is None
        # the groups of face-down slots each holding cards of a known origin, by key
        groups: dict[tuple[int, str], list[int]] = {}
        placed: set[int] = set()

        def group(key: tuple[int, str], slots: Sequence[int]) -> None:
            mine = [x for x in slots if card_of[x] < 0 and x not in placed]
            placed.update(mine)
            groups[key] = mine

        for o in range(n):
            if o == seat:
                continue
            if drafting:
                group((o, "taken"), r.drafted[o])
                group((o, "hand"), r.hands[o])
            else:
                held = list(r.hands[o]) + list(r.drafted[o])
                if r.prisoner[o] >= 0:
                    held.append(r.prisoner[o])
                for here in r.planets:
                    held += [x for x in here if r.dispatcher[x] == o]
                group((o, "taken"), held)
        group((-1, "discard"), r.discard)
        self.groups = groups
        self.rest = [x for x in unknown if x not in placed]
        # the disclosures to honour: each face-down claim and what each card may claim there
        planet_of = {x: p for p, here in enumerate(r.planets) for x in here}
        self.truth: dict[int, tuple[str, tuple[tuple[str, ...], ...]]] = {}
        for x in unknown:
            if r.dispatcher[x] >= 0 and r.claim[x] and x in planet_of:
                self.truth[x] = (r.claim[x], claims_by_card(r.config.planets[planet_of[x]],
                                                            r.claim_vision[x]))

    def world(self, stream: RandomStream) -> GameState:
        if self.intervals is None:
            return determinize(self.r, stream)
        for _ in range(self.tries):
            assignment = self._try(stream)
            if assignment is not None:
                break
        else:
            self.fallbacks += 1
            return determinize(self.r, stream)
        return deal(self.r, assignment)

    def owed(self, stream: RandomStream) -> dict[tuple[int, str], list[int]]:
        """One draw of where the remembered cards are: group key -> the unseen cards it holds
        (each card at most once, only unseen cards)."""
        assert self.intervals is not None
        owed: dict[tuple[int, str], list[int]] = {}
        pins, pool = self.pins, self.pool_set
        for interval in self.intervals:
            cards = list(interval.cards)
            stream.shuffle(cards)
            takers = list(interval.takers)
            given: list[tuple[int, int]] = []  # (card, seat)
            if pins and interval.kind != "transit":
                # a card since shown in a seat's play was taken by that seat, if it could be
                rest = []
                for c in cards:
                    who = pins.get(c, -1)
                    if who in takers:
                        takers.remove(who)
                        given.append((c, who))
                    else:
                        rest.append(c)
                cards = rest
            weights = self.weights
            if weights is None:
                stream.shuffle(takers)
                given += zip(cards, takers, strict=False)
                cards = cards[len(takers):]
            else:
                # each taker in turn takes a card by its draft value (as the built-in bots
                # draft): the likelier of the cards it could have taken
                for who in takers:
                    if not cards:
                        break
                    given.append((_draw(cards, weights[who], stream), who))
            for c, who in given:
                if c in pool:
                    owed.setdefault((who, "taken"), []).append(c)
            left = cards
            if interval.kind == "transit":
                owed.setdefault((interval.holder, "hand"), []).extend(c for c in left
                                                                      if c in pool)
            elif interval.kind == "end":
                # not taken and not shown: an extra leftover, discarded unseen
                owed.setdefault((-1, "discard"), []).extend(c for c in left if c in pool)
        return owed

    def _try(self, stream: RandomStream) -> dict[int, int] | None:
        owed = self.owed(stream)
        taken: set[int] = set()
        fills: list[tuple[list[int], list[int], int]] = []
        for key, slots in self.groups.items():
            cards = [c for c in owed.get(key, ()) if c not in taken]
            if len(cards) > len(slots):
                stream.shuffle(cards)
                cards = cards[:len(slots)]
            taken.update(cards)
            fills.append((slots, cards, key[0] if key[1] == "taken" else -1))
        general = [c for c in self.pool if c not in taken]
        stream.shuffle(general)
        stream.shuffle(fills)
        assignment: dict[int, int] = {}
        weights = self.weights
        for slots, cards, taker in fills:
            weight = weights[taker] if weights is not None and taker >= 0 else None
            if not self._place(slots, cards, general, stream, assignment, weight):
                return None
        if not self._place(self.rest, [], general, stream, assignment):
            return None
        return assignment

    def _place(self, slots: list[int], owed: list[int], general: list[int],
               stream: RandomStream, assignment: dict[int, int],
               weight: Sequence[float] | None = None) -> bool:
        """Deal ``slots`` every card of ``owed`` and the rest from ``general`` (shuffled; the
        cards dealt are removed from it), every face-down claim among them truthful. The
        claimed slots are filled first, by a search in random order (each takes a card that
        fits, owed or general, while slots are left for the owed cards); False if none fits
        within a few hundred steps."""
        truth = self.truth
        claimed = [x for x in slots if x in truth]
        budget = len(slots) - len(owed)  # slots left for general cards
        chosen: dict[int, tuple[int, int]] = {}  # claimed slot -> (0 owed / 1 general, index)
        if claimed:
            stream.shuffle(claimed)
            used: tuple[set[int], set[int]] = (set(), set())
            steps = [300]

            def fill(k: int, budget: int) -> bool:
                if k == len(claimed):
                    return True
                steps[0] -= 1
                if steps[0] < 0:
                    return False
                said, truthful = truth[claimed[k]]
                options = [(0, i) for i, c in enumerate(owed)
                           if i not in used[0] and said in truthful[c]]
                if budget > 0:
                    options += [(1, i) for i, c in enumerate(general)
                                if i not in used[1] and said in truthful[c]]
                stream.shuffle(options)
                for source, i in options:
                    used[source].add(i)
                    chosen[claimed[k]] = (source, i)
                    if fill(k + 1, budget - source):
                        return True
                    used[source].discard(i)
                return False

            if not fill(0, budget):
                return False
            for x, (source, i) in chosen.items():
                assignment[x] = (owed, general)[source][i]
            owed = [c for i, c in enumerate(owed) if i not in used[0]]
            gone = sorted(used[1], reverse=True)
            for i in gone:
                del general[i]
            budget -= len(gone)
        if weight is None or budget <= 0:
            cards = owed + general[:budget]
            del general[:budget]
        else:
            cards = owed + [_draw(general, weight, stream) for _ in range(min(budget,
                                                                             len(general)))]
        stream.shuffle(cards)
        free = [x for x in slots if x not in chosen]
        for x, c in zip(free, cards, strict=False):
            assignment[x] = c
        return True


def pick_odds(values: Sequence[Sequence[float]], beta: float) -> list[list[float]]:
    """``Sampler``'s ``weights`` for seats that draft by value: per seat and card id,
    exp(``beta`` times the seat's draft value of the card (``values[seat][card]``))."""
    return [[math.exp(beta * v) for v in seat_values] for seat_values in values]


def _draw(cards: list[int], weight: Sequence[float], stream: RandomStream) -> int:
    """Remove and return one of ``cards``, each with a chance proportional to its weight."""
    r = (stream.word() / 2**64) * sum(weight[c] for c in cards)
    last = len(cards) - 1
    for i, c in enumerate(cards):
        r -= weight[c]
        if r <= 0 or i == last:
            return cards.pop(i)
    raise AssertionError("no cards to draw from")
