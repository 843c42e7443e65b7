"""The trio side of the terminal UI: host, join, resume, or play against local bots.

Runs in the bridge's trio thread (``ui.app.bridge``). The human is a chooser that posts
``AskHuman`` to the UI and awaits the ``HumanAnswer`` the UI sends back. The board is kept
fresh by posting ``BoardChanged`` whenever the session moves on: on every session event and
from a short poll (draft picks of others produce no log line). Only our seat's view
(``SeatView``) is read, never the session itself; it is taken in this thread, between the
runner's awaits, so the session is never touched concurrently.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import io
import math
import re
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from bots.base import Bot, GameInfo, Turn
from bots.bot_output import BotLines
from bots.netseat import bot_chooser, finished
from bots.process_bot import ProcessBot
from bots.registry import make_bot
from engine import Action
from p2p.errors import LocalProtocolError, P2PError
from p2p.identity import Identity
from p2p.net.chat import ChatRefused
from p2p.net.chatlink import ChatLink
from p2p.net.games import PeerOptions, host_game, join_game, resume_game
from p2p.net.joincode import JoinCode
from p2p.net.lobby import ESCROW_TERMS, EscrowNotAccepted
from p2p.net.node import HostedLobby, load_roster
from p2p.net.notices import (
    ChoiceRefused,
    GameEvent,
    RosterKnown,
    SeatsDrawn,
    Stopped,
    StoreRepaired,
    TableFilling,
    TranscriptWritten,
    Waiting,
    WatchersChanged,
)
from p2p.net.rematch import ACCEPT_WITHIN, host_rematch, join_rematch, rematch_game_id
from p2p.net.shortcode import display, short_code
from p2p.session.events import (
    ClockRanOut,
    DecisionClock,
    DeckAudit,
    GameAborted,
    GameOver,
    InputWanted,
    LogLine,
    Rejected,
    SeatHandedOver,
    TableClock,
)
from p2p.session.machine import GameSession
from p2p.session.seatview import SeatView
from p2p.session.timing import Timing
from ui.app.bridge import TrioSide
from ui.app.learngame import (
    LEARN_BOT_SEED,
    LEARN_SEED,
    TeachingBot,
    learn_game_id,
    learning_home,
)
from ui.app.messages import (
    AskEscrow,
    AskHuman,
    BoardChanged,
    ChatSay,
    Connecting,
    EscrowAnswer,
    EscrowState,
    GameEnded,
    HandOver,
    HumanAnswer,
    LobbyOpened,
    NetNote,
    RosterChanged,
    RosterLine,
    SetEscrow,
)
from ui.app.notes import clean_text, error_words, handover_line

POLL_SECONDS = 0.15
RESEND_NOTICE_LASTS = 12.0  # a resuming peer repeats whom it waits for every 10 s
# A ``--learn`` game against local bots: the longest decision the protocol allows and no
# game clock, so that no clock runs out while the player reads a lesson or a summary (the
# bots are ours, nobody waits for us); the UI shows no clock in it.
LEARN_TIMING = Timing(decision=3600, decision_bank=0, decision_increment=0)


@dataclass
class NetSetup:
    """What to run: ``mode`` is "play" (vs local bots), "host", "join", "resume" or "rematch"
    (of the game ``game``)."""

    mode: str
    options: PeerOptions
    players: int = 2
    code: JoinCode | None = None
    game: str | None = None
    bots: tuple[str, ...] = ()
    seed: str | None = None
    bot_homes: list[Path] = field(default_factory=list)
    learn: bool = False  # ``play --learn``: each phase explained the first time it comes up


class SeededBot(Bot):
    """Wraps a bot so that its random stream comes from ``--seed`` (the deal itself comes
    from the peers' shared randomness, so the seed only fixes the bots' own choices)."""

    def __init__(self, inner: Bot, seed: bytes) -> None:
        self.inner = inner
        self.seed = seed
        self.name = inner.name
        self.time_budget = inner.time_budget

    def start(self, info: GameInfo) -> None:
        self.inner.start(dataclasses.replace(info, seed=self.seed))

    def choose(self, turn: Turn) -> Action:
        return self.inner.choose(turn)

    def end(self, result: dict[str, Any]) -> None:
        self.inner.end(result)

    def close(self) -> None:
        self.inner.close()


def bot_seed(seed: str, index: int) -> bytes:
    """A distinct seed per opponent, all fixed by the one ``--seed``."""
    return hashlib.sha256(f"solstice-play/{seed}/{index}".encode()).digest()[:16]


def fingerprint(peer_id: str) -> str:
    return peer_id[:12]


def lobby_roster(table: TableFilling) -> RosterChanged:
    """A joiner's table so far as the lobby screen lists it."""
    return RosterChanged(table.players, tuple(
        RosterLine(name, fingerprint(peer)) for name, peer in table.seated))


