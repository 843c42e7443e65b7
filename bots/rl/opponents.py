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
    """Bots for ``seats`` (their specs in ``specs``, one per seat)."""

    def __init__(self, specs: Sequence[str], seats: Sequence[int]) -> None:
        from bots.registry import make_bot

        if len(specs) != len(seats):
            raise ValueError(f"{len(specs)} opponent bots for {len(seats)} seats")
        self.specs = tuple(specs)
        self.seats = tuple(seats)
        self.bots: dict[int, Bot] = {seat: make_bot(spec)
                                     for seat, spec in zip(seats, specs, strict=True)}

    def start(self, table: Table, game: str = "") -> None:
        """Tell each bot the new game, as ``play_match`` does."""
        stream = RandomStream(table.seed)
        for seat, bot in self.bots.items():
            seed = stream.fork(f"bot{seat}").word().to_bytes(8, "big")
            bot.start(GameInfo(seat, table.config, seed, game=game or str(table.seed)))

    def play(self, table: Table) -> None:
        """Play the bots' decisions until an agent's seat is to act or the game is over."""
        while not table.over and table.seat in self.bots:
            turn = table.turn
            table.play(self.bots[turn.seat].choose(turn))
        if table.over:
            result = {"scores": table.scores(), "winner": table.winner()}
            for seat, bot in self.bots.items():
                bot.end({"seat": seat, **result})

    def close(self) -> None:
        for bot in self.bots.values():
            bot.close()
