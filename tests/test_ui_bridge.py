"""The trio/asyncio bridge on its own: trio -> UI, UI -> trio, errors, and shutdown.

The tests are plain functions that run their own asyncio loop (the UI side); trio runs in the
bridge's worker thread, exactly as in the app.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
import trio

from ui.app.bridge import BridgeFinished, TrioBridge, TrioSide


def _run_ui(main, script=None) -> list[Any]:
    """Run ``main`` on the trio side; ``script(bridge, items)`` drives the UI side."""

    async def ui() -> list[Any]:
        items: list[Any] = []
        done = asyncio.Event()
        ui_thread = threading.get_ident()

        def deliver(item: Any) -> None:
            # Every delivery must happen on the UI (asyncio) thread, never the trio thread.
            assert threading.get_ident() == ui_thread
            items.append(item)
            if isinstance(item, BridgeFinished):
                done.set()

        bridge = TrioBridge(deliver)
        bridge.start(main)
        if script is not None:
            await script(bridge, items)
        await asyncio.wait_for(done.wait(), timeout=10)
        bridge.stop()
        assert not bridge.running
        return items

    return asyncio.run(ui())


def test_trio_to_ui_in_order_then_finished() -> None:
    async def main(side: TrioSide) -> str:
        for i in range(50):
            side.post(i)
            await trio.sleep(0)
        return "done"

    items = _run_ui(main)
    assert items[:-1] == list(range(50))
    assert items[-1] == BridgeFinished(result="done")


def test_ui_to_trio_answers_reach_the_trio_side() -> None:
    async def main(side: TrioSide) -> list[str]:
        side.post("ask")
        got = [await side.receive(), await side.receive()]
        side.post(("echo", got))
        return got

    async def script(bridge: TrioBridge, items: list[Any]) -> None:
        while "ask" not in items:
            await asyncio.sleep(0.01)
        assert bridge.send("first")
        assert bridge.send("second")

    items = _run_ui(main, script)
    assert ("echo", ["first", "second"]) in items
    assert items[-1].result == ["first", "second"]


def test_ui_stays_responsive_while_trio_waits() -> None:
    """The asyncio loop keeps running (timers fire) while the trio side blocks on input."""
    ticks: list[int] = []

    async def main(side: TrioSide) -> Any:
        return await side.receive()

    async def script(bridge: TrioBridge, items: list[Any]) -> None:
        for i in range(5):
            await asyncio.sleep(0.02)
            ticks.append(i)
        bridge.send("go")

    items = _run_ui(main, script)
    assert ticks == [0, 1, 2, 3, 4]
    assert items[-1].result == "go"


def test_stop_cancels_a_blocked_trio_program() -> None:
    async def main(side: TrioSide) -> None:
        side.post("started")
        await trio.sleep_forever()

    async def script(bridge: TrioBridge, items: list[Any]) -> None:
        while "started" not in items:
            await asyncio.sleep(0.01)
        bridge.stop(timeout=5)
        assert not bridge.running
        assert bridge.send("too late") is False

    items = _run_ui(main, script)
    assert items[-1].cancelled and items[-1].error is None


def test_errors_on_the_trio_side_reach_the_ui() -> None:
    async def main(side: TrioSide) -> None:
        await trio.sleep(0)
        raise ConnectionResetError("peer went away")

    items = _run_ui(main)
    finished = items[-1]
    assert isinstance(finished, BridgeFinished)
    assert isinstance(finished.error, ConnectionResetError)


def test_posting_after_the_ui_loop_closed_is_dropped() -> None:
    """A trio side outliving the UI must not crash when it posts."""
    release = threading.Event()
    posted = threading.Event()

    async def main(side: TrioSide) -> None:
        await trio.to_thread.run_sync(release.wait)
        side.post("late")
        posted.set()

    async def ui() -> TrioBridge:
        bridge = TrioBridge(lambda item: None)
        bridge.start(main)
        return bridge

    bridge = asyncio.run(ui())  # the loop is closed when this returns
    release.set()
    assert posted.wait(5)
    bridge.stop()
    assert bridge.finished.is_set()


def test_a_bridge_runs_one_program() -> None:
    async def main(side: TrioSide) -> None:
        return None

    async def ui() -> None:
        bridge = TrioBridge(lambda item: None)
        bridge.start(main)
        with pytest.raises(RuntimeError):
            bridge.start(main)
        bridge.stop()

    asyncio.run(ui())
