"""A headless Chromium driven over the Chrome DevTools Protocol (a websocket, aiohttp's client):
just what the browser test of ``solstice serve`` needs, so the suite needs no browser
automation package and never downloads a browser.

The page that textual-serve serves draws its terminal with xterm.js (a canvas, no DOM text),
and keeps the ``Terminal`` in a closure. A script that runs before the page's own catches it:
an accessor named ``terminal`` on ``Object.prototype`` sees the page's ``this.terminal = new
Terminal(...)``, keeps the object in ``window.__solsticeTerm`` and removes itself. The screen
text is then read from xterm's buffer, and keys and clicks go in as real input events.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import aiohttp

CATCH_TERMINAL = """
Object.defineProperty(Object.prototype, 'terminal', {configurable: true,
  get() { return undefined; },
  set(value) {
    delete Object.prototype.terminal;
    window.__solsticeTerm = value;
    Object.defineProperty(this, 'terminal', {value, writable: true, configurable: true,
                                             enumerable: true});
  }});
"""
SCREEN_TEXT = """(() => { const t = window.__solsticeTerm;
  if (!t) return null;
  const b = t.buffer.active, rows = [];
  for (let y = 0; y < t.rows; y++) { const l = b.getLine(b.viewportY + y);
    rows.push(l ? l.translateToString(true) : ''); }
  return rows.join('\\n'); })()"""
# The rectangle of the terminal's cells, to aim a click at a row and column.
CELL_GEOMETRY = """(() => { const t = window.__solsticeTerm;
  const r = t.element.querySelector('.xterm-screen').getBoundingClientRect();
  return [r.left, r.top, r.width / t.cols, r.height / t.rows]; })()"""

# key -> (key, code, Windows virtual key code, text)
KEYS = {
    "enter": ("Enter", "Enter", 13, "\r"),
    "down": ("ArrowDown", "ArrowDown", 40, ""),
    "up": ("ArrowUp", "ArrowUp", 38, ""),
    "escape": ("Escape", "Escape", 27, ""),
    "space": (" ", "Space", 32, " "),
    "q": ("q", "KeyQ", 81, "q"),
}


class BrowserMissing(RuntimeError):
    """No Chromium on this machine."""


def find_chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


class Chromium:
    """One headless Chromium with one page, for ``async with``."""

    def __init__(self, profile: Path, width: int = 1000, height: int = 700) -> None:
        self.profile, self.width, self.height = profile, width, height
        self.proc: subprocess.Popen[str] | None = None
        self.http: aiohttp.ClientSession | None = None
        self.ws: aiohttp.ClientWebSocketResponse | None = None
        self.ids = itertools.count(1)

    async def __aenter__(self) -> Chromium:
        binary = find_chromium()
        if binary is None:
            raise BrowserMissing("no chromium")
        self.proc = subprocess.Popen(
            [binary, "--headless=new", "--no-sandbox", "--disable-gpu",
             "--disable-dev-shm-usage", "--no-first-run", "--remote-debugging-port=0",
             "--remote-debugging-address=127.0.0.1", f"--user-data-dir={self.profile}",
             f"--window-size={self.width},{self.height}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        port = await asyncio.wait_for(asyncio.to_thread(self._devtools_port), 30)
        self.http = aiohttp.ClientSession()
        async with self.http.get(f"http://127.0.0.1:{port}/json/list") as answer:
            targets = await answer.json()
        page = next(t for t in targets if t["type"] == "page")
        self.ws = await self.http.ws_connect(page["webSocketDebuggerUrl"], max_msg_size=0)
        await self.call("Page.enable")
        # The page asks Google for a web font: a test stays off the internet (and never
        # waits on a request that a closed network lets hang).
        await self.call("Network.enable")
        await self.call("Network.setBlockedURLs", urls=["*://fonts.googleapis.com/*",
                                                        "*://fonts.gstatic.com/*"])
        await self.call("Page.addScriptToEvaluateOnNewDocument", source=CATCH_TERMINAL)
        return self

    def _devtools_port(self) -> int:
        """Chromium says on stderr where its DevTools listen (port 0: a free one)."""
        assert self.proc is not None and self.proc.stderr is not None
        for line in self.proc.stderr:
            found = re.search(r"DevTools listening on ws://[^:]+:(\d+)/", line)
            if found:
                return int(found.group(1))
        raise RuntimeError("chromium exited before its DevTools listened")

    async def __aexit__(self, *exc: object) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self.http is not None:
            await self.http.close()
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            if self.proc.stderr is not None:
                self.proc.stderr.close()

    async def call(self, method: str, **params: Any) -> dict[str, Any]:
        """One DevTools command; the events that arrive meanwhile are dropped."""
        assert self.ws is not None
        ident = next(self.ids)
        await self.ws.send_json({"id": ident, "method": method, "params": params})
        while True:
            message = await self.ws.receive_json()
            if message.get("id") == ident:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                result: dict[str, Any] = message["result"]
                return result

    async def evaluate(self, expression: str) -> Any:
        answer = await self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in answer:
            raise RuntimeError(f"page script failed: {answer['exceptionDetails']}")
        return answer["result"].get("value")

    async def goto(self, url: str) -> None:
        await self.call("Page.navigate", url=url)

    async def screen(self) -> str:
        """The terminal's rows as text ('' before the terminal exists)."""
        return str(await self.evaluate(SCREEN_TEXT) or "")

    async def press(self, key: str) -> None:
        name, code, vk, text = KEYS[key]
        down: dict[str, Any] = {"type": "keyDown" if text else "rawKeyDown", "key": name,
                                "code": code, "windowsVirtualKeyCode": vk}
        if text:
            down["text"] = down["unmodifiedText"] = text
        await self.call("Input.dispatchKeyEvent", **down)
        await self.call("Input.dispatchKeyEvent", type="keyUp", key=name, code=code,
                        windowsVirtualKeyCode=vk)

    async def click_text(self, text: str) -> None:
        """A mouse click on the middle of ``text`` where it shows on the terminal."""
        rows = (await self.screen()).split("\n")
        row = next((y for y, line in enumerate(rows) if text in line), None)
        if row is None:
            raise LookupError(f"{text!r} is not on the screen")
        column = rows[row].index(text) + len(text) // 2
        left, top, cell_w, cell_h = await self.evaluate(CELL_GEOMETRY)
        x, y = left + (column + 0.5) * cell_w, top + (row + 0.5) * cell_h
        await self.call("Input.dispatchMouseEvent", type="mouseMoved", x=x, y=y)
        for kind in ("mousePressed", "mouseReleased"):
            await self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left",
                            clickCount=1)

    async def screenshot(self, path: Path) -> Path:
        shot = await self.call("Page.captureScreenshot", format="png")
        path.write_bytes(base64.b64decode(shot["data"]))
        return path
