"""``learned``: plays a policy trained on the learning environment (``bots.rl``), saved as a
``.npz`` file: ``--bot learned:PATH`` (or ``learned:path=PATH``); ``--bot learned`` plays the
one shipped with the package (``bots/data/learned.npz``: a ranker, ``bots.rl.ranker``, trained
by ``python -m bots.rl.train_ranker``).

It reads only its ``Turn`` (the seat's view and legal actions), encodes them as the
environment does, and plays the legal action its policy likes best, so it sits at any table:
``solstice simulate``, ``tournament``, ``play`` and LAN games. Needs numpy (the ``rl`` extra).
"""

from __future__ import annotations

from pathlib import Path

from bots.base import Bot, Turn
from engine import Action

# the weights shipped with the package: ``--bot learned`` plays them
SHIPPED = Path(__file__).resolve().parent / "data" / "learned.npz"


class LearnedBotError(ValueError):
    """The learned bot cannot start: no policy file, an unreadable one, or no numpy."""


class LearnedBot(Bot):
    name = "learned"
    description = ("plays the ranker shipped with the package, or a policy trained with "
                   "bots.rl (learned:PATH to its .npz file)")

    def __init__(self, path: str = "") -> None:
        path = path or str(SHIPPED)
        try:
            from bots.rl import encoding
            from bots.rl.policy import Policy, PolicyFileError
            from bots.rl.ranker import Ranker, RankerFileError, is_ranker_file
        except ImportError as exc:
            raise LearnedBotError(f"learned needs numpy: pip install 'solstice[rl]' ({exc})"
                                  ) from exc
        if not Path(path).is_file():
            raise LearnedBotError(f"no policy file {path!r}")
        self.ranker: Ranker | None = None
        try:
            if is_ranker_file(path):
                self.ranker = Ranker.load(path)
            else:
                self.policy = Policy.load(path)
        except (PolicyFileError, RankerFileError) as exc:
            raise LearnedBotError(str(exc)) from exc
        self._legal_indices = encoding.legal_indices
        self._encode_view = encoding.encode_view
        self.path = path

    def choose(self, turn: Turn) -> Action:
        if len(turn.legal) == 1:
            return turn.legal[0]
        if self.ranker is not None:
            from bots.rl.ranker import choose

            return choose(self.ranker, turn, self.rng)
        view = turn.view
        indices = self._legal_indices(turn.legal, view)
        best = self.policy.best(self._encode_view(view), indices)
        return turn.legal[indices.index(best)]
