"""Shared by the bots.rl tests: a dealt game from a seed, as play_match deals it."""

from __future__ import annotations

from engine import GameState, new_game, random_config
from engine.randomness import RandomStream


def random_state(players: int, seed: str) -> GameState:
    stream = RandomStream(seed)
    table = stream.fork("table")
    config = random_config(players, table)
    deck = list(config.card_ids())
    table.shuffle(deck)
    return new_game(config, deck, keep_log=False)
