"""The chat of a running game: the runner's room, and the player's link to it.

``open_room`` gives the runner the game's ``ChatRoom`` (our earlier lines reloaded from the
store after a restart, every kept line stored). A UI or the headless printer hands a
``ChatLink`` to the game (``PeerOptions.chat``): it is told every line shown (``on_shown``)
and can ``say`` a line from any task of the game's trio run: in the lobby (``attach_lobby``,
by the node while we wait for the table to fill) and once the game has started (``attach``).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from p2p.net.chat import ChatLine, ChatNote, ChatRefused, ChatRoom
from p2p.net.mesh import Mesh
from p2p.storage.chatlog import append_chat, load_chat
from p2p.storage.store import GameStore

log = logging.getLogger("solstice.chat")


@dataclass(frozen=True)
class ChatShown:
    """A line for the player: ``author``'s name and text, or (``author`` None) a local note
    about chat; ``lobby``: said in the lobby. Peer text, raw: whoever shows it escapes it
    (``p2p.text.printable``)."""

    author: str | None
    text: str
    lobby: bool = False


def open_room(mesh: Mesh, store: GameStore) -> ChatRoom:
    me = mesh.my_index

    def keep(line: ChatLine) -> None:
        try:
            append_chat(store.dir, line, durable=line.author == me)
        except OSError as exc:  # chat is never worth stopping a game for
            log.warning("chat line not stored: %s", exc)

    roster = mesh.roster
    return ChatRoom(roster.game_id, [p.key for p in roster.players], me, mesh.identity,
                    [p.name for p in roster.players], load_chat(store.dir), keep)


class ChatLink:
    """The player's side of a game's chat."""

    def __init__(self, on_shown: Callable[[ChatShown], None]) -> None:
        self.on_shown = on_shown
        self._room: ChatRoom | None = None
        self._send: Callable[[bytes], Awaitable[None]] | None = None
        self._clock: Callable[[], float] = lambda: 0.0
        self._lobby: Callable[[str], Awaitable[str]] | None = None

    def attach_lobby(self, say: Callable[[str], Awaitable[str]] | None) -> None:
        """The lobby is open (None: it closed): ``say`` signs and sends a line there and
        returns our name (ChatRefused if it cannot go)."""
        self._lobby = say

    @property
    def in_lobby(self) -> bool:
        """A lobby is open for our lines (and no game yet)."""
        return self._lobby is not None

    def heard_lobby(self, author: str | None, text: str) -> None:
        """A lobby line (``author``'s name) or a note about lobby chat (``author`` None)."""
        self.on_shown(ChatShown(author, text, lobby=True))

    def attach(self, room: ChatRoom, send: Callable[[bytes], Awaitable[None]],
               clock: Callable[[], float]) -> None:
        """The game's room is open: lines go out with ``send`` (a broadcast)."""
        self._room, self._send, self._clock = room, send, clock

    async def say(self, text: str) -> None:
        """Sign and send a line, and show it; ChatRefused (shown as a note too) if it
        cannot go."""
        room, send = self._room, self._send
        if (room is None or send is None) and self._lobby is not None:
            try:
                name = await self._lobby(text)
            except ChatRefused as exc:
                self.heard_lobby(None, f"chat: {exc}")
                raise
            self.heard_lobby(name, text.strip())
            return
        try:
            if room is None or send is None:
                raise ChatRefused("chat opens when the game starts (every player connected)")
            line = room.say(text, self._clock())
        except ChatRefused as exc:
            self.on_shown(ChatShown(None, f"chat: {exc}"))
            raise
        await send(line.frame())
        self.on_shown(ChatShown(room.name(room.me), line.text))

    def heard(self, room: ChatRoom, note: ChatNote) -> None:
        """Show what ``room.receive`` made of a frame (violations are the runner's)."""
        if note.line is not None:
            self.on_shown(ChatShown(room.name(note.line.author), note.line.text))
        elif note.note:
            self.on_shown(ChatShown(None, note.note))
