"""Observer links on the host: spectators (``solstice watch``) get the signed roster and then
every signed message of the game, in the host's record order, and nothing else
(protocol.md, "Observers").

An observer is not in the roster and not in the mesh: the host keeps these links apart, never
hands anything an observer sends to the session, and drops an observer that sends anything at
all. Everything it forwards is signed by its author, so the host can withhold messages from
an observer but cannot forge them.
"""

from __future__ import annotations

import contextlib
import logging
import math
from collections.abc import Awaitable, Callable
from typing import Any

import trio

from p2p.errors import P2PError, RemoteProtocolError
from p2p.identity import Identity, short_id
from p2p.net.lobby import PROTOCOL_VERSION, LobbyRefused, decode_control, encode_control
from p2p.net.roster import Roster, valid_name
from p2p.net.transport import Connection
from p2p.net.watchers import Watcher, by_name, watchers_frame
from p2p.session.envelope import SignedMessage
from p2p.session.inbox import FRAME_MESSAGE

log = logging.getLogger(__name__)
MAX_OBSERVERS = 4
# Watcher churn never floods the players: a notice goes out once the set of watchers has been
# still for NOTICE_SETTLE seconds, at most one per NOTICE_EVERY seconds, and only if the set
# differs from the last one told; the host's own arrival/departure lines are limited the
# same way (NOTE_BURST at once, then one per NOTICE_EVERY seconds; the rest are counted).
NOTICE_SETTLE = 1.0
NOTICE_EVERY = 5.0
NOTE_BURST = 4
_HELLO_KEYS = frozenset({"type", "version", "game", "name"})


def watch_hello(game_id: str, name: str) -> dict[str, Any]:
    return {"type": "watch-hello", "version": PROTOCOL_VERSION, "game": game_id, "name": name}


def watch_welcome(game_id: str, watchers: list[str]) -> dict[str, Any]:
    return {"type": "watch-welcome", "game": game_id, "watchers": watchers}


def check_watch_hello(data: bytes, game_id: str) -> str:
    """The name of the observer whose watch-hello this is; LobbyRefused says what is wrong."""
    obj = decode_control(data)
    if obj["type"] != "watch-hello" or set(obj) != _HELLO_KEYS:
        raise LobbyRefused(None, "expected a watch-hello")
    if obj["version"] != PROTOCOL_VERSION:
        raise LobbyRefused(None, f"protocol version {obj['version']!r} is not supported")
    if obj["game"] != game_id:
        raise LobbyRefused(None, "this is not the game of your code")
    if not valid_name(obj["name"]):
        raise LobbyRefused(None, "bad name in watch-hello")
    return str(obj["name"])


class ObserverMisbehaved(RemoteProtocolError):
    """An observer sent something: observers only listen."""


