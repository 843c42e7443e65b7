"""Watch a game as a spectator: connect to its host as an observer (protocol.md, "Observers"),
replay every signed message through a keyless session (the same check ``solstice verify``
runs), see the audit at the end, and write our own transcript.

The spectator trusts nobody: every message must carry its author's signature, the roster the
host's, and the audit the spectator runs itself decides whether the game was fair.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import trio

from p2p.errors import RemoteProtocolError
from p2p.identity import Identity
from p2p.net.games import PeerOptions
from p2p.net.joincode import JoinCode
from p2p.net.lobby import LobbyRefused, decode_control, encode_control
from p2p.net.notices import EventSink, RosterKnown, TranscriptWritten
from p2p.net.observers import watch_hello
from p2p.net.roster import Roster
from p2p.net.runner import seats_event
from p2p.net.transport import Connection, dial
from p2p.session.envelope import SignedMessage
from p2p.session.events import LogLine
from p2p.session.inbox import FRAME_MESSAGE
from p2p.session.machine import GameSession
from p2p.storage.transcript import outcome_of, write_transcript


def watch_transcript_path(home: Path, game_id: str) -> Path:
    return Path(home) / "games" / game_id / "watch-transcript.json"


async def _control(conn: Connection, expected: str, timeout: float) -> dict[str, object]:
    with trio.fail_after(timeout):
        frame = await conn.receive_frame()
    if frame is None:
        raise RemoteProtocolError(0, f"the host closed the connection (expected {expected})")
    obj = decode_control(frame, 0)
    if obj["type"] == "refuse":
        raise LobbyRefused(0, f"the host refused us: {obj.get('reason')!s:.200}")
    if obj["type"] != expected:
        raise RemoteProtocolError(0, f"expected {expected}, got {obj['type']!s:.40}")
    return obj


async def watch_game(code: JoinCode, on_event: EventSink, options: PeerOptions) -> GameSession:
    """Watch the game of ``code`` to its end; the session's ``result`` is our own audit's."""
    identity = Identity.load_or_create(options.home_dir)
    cfg = options.net
    if code.rendezvous is not None and cfg.rendezvous is None:
        # A game over the internet: the host may be reachable only through its relay (a
        # watcher only dials, so it needs no listen line there).
        cfg = replace(cfg, rendezvous=code.rendezvous)
    conn = await dial(code.address, code.port, identity, code.host_id, cfg, 0)
    try:
        await conn.send_frame(encode_control(watch_hello(code.game_id, options.name_for(identity))))
        welcome = await _control(conn, "watch-welcome", cfg.first_read_timeout)
        if welcome.get("game") != code.game_id:
            raise RemoteProtocolError(0, "the host welcomed us to another game")
        on_event(LogLine("watching; waiting for the players to gather..."))
        roster_msg = await _control(conn, "roster", cfg.lobby_timeout)
        roster = Roster.from_signed_json(roster_msg.get("roster"), host_id=code.host_id,
                                         blame=0)
        if roster.game_id != code.game_id:
            raise RemoteProtocolError(0, "the roster is for another game")
        session = GameSession(roster.game_id, [p.key for p in roster.players])  # keyless
        if options.on_session is not None:
            options.on_session(session)  # a UI shows the board from it as the game goes
        await _follow(conn, roster, session, on_event, cfg.idle_timeout)
    finally:
        await conn.aclose()
    names = [p.name for p in roster.players]
    path = options.transcript or watch_transcript_path(options.home_dir, roster.game_id)
    write_transcript(path, roster, session, outcome_of(session, names))
    on_event(TranscriptWritten(Path(path)))
    return session


async def _follow(conn: Connection, roster: Roster, session: GameSession, on_event: EventSink,
                  idle_timeout: float) -> None:
    names = [p.name for p in roster.players]
    on_event(RosterKnown("Players: " + ", ".join(names), tuple(names)))
    seen, seats_announced = 0, False
    while not session.finished:
        with trio.move_on_after(idle_timeout) as idle:
            frame = await conn.receive_frame()
        if idle.cancelled_caught:
            raise RemoteProtocolError(0, f"nothing heard from the host for {idle_timeout:g} s")
        if frame is None:
            raise RemoteProtocolError(0, "the host closed the connection before the game ended")
        if not frame:
            continue  # keepalive
        if frame[:1] != FRAME_MESSAGE:
            raise RemoteProtocolError(0, "the host sent something other than a game message")
        session.accept(SignedMessage.decode(frame[1:], 0), direct=False)
        for event in session.events[seen:]:
            on_event(event)
        seen = len(session.events)
        if not seats_announced and session.config is not None:
            seats_announced = True
            on_event(seats_event(session, names))
