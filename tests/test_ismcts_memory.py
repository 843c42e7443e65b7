"""The draft memory of ``ismcts`` (``bots.memory``): it is built from the seat's own views only,
what it infers is true, and the worlds it samples honour it, the view and every disclosure.

The checks compare with the full game (``Turn._full``), which only a test may read."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bots.base import Bot, GameInfo, Turn
from bots.greedy import GreedyBot
from bots.heuristics import value_table
from bots.ismcts import PICK_BETA, PICK_BETA_MANY, IsmctsBot
from bots.match import play_match
from bots.memory import DraftMemory, Sampler, pick_odds, pick_schedule
from bots.world_accuracy import hand_accuracy
from engine import Action, GameState, Phase
from engine.disclosure import legal_claims
from engine.randomness import RandomStream

Check = Callable[[Turn, GameState, DraftMemory, Sampler], None]


class Checking(GreedyBot):
    """Plays like greedy; at every decision builds the seat's memory and sampler from its
    redacted state (drawing takers by draft value with odds exp(``beta`` times the value) if
    ``beta`` is given, as ismcts does by default), and hands them (with the full state) to
    ``check``."""

    def __init__(self, check: Check, beta: float | None = None) -> None:
        super().__init__()
        self.check = check
        self.beta = beta

    def start(self, info: GameInfo) -> None:
        super().start(info)
        self.memory = DraftMemory(info.seat)
        self.weights = weights(info.config.factions, self.beta)

    def choose(self, turn: Turn) -> Action:
        r = turn.state()
        self.memory.observe(r)
        self.check(turn, r, self.memory, Sampler(r, self.memory, weights=self.weights))
        return super().choose(turn)


def weights(factions: tuple[str, ...], beta: float | None) -> list[list[float]] | None:
    """ismcts's odds of each seat having taken each card (``None``: equal odds)."""
    if beta is None:
        return None
    return pick_odds([value_table(faction, len(factions)) for faction in factions], beta)


def play(n: int, seed: str, check: Check, beta: float | None = None) -> None:
    bots: list[Bot] = [Checking(check, beta) for _ in range(n)]
    play_match(bots, seed)


def group_of(sampler: Sampler, full: GameState) -> dict[int, tuple[int, str]]:
    """Where each card of a sampler's groups truly is: card -> group key."""
    return {full.card_of[x]: key for key, slots in sampler.groups.items() for x in slots}


def test_pick_schedule_follows_the_pick_rules() -> None:
    # two players: the first pick round takes two cards, then one until the quota of 5
    assert pick_schedule([5, 5], [0, 0], [6, 6], 1, 1) == [[2, 2], [1, 1], [1, 1], [1, 1]]
    # four players, one seat under Poison (4 cards) and one with Messenger (6)
    rounds = pick_schedule([5, 4, 6, 5], [0, 0, 0, 0], [6, 6, 6, 6], 1, 1)
    assert [sum(t[s] for t in rounds) for s in range(4)] == [5, 4, 6, 5]
    assert rounds[-1] == [0, 0, 1, 0]


BETAS = [None, PICK_BETA, PICK_BETA_MANY]  # equal odds, and beta=auto's two settings


@pytest.mark.parametrize("beta", BETAS)
@pytest.mark.parametrize("n", [2, 3, 4])
def test_what_the_memory_infers_is_true(n: int, beta: float | None) -> None:
    # Every remembered card that is still unseen truly is in one of the places the memory
    # allows it (with its takers' drafted or played cards, in the hand now holding it, or
    # among the unseen discards); with two players each is placed exactly.
    seen = {"intervals": 0, "cards": 0}

    def check(turn: Turn, r: GameState, memory: DraftMemory, sampler: Sampler) -> None:
        if sampler.intervals is None:
            return
        where = group_of(sampler, turn._full)
        for interval in sampler.intervals:
            seen["intervals"] += 1
            allowed = {(seat, "taken") for seat in interval.takers}
            if interval.kind == "transit":
                allowed.add((interval.holder, "hand"))
            if interval.kind == "end":
                allowed.add((-1, "discard"))
            for card in interval.cards:
                if card in sampler.pool_set:
                    seen["cards"] += 1
                    assert where.get(card) in allowed, (interval, card)
        if n == 2:
            stream = RandomStream(f"owed/{r.round}/{turn.seat}")
            for key, cards in sampler.owed(stream).items():
                assert all(where.get(card) == key for card in cards)

    for game in range(3):
        play(n, f"memory-true/{n}/{game}", check, beta)
    assert seen["intervals"] > 20 and seen["cards"] > 20


