"""A world the seat cannot tell from the real game: for search over information states.

``engine.view.determinize`` deals the cards the seat has not seen; the redaction it starts
from also forgets the draft picks of the other seats (they are secret until every pick is
in), though that a seat has picked is public. Here those seats pick again, at random, in the
sampled world, so the seat's view of it is the view of the real game.
"""

from __future__ import annotations

from engine import GameState, apply_trusted, legal_actions
from engine.randomness import RandomStream
from engine.view import determinize, redact


def sample_world(s: GameState, seat: int, stream: RandomStream) -> GameState:
    world = determinize(redact(s, seat), stream)
    for other, made in enumerate(s.picks):
        if made is not None and world.picks[other] is None and other != seat:
            options = legal_actions(world, other)
            apply_trusted(world, options[stream.randbelow(len(options))])
    return world
