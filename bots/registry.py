"""Bot specs (``--bot NAME[:key=value,...]``) to bot instances."""

from __future__ import annotations

from collections.abc import Callable

from bots.base import Bot
from bots.random_bot import RandomBot


class BotSpecError(ValueError):
    """A --bot spec that names no known bot or has bad options."""


BUILTINS: dict[str, Callable[..., Bot]] = {"random": RandomBot}


def make_bot(spec: str) -> Bot:
    name, _, options = spec.partition(":")
    factory = BUILTINS.get(name)
    if factory is None:
        raise BotSpecError(f"unknown bot {name!r}; available: {', '.join(sorted(BUILTINS))}")
    kwargs = {}
    for item in filter(None, options.split(",")):
        key, sep, value = item.partition("=")
        if not sep:
            raise BotSpecError(f"bad bot option {item!r} in {spec!r}: use key=value")
        kwargs[key] = value
    try:
        return factory(**kwargs)
    except TypeError as exc:
        raise BotSpecError(f"bad options for bot {name!r}: {exc}") from exc
