"""A learned ranker of a decision's legal actions (numpy only): a linear softmax over features
of each action, the strongest of them ``greedy``'s own estimate of the move.

Each legal action is described by (``FEATURES``):

* greedy's estimate (``bots.heuristics``): for a draft pick, the cards' draft value; for a
  dispatch, a capture or a decision's option, the mean score margin after resolving the
  planets now, over a few determinizations of what the seat knows; as its difference from the
  best legal action's, and whether it is that best;
* what the action is (``bots.rl.policy``'s static description: its kind, the card's type and
  numbers, the planet, the claim), alone and times the round;
* where the seat knows the card to be (its row of the observation).

Trained by imitating a stronger bot's choices (``bots.rl.train_ranker``: ``ismcts``), it
learns where greedy's one-step estimate misleads it. Saved as ``.npz`` (``FORMAT``); the
``learned`` bot plays it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from bots.base import Turn
from bots.heuristics import draft_value, one_step_values
from bots.rl import encoding as enc
from bots.rl.policy import PHI_SIZE, _static_phi
from engine import Action, Discard, Dispatch, GameState, Pick
from engine.randomness import RandomStream
from engine.view import determinize

FORMAT = "solstice-ranker-1"
_CARD_W = len(enc.CARD_FEATURES)
N_FEATURES = 3 + 2 * PHI_SIZE + _CARD_W
SAMPLES = 4  # determinizations per estimate, as greedy's default


def _estimates(turn: Turn, rng: RandomStream) -> list[float]:
    """greedy's estimate of every legal action (claims of one dispatch share theirs)."""
    legal = turn.legal
    first = legal[0]
    state = turn.state()
    faction = state.config.factions[turn.seat]
    if isinstance(first, Pick):
        return [sum(draft_value(state.card_of[x], faction, state.n) for x in a.slots)
                for a in legal if isinstance(a, Pick)]
    if isinstance(first, Discard):
        return [0.0] * len(legal)
    groups: dict[tuple[object, ...], list[int]] = defaultdict(list)
    for i, action in enumerate(legal):
        key = ("dispatch", action.slot, action.planet) if isinstance(action, Dispatch) \
            else ("other", action.text())
        groups[key].append(i)
    representatives: list[Action] = [legal[rows[0]] for rows in groups.values()]
    worlds: list[GameState] = [determinize(state, rng) for _ in range(SAMPLES)]
    values = one_step_values(worlds, turn.seat, representatives, faction)
    out = [0.0] * len(legal)
    for rows, value in zip(groups.values(), values, strict=True):
        for i in rows:
            out[i] = value
    return out


def features(turn: Turn, rng: RandomStream) -> tuple[list[int], np.ndarray]:
    """The index of every legal action (in ``turn.legal``'s order) and its feature row."""
    view = turn.view
    indices = enc.legal_indices(turn.legal, view)
    obs = enc.encode_view(view)
    values = np.array(_estimates(turn, rng), dtype=np.float32)
    best = float(values.max())
    scale = 1.0 / 10.0
    rnd = view["round"] / 10.0
    X = np.zeros((len(indices), N_FEATURES), dtype=np.float32)
    X[:, 0] = (values - best) * scale
    X[:, 1] = values >= best - 1e-9
    X[:, 2] = values * scale
    for row, index in enumerate(indices):
        phi, cards, _ = _static_phi(index)
        X[row, 3:3 + PHI_SIZE] = phi
        X[row, 3 + PHI_SIZE:3 + 2 * PHI_SIZE] = phi * rnd
        for c in cards:
            X[row, 3 + 2 * PHI_SIZE:] += obs[c * _CARD_W:(c + 1) * _CARD_W]
    return indices, X


class RankerFileError(ValueError):
    """A file that is no ranker, or one of another feature set."""


class Ranker:
    def __init__(self, weights: np.ndarray | None = None) -> None:
        self.w = np.zeros(N_FEATURES, np.float32) if weights is None else weights
        if weights is None:
            self.w[1] = 1.0  # untrained, it plays greedy's choice

    def scores(self, X: np.ndarray) -> np.ndarray:
        return np.asarray(X @ self.w)

    def save(self, path: str | Path) -> None:
        np.savez_compressed(path, format=np.array(FORMAT), n_features=np.array(N_FEATURES),
                            w=self.w)

    @classmethod
    def load(cls, path: str | Path) -> Ranker:
        try:
            with np.load(path, allow_pickle=False) as data:
                if str(data["format"]) != FORMAT or int(data["n_features"]) != N_FEATURES:
                    raise RankerFileError(f"{path}: not a {FORMAT} file of {N_FEATURES} "
                                          "features")
                return cls(np.asarray(data["w"], dtype=np.float32))
        except (OSError, KeyError, ValueError) as exc:
            if isinstance(exc, RankerFileError):
                raise
            raise RankerFileError(f"{path}: cannot read the ranker: {exc}") from exc


def is_ranker_file(path: str | Path) -> bool:
    try:
        with np.load(path, allow_pickle=False) as data:
            return "format" in data and str(data["format"]) == FORMAT
    except (OSError, ValueError):
        return False


def fit(data: Sequence[tuple[np.ndarray, int]], *, epochs: int = 200, lr: float = 0.05,
        l2: float = 1e-3, start: Ranker | None = None) -> Ranker:
    """The weights that make the recorded choices likely: full-batch Adam on the mean
    log-likelihood of each decision's chosen row (``data``: (feature rows, chosen row))."""
    ranker = start or Ranker()
    w = ranker.w.astype(np.float64)
    m, v = np.zeros_like(w), np.zeros_like(w)
    for t in range(1, epochs + 1):
        grad = -l2 * w
        for X, chosen in data:
            z = X @ w
            p = np.exp(z - z.max())
            p /= p.sum()
            grad += (X[chosen] - p @ X) / len(data)
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad * grad
        w += lr * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
    return Ranker(w.astype(np.float32))


def choose(ranker: Ranker, turn: Turn, rng: RandomStream) -> Action:
    """The legal action the ranker scores highest (ties: the first)."""
    if len(turn.legal) == 1:
        return turn.legal[0]
    _, X = features(turn, rng)
    return turn.legal[int(np.argmax(ranker.scores(X)))]
