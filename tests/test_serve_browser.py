"""``solstice serve`` in a real browser (issue 48 item 12): a headless Chromium loads the page
that ``solstice serve`` prints and plays a whole 2-player game against a ``random`` bot with a
click and keys, as a player would: a click on "Play against random" on the start screen, then
Enter on the highlighted choice for every decision (a two-card pick: Enter, a move to a card
not marked yet, Enter), Enter on each round's summary (space first on the first one, to show
it whole), until the end screen; then ``q`` ends the session.

The browser is driven over the Chrome DevTools Protocol (tests/cdp_browser.py). Screenshots
of the start screen, the first decision, the first round's summary, the end screen and the
ended session are saved, with the timings, in ``$SOLSTICE_ARTIFACTS`` when it is set, else in
the test's pytest tmp dir (``browser-*.png``, ``browser-timings.txt``).

It needs Debian's ``chromium`` package (``make test`` installs it where it can, as root on
Debian); without it the test skips with one line.
"""

from __future__ import annotations

import asyncio
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("textual_serve", reason="solstice serve needs textual-serve (the web "
                    "extra)")

from cdp_browser import Chromium, find_chromium

ROOT = Path(__file__).resolve().parent.parent
GAME_LIMIT = 150.0  # seconds for the whole game (it takes about 10 s on an idle machine)
STEP_LIMIT = 3.0  # seconds to wait for the screen to answer a key before looking again

START_ENTRY = "Play against random (2 players)"
YOUR_MOVE = "Your move."
SUMMARY = re.compile(r"Round (\d+) resolved — Enter to continue")
END_TITLE = re.compile(r"Game over — \S+ \((you|random-1)\) wins")
END_KEYS = "q quit · l game log"
ONE_MARKED = re.compile(r"Marked 1 of 2")
# textual-serve's page, once the app's process has ended: "Session ended." and a Restart.
SESSION_ENDED = "document.body.classList.contains('-closed')"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _artifacts(tmp_path: Path) -> Path:
    where = Path(os.environ.get("SOLSTICE_ARTIFACTS") or tmp_path)
    where.mkdir(parents=True, exist_ok=True)
    return where


def _key_for_second_mark(screen: str) -> str:
    """In a two-card pick the cursor stays on the card just marked: move to one not marked
    yet (up from the last card of the list, else down)."""
    marks = [line for line in screen.split("\n") if re.match(r"│ \[[x ]\] ", line)]
    return "up" if marks and marks[-1].startswith("│ [x]") else "down"


def _printed_url(log: Path, server: subprocess.Popen[str]) -> str:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        found = re.search(r"Solstice in your browser: (\S+)", log.read_text())
        if found:
            return found.group(1)
        assert server.poll() is None, f"solstice serve exited:\n{log.read_text()}"
        time.sleep(0.1)
    raise AssertionError(f"solstice serve printed no URL:\n{log.read_text()}")


async def _steady(browser: Chromium, quiet: float = 0.08, longest: float = 1.0) -> str:
    """The screen once its panel stopped changing for ``quiet`` seconds (or after
    ``longest``): a frame can reach the page in pieces, and a screen read between them is
    neither the old state nor the new one (it took a second Enter, which unmarked a card)."""
    last = await browser.screen()
    give_up = time.monotonic() + longest
    while time.monotonic() < give_up:
        await asyncio.sleep(quiet)
        now = await browser.screen()
        if _answered_part(now) == _answered_part(last):
            return now
        last = now
    return last


def _answered_part(screen: str) -> str:
    """What a key that was handled changes: the round summary, or the choices panel (its
    box, without the log pane beside it), less what changes there on its own: who has
    committed this pick (``Picked: black ✓ you …``, which also moves the line breaks)."""
    if summary := SUMMARY.search(screen):
        return summary.group(0)
    lines = screen.split("\n")
    top = next((i for i, line in enumerate(lines) if line.startswith("╭")), None)
    if top is None:
        return screen
    width = lines[top].find("╮") + 1 or len(lines[top])
    panel = " ".join(" ".join(line[:width] for line in lines[top:]).replace("│", " ").split())
    return re.sub(r"Picked:( \S+ [✓…])*", "Picked:", panel)


class Played:
    """What the browser saw: how many keys answered a decision, rounds summarised, timings."""

    def __init__(self) -> None:
        self.decision_keys = 0
        self.summaries: set[int] = set()  # the rounds whose summary showed
        self.prompts: set[str] = set()
        self.times: dict[str, float] = {}
        self.end_screen = ""
        self.session_ended = False
        self.unanswered: list[str] = []  # keys whose answer the screen did not show in time


