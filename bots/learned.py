"""``learned``: plays a policy trained on the learning environment (``bots.rl``), saved as a
``.npz`` file: ``--bot learned:PATH`` (or ``learned:path=PATH``).

It reads only its ``Turn`` (the seat's view and legal actions), encodes them as the
environment does, and plays the legal action its policy likes best, so it sits at any table:
``solstice simulate``, ``tournament``, ``play`` and LAN games. Needs numpy (the ``rl`` extra).
"""

from __future__ import annotations

from bots.base import Bot, Turn
from engine import Action


class LearnedBotError(ValueError):
    """The learned bot cannot start: no policy file, an unreadable one, or no numpy."""


class LearnedBot(Bot):
    name = "learned"
    description = "plays a policy trained with bots.rl (learned:PATH to its .npz file)"

    def __init__(self, path: str = "") -> None:
        if not path:
            raise LearnedBotError("learned needs the policy file: --bot learned:PATH "
                                  "(train one with bots/examples/train_learned.py)")
        try:
            from bots.rl import encoding
            from bots.rl.policy import Policy, PolicyFileError
        except ImportError as exc:
            raise LearnedBotError(f"learned needs numpy: pip install 'solstice[rl]' ({exc})"
                                  ) from exc
        try:
            self.policy = Policy.load(path)
        except PolicyFileError as exc:
            raise LearnedBotError(str(exc)) from exc
        self._legal_indices = encoding.legal_indices
        self._encode_view = encoding.encode_view
        self.path = path

    def choose(self, turn: Turn) -> Action:
        if len(turn.legal) == 1:
            return turn.legal[0]
        view = turn.view
        indices = self._legal_indices(turn.legal, view)
        best = self.policy.best(self._encode_view(view), indices)
        return turn.legal[indices.index(best)]
