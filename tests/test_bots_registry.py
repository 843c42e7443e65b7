"""Bot discovery: built-ins, options, entry-point plugins, module paths, file paths, cmd:."""

from __future__ import annotations

import importlib.metadata

import pytest
from typer.testing import CliRunner

from bots import registry
from bots.base import Bot
from bots.greedy import GreedyBot
from bots.ismcts import IsmctsBot
from bots.process_bot import ProcessBot
from bots.random_bot import RandomBot
from bots.registry import BotSpecError, make_bot, split_bot_list, split_spec
from ui.cli import app


def test_builtins_resolve_with_converted_options() -> None:
    assert isinstance(make_bot("random"), RandomBot)
    assert isinstance(make_bot("greedy"), GreedyBot)
    bot = make_bot("ismcts:iterations=25,c=1.5")
    assert isinstance(bot, IsmctsBot)
    assert bot.iterations == 25 and bot.c == 1.5 and bot.think_time is None
    timed = make_bot("ismcts:time=0.5")
    assert timed.think_time == 0.5 and timed.iterations is None


def test_timeout_option_sets_the_budget_of_any_bot() -> None:
    assert make_bot("random").time_budget is None
    assert make_bot("random:timeout=0.25").time_budget == 0.25


@pytest.mark.parametrize("spec, message", [
    ("nosuchbot", "unknown bot 'nosuchbot'"),
    ("ismcts:iterations", "use key=value"),
    ("ismcts:bogus=1", "bot 'ismcts' has no option 'bogus' \\(its options: iterations"),
    ("ismcts:iterations=0", "iterations must be at least 1"),
    ("random:timeout=-1", "timeout must be a positive number"),
    ("no_such_module_xyz:Bot", "cannot import module"),
    ("bots.random_bot:Nope", "has no class 'Nope'"),
    ("missing/file.py:Bot", "no bot file"),
    ("collections:OrderedDict", "did not make a bots.base.Bot"),
    ("cmd:", "needs a command"),
    ("cmd:colour=red:python3 x.py", "only the option timeout"),
])
def test_bad_specs_say_what_is_wrong(spec: str, message: str) -> None:
    with pytest.raises(BotSpecError, match=message):
        make_bot(spec)


def test_split_spec_keeps_class_paths_and_takes_trailing_options() -> None:
    assert split_spec("pkg.mod:Cls") == ("pkg.mod:Cls", {})
    assert split_spec("pkg.mod:Cls:a=1,b=x") == ("pkg.mod:Cls", {"a": 1, "b": "x"})
    assert split_spec("dir/f.py:Cls:flag=true") == ("dir/f.py:Cls", {"flag": True})
    assert split_spec("greedy:") == ("greedy", {})


def test_module_path_resolves() -> None:
    bot = make_bot("bots.random_bot:RandomBot")
    assert isinstance(bot, RandomBot)


def test_file_path_resolves_with_options() -> None:
    bot = make_bot("bots/examples/my_bot.py:MyBot:greed=2")
    assert type(bot).__name__ == "MyBot" and bot.greed == 2.0
    assert type(make_bot("bots/examples/my_bot.py:MyBot")) is type(bot)  # loaded once


def test_file_with_an_error_is_reported(tmp_path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("raise RuntimeError('boom')\n")
    with pytest.raises(BotSpecError, match=r"error while loading .*boom"):
        make_bot(f"{broken}:Bot")


class PluginBot(Bot):
    """A plugin found through the entry point group."""

    description = "test plugin bot"

    def __init__(self, level: int = 1) -> None:
        self.level = level

    def choose(self, turn):
        return turn.legal[0]


def _fake_entry_points(monkeypatch, entries):
    def entry_points(group=None, **_):
        assert group == registry.ENTRY_POINT_GROUP
        return [importlib.metadata.EntryPoint(name, value, group) for name, value in entries]
    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)


def test_entry_point_plugins_resolve_and_are_listed(monkeypatch) -> None:
    _fake_entry_points(monkeypatch, [
        ("plugged", f"{__name__}:PluginBot"),
        ("random", f"{__name__}:PluginBot"),       # a built-in name: the built-in wins
        ("broken", "no_such_module_abc:Bot"),
    ])
    bot = make_bot("plugged:level=3")
    assert isinstance(bot, PluginBot) and bot.level == 3
    assert isinstance(make_bot("random"), RandomBot)
    with pytest.raises(BotSpecError, match=r"plugin bot .broken.*cannot be loaded"):
        make_bot("broken")
    listed = {e.name: e for e in registry.available_bots()}
    assert listed["plugged"].description == "test plugin bot"
    assert listed["plugged"].origin.startswith("plugin")
    assert "cannot be loaded" in listed["broken"].description
    assert listed["random"].origin == "built-in"


def test_cmd_specs_make_process_bots_with_a_budget() -> None:
    bot = make_bot("cmd:python3 some bot.py --flag a,b")
    assert isinstance(bot, ProcessBot)
    assert bot.argv == ["python3", "some", "bot.py", "--flag", "a,b"]
    assert bot.time_budget == 10.0
    quick = make_bot("cmd:timeout=0.5:python3 bot.py")
    assert quick.time_budget == 0.5 and quick.argv == ["python3", "bot.py"]


def test_bots_command_lists_builtins_with_descriptions() -> None:
    result = CliRunner().invoke(app, ["bots"])
    assert result.exit_code == 0, result.output
    lines = {line.split()[0]: line for line in result.output.splitlines() if line.strip()}
    for name in ("random", "greedy", "ismcts"):
        assert "built-in" in lines[name]
        assert len(lines[name].split("built-in", 1)[1].strip()) > 10  # a real description


@pytest.mark.parametrize(("text", "specs"), [
    ("random", ["random"]),
    ("greedy, random", ["greedy", "random"]),
    ("ismcts:iterations=5,c=1,random", ["ismcts:iterations=5,c=1", "random"]),
    ("greedy,cmd:python3 bot.py --names a,b", ["greedy", "cmd:python3 bot.py --names a,b"]),
])
def test_bot_lists_keep_each_specs_options_and_commands_whole(text: str,
                                                             specs: list[str]) -> None:
    assert split_bot_list(text) == specs
