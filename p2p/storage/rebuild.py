"""Rebuild a finished game's transcript from a peer's own store (``solstice transcript``).

The stored log holds every signed message, the audit's openings included, so a keyless
observer replay re-checks the whole game and gives the same outcome the peer saw."""

from __future__ import annotations

from pathlib import Path

from p2p.errors import LocalFileError
from p2p.net.node import load_roster
from p2p.session.machine import GameSession
from p2p.storage.chatlog import load_chat, load_lobby_chat
from p2p.storage.store import GameStore
from p2p.storage.transcript import write_transcript


def rebuild_transcript(home: Path, game_id: str, out: Path | None = None) -> Path:
    """Write the transcript of ``game_id`` from ``home``'s log; the path written."""
    roster = load_roster(home, game_id)
    store = GameStore(home, game_id)
    session = GameSession(game_id, [p.key for p in roster.players])
    messages = store.load_messages()
    for signed in messages:
        session.accept(signed, direct=False)
    if session.result is None:
        state = (f"it stopped: {session.aborted.reason}" if session.aborted else
                 f"it ends at stage {session.stage_index}")
        raise LocalFileError(f"the log of game {game_id} in {home} ({len(messages)} messages) "
                             f"does not hold a finished game ({state}); continue it with: "
                             f"solstice resume {game_id} --home {home}")
    path = Path(out) if out is not None else store.dir / "transcript.json"
    try:
        write_transcript(path, roster, session, dict(session.result),
                         [line.to_json() for line in load_chat(store.dir)],
                         [line.to_json() for line in load_lobby_chat(store.dir)])
    except OSError as exc:
        raise LocalFileError(f"cannot write {path}: {exc.strerror or exc}") from None
    if not store.finished:
        store.mark_finished(dict(session.result))
    return path
