"""The bridge between Textual (asyncio, main thread) and the network (trio, worker thread).

Design, chosen deliberately: trio runs in its own thread with its own ``trio.run``; Textual
keeps the main thread and its asyncio loop. We did not use trio guest mode because the
network code must keep running while Textual is busy laying out or painting, and because a
separate thread makes shutdown explicit (cancel the trio run, join the thread) and lets the
bridge be tested without Textual at all.

The two directions:

* trio -> UI: ``TrioSide.post(item)`` hands ``item`` to the UI's ``deliver`` callback with
  ``loop.call_soon_threadsafe``. It never blocks the network, even while the UI is slow or
  gone (a closed loop just drops the item).
* UI -> trio: ``TrioBridge.send(item)`` puts ``item`` in an unbounded trio memory channel
  through ``trio.from_thread.run_sync(send.send_nowait, item, trio_token=...)``; the trio side
  reads it with ``await side.receive()``. This is how the human's answers reach the chooser.

Shutdown: ``TrioBridge.stop()`` cancels the trio run's outermost cancel scope from the UI
thread and joins the worker. When ``main`` returns or raises, ``deliver`` receives one
``BridgeFinished`` (with the result or the exception), always the last item delivered.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import trio


@dataclass(frozen=True)
class BridgeFinished:
    """The trio side ended: ``result`` of ``main``, or the ``error`` it raised (None when it
    was cancelled by ``stop``)."""

    result: Any = None
    error: BaseException | None = None
    cancelled: bool = False


class TrioSide:
    """What the trio program sees of the bridge (only used inside the trio thread)."""

    def __init__(self, bridge: TrioBridge, receive: trio.MemoryReceiveChannel[Any]) -> None:
        self._bridge = bridge
        self._receive = receive

    def post(self, item: Any) -> None:
        """Deliver ``item`` to the UI (non-blocking, safe from any trio task)."""
        self._bridge._deliver_threadsafe(item)

    async def receive(self) -> Any:
        """The next item the UI sent with ``TrioBridge.send``."""
        return await self._receive.receive()


class TrioBridge:
    """Runs one trio program in a worker thread and connects it to an asyncio loop."""

    def __init__(self, deliver: Callable[[Any], object],
                 loop: asyncio.AbstractEventLoop | None = None) -> None:
        self._deliver = deliver
        self._loop = loop
        self._thread: threading.Thread | None = None
        self._token: trio.lowlevel.TrioToken | None = None
        self._cancel: trio.CancelScope | None = None
        self._send: trio.MemorySendChannel[Any] | None = None
        self._ready = threading.Event()
        self.finished = threading.Event()

    # -- UI thread ------------------------------------------------------------------------

    def start(self, main: Callable[[TrioSide], Awaitable[Any]]) -> None:
        """Start ``main(side)`` in a new trio run in a worker thread; returns once trio is up."""
        if self._thread is not None:
            raise RuntimeError("the bridge runs one trio program only")
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
        self._thread = threading.Thread(target=self._run, args=(main,), name="solstice-trio",
                                        daemon=True)
        self._thread.start()
        self._ready.wait()

    def send(self, item: Any) -> bool:
        """Send ``item`` to the trio side; False when the trio side is no longer running."""
        if self._token is None or self._send is None or self.finished.is_set():
            return False
        try:
            trio.from_thread.run_sync(self._send.send_nowait, item, trio_token=self._token)
        except (trio.RunFinishedError, trio.ClosedResourceError, trio.BrokenResourceError):
            return False
        return True

    def stop(self, timeout: float = 5.0) -> None:
        """Cancel the trio program and wait for the worker thread to end."""
        if self._thread is None:
            return
        if self._token is not None and self._cancel is not None and not self.finished.is_set():
            with contextlib.suppress(trio.RunFinishedError):
                trio.from_thread.run_sync(self._cancel.cancel, trio_token=self._token)
        self._thread.join(timeout)

    @property
    def running(self) -> bool:
        return self._thread is not None and not self.finished.is_set()

    # -- worker thread --------------------------------------------------------------------

    def _deliver_threadsafe(self, item: Any) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        # The loop may close between the check and the call: the UI is gone, drop the item.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(self._deliver, item)

    def _run(self, main: Callable[[TrioSide], Awaitable[Any]]) -> None:
        outcome: BridgeFinished
        try:
            result = trio.run(self._trio_main, main)
            outcome = BridgeFinished(result=result, cancelled=self._cancel is not None
                                     and self._cancel.cancelled_caught)
        except BaseException as exc:
            outcome = BridgeFinished(error=exc)
        finally:
            self._ready.set()  # in case trio failed before starting
        self.finished.set()
        self._deliver_threadsafe(outcome)

    async def _trio_main(self, main: Callable[[TrioSide], Awaitable[Any]]) -> Any:
        send, receive = trio.open_memory_channel[Any](float("inf"))
        self._send = send
        self._token = trio.lowlevel.current_trio_token()
        with trio.CancelScope() as scope:
            self._cancel = scope
            self._ready.set()
            return await main(TrioSide(self, receive))
        return None
