"""The one bounded parser for JSON that comes from outside: mesh frames, lobby and spectator
control messages, signed messages, resync frames, chat, stored and offered files.

Every document is checked against its ``JSONLimits`` (size, nesting, number of values, digits
of a number) before it is parsed (``engine.canonical.parse_json``), so no input can raise a
RecursionError, exhaust memory or take quadratic time; whatever is wrong is raised as
``UnreadableInput``, a RemoteProtocolError naming the connection (peer index) or author it came
from, which every connection handler already treats as that peer's fault (protocol.md,
"Parser limits").
"""

from __future__ import annotations

from typing import Any

from engine.canonical import FRAME_LIMITS, JSONLimits, JSONRefused, parse_json
from p2p.errors import RemoteProtocolError


class UnreadableInput(RemoteProtocolError):
    """Bytes from a peer that are not JSON we take (not UTF-8, not JSON, a float, or over a
    parser limit); ``seat`` is the connection or author that sent them."""


def parse_from(data: bytes | str, blame: int | None, what: str,
               limits: JSONLimits = FRAME_LIMITS) -> Any:
    """The JSON value of ``data`` (a ``what``: "control message", "chat", ...) sent by
    ``blame``; UnreadableInput says what is wrong with it."""
    try:
        return parse_json(data, limits)
    except JSONRefused as exc:
        raise UnreadableInput(blame, f"{what} is not valid JSON: {exc}") from None
