"""Play one local game (engine only, no network) between bots, chance from a seeded stream.

Every bot answer goes through ``bots.guard``: a faulty answer is logged, recorded in
``MatchResult.faults`` and replaced by a random legal action drawn from a stream of the seed, so
a game with faults still replays exactly.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from bots.base import Bot, GameInfo, Turn
from bots.faults import Fault
from bots.guard import GuardedSeat
from engine import (
    CHANCE,
    GameConfig,
    GameState,
    apply_in_place,
    apply_trusted,
    final_scores,
    is_over,
    legal_actions,
    new_game,
    random_chance,
    random_config,
    ranking,
    to_move,
)
from engine.randomness import RandomStream

log = logging.getLogger("solstice.match")


@dataclass(frozen=True)
class MatchResult:
    config: GameConfig
    scores: tuple[int, ...]       # final scores (VP minus casualties), per seat
    vp: tuple[int, ...]
    casualties: tuple[int, ...]
    ranking: tuple[int, ...]      # seats, winner first
    rounds: int
    actions: int
    faults: tuple[Fault, ...] = ()  # bot faults (most replaced by a random legal action)
    decisions: tuple[int, ...] = ()         # decisions asked of each seat's bot
    # wall-clock time each seat's bot spent on them: not part of a game's (replayable) outcome
    think_seconds: tuple[float, ...] = field(default=(), compare=False)

    @property
    def winner(self) -> int:
        return self.ranking[0]


def play_match(bots: Sequence[Bot], seed: bytes | str | int, *,
               config: GameConfig | None = None, keep_log: bool = True,
               on_state: Callable[[GameState], None] | None = None,
               game: str = "") -> MatchResult:
    """Play a complete game; seat i is played by ``bots[i]``. ``game`` names the game in
    faults and bot traces (default: the seed)."""
    stream = RandomStream(seed)
    table = stream.fork("table")
    if config is None:
        config = random_config(len(bots), table)
    deck = list(config.card_ids())
    table.shuffle(deck)
    state = new_game(config, deck, keep_log=keep_log)
    chance = stream.fork("chance")
    fallback = stream.fork("fallback")
    faults: list[Fault] = []
    game = game or str(seed)
    seats = [GuardedSeat(bot, seat) for seat, bot in enumerate(bots)]
    for seat, guarded in enumerate(seats):
        seed_bytes = stream.fork(f"bot{seat}").word().to_bytes(8, "big")
        guarded.start(GameInfo(seat, config, seed_bytes, game=game), faults)
    actions = 0
    decisions = [0] * len(bots)
    think = [0.0] * len(bots)
    clock = time.perf_counter
    while not is_over(state):
        seat = to_move(state)[0]  # the first seat to move, or CHANCE
        if seat == CHANCE:
            apply_in_place(state, random_chance(state, chance))
        else:
            legal = legal_actions(state, seat)
            started = clock()
            action = seats[seat].ask(Turn(state, seat, legal), fallback, faults)
            think[seat] += clock() - started
            decisions[seat] += 1
            # The guard answers one of the very actions listed as legal, so it is not checked
            # again: the same state as apply_in_place (tests/test_engine_trusted.py).
            apply_trusted(state, action)
        actions += 1
        if on_state is not None:
            on_state(state)
    result = MatchResult(config, tuple(final_scores(state)), tuple(state.vp),
                         tuple(state.casualties), tuple(ranking(state)), state.round, actions,
                         tuple(faults), tuple(decisions), tuple(think))
    for seat, bot in enumerate(bots):
        try:
            bot.end({"seat": seat, "scores": list(result.scores), "winner": result.winner})
        except Exception as exc:  # a bot's hook failing must not lose the result
            log.warning("bot %s (seat %d) failed in end(): %s", bot.name, seat, exc)
    return result
