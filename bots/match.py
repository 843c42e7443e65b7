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

from bots.base import Bot, GameInfo
from bots.faults import Fault
from bots.guard import GuardedSeat
from engine import (
    Action,
    GameConfig,
    GameState,
    draw_legal,
    final_scores,
    new_game,
    random_chance,
    random_config,
    ranking,
)
from engine.randomness import RandomStream
from engine.relabel import OrderOf, RelabelSchedule, StreamOrders
from engine.stepper import ChanceOf, Stepper

__all__ = ["ChanceOf", "MatchResult", "Stepper", "play_match", "seeded_game", "stream_orders"]

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
    # CPU time of the playing thread over the same decisions: an in-process bot's thinking,
    # the same on a loaded machine as on an idle one (a program bot's is only the waiting)
    cpu_seconds: tuple[float, ...] = field(default=(), compare=False)

    @property
    def winner(self) -> int:
        return self.ranking[0]


def play_match(bots: Sequence[Bot], seed: bytes | str | int, *,
               config: GameConfig | None = None, keep_log: bool | None = None,
               on_state: Callable[[GameState], None] | None = None,
               game: str = "", deck: Sequence[int] | None = None,
               chance: ChanceOf | None = None, relabel_order: OrderOf | None = None
               ) -> MatchResult:
    """Play a complete game; seat i is played by ``bots[i]``. ``game`` names the game in
    faults and bot traces (default: the seed).

    Hands are relabelled on the engine's schedule (``engine.relabel.RelabelSchedule``), as in a
    network game, so each bot sees what it would see at a networked table; a pick round's
    picks are all chosen on the same state, as a network's pick commitments are. The deck
    order, the chance actions and the relabel orders come from streams of ``seed`` unless
    given (``deck``, ``chance``, ``relabel_order``: a test replays a network game's). The game
    keeps its log when ``keep_log`` says so, by default when a bot may read it (``reads_log``)
    or ``on_state`` is given; the log changes nothing else in the game."""
    stream = RandomStream(seed)
    if keep_log is None:
        keep_log = on_state is not None or any(bot.reads_log for bot in bots)
    state = seeded_game(stream, len(bots), config, deck, keep_log)
    config = state.config
    if chance is None:
        chance_stream = stream.fork("chance")

        def chance(s: GameState) -> Action:
            return random_chance(s, chance_stream)
    relabels = RelabelSchedule(relabel_order or stream_orders(stream.fork("relabel"), len(bots)))
    fallback = stream.fork("fallback")
    faults: list[Fault] = []
    game = game or str(seed)
    seats = [GuardedSeat(bot, seat) for seat, bot in enumerate(bots)]
    for seat, guarded in enumerate(seats):
        seed_bytes = stream.fork(f"bot{seat}").word().to_bytes(8, "big")
        guarded.start(GameInfo(seat, config, seed_bytes, game=game), faults)
    decisions = [0] * len(bots)
    think = [0.0] * len(bots)
    cpu = [0.0] * len(bots)
    clock, cpu_clock = time.perf_counter, time.thread_time
    stepper = Stepper(state, chance, relabels, on_state)
    next_seat, play = stepper.next_seat, stepper.play
    # One loop, no helper call per move: a random game's decisions are most of its work, and
    # the plain random bot's are the engine's draws (``GuardedSeat.answer``, as one call).
    draws = [guarded.draw_stream() for guarded in seats]
    while (mover := next_seat()) is not None:
        started = clock()
        drawn_from = draws[mover]
        if drawn_from is None:
            cpu_started = cpu_clock()
            action = seats[mover].answer(state, fallback, faults)
            cpu[mover] += cpu_clock() - cpu_started
        else:
            # a random bot's draw costs less than reading the thread's CPU clock
            action = draw_legal(state, mover, drawn_from)
        think[mover] += clock() - started
        decisions[mover] += 1
        # The guard answers one of the very actions listed as legal, so it is not checked
        # again: the same state as apply_in_place (tests/test_engine_trusted.py).
        play(action)
    result = MatchResult(config, tuple(final_scores(state)), tuple(state.vp),
                         tuple(state.casualties), tuple(ranking(state)), state.round,
                         stepper.actions, tuple(faults), tuple(decisions), tuple(think),
                         tuple(cpu))
    for seat, bot in enumerate(bots):
        try:
            bot.end({"seat": seat, "scores": list(result.scores), "winner": result.winner})
        except Exception as exc:  # a bot's hook failing must not lose the result
            log.warning("bot %s (seat %d) failed in end(): %s", bot.name, seat, exc)
    return result


def seeded_game(stream: RandomStream, players: int, config: GameConfig | None = None,
                deck: Sequence[int] | None = None, keep_log: bool = True) -> GameState:
    """The new game a seed's stream deals: its configuration (unless given) and its deck
    order (unless given) from the stream's ``table`` fork."""
    table = stream.fork("table")
    if config is None:
        config = random_config(players, table)
    if deck is None:
        shuffled = list(config.card_ids())
        table.shuffle(shuffled)
        deck = shuffled
    return new_game(config, list(deck), keep_log=keep_log)


def stream_orders(stream: RandomStream, seats: int) -> OrderOf:
    """Relabel orders drawn from ``stream``: one stream per seat, as each network peer draws
    its own re-mask orders from a secret of its own (``engine.relabel.StreamOrders``)."""
    return StreamOrders(stream, seats)
