"""The command line as a user meets it: help, version, and one error style for bad input."""

from __future__ import annotations

import pytest

from ui.cli.commands import main, package_version


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("command", ["host", "join", "resume", "verify", "play", "simulate",
                                     "tournament", "replay"])
def test_help_shows_flags_without_type_placeholders_or_boxes(capsys, command: str) -> None:
    code, out, _ = run(capsys, command, "--help")
    assert code == 0
    assert "<bool>" not in out
    assert "╭" not in out and "│" not in out
    assert "--help" in out


def test_version_prints_the_package_version(capsys) -> None:
    code, out, _ = run(capsys, "--version")
    assert code == 0
    assert out.strip().startswith(f"solstice {package_version()}; engine: ")
    assert package_version() != "unknown (not installed)"


def test_version_says_which_engine_runs_and_why(capsys, monkeypatch) -> None:
    import engine

    monkeypatch.setattr(engine, "ENGINE_BUILD", "pure")
    monkeypatch.setattr(engine, "ENGINE_REASON", "SOLSTICE_PURE is set")
    _, pure, _ = run(capsys, "--version")
    monkeypatch.setattr(engine, "ENGINE_BUILD", "compiled")
    _, compiled, _ = run(capsys, "--version")
    assert compiled.strip().endswith("; engine: compiled (mypyc)")
    assert pure.strip().endswith("; engine: pure Python (SOLSTICE_PURE is set)")


@pytest.mark.parametrize("argv", [["host", "-n", "2", "--port", "70000"],
                                  ["join", "--port", "-1", "sol1-x"]])
def test_a_port_outside_0_to_65535_is_refused(capsys, argv: list[str]) -> None:
    code, _out, err = run(capsys, *argv)
    assert code == 2
    assert err.startswith("error: ") and "--port" in err
    assert "65535" in err or "0<=x" in err or "greater than or equal" in err


def test_option_errors_and_our_errors_share_one_style(capsys) -> None:
    code, _, parser_err = run(capsys, "host", "--players", "9")
    assert code == 2
    code, _, our_err = run(capsys, "verify", "/nonexistent/transcript.json")
    assert code == 2
    for err in (parser_err, our_err):
        assert err.startswith("error: ")
        assert "╭" not in err and "Traceback" not in err


def test_an_unknown_bot_option_is_named_with_the_options_the_bot_takes(capsys) -> None:
    code, _, err = run(capsys, "play", "--bot", "ismcts:foo=1")
    assert code == 2
    assert err.startswith("error: bot 'ismcts' has no option 'foo'")
    assert "time" in err
    assert "__init__" not in err
