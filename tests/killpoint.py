"""``solstice`` with a kill point, for the real-process tables of ``tests/crash_game.py``:
with ``SOLSTICE_KILL_AT=TYPE:POINT`` in its environment this process kills itself (SIGKILL)
as it stores its own first message of type TYPE, before the line is on its disk
(``before-write``) or right after it is (``after-write``), before it is sent anywhere: the
moment is placed exactly, no timing involved. ``SOLSTICE_GRACE=S``: the mesh's grace
period for a peer to come back (60 s otherwise), so that a table gives a peer up quickly."""

from __future__ import annotations

import os
import signal
import sys
from typing import Any

from p2p.net.transport import NetConfig
from p2p.session.envelope import SignedMessage
from p2p.storage.store import GameStore
from ui.cli import main

KILL_AT = "SOLSTICE_KILL_AT"
GRACE = "SOLSTICE_GRACE"


def install(spec: str) -> None:
    kind, point = spec.split(":")
    real = GameStore.append

    def append(store: GameStore, signed: SignedMessage, durable: bool = False) -> None:
        here = durable and signed.msg.type == kind  # (durable: one of our own)
        if here and point == "before-write":
            os.kill(os.getpid(), signal.SIGKILL)
        real(store, signed, durable)
        if here and point == "after-write":
            os.kill(os.getpid(), signal.SIGKILL)

    GameStore.append = append  # type: ignore[method-assign]


def shorten_grace(seconds: float) -> None:
    real = NetConfig.__init__

    def init(config: NetConfig, *args: Any, **kwargs: Any) -> None:
        real(config, *args, **kwargs)
        object.__setattr__(config, "grace_period", seconds)

    NetConfig.__init__ = init  # type: ignore[method-assign]


if __name__ == "__main__":
    if os.environ.get(KILL_AT):
        install(os.environ[KILL_AT])
    if os.environ.get(GRACE):
        shorten_grace(float(os.environ[GRACE]))
    sys.exit(main(sys.argv[1:]))
