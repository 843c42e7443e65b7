"""Check the End of Game, Clean Up, and final scoring (rulings 22 and 23)."""

from __future__ import annotations

from engine.actions import Shuffle
from engine.cards import HAND_SIZE, MAX_CASUALTIES, WIN_VP
from engine.events import GameOver, RoundScores
from engine.flow import seat_name, step
from engine.state import GameState, Phase


@step("end_round")
def end_round(s: GameState) -> None:
    factions = tuple(s.config.factions)
    if s.keep_log:
        s.emit(RoundScores(s.round, factions, tuple(s.vp), tuple(s.casualties)))
    if max(s.vp) >= WIN_VP or max(s.casualties) >= MAX_CASUALTIES:
        s.phase = Phase.OVER
        final = final_scores(s)
        s.emit(GameOver(factions, tuple(final), seat_name(s, winner(s)),
                        tuple(f for f, vp in zip(factions, s.vp, strict=True) if vp >= WIN_VP),
                        tuple(f for f, c in zip(factions, s.casualties, strict=True)
                              if c >= MAX_CASUALTIES)))
        return
    # Claims that acted this round are discarded; this round's claims stay in front of their
    # holders. Everything played or discarded goes under the deck, shuffled.
    for claim in [c for c in s.claims if c[2] < s.round]:
        s.claims.remove(claim)
        s.discard.append(claim[0])
    for p in range(len(s.planets)):
        s.discard += s.planets[p]
        s.planets[p] = []
    s.step = ("gather_discards",)


@step("gather_discards")
def gather_discards(s: GameState) -> None:
    # The discards go under the deck hidden (ruling 23): a card nobody saw (a discarded extra
    # leftover, a card discarded for want of room) stays unseen.
    s.chance = ("reshuffle", len(s.discard))
    s.step = ("deal",)


def apply_reshuffle(s: GameState, action: Shuffle) -> None:
    """Put this round's discards under the deck in a shuffled order, as new slots."""
    old = s.discard
    s.discard = []
    if action.perm is None:
        s.omniscient = False
        s.deck += s.new_slots([-1] * len(old))
    else:
        card_of = s.card_of
        s.deck += s.new_slots([card_of[old[i]] for i in action.perm])


@step("deal")
def deal(s: GameState) -> None:
    for seat in range(s.n):
        if s.prisoner[seat] >= 0:
            s.hands[seat].append(s.prisoner[seat])
            s.prisoner[seat] = -1
    for i in range(s.n):
        seat = (s.first_player + i) % s.n
        bit = 1 << seat
        while len(s.hands[seat]) < HAND_SIZE and s.deck:
            slot = s.deck.pop(0)
            s.known[slot] |= bit
            s.hands[seat].append(slot)
    s.first_player = next_first_player(s)
    s.round += 1
    s.reset_round()
    s.step = ("start_round",)


def next_first_player(s: GameState) -> int:
    """Most VP; ties go to the tied seat nearest the current first player's left, the current
    first player last."""
    best = max(s.vp)
    for i in range(1, s.n + 1):
        seat = (s.first_player + i) % s.n
        if s.vp[seat] == best:
            return seat
    return s.first_player


def final_scores(s: GameState) -> list[int]:
    return [s.vp[seat] - s.casualties[seat] for seat in range(s.n)]


def ranking(s: GameState) -> list[int]:
    """Seats from winner to last: final score, then fewer casualties, then turn order from
    the current first player (in the direction of the last round's draft, ruling 5)."""
    final = final_scores(s)
    return sorted(range(s.n), key=lambda seat: (-final[seat], s.casualties[seat],
                                                ((seat - s.first_player) * s.direction) % s.n))


def winner(s: GameState) -> int:
    return ranking(s)[0]
