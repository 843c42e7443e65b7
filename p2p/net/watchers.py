"""Who watches: the host's signed "watchers" notice to the players (protocol.md, "Observers").

The host alone admits spectators, so it alone can say who watches. It signs each notice with
its identity key (roster entry 0) and numbers them; a player takes a notice only from the
host's mesh link, with the host's signature, for this game, newer than the last one it took.
A spectator is in no mesh and the host forwards nothing an observer sends, and a player
cannot sign for the host, so nobody but the host can make a player see a watcher. Notices
are not game messages: they are not in the message log, the hash chain or the transcript.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any

from engine.canonical import CONTROL_LIMITS, CanonicalEncodingError, canonical_json, parse_json
from p2p.errors import RemoteProtocolError
from p2p.hexfields import parse_lower_hex
from p2p.identity import Identity, is_peer_id, verify_signature
from p2p.net.notices import WatchersChanged
from p2p.net.roster import Roster, names_clash, tagged_name, valid_name
from p2p.session.events import Peer, Rejected
from p2p.text import printable

FRAME_WATCHERS = b"W"
WATCHERS_DOMAIN = b"solstice/watchers/v1\n"
MAX_LISTED = 16  # a notice names at most this many watchers (hosts admit 4 by default)
MAX_NOTICE_BYTES = 8192


class BadWatchersNotice(RemoteProtocolError):
    """A "watchers" frame that is not the host's valid notice for this game."""


@dataclass(frozen=True)
class Watcher:
    peer_id: str
    name: str

    def to_json(self) -> dict[str, str]:
        return {"id": self.peer_id, "name": self.name}


def by_name(watcher: Watcher) -> tuple[str, str]:
    return watcher.name, watcher.peer_id


def _signing_bytes(body: dict[str, Any]) -> bytes:
    return WATCHERS_DOMAIN + canonical_json(body)


def watchers_frame(host: Identity, game_id: str, seq: int,
                   watchers: Iterable[Watcher]) -> bytes:
    """The host's notice number ``seq`` that ``watchers`` (all of them) watch now."""
    listed = sorted(watchers, key=by_name)[:MAX_LISTED]
    body = {"type": "watchers", "game": game_id, "seq": seq,
            "watchers": [w.to_json() for w in listed]}
    signed = {"notice": body, "sig": host.sign(_signing_bytes(body)).hex()}
    return FRAME_WATCHERS + canonical_json(signed)


def _watcher(obj: object, blame: int) -> Watcher:
    if not isinstance(obj, dict) or set(obj) != {"id", "name"}:
        raise BadWatchersNotice(blame, "a watcher must have exactly 'id' and 'name'")
    if not is_peer_id(obj["id"]) or not valid_name(obj["name"]):
        raise BadWatchersNotice(blame, "a watcher has a bad id or name")
    return Watcher(obj["id"], obj["name"])


def check_notice(roster: Roster, sender: int, frame: bytes) -> tuple[int, tuple[Watcher, ...]]:
    """The (seq, watchers) of a notice ``sender`` (a roster index) sent us; BadWatchersNotice
    if it is not the host's, not signed by the host, not for this game or malformed."""
    if sender != 0:
        raise BadWatchersNotice(sender, "only the host says who watches")
    if frame[:1] != FRAME_WATCHERS or len(frame) > MAX_NOTICE_BYTES:
        raise BadWatchersNotice(sender, "not a watchers notice (or too long)")
    try:
        obj = parse_json(frame[1:], CONTROL_LIMITS)
    except ValueError:
        raise BadWatchersNotice(sender, "a watchers notice that is not JSON") from None
    if not isinstance(obj, dict) or set(obj) != {"notice", "sig"}:
        raise BadWatchersNotice(sender, "a watchers notice must have 'notice' and 'sig'")
    body, sig = obj["notice"], obj["sig"]
    if not isinstance(body, dict) or set(body) != {"type", "game", "seq", "watchers"}:
        raise BadWatchersNotice(sender, "a watchers notice has the wrong fields")
    signature = parse_lower_hex(sig) if isinstance(sig, str) else b""
    try:
        signed = _signing_bytes(body)
    except (ValueError, CanonicalEncodingError):
        signed = None
    if signature is None or signed is None:
        raise BadWatchersNotice(sender, "a watchers notice with a malformed value")
    if not verify_signature(roster.players[0].key, signature, signed):
        raise BadWatchersNotice(sender, "a watchers notice not signed by the host")
    seq, listed = body["seq"], body["watchers"]
    if body["type"] != "watchers" or body["game"] != roster.game_id:
        raise BadWatchersNotice(sender, "a watchers notice for another game")
    if type(seq) is not int or seq < 1 or not isinstance(listed, list) \
            or len(listed) > MAX_LISTED:
        raise BadWatchersNotice(sender, "a watchers notice with a bad number or list")
    return seq, tuple(_watcher(w, sender) for w in listed)


def shown_name(watcher: Watcher, players: Collection[str] = ()) -> str:
    """A watcher's name as shown: with its short id appended if it reads like a player's
    (the name rule of the table, protocol.md "Names"), made printable."""
    clash = any(names_clash(watcher.name, name) for name in players)
    return printable(tagged_name(watcher.name, watcher.peer_id) if clash else watcher.name, 40)


def watching_text(watchers: Iterable[Watcher], players: Collection[str] = ()) -> str:
    """``watching: alice, bob`` (names made printable), or that nobody watches now."""
    names = [shown_name(w, players) for w in watchers]
    return "watching: " + ", ".join(names) if names else "nobody is watching now"


def watchers_event(watchers: tuple[Watcher, ...],
                   players: Collection[str] = ()) -> WatchersChanged:
    return WatchersChanged(watching_text(watchers, players),
                           tuple(shown_name(w, players) for w in watchers))


class HeardWatchers:
    """A player's side: the newest notice taken, and events for the ones that change it."""

    def __init__(self, roster: Roster) -> None:
        self.roster = roster
        self.seq = 0
        self.watchers: tuple[Watcher, ...] = ()

    def receive(self, sender: int, frame: bytes) -> list[WatchersChanged | Rejected]:
        """The event to show for this frame: a new set of watchers, a warning for a bad
        notice, nothing for an old or repeated one."""
        try:
            seq, watchers = check_notice(self.roster, sender, frame)
        except BadWatchersNotice as exc:
            return [Rejected(Peer(sender), f"ignored a watchers notice: {exc.reason}")]
        if seq <= self.seq:
            return []  # an older notice (frames can be re-sent after a reconnection)
        self.seq = seq
        changed = watchers != self.watchers
        self.watchers = watchers
        players = [p.name for p in self.roster.players]
        return [watchers_event(watchers, players)] if changed else []
