"""Transcripts: the signed roster and every signed message of a game, re-checkable offline.

Format (JSON): ``{"format": "solstice-transcript/1", "roster": <signed roster>,
"messages": [<signed message>...], "outcome": {...}, "chat": [<signed chat line>...],
"lobby_chat": [<signed lobby chat line>...]}`` (``chat`` and ``lobby_chat`` only when there was
any). ``verify_transcript`` replays the messages through a
keyless observer session: every signature, every stage, every deck step and opening, every
abort's claim (``p2p.session.blame``), the audit (which opens every secret) and
the full-information replay of the game. The verdict is recomputed; a stored outcome of a fair
game that differs from it fails.

Verdicts (``Verdict.status``, with the exit status of ``solstice verify``): ``fair`` (0),
``unfair`` (1: a peer is proven to have cheated; the proof is in the file), ``damaged`` (2: the
file is unreadable, or a message in it does not check, e.g. a bad signature: that proves only
that the file was altered, so nobody is named), ``abandoned`` (3: a peer stopped answering, as
observed by the peer that wrote the file) and ``incomplete`` (3: the game stopped or the file
ends without anybody to name). The table chat (``chat``, optional) and the lobby's
(``lobby_chat``) are checked too (``Verdict.chat``, ``Verdict.lobby_chat``), but they are no
part of the game and never change the verdict.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.canonical import FILE_LIMITS, CanonicalEncodingError, canonical_json, parse_json
from p2p.durable import make_dirs, write_durably
from p2p.errors import P2PError, RemoteProtocolError
from p2p.net.chat import ChatCheck, verify_chat
from p2p.net.lobbychat import verify_lobby_chat
from p2p.net.roster import Roster
from p2p.session.envelope import SignedMessage
from p2p.session.events import ABANDONED, UNFAIR, GameAborted, Rejected
from p2p.session.machine import GameSession

FORMAT = "solstice-transcript/1"
EXIT_STATUS = {"fair": 0, "unfair": 1, "damaged": 2, "abandoned": 3, "incomplete": 3}


class TranscriptUnreadable(Exception):
    """The file is missing, is not a transcript at all, or is damaged (exit status 2)."""


@dataclass
class Verdict:
    status: str                        # one of EXIT_STATUS
    summary: str
    blame: int | None = None           # peer index (join order) named (unfair/abandoned)
    blame_name: str | None = None
    message: int | None = None         # index of the offending message in the transcript
    result: dict[str, Any] = field(default_factory=dict)
    chat: ChatCheck = field(default_factory=lambda: ChatCheck(0))  # never part of the verdict
    lobby_chat: ChatCheck = field(default_factory=lambda: ChatCheck(0))  # nor is this

    @property
    def ok(self) -> bool:
        return self.status == "fair"

    @property
    def exit_status(self) -> int:
        return EXIT_STATUS[self.status]

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"ok": self.ok, "verdict": self.status}
        if self.ok:
            data.update({"scores": self.result["scores"], "winner": self.result["winner"],
                         "rounds": self.result["rounds"], "players": self.result["players"]})
            if "left" in self.result:
                data["left"] = self.result["left"]
        else:
            data.update({"error": self.summary, "blame": self.blame_name,
                         "blame_peer": self.blame, "message": self.message})
        if self.chat.count or self.chat.problems:  # a game without chat reads as before
            data["chat"] = {"messages": self.chat.count, "problems": list(self.chat.problems)}
        if self.lobby_chat.count or self.lobby_chat.problems:
            data["lobby_chat"] = {"messages": self.lobby_chat.count,
                                  "problems": list(self.lobby_chat.problems)}
        return data


def outcome_of(session: GameSession, names: list[str]) -> dict[str, Any]:
    """What a peer stores as the outcome (``finished.json``, the transcript's ``outcome``)."""
    if session.result is not None:
        return {**session.result, "verdict": "fair"}
    aborted = session.aborted
    if aborted is None:
        return {"ok": False, "verdict": "incomplete", "reason": "the game did not finish",
                "blame": None}
    blame = aborted.peer if aborted.peer is not None and aborted.peer < len(names) else None
    verdict = aborted.kind if aborted.kind in (UNFAIR, ABANDONED) and blame is not None \
        else "incomplete"
    return {"ok": False, "verdict": verdict, "reason": aborted.reason, "stage": aborted.stage,
            "blame": names[blame] if blame is not None else None, "blame_peer": blame}


def write_transcript(path: Path, roster: Roster, session: GameSession,
                     outcome: dict[str, Any], chat: list[dict[str, Any]] | None = None,
                     lobby_chat: list[dict[str, Any]] | None = None) -> Path:
    """``chat``: the signed chat lines this peer kept (``ChatRoom.transcript()``);
    ``lobby_chat``: the lobby's (``LobbyChatLine.to_json()``)."""
    path = Path(path)
    make_dirs(path.parent)
    data = {"format": FORMAT, "roster": roster.signed_json(),
            "messages": session.transcript_messages(), "outcome": outcome}
    if chat:  # a game without chat is written as before
        data["chat"] = chat
    if lobby_chat:
        data["lobby_chat"] = lobby_chat
    write_durably(path, canonical_json(data))
    return path


def load_transcript(path: Path) -> tuple[Roster, list[Any], dict[str, Any]]:
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise TranscriptUnreadable(f"cannot read {path}: {exc.strerror}") from None
    try:
        data = parse_json(raw, FILE_LIMITS)  # bounded: a file may come from anyone
    except ValueError as exc:
        raise TranscriptUnreadable(f"{path} is not a transcript's JSON: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise TranscriptUnreadable(f"{path} is not a {FORMAT} file")
    try:
        roster = Roster.from_signed_json(data["roster"])
    except (P2PError, KeyError, TypeError, ValueError, RecursionError) as exc:
        raise TranscriptUnreadable(f"{path}: bad roster: {exc}") from None
    messages = data.get("messages")
    if not isinstance(messages, list):
        raise TranscriptUnreadable(f"{path}: 'messages' must be a list")
    outcome = data.get("outcome", {})
    if not isinstance(outcome, dict):
        raise TranscriptUnreadable(f"{path}: 'outcome' must be an object")
    return roster, messages, outcome


def load_chat_entries(path: Path, key: str = "chat") -> object:
    """The transcript's ``chat`` (or other ``key``'s) value (None when it has none); the file
    was loaded once by ``load_transcript`` already, so it is readable JSON."""
    try:
        data = parse_json(Path(path).read_bytes(), FILE_LIMITS)
    except (OSError, ValueError):
        return None
    return data.get(key) if isinstance(data, dict) else None


def verify_transcript(path: Path) -> Verdict:
    """Re-check a whole game offline; raise TranscriptUnreadable for a file that is no
    transcript. The chat is checked apart: it never changes the verdict."""
    roster, messages, outcome = load_transcript(path)
    verdict = _verify_game(roster, messages, outcome)
    verdict.chat = verify_chat(roster.game_id, [p.key for p in roster.players],
                               load_chat_entries(path))
    verdict.lobby_chat = verify_lobby_chat(roster.game_id, load_chat_entries(path, "lobby_chat"))
    return verdict


def _verify_game(roster: Roster, messages: list[Any], outcome: dict[str, Any]) -> Verdict:
    names = [p.name for p in roster.players]
    session = GameSession(roster.game_id, [p.key for p in roster.players])

    def named(status: str, reason: str, peer: int | None, index: int | None) -> Verdict:
        name = names[peer] if isinstance(peer, int) and 0 <= peer < len(names) else None
        where = f" (message {index})" if index is not None else ""
        return Verdict(status, reason + where, peer if name else None, name, index)

    def damaged(reason: str, index: int | None) -> Verdict:
        return Verdict("damaged", f"{reason}: the file was altered or damaged; this proves "
                                  "nothing about any player", None, None, index)

    twins = _equivocation(roster, messages)
    if twins is not None:
        author, twin_seq, first, second = twins
        return named("unfair", f"peer {author} signed two different messages with seq "
                               f"{twin_seq} (messages {first} and {second}): equivocation",
                     author, second)
    stop: Verdict | None = None
    for index, data in enumerate(messages):
        try:
            signed = SignedMessage.decode(canonical_json(data))
        except (RemoteProtocolError, CanonicalEncodingError, ValueError, TypeError,
                RecursionError) as exc:
            return damaged(f"message {index} is malformed ({exc})", index)
        before = len(session.events)
        session.accept(signed, direct=False)
        for event in session.events[before:]:
            if isinstance(event, Rejected):
                return damaged(f"message {index} does not check ({event.reason})", index)
            if isinstance(event, GameAborted) and stop is None:
                stop = _stopped(event, names, index)
    # A message held back for a gap in its author's sequence: the file lacks a message of
    # that author (a peer's log has none), so no verdict drawn from its absence is safe.
    for index, data in enumerate(messages):
        msg = data.get("msg") if isinstance(data, dict) else None
        seat, seq = (msg.get("seat"), msg.get("seq")) if isinstance(msg, dict) else (None, None)
        if isinstance(seat, int) and isinstance(seq, int) and 0 <= seat < session.n \
                and seq >= session.msglog.next_seq(seat):
            return damaged(f"message {index} (seq {seq} of peer {seat}) follows a gap: "
                           f"the file lacks that peer's seq {session.msglog.next_seq(seat)}",
                           index)
    if stop is None and not session.finished:
        before = len(session.events)
        session.end_of_log()
        for event in session.events[before:]:
            if isinstance(event, GameAborted):
                stop = _stopped(event, names, None)
    if stop is not None:
        return stop
    if session.result is None:
        waiting = session.waiting_for()
        return named("incomplete", f"the transcript ends at stage {session.stage_index} "
                                   f"waiting for peer(s) {waiting}, before the game's audit; "
                                   "nobody is named", None, None)
    result = dict(session.result)
    # The stored outcome is what a reader sees first: it must be the one the replay gives.
    altered = sorted(k for k in ("scores", "winner", "rounds", "vp", "casualties", "ranking",
                                 "left")
                     if k in outcome and outcome[k] != result[k])
    if altered or outcome.get("ok") is False:
        return damaged("the transcript's stated outcome differs from the verified game "
                       f"({', '.join(altered) or 'ok'})", None)
    assert session.config is not None
    result["players"] = [{"name": names[p], "faction": session.config.factions[
        session.seat_of_peer[p]]} for p in range(len(names))]
    return Verdict("fair", result["summary"], result=result)


def _equivocation(roster: Roster, messages: list[Any]) -> tuple[int, int, int, int] | None:
    """The first two different messages of one author with one seq, both validly signed by
    it, anywhere in the file: (author, seq, index of the first, of the second). Only their
    author can sign them, wherever an editor put them, and an honest peer never signs a seq
    twice (it writes what it signs before sending it), so they prove the author cheated even
    where the replay never meets the second (after the game's end, or after a stop)."""
    keys = [p.key for p in roster.players]
    seen: dict[tuple[int, int], tuple[str, int]] = {}

    def signed_copy(data: Any) -> SignedMessage | None:
        try:
            signed = SignedMessage.decode(canonical_json(data))
        except (RemoteProtocolError, CanonicalEncodingError, ValueError, TypeError,
                RecursionError):
            return None  # (the replay reports it)
        msg = signed.msg
        if msg.game != roster.game_id or not 0 <= msg.seat < len(keys) \
                or not signed.verify(keys[msg.seat]):
            return None
        return signed

    for index, data in enumerate(messages):
        outer = signed_copy(data)
        if outer is None:
            continue
        # The copies an abort carries as evidence count too: a twin sent to another peer
        # reaches this file only there (the live peers refused it as a message).
        evidence = outer.msg.body.get("evidence") if outer.msg.type == "abort" else None
        copies = [outer, *(c for c in map(signed_copy, evidence if isinstance(evidence, list)
                                          else []) if c is not None)]
        for signed in copies:
            first = seen.setdefault((signed.msg.seat, signed.msg.seq), (signed.hash, index))
            if first[0] != signed.hash:
                return signed.msg.seat, signed.msg.seq, first[1], index
    return None


def _stopped(event: GameAborted, names: list[str], index: int | None) -> Verdict:
    kind, peer = event.kind, event.peer
    name = names[peer] if peer is not None and 0 <= peer < len(names) else None
    where = f" (message {index})" if index is not None else ""
    if kind == UNFAIR and name is not None:
        return Verdict("unfair", f"{event.text}{where}; proven against {name} (peer {peer})",
                       peer, name, index)
    if kind == ABANDONED and name is not None:
        return Verdict("abandoned", f"{event.text}; abandoned by {name} (peer {peer}) at stage "
                                    f"{event.stage}, as its peers observed (not a proof "
                                    "of cheating)", peer, name, index)
    return Verdict("incomplete", f"{event.text}{where}; nobody is named", None, None, index)