async def _play(url: str, profile: Path, out: Path, server_log: Path) -> Played:
    played = Played()
    began = time.monotonic()

    def mark(what: str) -> None:
        played.times[what] = round(time.monotonic() - began, 2)

    async with Chromium(profile, width=1000, height=700) as browser:
        mark("chromium up")
        await browser.goto(url)

        async def wait_for(test: object, limit: float, what: str) -> str:
            deadline = time.monotonic() + limit
            while True:
                screen = await browser.screen()
                if (test(screen) if callable(test) else str(test) in screen):
                    return screen
                if time.monotonic() > deadline:
                    await browser.screenshot(out / "browser-failed.png")
                    raise AssertionError(f"no {what} after {limit:.0f} s; the screen:\n{screen}")
                await asyncio.sleep(0.05)

        await wait_for(START_ENTRY, 60, "start screen")
        mark("start screen")
        await browser.screenshot(out / "browser-1-start.png")
        await browser.click_text(START_ENTRY)

        deadline = time.monotonic() + GAME_LIMIT
        first_decision = first_summary = True
        while True:
            screen = await _steady(browser)  # what to answer: a whole frame, not a torn one
            if END_TITLE.search(screen) and END_KEYS in screen:
                break
            if await browser.evaluate(SESSION_ENDED):
                await browser.screenshot(out / "browser-failed.png")
                raise AssertionError(f"the session ended mid-game; the last screen:\n{screen}"
                                     f"\nthe server's log:\n{server_log.read_text()[-6000:]}")
            if time.monotonic() > deadline:
                await browser.screenshot(out / "browser-failed.png")
                focus = await browser.evaluate("document.activeElement && "
                                               "document.activeElement.className")
                raise AssertionError(f"the game did not end in {GAME_LIMIT:.0f} s "
                                     f"({played.decision_keys} keys for decisions; focus in "
                                     f"the page: {focus!r}); the screen:\n{screen}")
            keys: list[str] = []
            if summary := SUMMARY.search(screen):
                if first_summary:  # the whole summary at once (space) for the screenshot
                    first_summary = False
                    await browser.press("space")
                    shown = time.monotonic() + STEP_LIMIT
                    while "(space: show all)" in await browser.screen() and \
                            time.monotonic() < shown:
                        await asyncio.sleep(0.03)
                    await browser.screenshot(out / "browser-3-round-summary.png")
                played.summaries.add(int(summary.group(1)))
                keys = ["enter"]
            elif YOUR_MOVE in screen:
                if first_decision:
                    first_decision = False
                    mark("first decision")
                    await browser.screenshot(out / "browser-2-first-decision.png")
                panel = screen.split("╭", 1)[-1].split("\n")
                if len(panel) > 1:  # the panel's first line: what is asked
                    played.prompts.add(re.sub(r"\d+", "N", panel[1].lstrip("│ ")[:30]))
                keys = [_key_for_second_mark(screen), "enter"] \
                    if ONE_MARKED.search(screen) else ["enter"]
                played.decision_keys += 1
            else:
                continue  # the bot's turn, the lobby, a reveal (_steady waited a little)
            for key in keys:
                await browser.press(key)
            # Look again only once the key was answered: the choices panel (or the summary)
            # changed; the clock and the log change on their own. After STEP_LIMIT the
            # screen is looked at again as it is.
            before = _answered_part(screen)
            settle = time.monotonic() + STEP_LIMIT
            while _answered_part(await browser.screen()) == before:
                if time.monotonic() > settle:
                    played.unanswered.append(before)
                    break
                await asyncio.sleep(0.03)
        mark("end screen")
        played.end_screen = screen
        await browser.screenshot(out / "browser-4-end.png")

        await browser.press("q")
        settle = time.monotonic() + 20
        while time.monotonic() < settle and not played.session_ended:
            played.session_ended = bool(await browser.evaluate(SESSION_ENDED))
            await asyncio.sleep(0.1)
        mark("session ended")
        await browser.screenshot(out / "browser-5-session-ended.png")
    return played


def test_a_whole_game_in_headless_chromium(tmp_path: Path) -> None:
    if find_chromium() is None:
        pytest.skip("no chromium: the browser test of solstice serve needs Debian's chromium "
                    "package (make test installs it where it can)")
    out = _artifacts(tmp_path)
    port = _free_port()
    home = tmp_path / "home"
    # The server's output goes to a file (an artifact too): a pipe nobody reads could fill
    # up and stall it mid-game.
    log = out / "browser-server.log"
    with log.open("w") as sink:
        server = subprocess.Popen(
            [sys.executable, "-m", "ui.cli", "serve", "--port", str(port), "--home", str(home),
             "--players", "2", "--bot", "random"],
            cwd=ROOT, text=True, stdout=sink, stderr=subprocess.STDOUT)
    try:
        url = _printed_url(log, server)
        assert url == f"http://127.0.0.1:{port}/", url
        played = asyncio.run(_play(url, tmp_path / "chromium-profile", out, log))
    finally:
        server.terminate()
        server.wait(timeout=10)
    (out / "browser-timings.txt").write_text(
        "".join(f"{what}: {seconds} s\n" for what, seconds in played.times.items()) +
        f"keys for decisions: {played.decision_keys}, round summaries: "
        f"{sorted(played.summaries)}\n"
        f"keys the screen did not answer within {STEP_LIMIT} s: {len(played.unanswered)}\n" +
        "".join(f"--- unanswered:\n{part}\n" for part in played.unanswered))

    end = played.end_screen
    audit = re.search(r"✔ audit passed: (\d+) rounds", end)
    assert audit, end
    rounds = int(audit.group(1))
    # The two seats, named (the colours are drawn at random).
    assert re.search(r"(white|black) \(you\)", end) and \
        re.search(r"(white|black) \(random-1\)", end), end
    # A whole game: every round's summary seen and closed, the last one included, and in
    # each round at least a draft pick and a dispatch of this seat's answered by keys.
    assert played.summaries == set(range(1, rounds + 1)), (played.summaries, rounds)
    assert played.decision_keys >= 2 * rounds, played.decision_keys
    assert any(p.startswith("Draft: pick") for p in played.prompts), played.prompts
    assert any(p.startswith("Your turn to dispatch") for p in played.prompts), played.prompts
    transcripts = list(home.glob("games/*/transcript.json"))
    assert len(transcripts) == 1, transcripts
    assert played.session_ended, "q on the end screen did not end the browser session"
    for name in ("1-start", "2-first-decision", "3-round-summary", "4-end"):
        assert (out / f"browser-{name}.png").stat().st_size > 10_000  # drawn, not blank
