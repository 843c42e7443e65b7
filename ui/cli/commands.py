"""The ``solstice`` command line (typer). Each command group lives in its own module.

Help is plain text (no Rich boxes, no ``<bool>`` type placeholders) and every error, ours or
the option parser's, is one ``error: ...`` line on stderr followed by where to get help.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer

try:  # typer >= 0.24 vendors click; older releases depend on it
    from typer._click import exceptions as click_errors
except ImportError:  # pragma: no cover - depends on the installed typer
    import click.exceptions as click_errors  # type: ignore[no-redef]

from ui.cli import botcheck as cmd_botcheck
from ui.cli import bots as cmd_bots
from ui.cli import games as cmd_games
from ui.cli import net as cmd_net
from ui.cli import play as cmd_play
from ui.cli import ratings as cmd_ratings
from ui.cli import rendezvous as cmd_rendezvous
from ui.cli import replay as cmd_replay
from ui.cli import rules as cmd_rules
from ui.cli import serve as cmd_serve
from ui.cli import simulate as cmd_simulate
from ui.cli import tournament as cmd_tournament
from ui.cli import watch as cmd_watch


def _skip_coercing_absent_values() -> None:
    """Let an option that was not given skip typer's value coercion (start-up cost only).

    Typer >= 0.24 coerces every parameter value through pydantic when the command runs, even
    the None of an absent ``--bot-log`` or ``--help``, so importing pydantic was a third of
    ``solstice bots``. Its coercion maps None to None (to () for a multi-value parameter), so
    an absent optional parameter gets exactly that here and still goes through its callback;
    given values and required parameters are coerced as before. Older typers lack the hook.
    """
    param_class: Any = getattr(typer.core, "_TyperParameter", None)
    if param_class is None or not hasattr(param_class, "get_runtime_param"):
        return  # pragma: no cover - depends on the installed typer
    coerce = param_class.process_value

    def process_value(self: Any, ctx: Any, value: Any) -> Any:
        if value is None and not self.required:
            value = () if self.multiple or self.nargs == -1 else None
            return value if self.callback is None else self.callback(ctx, self, value)
        return coerce(self, ctx, value)

    param_class.process_value = process_value


_skip_coercing_absent_values()


def _plain_usage_and_types() -> None:
    """Help in one style: arguments as ``CODE...`` / ``[CODE]...`` / ``TRANSCRIPT`` (typer
    mixed ``{code}...``, ``[code]...`` and ``{TRANSCRIPT}``), and types as ``<int>`` /
    ``<str>`` (not ``<int range>``, whose bounds the help already shows as ``[2<=x<=4]``,
    nor ``<list[str]>``). Older typers lack the hooks and keep their own style."""
    import re

    param_class: Any = getattr(typer.core, "_TyperParameter", None)
    argument_class: Any = getattr(typer.core, "TyperArgument", None)
    if param_class is not None and hasattr(param_class, "display_type"):
        shown = param_class.display_type

        def display_type(self: Any, ctx: Any) -> str:
            label = shown(self, ctx)
            label = re.sub(r"^<(\w+) range>$", r"<\1>", label)
            return re.sub(r"^<list\[(\w+)\]>$", r"<\1>", label)

        param_class.display_type = display_type
    if argument_class is not None and hasattr(argument_class, "_usage_display_name"):

        def usage_name(self: Any) -> str:
            name = self.metavar or self.name.upper()
            name = name if self.required else f"[{name}]"
            return name + ("..." if self.nargs != 1 else "")

        argument_class._usage_display_name = usage_name
    if argument_class is not None and hasattr(argument_class, "_rich_display_name"):

        def help_name(self: Any) -> str:  # the Arguments section names it as the usage does
            name: str = self.metavar or self.name.upper()
            return name + ("..." if self.nargs != 1 else "")

        argument_class._rich_display_name = help_name


_plain_usage_and_types()

app = typer.Typer(
    name="solstice",
    help="Solstice: a peer-to-peer card game client with fair hidden play and pluggable bots.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("solstice-table")
    except PackageNotFoundError:
        return "unknown (not installed)"


def engine_build() -> str:
    """Which engine runs, and why: the mypyc build or the Python sources."""
    import engine

    if engine.ENGINE_BUILD == "compiled":
        return "engine: compiled (mypyc)"
    return f"engine: pure Python ({engine.ENGINE_REASON})"


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"solstice {package_version()}; {engine_build()}")
        raise typer.Exit(0)


@app.callback()
def _root(
    show_version: bool = typer.Option(False, "--version", help="Print the version and exit.",
                                      callback=_show_version, is_eager=True),
    bot_log: Path | None = typer.Option(None, "--bot-log", metavar="FILE", help="Append the "
                                        "log messages and stderr of process bots to FILE "
                                        "(they are also printed, prefixed with bot and seat)."),
    record_bot: Path | None = typer.Option(None, "--record-bot", metavar="DIR", help="Write "
                                           "each process bot's protocol traffic to DIR, one "
                                           "file per game and seat (for solstice bot-replay)."),
) -> None:
    """Solstice: a peer-to-peer card game client with fair hidden play and pluggable bots."""
    from bots import bot_output

    if bot_log is not None and bot_log.is_dir():
        raise typer.BadParameter(f"{bot_log} is a directory", param_hint="--bot-log")
    if record_bot is not None and record_bot.exists() and not record_bot.is_dir():
        raise typer.BadParameter(f"{record_bot} is not a directory", param_hint="--record-bot")
    try:
        bot_output.configure(log_file=bot_log, record_dir=record_bot)
    except OSError as exc:
        raise typer.BadParameter(str(exc), param_hint="--bot-log / --record-bot") from None


app.add_typer(cmd_rules.app, name="rules")
cmd_simulate.register(app)
cmd_net.register(app)
cmd_games.register(app)
cmd_watch.register(app)
cmd_tournament.register(app)
cmd_bots.register(app)
cmd_replay.register(app)
cmd_serve.register(app)
cmd_botcheck.register(app)
cmd_ratings.register(app)
cmd_rendezvous.register(app)
app.command()(cmd_play.play)


# Options of ``solstice`` itself that users put after a command, with their value's name.
GLOBAL_OPTIONS = {"--bot-log": "FILE", "--record-bot": "DIR"}


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; option errors are printed in the same ``error:`` style as ours."""
    try:
        code = app(args=argv, prog_name="solstice", standalone_mode=False)
    except click_errors.NoArgsIsHelpError as exc:
        typer.echo(exc.format_message())
        code = 0
    except click_errors.UsageError as exc:
        typer.echo(f"error: {exc.format_message()}", err=True)
        option = getattr(exc, "option_name", None)
        if isinstance(exc, click_errors.NoSuchOption) and option in GLOBAL_OPTIONS:
            typer.echo(f"{option} is an option of solstice itself, not of a command: put it "
                       f"before the command, e.g. 'solstice {option} {GLOBAL_OPTIONS[option]} "
                       "tournament ...'", err=True)
        elif exc.ctx is not None:
            typer.echo(f"Try '{exc.ctx.command_path} --help' for help.", err=True)
        code = exc.exit_code
    except click_errors.ClickException as exc:
        typer.echo(f"error: {exc.format_message()}", err=True)
        code = exc.exit_code
    except typer.Exit as exc:
        code = exc.exit_code
    except typer.Abort:
        typer.echo("error: aborted", err=True)
        code = 1
    return code if isinstance(code, int) else 0


if __name__ == "__main__":
    sys.exit(main())