class NetGame:
    """One networked game as seen by the human's peer."""

    def __init__(self, setup: NetSetup, side: TrioSide) -> None:
        self.setup = setup
        self.side = side
        # Our seat's view now (the session's ``seat_view``), once the board is shown.
        self.views: Callable[[], SeatView | None] | None = None
        self.roster_names: list[str] = []  # by peer index, when we know the roster
        self.serial = 0
        self.result: dict[str, Any] | None = None
        self.transcript: str | None = None
        self.abort_reason = ""
        self.game_id: str | None = setup.game or (setup.code.game_id if setup.code else None)
        self._last_key: Any = None
        self._opened: Callable[[], SeatView | None] | None = None  # before it is shown
        self._hosted: HostedLobby | None = None  # the lobby we host, while it is open
        # The player's answer when the table we join escrows (``AskEscrow``).
        self._escrow_answer, self._escrow_answers = trio.open_memory_channel[bool](1)
        self._hand_over: Callable[[], None] | None = None  # leave, a ghost takes the seat
        self._decision: DecisionClock | None = None  # the last decision's clock
        self.away: dict[int, float] = {}  # peer -> when the others stop waiting for it
        self.announced: set[int] = set()  # seats whose handover the log has said
        self.handed_over: str | None = None  # our faction, once we handed our seat over
        self.join_code: str | None = setup.code.encode() if setup.code else None
        self.options: PeerOptions | None = None  # what ``host_game`` reads when it starts
        self.resending: set[int] = set()  # a resumed game waits for these to re-send
        self.resending_until = 0.0
        self.now = trio.current_time  # the session's clock (the runner ticks it with this)
        self.chat = ChatLink(side.post)  # lines shown go to the UI as ChatShown
        # What the UI sends: answers for ``choose`` (chat lines are said at once).
        self._answers_in, self._answers = trio.open_memory_channel[Any](math.inf)

    # -- what the UI sees -------------------------------------------------------------------

    def seat_names(self, seats: SeatView) -> tuple[str, ...]:
        return tuple(self.roster_names[p] if p < len(self.roster_names) else ""
                     for p in seats.peer_of_seat)

    def waiting(self, seats: SeatView) -> tuple[str, ...]:
        """Who the game waits for, by faction (and name when known), never ourselves; a
        player who dropped out is shown as disconnected, with the time left before the game
        stops. While a resumed game catches up, the peers it waits for to re-send."""
        out = []
        resending = (self.resending if self.resending and self.now() < self.resending_until
                     else set())
        waited = set(seats.waiting) | {seat for seat, peer in enumerate(seats.peer_of_seat)
                                       if peer in resending}
        for seat in sorted(waited, key=seats.peer_of_seat.__getitem__):
            if seat == seats.seat:
                continue
            faction = seats.config.factions[seat]
            peer = seats.peer_of_seat[seat]
            name = self.roster_names[peer] if peer < len(self.roster_names) else ""
            label = f"{faction} ({name})" if name else faction
            if seat in seats.handed_over:
                label += " — handed over; the ghost plays it from its next move"
            elif peer in self.away:
                left = max(0, math.ceil(self.away[peer] - self.now()))
                label += (f" — disconnected; the game stops in {left} s unless they come back"
                          if left else " — disconnected; they did not come back in time")
            elif peer in resending:
                label += " — to re-send what this resumed game lacks"
            out.append(label)
        return tuple(out)

    def clocks(self, seats: SeatView) -> tuple[float | None, ...]:
        """Seconds left per seat for each player who still has to make the current decision
        (None for the others), from the session's last ``DecisionClock``. No clock runs
        against a player who is away (the session runs no deadline against them); our own
        comes from our view when the last clock was not seen (a resumed game)."""
        if self.setup.learn and self.setup.mode == "play":
            return ()  # LEARN_TIMING: no clock worth showing
        clock = self._decision
        if clock is None or clock.deadline is None:
            # A resumed game: its decision's clock notice was replayed before the time ran
            # (no deadline) or not seen at all; our own deadline is in our view.
            if not seats.legal or seats.deadline is None:
                return ()
            own = max(0.0, seats.deadline - self.now())
            return tuple(own if seat == seats.seat else None
                         for seat in range(len(seats.peer_of_seat)))
        if not seats.waiting or seats.stage != clock.stage:
            return ()
        left = max(0.0, clock.deadline - self.now())
        deciding = ({seats.peer_of_seat[seat] for seat in seats.waiting} & set(clock.peers)) \
            - set(self.away)
        return tuple(left if peer in deciding else None for peer in seats.peer_of_seat)

    def _track_away(self, event: GameEvent) -> None:
        """Who dropped out, and until when the others wait for them (the runner's notices:
        a disconnect names its grace period; "NAME (id) is back" ends it); whom a resumed
        game waits for to re-send."""
        if isinstance(event, Waiting) and len(event.peers) == 1:
            peer = int(event.peers[0])
            grace = re.search(r"waiting up to (\d+(?:\.\d+)?) s", event.text)
            if " disconnected (" in event.text and grace:
                self.away[peer] = self.now() + float(grace.group(1))
            elif "did not come back" in event.text:
                self.away[peer] = self.now()
        if isinstance(event, Waiting) and event.text.startswith("resuming: "):
            # Said again every 10 s while the resumed game still lacks messages.
            self.resending = {int(p) for p in event.peers}
            self.resending_until = self.now() + RESEND_NOTICE_LASTS
        elif isinstance(event, LogLine) and event.text.endswith((" is back", " is connected")):
            for peer in list(self.away):
                name = self.roster_names[peer] if peer < len(self.roster_names) else None
                if name is not None and event.text.startswith(f"{name} ("):
                    del self.away[peer]


    def seat_label(self, seats: SeatView, seat: int) -> tuple[str, str]:
        """(faction, player name) of ``seat``."""
        peer = seats.peer_of_seat[seat]
        return (seats.config.factions[seat],
                self.roster_names[peer] if peer < len(self.roster_names) else "")

    def _announce_handovers(self, seats: SeatView) -> None:
        """Say a handover the moment it arrives (the game takes it only at the first stage
        that needs the leaver, which can be a decision of ours away)."""
        for seat in seats.handed_over:
            if seat in self.announced or seat == seats.seat:
                continue
            self.announced.add(seat)
            self.away.pop(seats.peer_of_seat[seat], None)  # gone for good, not disconnected
            faction, name = self.seat_label(seats, seat)
            self.side.post(NetNote("waiting", handover_line(
                faction, name, seats.state.round, seats.state.phase.value)))

    def post_board(self, force: bool = False) -> None:
        seats = self.views() if self.views is not None else None
        if seats is None:
            return
        self._announce_handovers(seats)
        clocks, waiting = self.clocks(seats), self.waiting(seats)
        key = (seats.stage, len(seats.state.log), seats.state.phase, waiting,
               seats.picked or (), tuple(None if c is None else int(c) for c in clocks))
        if key == self._last_key and not force:
            return
        self._last_key = key
        self.side.post(BoardChanged(board_view(seats), waiting, self.seat_names(seats), clocks))

    def on_event(self, event: GameEvent) -> None:
        if isinstance(event, InputWanted):
            return
        self._track_away(event)
        # Only these need our view for their words (it is a copy of the state: not per event).
        seats = (self.views() if self.views is not None
                 and isinstance(event, SeatHandedOver | ClockRanOut) else None)
        if isinstance(event, SeatHandedOver):
            if event.mine and seats is not None:
                self.handed_over = seats.config.factions[event.seat]
            elif event.seat in self.announced:
                self.post_board()
                return  # said when it arrived
            self.announced.add(event.seat)
            self.away.pop(event.peer, None)
        text = clean_text(event, seats.state if seats is not None else None,
                          lambda seat: self.seat_label(seats, seat) if seats is not None
                          else ("", ""))
        if isinstance(event, GameOver):
            self.result = dict(event.result)
        elif isinstance(event, TranscriptWritten):
            self.transcript = str(event.path)
        elif isinstance(event, GameAborted | Stopped):
            self.abort_reason = event.text
        elif isinstance(event, RosterKnown):
            self.roster_names = list(event.names)
            if self.setup.mode not in ("host", "play"):  # the host's lobby watcher has it
                self.side.post(RosterChanged(len(self.roster_names), tuple(
                    RosterLine(name, "") for name in self.roster_names)))
        elif isinstance(event, DecisionClock):
            self._decision = event
        elif isinstance(event, SeatsDrawn) and self._opened is not None:
            # The seats are drawn (a resumed game: its log is replayed, old rounds included):
            # from now on the board is shown, not only from our first decision.
            self.views = self._opened
        elif isinstance(event, TableFilling):
            self.side.post(lobby_roster(event))  # a joiner's lobby: the table so far
        elif isinstance(event, LogLine) and self.views is None:
            self.side.post(Connecting(event.text))
        if text != "":
            self.side.post(note_of(event, text))
        self.post_board()

    async def choose(self, seats: SeatView) -> Action:
        if self.views is None:
            self.views = self._opened
        self.serial += 1
        serial = self.serial
        self.post_board(force=True)
        self.side.post(AskHuman(serial, board_view(seats), seats.legal, self.seat_names(seats)))
        while True:
            item = await self._answers.receive()
            # Answers to an older question (a double key press) are dropped, and the UI only
            # offers legal actions; the check keeps a confused UI from stalling the game.
            if (isinstance(item, HumanAnswer) and item.serial == serial
                    and item.action in seats.legal):
                return item.action

    async def read_ui(self) -> None:
        """Route what the UI sends: chat lines are said now, answers wait for ``choose``."""
        while True:
            item = await self.side.receive()
            if isinstance(item, ChatSay):
                with contextlib.suppress(ChatRefused):  # the link showed why as a note
                    await self.chat.say(item.text)
            elif isinstance(item, HandOver):
                self._leave_with_handover()
            elif isinstance(item, SetEscrow):
                self._set_escrow(item.on)
            elif isinstance(item, EscrowAnswer):
                self._escrow_answer.send_nowait(item.accept)
            else:
                self._answers_in.send_nowait(item)

    def escrow_choice(self) -> bool:
        """The host of a 3-4 player table may turn the escrow on or off in its lobby."""
        return self.setup.mode == "host" and self.setup.players >= 3

    def _set_escrow(self, on: bool) -> None:
        """Until the table is full (the game's runner reads the options then), the escrow
        the game will start with is ours to choose."""
        options = self.options
        if options is None or not self.escrow_choice() or self._opened is not None:
            self.side.post(note_of(LogLine("the game has started: the escrow can no longer "
                                           "change")))
            return
        hosted = self._hosted
        if hosted is not None and len(hosted.joined()) > 1:
            # They were welcomed with the table as it was, and agreed to that.
            self.side.post(note_of(LogLine("players have joined under the table's terms as "
                                           "they were: the escrow can no longer change")))
            return
        options.escrow = on
        self.side.post(EscrowState(on))

    def _leave_with_handover(self) -> None:
        """Hand our seat over (the runner sends it and stops at its next item)."""
        if self._hand_over is None:
            self.side.post(note_of(LogLine("the game has not started: there is no seat to "
                                           "hand over yet")))
            return
        try:
            self._hand_over()
        except LocalProtocolError as exc:
            self.side.post(note_of(LogLine(f"cannot hand over: {exc}")))
            return
        seats = self.views() if self.views is not None else None
        if seats is not None:
            self.handed_over = seats.config.factions[seats.seat]
        self.post_board(force=True)

    async def poll(self) -> None:
        while True:
            await trio.sleep(POLL_SECONDS)
            self.post_board()

    async def watch_lobby(self, lobby: HostedLobby, players: int) -> None:
        shown: tuple[RosterLine, ...] = ()
        while self.views is None:
            entries = lobby.joined()
            self.roster_names = [e.name for e in entries]
            lines = tuple(RosterLine(e.name, fingerprint(e.peer_id)) for e in entries)
            if lines != shown:
                shown = lines
                self.side.post(RosterChanged(players, lines))
            await trio.sleep(0.2)

    # -- running ----------------------------------------------------------------------------

    async def run(self) -> GameEnded:
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self.poll)
                nursery.start_soon(self.read_ui)
                session = await self._play(nursery)
                nursery.cancel_scope.cancel()
        except (P2PError, OSError, trio.TooSlowError, BaseExceptionGroup) as exc:
            return self._ended(None, failure_reason(exc))
        if session.result is not None:
            return self._ended(self.result or dict(session.result), "")
        reason = self.abort_reason or (session.aborted.reason if session.aborted else
                                       "the game stopped")
        return self._ended(None, reason)

    def _ended(self, result: dict[str, Any] | None, reason: str) -> GameEnded:
        return GameEnded(result, reason, self.transcript, self.game_id,
                         str(self.setup.options.home_dir), handed_over=self.handed_over,
                         watch_code=self.join_code)

    def _open(self, session: GameSession) -> None:
        self._opened = session.seat_view  # the UI sees our seat's view, never the session
        self._hand_over = session.hand_over

    async def _play(self, nursery: trio.Nursery) -> GameSession:
        setup = self.setup
        learn_id = None
        if setup.learn and setup.mode == "play":
            # Every peer is ours: the curated deal (``ui.app.learngame``), no clock. Its
            # folder is its own (the UI's resume hint and end screen read it from the setup).
            setup.options = dataclasses.replace(
                setup.options, home=learning_home(setup.options.home_dir),
                timing=LEARN_TIMING, fixed_secrets=LEARN_SEED)
            learn_id = learn_game_id()
        options = dataclasses.replace(setup.options, on_session=self._open, chat=self.chat)
        self.options = options
        if self.escrow_choice():
            self.side.post(EscrowState(options.escrow))
        if setup.mode == "join":
            assert setup.code is not None
            self.side.post(Connecting(f"Joining the game at {setup.code.address}:"
                                      f"{setup.code.port}. The game starts as soon as every "
                                      "player is in."))
            try:
                return await join_game(setup.code, self.choose, self.on_event, options)
            except EscrowNotAccepted:
                # Ask the player, and join again if it agrees (the host saw us leave).
                self.side.post(AskEscrow(ESCROW_TERMS[0].upper() + ESCROW_TERMS[1:] + "."))
                if not await self._escrow_answers.receive():
                    raise
                options.accept_escrow = True
                return await join_game(setup.code, self.choose, self.on_event, options)
        if setup.mode == "rematch":  # ``game``: the last game, whose table plays again
            assert setup.game is not None
            last = load_roster(options.home_dir, setup.game)
            self.game_id = rematch_game_id(setup.game)
            self.side.post(Connecting(f"rematch: same table, new game; waiting up to "
                                      f"{ACCEPT_WITHIN:g} s for the others..."))
            me = Identity.load_or_create(options.home_dir).peer_id
            if last.players[0].peer_id == me:  # we host it: its lobby shows codes and roster
                return await host_rematch(last, self.choose, self.on_event, options,
                                          ACCEPT_WITHIN, self._lobby_shower(
                                              nursery, len(last.players), options))
            return await join_rematch(last, self.choose, self.on_event, options, ACCEPT_WITHIN)
        if setup.mode == "resume":
            assert setup.game is not None
            self.side.post(Connecting(f"resuming game {setup.game}; waiting for the others..."))
            return await resume_game(setup.game, self.choose, self.on_event, options)

        show_lobby = self._lobby_shower(nursery, setup.players, options)

        def on_lobby(lobby: HostedLobby) -> None:
            show_lobby(lobby)
            if setup.mode == "play":
                nursery.start_soon(self._run_bots, lobby.code)

        return await host_game(setup.players, self.choose, self.on_event, options,
                               on_lobby, game_id=learn_id)

    def _lobby_shower(self, nursery: trio.Nursery, players: int,
                      options: PeerOptions) -> Callable[[HostedLobby], None]:
        """What a host's lobby shows: its codes (the short one with discovery), then who is
        at the table as they come."""

        def on_lobby(lobby: HostedLobby) -> None:
            self._hosted = lobby
            self.game_id = lobby.code.game_id
            short = (display(short_code(lobby.code.host_id, lobby.code.game_id))
                     if options.discovery else None)
            self.side.post(LobbyOpened(lobby.code.encode(), players, lobby.code.game_id,
                                       short))
            nursery.start_soon(self.watch_lobby, lobby, players)

        return on_lobby

    async def _run_bots(self, code: JoinCode) -> None:
        async with trio.open_nursery() as nursery:
            for index, spec in enumerate(self.setup.bots):
                nursery.start_soon(self._run_bot, index, spec, code)

    async def _run_bot(self, index: int, spec: str, code: JoinCode) -> None:
        bot = make_bot(spec)
        if isinstance(bot, ProcessBot):  # its log and stderr go to the log pane, not the screen
            bot.output = BotLines(lambda line: self.side.post(NetNote("bot", line)), echo=False)
        learn = self.setup.learn
        if learn:
            bot = TeachingBot(bot)
        if self.setup.seed is not None:
            bot = SeededBot(bot, bot_seed(self.setup.seed, index))
        elif learn:  # the curated game: the bot's own choices are fixed too
            bot = SeededBot(bot, LEARN_BOT_SEED)
        home = Path(tempfile.mkdtemp(prefix=f"solstice-bot{index + 1}-"))
        self.setup.bot_homes.append(home)
        base = self.setup.options
        # Our own bots agree to whatever table we host (its escrow included).
        options = PeerOptions(home=home, name=f"{spec.split(':')[0]}-{index + 1}",
                              bind=base.bind, net=base.net, accept_escrow=True,
                              fixed_secrets=LEARN_SEED if learn else None)
        try:
            seat = bot_chooser(bot, io.StringIO())
            await finished(seat, join_game(code, seat, lambda _event: None, options))
        except (P2PError, OSError) as exc:
            self.side.post(NetNote("rejected", f"bot {options.name} stopped: {exc}"))
        finally:
            shutil.rmtree(home, ignore_errors=True)


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


