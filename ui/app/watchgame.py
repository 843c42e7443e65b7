"""The trio side of the spectator's UI (``solstice watch``): follow the game, post its public
board.

Runs in the bridge's trio thread (``ui.app.bridge``), like ``ui.app.netgame`` does for a
player, but with no seat and no chooser: ``p2p.net.watch.watch_game`` replays the host's feed
through a keyless session, and this posts what everybody may know of it (``public_view``) on
every event and from a short poll. The session is only read in this thread, between
``watch_game``'s awaits.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import trio

from engine.state import GameState
from engine.view import redact, view
from p2p.errors import P2PError
from p2p.net.games import PeerOptions
from p2p.net.joincode import JoinCode
from p2p.net.notices import GameEvent, RosterKnown, TranscriptWritten
from p2p.net.watch import watch_game
from p2p.session.events import UNFAIR
from p2p.session.machine import GameSession
from ui.app.bridge import TrioSide
from ui.app.messages import BoardChanged, GameEnded
from ui.app.netgame import POLL_SECONDS, failure_reason, note_of
from ui.app.notes import clean_text

SEAT_ONLY: dict[str, Any] = {"hand": [], "drafted": [], "prisoner": None, "decision": None,
                             "legal": [], "pick_count": 0}


def public_view(state: GameState) -> dict[str, Any]:
    """The board as a spectator may see it: only what every player knows (no hand, no
    face-down card, no pick), with ``spectator`` set so that no seat is called "you"."""
    board = view(redact(state, None), 0)
    board.update(SEAT_ONLY)
    board["spectator"] = True
    return board


class WatchedGame:
    """One game followed by a spectator, posting to the UI through ``side``."""

    def __init__(self, code: JoinCode, options: PeerOptions, side: TrioSide) -> None:
        self.code = code
        self.options = options
        self.side = side
        self.session: GameSession | None = None
        self.names: list[str] = []  # by roster index
        self.transcript: str | None = None
        self._last_key: Any = None

    def seat_names(self) -> tuple[str, ...]:
        s = self.session
        if s is None or not s.peer_of_seat:
            return ()
        return tuple(self.names[p] if p < len(self.names) else "" for p in s.peer_of_seat)

    def waiting(self) -> tuple[str, ...]:
        """Whom the game waits for now, by faction and name (the status line said none)."""
        s = self.session
        if s is None or s.stage is None or s.finished or s.config is None \
                or not s.seat_of_peer:
            return ()
        names = self.seat_names()
        out = []
        for seat in sorted(s.seat_of_peer[p] for p in s.stage.missing):
            faction = s.config.factions[seat]
            name = names[seat] if seat < len(names) else ""
            out.append(f"{faction} ({name})" if name else faction)
        return tuple(out)

    def post_board(self) -> None:
        s = self.session
        if s is None or s.engine is None:
            return
        waiting = self.waiting()
        key = (s.stage_index, len(s.engine.log), s.engine.phase, s.finished, waiting)
        if key == self._last_key:
            return
        self._last_key = key
        self.side.post(BoardChanged(public_view(s.engine), waiting, self.seat_names()))

    def seat_label(self, seat: int) -> tuple[str, str]:
        """(faction, player name) of ``seat``."""
        s = self.session
        if s is None or s.config is None:
            return "", ""
        names = self.seat_names()
        return s.config.factions[seat], names[seat] if seat < len(names) else ""

    def on_event(self, event: GameEvent) -> None:
        if isinstance(event, RosterKnown):
            self.names = list(event.names)
        elif isinstance(event, TranscriptWritten):
            self.transcript = str(event.path)
        state = self.session.engine if self.session is not None else None
        text = clean_text(event, state, self.seat_label)
        if text != "":
            self.side.post(note_of(event, text))
        self.post_board()

    def _open(self, session: GameSession) -> None:
        self.session = session

    async def _poll(self) -> None:
        while True:
            await trio.sleep(POLL_SECONDS)
            self.post_board()

    async def run(self) -> GameEnded:
        options = dataclasses.replace(self.options, on_session=self._open)
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._poll)
                session = await watch_game(self.code, self.on_event, options)
                nursery.cancel_scope.cancel()
        except (P2PError, OSError, trio.TooSlowError, BaseExceptionGroup) as exc:
            return self._ended(None, failure_reason(exc), "connection lost")
        self.post_board()
        if session.result is not None:
            return self._ended(dict(session.result), "")
        stopped = session.aborted
        if stopped is None:
            return self._ended(None, "the game stopped", "game stopped")
        # A stop that proves nobody cheated (a player gone, a game stopped) is no verdict.
        return self._ended(None, stopped.reason, None if stopped.kind == UNFAIR
                           else "game stopped")

    def _ended(self, result: dict[str, Any] | None, reason: str,
               unfinished: str | None = None) -> GameEnded:
        return GameEnded(result, reason, self.transcript, self.code.game_id,
                         str(self.options.home_dir), watch_code=self.code.encode(),
                         unfinished=unfinished)


async def run_watch(code: JoinCode, options: PeerOptions, side: TrioSide) -> GameEnded:
    """The bridge's trio program: watch the game, then tell the UI how it ended."""
    ended = await WatchedGame(code, options, side).run()
    side.post(ended)
    return ended
