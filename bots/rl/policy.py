"""A small policy network in numpy (no PyTorch): it scores each legal action of a decision.

``h = tanh(U x + c)`` reads the encoded view ``x``; an action's score is ``phi(a) . (W h + b)``,
where ``phi(a)`` describes the action (its kind, the card's type, strength and VP, the planet,
the claim, what a decision's option names, where the seat knows the card to be). Scoring the
action's description rather than a row per action index keeps the network small (about 63,000
weights) and lets what it learns about one card carry over to the others. The policy is the
softmax of the legal actions' scores; ``update`` is a REINFORCE step.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from bots.rl import encoding as enc
from engine.cards import CARDS

KINDS = tuple(name for name, _ in enc.RANGES)
_CARD_W = len(enc.CARD_FEATURES)
_OPT_W = len(enc.OPTION_FEATURES)
_OPTIONS_AT = enc.observation_layout()[3][1]

# One decision of a game, for ``Policy.update``: the probabilities and the cache
# ``probabilities`` gave, and the row of the action taken.
TraceStep = tuple[np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray], int]
# phi(a): action kind, card kind, card numbers, planet, claim, option row, the card's obs row
PHI_SIZE = (len(KINDS) + len(enc.CARD_KINDS) + 3 + enc.MAX_PLANETS + enc.N_CLAIMS + _OPT_W
            + _CARD_W + 1)
_NUMBERS = np.array([[c.strength / 3.0, c.favor / 3.0, c.vp / 3.0] for c in CARDS],
                    dtype=np.float32)
_CARD_KIND = [enc.CARD_KINDS.index(c.type) for c in CARDS]
FORMAT = "solstice-policy-1"


class PolicyFileError(ValueError):
    """A policy file that is missing, not a policy, or of another encoding."""


def _split(index: int) -> tuple[str, int]:
    for name, size in enc.RANGES:
        at = enc.OFFSET[name]
        if at <= index < at + size:
            return name, index - at
    raise enc.EncodingError(f"action index {index} out of range")


_PHI_CACHE: dict[int, tuple[np.ndarray, tuple[int, ...], int]] = {}


def _static_phi(index: int) -> tuple[np.ndarray, tuple[int, ...], int]:
    """The part of phi that depends on the action index only; the cards it names; the option
    position (-1 if none)."""
    hit = _PHI_CACHE.get(index)
    if hit is not None:
        return hit
    phi = np.zeros(PHI_SIZE, dtype=np.float32)
    kind, i = _split(index)
    phi[KINDS.index(kind)] = 1.0
    at = len(KINDS)
    cards: tuple[int, ...] = ()
    option = -1
    if kind in ("pick1", "capture", "discard"):
        cards = (i,)
    elif kind == "pick2":
        cards = enc._PAIRS[i]
    elif kind == "dispatch":
        card, rest = divmod(i, enc.MAX_PLANETS * enc.N_CLAIMS)
        planet, claim = divmod(rest, enc.N_CLAIMS)
        cards = (card,)
        base = at + len(enc.CARD_KINDS) + 3
        phi[base + planet] = 1.0
        phi[base + enc.MAX_PLANETS + claim] = 1.0
    else:
        option = i
    for c in cards:
        phi[at + _CARD_KIND[c]] += 1.0
        phi[at + len(enc.CARD_KINDS):at + len(enc.CARD_KINDS) + 3] += _NUMBERS[c]
    phi[-1] = 1.0  # bias
    hit = (phi, cards, option)
    _PHI_CACHE[index] = hit
    return hit


_OPT_AT = len(KINDS) + len(enc.CARD_KINDS) + 3 + enc.MAX_PLANETS + enc.N_CLAIMS
_ROW_AT = _OPT_AT + _OPT_W


def action_features(obs: np.ndarray, indices: Sequence[int]) -> np.ndarray:
    """phi of every listed action, one row each."""
    out = np.empty((len(indices), PHI_SIZE), dtype=np.float32)
    for row, index in enumerate(indices):
        phi, cards, option = _static_phi(index)
        out[row] = phi
        if option >= 0:
            start = _OPTIONS_AT + option * _OPT_W
            out[row, _OPT_AT:_OPT_AT + _OPT_W] = obs[start:start + _OPT_W]
        for c in cards:
            out[row, _ROW_AT:_ROW_AT + _CARD_W] += obs[c * _CARD_W:(c + 1) * _CARD_W]
    return out


class Policy:
    def __init__(self, hidden: int = 32, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)
        self.U = (rng.standard_normal((hidden, enc.OBS_SIZE)) * 0.02).astype(np.float32)
        self.c = np.zeros(hidden, dtype=np.float32)
        self.W = (rng.standard_normal((PHI_SIZE, hidden)) * 0.05).astype(np.float32)
        self.b = np.zeros(PHI_SIZE, dtype=np.float32)

    @property
    def hidden(self) -> int:
        return int(self.c.shape[0])

    def probabilities(self, obs: np.ndarray, indices: Sequence[int]
                      ) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Softmax over the listed actions; the intermediate values ``update`` needs."""
        h = np.tanh(self.U @ obs + self.c)
        z = self.W @ h + self.b
        phi = action_features(obs, indices)
        logits = phi @ z
        logits -= logits.max()
        p = np.exp(logits)
        p /= p.sum()
        return p, (obs, h, phi)

    def best(self, obs: np.ndarray, indices: Sequence[int]) -> int:
        """The listed action with the highest probability (the first on ties)."""
        p, _ = self.probabilities(obs, indices)
        return indices[int(np.argmax(p))]

    def update(self, steps: Sequence[TraceStep], advantage: float, lr: float,
               mean: bool = True) -> None:
        """One REINFORCE step over a game's decisions: (probabilities, cache, chosen row);
        the gradient is the mean over the decisions (``mean=False``: their sum)."""
        if not steps or advantage == 0.0:
            return
        gU = np.zeros_like(self.U)
        gc = np.zeros_like(self.c)
        gW = np.zeros_like(self.W)
        gb = np.zeros_like(self.b)
        for p, (obs, h, phi), chosen in steps:
            onehot = -p
            onehot[chosen] += 1.0
            g_z = phi.T @ onehot           # d log p(chosen) / d z
            gW += np.outer(g_z, h)
            gb += g_z
            g_pre = (self.W.T @ g_z) * (1.0 - h * h)
            gU += np.outer(g_pre, obs)
            gc += g_pre
        scale = lr * advantage / (len(steps) if mean else 1)
        self.U += scale * gU
        self.c += scale * gc
        self.W += scale * gW
        self.b += scale * gb

    def save(self, path: str | Path) -> None:
        np.savez_compressed(path, format=np.array(FORMAT), obs_size=np.array(enc.OBS_SIZE),
                            action_size=np.array(enc.ACTION_SIZE), U=self.U, c=self.c,
                            W=self.W, b=self.b)

    @classmethod
    def load(cls, path: str | Path) -> Policy:
        if not Path(path).is_file():
            raise PolicyFileError(f"no policy file {str(path)!r}")
        try:
            with np.load(path, allow_pickle=False) as data:
                if str(data["format"]) != FORMAT:
                    raise PolicyFileError(f"{path}: not a {FORMAT} file")
                if int(data["obs_size"]) != enc.OBS_SIZE or \
                        int(data["action_size"]) != enc.ACTION_SIZE:
                    raise PolicyFileError(f"{path}: trained on another encoding (observation "
                                          f"{int(data['obs_size'])}, actions "
                                          f"{int(data['action_size'])}; this version has "
                                          f"{enc.OBS_SIZE}, {enc.ACTION_SIZE})")
                policy = cls.__new__(cls)
                policy.U, policy.c = data["U"], data["c"]
                policy.W, policy.b = data["W"], data["b"]
        except (OSError, KeyError, ValueError) as exc:
            if isinstance(exc, PolicyFileError):
                raise
            raise PolicyFileError(f"{path}: cannot read the policy: {exc}") from exc
        if policy.U.shape != (policy.hidden, enc.OBS_SIZE) or \
                policy.W.shape != (PHI_SIZE, policy.hidden):
            raise PolicyFileError(f"{path}: weights of the wrong shape")
        return policy