def failure_reason(exc: BaseException) -> str:
    """One line for why the network side failed: the first real error inside any trio
    exception groups, never the group's own "Exceptions from Trio nursery"."""
    leaves = _leaves(exc)
    expected = [e for e in leaves if isinstance(e, P2PError | OSError | trio.TooSlowError)]
    if len(expected) != len(leaves):
        raise exc  # a bug: keep the traceback
    first = expected[0]
    if isinstance(first, trio.TooSlowError):
        return "timed out waiting for the other players"
    if isinstance(first, OSError) and not isinstance(first, P2PError):
        return f"cannot connect: {first.strerror or first}"
    return error_words(first)


def board_view(seats: SeatView) -> dict[str, Any]:
    """Our seat's view, with who has committed this draft pick filled in."""
    board = seats.board()
    if seats.picked is not None:
        board["picked"] = list(seats.picked)
    if seats.ghost_hands:  # open-handed: every remaining player sees them
        board["ghost_hands"] = [[seat, list(labels)] for seat, labels in seats.ghost_hands]
    return with_ghost_cards(board, seats.ghost_cards)


def with_ghost_cards(board: dict[str, Any],
                     ghost_cards: tuple[tuple[int, int, str], ...]) -> dict[str, Any]:
    """``board`` with each ghost's face-down planet card named and marked as the ghost's
    (``ghost``: its seat); only a card its seat dispatched and ours does not know yet."""
    known = {slot: (seat, label) for seat, slot, label in ghost_cards}
    for planet in board["planets"]:
        for entry in planet["cards"]:
            found = known.get(entry["slot"])
            if found is not None and not entry["face_up"] and entry["label"] is None \
                    and entry["dispatcher"] == found[0]:
                entry["label"], entry["ghost"] = found[1], found[0]
    return board


