"""Transcripts: the signed roster and every signed message of a game, re-checkable offline.

Format (JSON): ``{"format": "solstice-transcript/1", "roster": <signed roster>,
"messages": [<signed message>...], "outcome": {...}}``. ``verify_transcript`` replays the
messages through a keyless observer session: every signature, every stage, every deck step and
opening, the audit (which opens every secret) and the full-information replay of the game.
Verification recomputes the ``outcome``; a stored outcome that differs from it fails.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.canonical import canonical_json
from p2p.errors import P2PError, RemoteProtocolError
from p2p.net.roster import Roster
from p2p.session.envelope import SignedMessage
from p2p.session.machine import GameSession
from p2p.storage.durable import make_dirs, write_durably

FORMAT = "solstice-transcript/1"


class TranscriptUnreadable(Exception):
    """The file is missing or is not a transcript at all (exit status 2)."""


@dataclass
class Verdict:
    ok: bool
    summary: str
    blame: int | None = None          # peer index (join order) to blame
    blame_name: str | None = None
    message: int | None = None        # index of the offending message in the transcript
    result: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"ok": self.ok}
        if self.ok:
            data.update({"scores": self.result["scores"], "winner": self.result["winner"],
                         "rounds": self.result["rounds"], "players": self.result["players"]})
        else:
            data.update({"error": self.summary, "blame": self.blame_name,
                         "blame_peer": self.blame, "message": self.message})
        return data


def write_transcript(path: Path, roster: Roster, session: GameSession,
                     outcome: dict[str, Any]) -> Path:
    path = Path(path)
    make_dirs(path.parent)
    data = {"format": FORMAT, "roster": roster.signed_json(),
            "messages": session.transcript_messages(), "outcome": outcome}
    write_durably(path, canonical_json(data))
    return path


def load_transcript(path: Path) -> tuple[Roster, list[Any], dict[str, Any]]:
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise TranscriptUnreadable(f"cannot read {path}: {exc.strerror}") from None
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise TranscriptUnreadable(f"{path} is not JSON: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise TranscriptUnreadable(f"{path} is not a {FORMAT} file")
    try:
        roster = Roster.from_signed_json(data["roster"])
    except (P2PError, KeyError, TypeError, ValueError) as exc:
        raise TranscriptUnreadable(f"{path}: bad roster: {exc}") from None
    messages = data.get("messages")
    if not isinstance(messages, list):
        raise TranscriptUnreadable(f"{path}: 'messages' must be a list")
    return roster, messages, data.get("outcome") or {}


def verify_transcript(path: Path) -> Verdict:
    """Re-check a whole game offline; raise TranscriptUnreadable for a file that is no
    transcript."""
    roster, messages, outcome = load_transcript(path)
    names = [p.name for p in roster.players]
    session = GameSession(roster.game_id, [p.key for p in roster.players])

    def fail(reason: str, peer: int | None, index: int | None) -> Verdict:
        name = names[peer] if isinstance(peer, int) and 0 <= peer < len(names) else None
        where = f" (message {index})" if index is not None else ""
        who = f"; blame: {name} (peer {peer})" if name else ""
        return Verdict(False, reason + where + who, peer, name, index)

    for index, data in enumerate(messages):
        try:
            signed = SignedMessage.decode(canonical_json(data))
        except (RemoteProtocolError, ValueError, TypeError) as exc:
            return fail(f"message {index} is malformed: {exc}", None, index)
        before = len(session.events)
        session.accept(signed, direct=False)
        for event in session.events[before:]:
            if event.kind == "rejected":
                return fail(event.text, signed.msg.seat, index)
            if event.kind == "aborted":
                seat = event.data.get("seat") if isinstance(event.data, dict) else None
                return fail(event.text, seat, index)
    if session.result is None:
        return fail("the transcript ends before the game's audit", None, None)
    result = dict(session.result)
    # The stored outcome is what a reader sees first: it must be the one the replay gives.
    altered = sorted(k for k in ("scores", "winner", "rounds", "vp", "casualties", "ranking")
                     if k in outcome and outcome[k] != result[k])
    if altered or outcome.get("ok") is False:
        return fail("the transcript's stated outcome differs from the verified game "
                    f"({', '.join(altered) or 'ok'})", None, None)
    result["players"] = [{"name": names[p], "faction": session.config.factions[  # type: ignore[union-attr]
        session.seat_of_peer[p]]} for p in range(len(names))]
    return Verdict(True, result["summary"], result=result)
