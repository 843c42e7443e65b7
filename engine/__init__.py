"""The Solstice rules engine: pure, deterministic, no I/O, no clock, no randomness of its own.

Typical use::

    from engine import RandomStream, random_config, new_game, legal_actions, apply, to_move
    stream = RandomStream(seed)
    config = random_config(3, stream)
    state = new_game(config, deck_order=stream.sample(config.card_ids(), len(config.card_ids())))

The modules compiled with mypyc (``engine/_compiled``, built by ``make`` and by a wheel build)
run in place of their sources when they were built from them; ``SOLSTICE_PURE=1`` keeps the
sources. ``ENGINE_BUILD`` says which runs (``"compiled"`` or ``"pure"``), ``ENGINE_REASON`` why.
"""

from engine import _native

ENGINE_BUILD, ENGINE_REASON = _native.choose()
if ENGINE_BUILD == "compiled":
    # Ahead of the sources: each submodule imported from here on is the compiled one, if any.
    __path__.insert(0, str(_native.COMPILED_DIR))

from engine.actions import (
    Action,
    Capture,
    Choose,
    Discard,
    Dispatch,
    Pick,
    Shuffle,
    action_from_dict,
    action_to_dict,
    parse_action,
)
from engine.cards import CARD_BY_LABEL, CARDS, PLANETS, Card, Planet
from engine.cleanup import final_scores, ranking, winner
from engine.config import GameConfig, random_config
from engine.errors import (
    EngineError,
    IllegalActionError,
    MalformedActionError,
    NotWaitingError,
    RuleViolationError,
)
from engine.game import (
    CHANCE,
    apply,
    apply_in_place,
    apply_trusted,
    chance_request,
    draw_legal,
    is_over,
    legal_action,
    legal_actions,
    legal_count,
    new_game,
    pending_decision,
    random_chance,
    reveal,
    reveal_in_place,
    to_move,
    unasked_answer,
)
from engine.randomness import RandomStream
from engine.state import Decision, GameState, Phase

__all__ = [
    "CARDS", "CARD_BY_LABEL", "CHANCE", "ENGINE_BUILD", "ENGINE_REASON", "PLANETS", "Action",
    "Capture", "Card", "Choose",
    "Decision", "Discard", "Dispatch", "EngineError", "GameConfig", "GameState",
    "IllegalActionError", "MalformedActionError", "NotWaitingError", "Phase", "Pick", "Planet",
    "RandomStream", "RuleViolationError", "Shuffle", "action_from_dict", "action_to_dict",
    "apply", "apply_in_place", "apply_trusted", "chance_request", "draw_legal", "final_scores",
    "is_over", "legal_action", "legal_actions", "legal_count",
    "new_game", "parse_action", "pending_decision", "random_chance", "random_config",
    "ranking", "reveal",
    "reveal_in_place", "to_move", "unasked_answer", "winner",
]
