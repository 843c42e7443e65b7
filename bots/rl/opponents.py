"""The project's bots as opponents inside a learning environment: some seats of a ``Table``
are played by bots (``greedy``, ``ismcts:time=0.1``, ``learned:FILE``, any spec
``solstice simulate`` takes), the others by the agent.

Each bot is started as ``play_match`` starts it (the same seat, configuration and seed of its
own, drawn from the game's seed), and asked with the same ``Turn``, so a game where the agent
plays as some bot would is the very game ``solstice simulate`` plays with that seed.
"""

from __future__ import annotations

from collections.abc import Sequence

from bots.base import Bot, GameInfo
from bots.rl.table import Table
from engine.randomness import RandomStream


class Opponents:
    """Bots from ``specs`` (``bots.registry`` specs), seated anew for each game."""

    def __init__(self, specs: Sequence[str]) -> None:
        from bots.registry import make_bot

        self.specs = tuple(specs)
        self.bots: list[Bot] = [make_bot(spec) for spec in specs]
        self.by_seat: dict[int, Bot] = {}

    def start(self, table: Table, seats: Sequence[int], game: str = "") -> None:
        """Seat the bots at ``seats`` (in order) of a new game and tell them the game, as
        ``play_match`` does."""
        if len(seats) != len(self.bots):
            raise ValueError(f"{len(self.bots)} opponent bots for {len(seats)} seats")
        self.by_seat = dict(zip(seats, self.bots, strict=True))
        stream = RandomStream(table.seed)
        for seat, bot in self.by_seat.items():
            seed = stream.fork(f"bot{seat}").word().to_bytes(8, "big")
            bot.start(GameInfo(seat, table.config, seed, game=game or str(table.seed)))

    def play(self, table: Table) -> None:
        """Play the bots' decisions until an agent's seat is to act or the game is over."""
        while not table.over and table.seat in self.by_seat:
            turn = table.turn
            table.play(self.by_seat[turn.seat].choose(turn))
        if table.over and self.by_seat:
            result = {"scores": table.scores(), "winner": table.winner()}
            for seat, bot in self.by_seat.items():
                bot.end({"seat": seat, **result})
            self.by_seat = {}  # told once

    def close(self) -> None:
        for bot in self.bots:
            bot.close()
