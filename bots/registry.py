"""Bot specs (``--bot SPEC``) to bot instances: the one place that parses them.

Spec forms:

- ``NAME`` or ``NAME:key=value,key=value``: a built-in bot (``random``, ``greedy``,
  ``ismcts``) or an installed plugin, i.e. an entry point in the group ``solstice.bots``
  (built-ins win on a name clash).
- ``learned:PATH[:key=value,...]``: the ``learned`` bot playing the policy saved in PATH
  (``bots.learned``; same as ``learned:path=PATH``).
- ``package.module:Class[:key=value,...]``: a Bot subclass importable from ``sys.path``.
- ``path/to/file.py:Class[:key=value,...]``: a Bot subclass defined in a Python file.
- ``cmd:COMMAND`` or ``cmd:timeout=SECONDS:COMMAND``: a program speaking the bot protocol
  (protocol.md, "Bot protocol"); the whole rest of the spec is its command line.

Option values that look like numbers are passed as int/float, ``true``/``false`` as bool, the
rest as strings. The option ``timeout=SECONDS`` is understood for every bot: it sets the bot's
per-decision time budget (default: none for in-process bots, 10 s for ``cmd:`` bots).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import inspect
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bots.base import Bot
from bots.greedy import GreedyBot
from bots.ismcts import IsmctsBot
from bots.learned import LearnedBot
from bots.random_bot import RandomBot

ENTRY_POINT_GROUP = "solstice.bots"


class BotSpecError(ValueError):
    """A --bot spec that names no known bot or has bad options."""


BUILTINS: dict[str, Callable[..., Bot]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "ismcts": IsmctsBot,
    "learned": LearnedBot,
}

_CMD_OPTIONS = re.compile(r"^(\w+=[^\s:,]*(?:,\w+=[^\s:,]*)*):(.*)$", re.DOTALL)


@dataclass(frozen=True)
class BotEntry:
    """One bot ``solstice bots`` lists: its spec name, where it comes from, one line on it."""

    name: str
    origin: str          # "built-in" or "plugin (distribution name)"
    description: str


def _plugin_entry_points() -> list[importlib.metadata.EntryPoint]:
    return list(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP))


def _describe(factory: Any) -> str:
    text = getattr(factory, "description", "") or (getattr(factory, "__doc__", "") or "")
    return text.strip().splitlines()[0] if text.strip() else ""


def available_bots() -> list[BotEntry]:
    """Built-in bots, then installed plugins (loading a broken plugin is reported, not fatal)."""
    entries = [BotEntry(name, "built-in", _describe(factory))
               for name, factory in BUILTINS.items()]
    for ep in sorted(_plugin_entry_points(), key=lambda e: e.name):
        if ep.name in BUILTINS:
            continue
        dist = getattr(getattr(ep, "dist", None), "name", None)
        origin = f"plugin ({dist})" if dist else "plugin"
        try:
            description = _describe(ep.load())
        except Exception as exc:  # one broken plugin must not hide the others
            description = f"(cannot be loaded: {type(exc).__name__}: {exc})"
        entries.append(BotEntry(ep.name, origin, description))
    return entries


def parse_options(text: str, spec: str) -> dict[str, Any]:
    """``key=value,key=value`` to a dict with numbers and booleans converted."""
    options: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise BotSpecError(f"bad bot option {item!r} in {spec!r}: use key=value")
        options[key.strip()] = _convert(value.strip())
    return options


def _convert(value: str) -> Any:
    if value.lower() in ("true", "false"):
        return value.lower() == "true"
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            pass
    return value


def split_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """(target, options): the options are the last ``:``-separated part if it has a ``=``."""
    parts = spec.strip().split(":")
    if len(parts) > 1 and ("=" in parts[-1] or not parts[-1]):
        return ":".join(parts[:-1]), parse_options(parts[-1], spec)
    return spec.strip(), {}


def _check_option_names(factory: Callable[..., Bot], target: str,
                        options: dict[str, Any]) -> None:
    """Name an unknown option and list the known ones (a bare TypeError names the class's
    ``__init__``, which a player never wrote)."""
    try:
        params = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return
    known = [p.name for p in params if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                                  inspect.Parameter.KEYWORD_ONLY)]
    unknown = sorted(set(options) - set(known))
    if unknown:
        accepted = ", ".join([*known, "timeout"])
        raise BotSpecError(f"bot {target!r} has no option {unknown[0]!r} (its options: "
                           f"{accepted})")


def make_bot(spec: str) -> Bot:
    """A new bot for ``spec`` (see the module docstring); BotSpecError says what is wrong."""
    if not spec or not spec.strip():
        raise BotSpecError("empty bot spec")
    if spec.startswith("cmd:"):
        return _make_process_bot(spec)
    target, options = split_spec(spec)
    if target.startswith("learned:"):  # learned:PATH names the policy file
        options.setdefault("path", target[len("learned:"):])
        target = "learned"
    timeout = options.pop("timeout", None)
    factory = _resolve(target, spec)
    _check_option_names(factory, target, options)
    try:
        bot = factory(**options)
    except (TypeError, ValueError) as exc:
        raise BotSpecError(f"bad options for bot {target!r}: {exc}") from exc
    if not isinstance(bot, Bot):
        raise BotSpecError(f"{target!r} did not make a bots.base.Bot (got {type(bot).__name__})")
    if timeout is not None:
        bot.time_budget = _seconds(timeout, spec)
    return bot


def _seconds(value: Any, spec: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise BotSpecError(f"timeout must be a positive number of seconds in {spec!r}")
    return float(value)


def _make_process_bot(spec: str) -> Bot:
    rest = spec[len("cmd:"):]
    options: dict[str, Any] = {}
    match = _CMD_OPTIONS.match(rest)
    if match:
        options = parse_options(match.group(1), spec)
        rest = match.group(2)
    if not rest.strip():
        raise BotSpecError(f"{spec!r}: cmd: needs a command, e.g. 'cmd:python3 mybot.py'")
    unknown = set(options) - {"timeout"}
    if unknown:
        raise BotSpecError(f"{spec!r}: cmd: bots take only the option timeout, not "
                           f"{', '.join(sorted(unknown))}")
    # Imported here: subprocess and threading are a fifth of listing the bots (solstice bots).
    from bots.process_bot import DEFAULT_TIME_BUDGET, ProcessBot

    timeout = _seconds(options["timeout"], spec) if "timeout" in options \
        else DEFAULT_TIME_BUDGET
    try:
        return ProcessBot(rest.strip(), timeout)
    except ValueError as exc:
        raise BotSpecError(f"{spec!r}: {exc}") from exc


def _resolve(target: str, spec: str) -> Callable[..., Bot]:
    if ":" not in target:
        if target in BUILTINS:
            return BUILTINS[target]
        for ep in _plugin_entry_points():
            if ep.name == target:
                try:
                    plugin: Callable[..., Bot] = ep.load()
                    return plugin
                except Exception as exc:
                    raise BotSpecError(f"plugin bot {target!r} ({ep.value}) cannot be loaded: "
                                       f"{type(exc).__name__}: {exc}") from exc
        known = sorted({*BUILTINS, *(ep.name for ep in _plugin_entry_points())})
        raise BotSpecError(f"unknown bot {target!r}; available: {', '.join(known)} (or "
                           "package.module:Class, path/to/file.py:Class, cmd:COMMAND)")
    where, _, attr = target.rpartition(":")
    if where in BUILTINS or where in {ep.name for ep in _plugin_entry_points()}:
        hint = "separate options with ',' not ':'" if "=" in attr else "use key=value"
        raise BotSpecError(f"bad bot option {attr!r} in {spec!r}: {hint}")
    if where.endswith(".py") or "/" in where or "\\" in where:
        module = _load_file(where, spec)
    else:
        try:
            module = importlib.import_module(where)
        except ImportError as exc:
            raise BotSpecError(f"cannot import module {where!r} for {spec!r}: {exc}") from exc
    factory: Callable[..., Bot] | None = getattr(module, attr, None)
    if factory is None or not callable(factory):
        raise BotSpecError(f"{where!r} has no class {attr!r} (from {spec!r})")
    return factory


def _load_file(path_text: str, spec: str) -> Any:
    path = Path(path_text).expanduser().resolve()
    if not path.is_file():
        raise BotSpecError(f"no bot file {path_text!r} (from {spec!r})")
    # One module per file path, registered in sys.modules so that pickling, dataclasses and
    # repeated make_bot calls see a single class.
    name = "solstice_bot_file_" + re.sub(r"\W", "_", str(path))
    if name in sys.modules:
        return sys.modules[name]
    module_spec = importlib.util.spec_from_file_location(name, path)
    if module_spec is None or module_spec.loader is None:
        raise BotSpecError(f"cannot load {path_text!r} as Python (from {spec!r})")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    try:
        module_spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise BotSpecError(f"error while loading {path_text!r}: {type(exc).__name__}: "
                           f"{exc}") from exc
    return module


def split_bot_list(text: str) -> list[str]:
    """A comma-separated list of bot specs, keeping each spec's own ``key=value,...`` options
    and a final ``cmd:`` spec's command line (which may contain commas) whole."""
    # A cmd: spec may itself contain commas (its command line), so it must come last and
    # takes the rest of the text.
    specs: list[str] = []
    rest = text.strip()
    while rest:
        if rest.startswith("cmd:"):
            specs.append(rest)
            break
        head, _, rest = rest.partition(",")
        # Options after ':' are comma-separated too: glue key=value parts back on.
        if specs and "=" in head and ":" not in head:
            specs[-1] += "," + head.strip()
        elif head.strip():
            specs.append(head.strip())
        rest = rest.strip()
    return specs