@pytest.mark.parametrize("beta", BETAS)
@pytest.mark.parametrize("n", [2, 3, 4])
def test_sampled_worlds_honour_the_view_the_memory_and_the_disclosures(n: int,
                                                                        beta: float | None
                                                                        ) -> None:
    counts = {"worlds": 0, "fallbacks": 0}

    def check(turn: Turn, r: GameState, memory: DraftMemory, sampler: Sampler) -> None:
        full = turn._full
        stream = RandomStream(f"worlds/{r.round}/{turn.seat}/{len(r.card_of)}")
        allowed: dict[int, set[int]] = {}  # remembered unseen card -> seats that may hold it
        for interval in sampler.intervals or ():
            seats = set(interval.takers) | ({interval.holder} if interval.holder >= 0 else set())
            for card in interval.cards:
                allowed.setdefault(card, set()).update(seats)
        for _ in range(4):
            world = sampler.world(stream)
            counts["worlds"] += 1
            live = r.live_slots()
            # the same zones, every card the seat knows where it is, every card once
            assert world.live_slots() == live
            assert all(world.card_of[x] == r.card_of[x] for x in live if r.card_of[x] >= 0)
            assert sorted(world.card_of[x] for x in live) == \
                sorted(full.card_of[x] for x in live)
            # the counts per seat are the view's
            assert [len(h) for h in world.hands] == [len(h) for h in r.hands]
            assert [len(d) for d in world.drafted] == [len(d) for d in r.drafted]
            # no remembered card goes to a seat the memory proves cannot hold it
            if sampler.intervals is not None:
                for key, slots in sampler.groups.items():
                    for x in slots:
                        card = world.card_of[x]
                        if card in allowed and key[1] != "discard":
                            assert key[0] in allowed[card], (key, card)
            # every face-down disclosure is truthful (the built-in bots never lie)
            for p, here in enumerate(r.planets):
                for x in here:
                    if r.card_of[x] < 0 and r.dispatcher[x] >= 0 and r.claim[x]:
                        truthful = legal_claims(world.card_of[x], r.config.planets[p],
                                                r.claim_vision[x])
                        assert r.claim[x] in truthful
        counts["fallbacks"] += sampler.fallbacks

    for game in range(2):
        play(n, f"memory-worlds/{n}/{game}", check, beta)
    assert counts["worlds"] > 100
    assert counts["fallbacks"] <= counts["worlds"] // 20


def test_the_two_player_memory_knows_the_passed_hand_while_drafting() -> None:
    # With two players the hand the other seat holds at this seat's pick is the one this seat
    # passed it: every world deals it exactly those cards.
    checked = [0]

    def check(turn: Turn, r: GameState, memory: DraftMemory, sampler: Sampler) -> None:
        if r.phase is not Phase.DRAFT or sampler.intervals is None:
            return
        other = 1 - turn.seat
        truth = sorted(turn._full.card_of[x] for x in r.hands[other])
        world = sampler.world(RandomStream("passed"))
        assert sorted(world.card_of[x] for x in r.hands[other]) == truth
        checked[0] += 1

    play(2, "memory-passed", check)
    assert checked[0] >= 3


def test_at_a_greedy_table_sharper_odds_place_more_of_the_opponents_hands() -> None:
    # Greedy drafts the card of highest value: the memory alone places more of the other
    # seats' hand cards than uniform deals, odds by draft value more, and beta=auto's
    # four-player odds (nearly greedy's own pick) more still.
    models = ["off", "uniform", f"beta={PICK_BETA}", f"beta={PICK_BETA_MANY}"]
    measured = hand_accuracy(4, 5, models, seed="memory-sharp")
    share = [measured[model][0] for model in models]
    assert measured["off"][1] > 300
    assert share == sorted(share), share
    assert share[3] > share[2] + 0.05 and share[1] > share[0] + 0.05, share


def test_draft_values_make_the_likelier_taker_likelier() -> None:
    # Two cards taken from a hand by two seats, one after the other: by draft value, the
    # first taker mostly takes the card it values far more; uniformly, either as often.
    from bots.memory import Interval

    class Fixed(Sampler):
        def __init__(self, weights: list[list[float]] | None) -> None:
            self.intervals = [Interval((3, 7), (1, 2), "back")]
            self.pins, self.pool_set, self.weights = {}, frozenset({3, 7}), weights

    weights = [[1.0] * 10 for _ in range(3)]
    weights[1][7] = 50.0
    stream = RandomStream("takers")
    by_value = [Fixed(weights).owed(stream)[(1, "taken")] for _ in range(200)]
    uniform = [Fixed(None).owed(stream)[(1, "taken")] for _ in range(200)]
    assert sum(cards == [7] for cards in by_value) > 180
    assert 60 < sum(cards == [7] for cards in uniform) < 140


def test_memory_is_reset_each_round_and_off_on_request() -> None:
    bot = IsmctsBot(iterations=5)
    assert IsmctsBot(iterations=5, memory="off").memory == "off"
    with pytest.raises(ValueError):
        IsmctsBot(memory="full")
    with pytest.raises(ValueError):
        IsmctsBot(model="exact")
    result = play_match([bot, GreedyBot()], "memory-rounds")
    assert result.faults == ()
    assert bot._memory is not None and bot._memory.round == result.rounds


def test_ismcts_with_memory_replays_exactly_for_a_seed() -> None:
    first = play_match([IsmctsBot(iterations=8), GreedyBot()], "memory-replay")
    again = play_match([IsmctsBot(iterations=8), GreedyBot()], "memory-replay")
    assert first == again
