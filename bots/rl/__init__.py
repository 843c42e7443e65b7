"""Solstice for learning agents: a PettingZoo AEC environment (``env``, ``raw_env``), an
OpenSpiel game (``import bots.rl.openspiel`` registers ``python_solstice``), a single-agent
Gymnasium environment with the project's bots in the other seats and vectors of it
(``bots.rl.gym_env``), the fixed-size encodings they use (``bots.rl.encoding``, numpy only),
perfect-recall information states (``bots.rl.recall``), game records ``solstice replay``
shows (``bots.rl.record``) and the ``learned`` bot's ranker (``bots.rl.ranker``).

``pettingzoo`` and ``open_spiel`` come with the optional extra: ``pip install 'solstice[rl]'``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["env", "raw_env"]


def __getattr__(name: str) -> Any:
    # PettingZoo is imported only when the environment is asked for, so the encodings and the
    # learned bot work without the extra.
    if name in ("env", "raw_env"):
        try:
            from bots.rl import pettingzoo_env
        except ImportError as exc:
            raise ImportError(f"bots.rl.{name} needs PettingZoo: pip install 'solstice[rl]' "
                              f"({exc})") from exc
        return getattr(pettingzoo_env, name)
    raise AttributeError(f"module 'bots.rl' has no attribute {name!r}")