# How the log pane shows each event (``NetNote.kind``; none: a plain log line).
NOTE_KINDS: dict[type, str] = {
    LogLine: "log", Rejected: "rejected", ChoiceRefused: "rejected", StoreRepaired: "rejected",
    GameAborted: "aborted", Stopped: "aborted", GameOver: "over", DeckAudit: "audit",
    TableClock: "clock", DecisionClock: "clock", ClockRanOut: "timeout", Waiting: "waiting",
    RosterKnown: "roster", SeatsDrawn: "seats", TranscriptWritten: "transcript",
    TableFilling: "log", WatchersChanged: "watchers", SeatHandedOver: "waiting",
}


def note_of(event: GameEvent, text: str | None = None) -> NetNote:
    """The log pane's note for ``event`` (plain text only: it crosses to the UI thread);
    ``text``: its words when they are not the event's own (``ui.app.notes``)."""
    game = event.game if isinstance(event, LogLine) else None  # frozen values: safe to pass
    return NetNote(NOTE_KINDS.get(type(event), "log"), event.text if text is None else text,
                   game)


async def run_network(setup: NetSetup, side: TrioSide) -> GameEnded:
    """The bridge's trio program: play the game, then tell the UI how it ended."""
    ended = await NetGame(setup, side).run()
    side.post(ended)
    return ended
