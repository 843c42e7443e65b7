"""The quick commands stay quick: what ``solstice --help``, ``bots`` and ``rules cards`` import.

Start-up is CPU spent importing, so these tests pin the import sets (robust on a busy machine,
unlike a timing): the networking stack, the Textual app and pydantic (which typer pulls in to
coerce option values) have no business in listing bots or cards.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import typer
from typer.testing import CliRunner

import ui.cli.commands  # noqa: F401  (installs the absent-option shortcut under test)

HEAVY = ("trio", "cryptography.x509", "textual", "pydantic", "rich")


def modules_after(code: str) -> tuple[set[str], str]:
    """The modules a fresh interpreter holds after running ``code``, and what it printed."""
    probe = (f"{code}\nimport sys, json\n"
             "print('\\nMODULES ' + json.dumps(sorted(sys.modules)))")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            timeout=120, check=True)
    output, _, modules = result.stdout.rpartition("\nMODULES ")
    return set(json.loads(modules)), output


def test_importing_the_command_line_imports_no_heavy_package() -> None:
    modules, _ = modules_after("import ui.cli.commands")
    assert not {name for name in HEAVY if name in modules}
    assert not any(name == "engine" or name.startswith(("engine.", "bots.registry"))
                   for name in modules)


@pytest.mark.parametrize("argv", [["--help"], ["bots"], ["rules", "cards"]])
def test_quick_commands_import_no_heavy_package(argv: list[str]) -> None:
    modules, output = modules_after(
        "from ui.cli.commands import main\n"
        f"assert main({argv!r}) == 0")
    assert output.strip()
    assert not {name for name in HEAVY if name in modules}


def test_listing_the_bots_still_names_every_built_in_bot() -> None:
    modules, output = modules_after("from ui.cli.commands import main\nmain(['bots'])")
    assert [line.split()[0] for line in output.splitlines()[:3]] == ["random", "greedy", "ismcts"]
    assert "bots.process_bot" not in modules


def _options_app() -> typer.Typer:
    app = typer.Typer()
    seen: list[object] = []

    def note(value: object) -> object:
        seen.append(value)
        return value

    @app.command()
    def show(count: int | None = typer.Option(None),
             names: list[str] | None = typer.Option(None),
             tag: str | None = typer.Option(None, callback=note)) -> None:
        typer.echo(json.dumps({"count": count, "names": names, "tag": tag, "seen": seen}))

    return app


def test_an_absent_option_is_none_and_still_reaches_its_callback() -> None:
    # the same values typer gives when it coerces the absent options itself
    result = CliRunner().invoke(_options_app(), [])
    assert result.exit_code == 0
    assert json.loads(result.output) == {"count": None, "names": None, "tag": None, "seen": [None]}


def test_a_given_option_is_still_coerced_and_checked() -> None:
    app = _options_app()
    given = CliRunner().invoke(app, ["--count", "3", "--names", "a", "--tag", "x"])
    assert json.loads(given.output) == {"count": 3, "names": ["a"], "tag": "x", "seen": ["x"]}
    assert CliRunner().invoke(app, ["--count", "three"]).exit_code == 2