class ObserverHub:
    """The host's observers of one game: admission (up to ``limit``) and the message feed."""

    def __init__(self, game_id: str, limit: int = MAX_OBSERVERS, keepalive: float = 5.0,
                 settle: float = NOTICE_SETTLE, every: float = NOTICE_EVERY) -> None:
        self.game_id = game_id
        self.settle, self.every = settle, every  # the churn limits (tests make them short)
        self.limit = limit
        self.keepalive = keepalive  # an idle feed sends an empty frame this often
        self.roster: Roster | None = None
        self.frames: list[bytes] = []  # every recorded signed message, as sent to observers
        self.watchers: dict[str, str] = {}  # peer id -> name, of observers connected now
        self.finished = False
        # Told of observers arriving and leaving (the host shows it to its player).
        self.on_note: Callable[[str], None] = lambda text: None
        self._changed = trio.Event()  # anything new: a message, the roster, a watcher, the end
        self._watchers_changed = trio.Event()  # only who watches (and the end): announce()
        self._note_tokens = float(NOTE_BURST)
        self._note_last: float | None = None
        self._notes_held = 0  # arrival/departure lines not shown (churn)

    # ---- fed by the host's game

    def set_roster(self, roster: Roster) -> None:
        self.roster = roster
        self._notify()

    def publish(self, signed: SignedMessage) -> None:
        """A message the host's session recorded (ours or a peer's): forward it to observers."""
        self.frames.append(FRAME_MESSAGE + signed.encode())
        self._notify()

    def finish(self) -> None:
        """The game is over: observers get what is left, then their links close."""
        self.finished = True
        self._notify()
        self._watchers_moved()

    def _notify(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    def _watchers_moved(self) -> None:
        self._watchers_changed.set()
        self._watchers_changed = trio.Event()

    async def drain(self, timeout: float = 5.0) -> None:
        """End the feed and give the observers ``timeout`` seconds to receive the rest."""
        self.finish()
        with trio.move_on_after(timeout):
            while self.watchers:
                await self._changed.wait()

    def current(self) -> tuple[Watcher, ...]:
        return tuple(sorted((Watcher(peer, name) for peer, name in self.watchers.items()),
                            key=by_name))

    async def announce(self, send: Callable[[bytes], Awaitable[None]], host: Identity,
                       on_change: Callable[[tuple[Watcher, ...]], None]) -> None:
        """Tell the players who watches: a signed notice through ``send`` (the mesh's
        broadcast), at most one per ``NOTICE_EVERY`` seconds, until the game is over. A change
        after a quiet ``NOTICE_EVERY`` is told at once (a short game still learns of its
        spectator); a change within it waits until the set has stayed still for
        ``NOTICE_SETTLE`` seconds (a spectator reconnecting in a loop makes one notice per
        ``NOTICE_EVERY`` at most)."""
        seq = 0
        told: tuple[Watcher, ...] = ()
        last = -math.inf
        while not self.finished:
            if self.current() == told:
                await self._watchers_changed.wait()
                continue
            # Every change restarts the settling time, up to NOTICE_EVERY in all: churn can
            # delay a notice, never suppress one.
            quiet = trio.current_time() - last >= self.every
            give_up = trio.current_time() + self.every
            while not quiet and trio.current_time() < give_up:
                changed = self._watchers_changed  # messages do not restart it: only watchers
                with trio.move_on_at(min(give_up, trio.current_time() + self.settle)):
                    await changed.wait()
                    continue
                break
            await trio.sleep_until(last + self.every)
            now = self.current()
            if now != told and not self.finished:
                seq, told, last = seq + 1, now, trio.current_time()
                await send(watchers_frame(host, self.game_id, seq, now))
                on_change(now)

    def _note(self, text: str) -> None:
        """An arrival or departure line for the host's player, within the churn limit."""
        now = trio.current_time()
        if self._note_last is not None:
            self._note_tokens = min(NOTE_BURST, self._note_tokens
                                    + (now - self._note_last) / self.every)
        self._note_last = now
        if self._note_tokens < 1:
            self._notes_held += 1
            return
        self._note_tokens -= 1
        if self._notes_held:
            text += f" ({self._notes_held} earlier watcher arrivals/departures not shown)"
            self._notes_held = 0
        self.on_note(text)

    # ---- one observer's link

    async def serve(self, conn: Connection, hello: bytes) -> None:
        """Admit the observer of ``conn`` and feed it until the game ends or it misbehaves."""
        name = check_watch_hello(hello, self.game_id)
        if conn.peer_id in self.watchers:
            raise LobbyRefused(None, f"{short_id(conn.peer_id)} is already watching")
        if len(self.watchers) >= self.limit:
            raise LobbyRefused(None, f"the game has {self.limit} watchers already")
        self.watchers[conn.peer_id] = name
        self._notify()
        self._watchers_moved()  # announce() learns of the arrival now, not at the next message
        self._note(f"{name} ({short_id(conn.peer_id)}) is watching")
        reason = "the game is over"
        try:
            await conn.send_frame(encode_control(watch_welcome(
                self.game_id, sorted(self.watchers.values()))))
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._refuse_anything, conn, name)
                await self._feed(conn)
                nursery.cancel_scope.cancel()
        except* ObserverMisbehaved as group:  # nurseries group their tasks' errors
            first = group.exceptions[0]
            why = first.reason if isinstance(first, ObserverMisbehaved) else str(first)
            reason = f"dropped: {why}"
            with contextlib.suppress(P2PError, OSError):
                await conn.send_frame(encode_control({"type": "refuse", "reason": why}))
        except* (P2PError, OSError) as group:
            reason = f"left ({group.exceptions[0]})"
        finally:
            del self.watchers[conn.peer_id]
            self._notify()
            self._watchers_moved()
            self._note(f"{name} ({short_id(conn.peer_id)}) stopped watching: {reason}")
            await conn.aclose()

    async def _feed(self, conn: Connection) -> None:
        while self.roster is None:
            await self._changed.wait()
        await conn.send_frame(encode_control({"type": "roster",
                                              "roster": self.roster.signed_json()}))
        sent = 0
        while True:
            while sent < len(self.frames):
                await conn.send_frame(self.frames[sent])
                sent += 1
            if self.finished:
                return
            with trio.move_on_after(self.keepalive) as idle:
                await self._changed.wait()
            if idle.cancelled_caught:
                await conn.send_frame(b"")  # keepalive: the observer knows we are still here

    @staticmethod
    async def _refuse_anything(conn: Connection, name: str) -> None:
        frame = await conn.receive_frame()
        if frame is None:
            raise P2PError(f"{name} closed the connection")
        what = "a game message" if frame[:1] == FRAME_MESSAGE else "a frame"
        log.info("observer %s sent %s: dropped", name, what)
        raise ObserverMisbehaved(None, f"an observer may not send anything (sent {what})")
