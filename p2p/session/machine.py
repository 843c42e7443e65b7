"""The game session: a sans-IO machine that keeps every peer's engine in lockstep.

Frames in (``receive``), frames out (``outbox``), events out (``events``); no sockets, no clock.

The game is a sequence of *stages*. The engine state, identical on every peer, says which
peers must contribute which message next (a deck step, the keys that open cards, a pick
commitment, a dispatch...). Each required peer sends exactly one signed message per stage;
when all are in, they are applied in seat order. A peer's k-th message therefore always belongs
to the same stage on every peer, whatever order messages from different peers arrive in.

Every message is broadcast, so all peers hold the same signed log; a slot key meant for one
seat travels sealed to that seat (``p2p.crypto.sealed``). Secrets derive from one master secret and
the game id, so a restarted peer rebuilds its session by replaying its stored log.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from nacl.public import PrivateKey

from engine import (
    Action,
    GameConfig,
    GameState,
    IllegalActionError,
    MalformedActionError,
    RuleViolationError,
)
from engine.canonical import CanonicalEncodingError
from engine.errors import NotWaitingError
from engine.relabel import Relabel
from p2p.crypto.sealed import box_key
from p2p.crypto.seeds import SeedExchange
from p2p.deck.deck import Deck
from p2p.errors import DeckCorrupted, LocalProtocolError, RemoteProtocolError
from p2p.identity import Identity
from p2p.session.blame import Referee
from p2p.session.clock import Deadlines, StageClock
from p2p.session.complete import Completions
from p2p.session.contribute import Contributions
from p2p.session.envelope import MessageLog, SignedMessage
from p2p.session.escrow import EscrowShare
from p2p.session.events import (
    ABANDONED,
    STOPPED,
    UNFAIR,
    Aborted,
    GameAborted,
    LogLine,
    Peer,
    Seat,
    SessionEvent,
)
from p2p.session.ghost import GhostPlay
from p2p.session.ghostseat import Ghost
from p2p.session.handover import HANDOVER, Handovers
from p2p.session.history import GENESIS_HISTORY, next_history, next_own
from p2p.session.inbox import FRAME_MESSAGE, MAX_QUEUED, Inbox
from p2p.session.lockstep import Lockstep
from p2p.session.opening import SealedKeys
from p2p.session.recover import EscrowClaim, Recoveries
from p2p.session.schedule import Schedule
from p2p.session.seatview import SeatView
from p2p.session.stage_table import STAGE_TABLE
from p2p.session.stages import Stage, StageKind, StageSpec
from p2p.session.timing import Timing


class GameSession(Inbox, Deadlines, Schedule, Contributions, Completions, Lockstep, Handovers,
                  GhostPlay, Recoveries):
    """One peer's (or an observer's) view of a networked game.

    ``keys``: the Ed25519 public keys of the peers in lobby order (peer index = position).
    ``me``: this peer's index, or None for an observer that re-checks a transcript.
    ``ghost``: the session of a seat handed over, played by us (``p2p.session.ghost``): it
    needs no identity and signs nothing.
    """

    STAGES: ClassVar[Mapping[str, StageSpec]] = STAGE_TABLE

    def __init__(self, game_id: str, keys: Sequence[bytes], me: int | None = None,
                 identity: Identity | None = None, master: bytes | None = None,
                 timing: Timing | None = None, ghost: bool = False) -> None:
        self.game_id = game_id
        self.n = len(keys)
        if not 2 <= self.n <= 4:
            raise LocalProtocolError(f"a game has 2 to 4 peers, not {self.n}")
        if me is not None and ((identity is None and not ghost) or master is None):
            raise LocalProtocolError("a playing peer needs its identity and master secret")
        self.me = Peer(me) if me is not None else None
        self.identity = identity
        self.master = master or b""
        self.msglog = MessageLog(game_id, keys)
        self.queues: list[deque[SignedMessage]] = [deque() for _ in range(self.n)]
        self.future: list[dict[int, SignedMessage]] = [{} for _ in range(self.n)]
        # After our verdict that a peer abandoned the game: the others' messages held until
        # one of them says it saw that silence too (``Inbox.concurs``), bounded per peer.
        self.after_verdict: list[dict[int, SignedMessage]] = [{} for _ in range(self.n)]
        self.outbox: list[bytes] = []
        # Relays of others' messages wait here until our next message (they go just before
        # it, in one bundle) or until the transport's short timer releases them.
        self.relays: list[bytes] = []
        self.events: list[SessionEvent] = []
        self.stage_index = 0
        self.stage: Stage | None = None
        self.history = GENESIS_HISTORY
        self.own = (GENESIS_HISTORY,) * self.n
        self.follow_up: Stage | None = None  # a stage that must come next (a pick's reveal)
        self.replaying = False
        # Called with every message this session records, ours before it is sent: the store
        # writes them ahead, so a restarted peer replays them and never re-signs a sequence
        # number.
        self.on_record: Callable[[SignedMessage], None] | None = None
        # set up by the setup stages
        self.setup = SeedExchange(game_id, "setup", self.n)
        self.box_public: dict[int, Any] = {}
        self.seat_of_peer: list[Seat] = []
        self.peer_of_seat: list[Peer] = []
        self.config: GameConfig | None = None
        self.deck: Deck | None = None
        self.card_ids: tuple[int, ...] = ()
        self.engine: GameState | None = None
        # engine actions and relabels in the order applied (for the audit)
        self.actions: list[Action | Relabel] = []
        self.known_base: list[int] = []
        self.log_base = 0
        self.pending_input: list[Action] | None = None
        self.input_stage = 0  # the stage pending_input belongs to (a stale answer is refused)
        # Peers the driver reports disconnected: no deadline runs against them while the
        # mesh waits for them to come back (a crashed peer may restart and resume).
        self.away: set[int] = set()
        self.pick_counter = 0
        self.remasked_round = 0  # the last round whose dispatch re-mask is done
        self.chance_exchange: SeedExchange | None = None
        self.openings: dict[int, dict[str, Any]] = {}
        # The kind of every stage entered so far (stage n at n - 1): a claim about a past
        # stage is judged, and named in a verdict, by what that stage was.
        self.stage_kinds: list[str] = []
        self.stage_rounds: list[int] = []  # the engine's round when each stage began
        self.result: dict[str, Any] | None = None
        self.aborted: Aborted | None = None
        self.private_log: list[SealedKeys] = []  # every sealed box sent, for the audit
        # liveness and blame: the stage clock (fed by ``tick``), the claims of other peers'
        # aborts (re-checked, never taken at face value), rejected frames per peer
        self.timing = timing or Timing()
        self.clock = StageClock(self.timing)
        self.overdrawn_in: set[tuple[int, int]] = set()
        self.referee = Referee(self)
        self.rejections = [0] * self.n
        # Seats handed over (``p2p.session.handover``): played alike by every remaining peer.
        self.ghosts: dict[Peer, Ghost] = {}
        self.leave_after_round: int | None = None  # we hand over when this round is over
        self.left = False  # we handed our seat over
        self.is_ghost = ghost
        self.made: list[SignedMessage] = []  # a ghost's messages (unsigned)
        self.fed = [0] * self.n
        # What one peer can make us hold ahead of the game (a ghost's session is given the
        # whole log at once: what it is fed was bounded by the session that feeds it).
        self.queue_limit = MAX_QUEUED if not ghost else 1 << 30
        # The escrow (``p2p.session.escrow``, ``recover``): on if the host's setup says so.
        self.escrow = False
        self.escrow_wanted = False
        # What a joiner agreed to in the lobby (``p2p.net.lobby.TableTerms``: ``timing`` and
        # ``escrow``); the host's setup/commit must say the same. None: not checked.
        self.agreed_terms: Any = None
        self.escrow_boxes: dict[int, dict[int, tuple[str, bytes]]] = {}
        self.escrow_held: dict[int, EscrowShare] = {}
        self.escrow_public: dict[int, Any] = {}
        self.escrow_claims: dict[Peer, EscrowClaim] = {}
        self.escrow_waiting: list[SignedMessage] = []
        self.recovered: set[tuple[int, int]] = set()
        self.log_ended = False  # a verifier's file is all in: its verdicts are final

    # -- public API -------------------------------------------------------------------------

    @property
    def my_seat(self) -> Seat | None:
        if self.me is None or not self.seat_of_peer:
            return None
        return self.seat_of_peer[self.me]

    def peer_of(self, seat: int | None) -> Peer | None:
        """The peer playing ``seat``: errors of the rules and the deck name seats, verdicts
        name peers (before the seats are drawn, the setup's errors name peers already)."""
        if not isinstance(seat, int):
            return None
        if self.peer_of_seat and 0 <= seat < self.n:
            return self.peer_of_seat[seat]
        return Peer(seat)

    @property
    def finished(self) -> bool:
        return self.result is not None or self.aborted is not None or self.left

    def waiting_for(self) -> list[Peer]:
        """Peers whose message the current stage still needs."""
        if self.stage is None or self.finished:
            return []
        return self.stage.missing

    def seat_view(self) -> SeatView | None:
        """Our seat's view of the game now, with the choices wanted (None: no seat yet, or an
        observer). This, not the session, is what a player is given."""
        me, seat, stage = self.me, self.my_seat, self.stage
        if me is None or seat is None or self.engine is None or self.config is None:
            return None
        waiting: tuple[Seat, ...] = ()
        picked: tuple[bool, ...] | None = None
        if stage is not None and not self.finished:
            waiting = tuple(sorted(self.seat_of_peer[p] for p in stage.missing))
            if stage.kind == StageKind.PICK_COMMIT:
                picked = tuple(self.peer_of_seat[x] in stage.collected for x in range(self.n))
        legal = tuple(self.pending_input or ())
        deadline = self.clock.input_deadline() if legal and self.clock.running else None
        handed = tuple(sorted(self.seat_of_peer[p] for p in range(self.n) if p in self.ghosts
                              or any(m.msg.type == HANDOVER for m in self.queues[p])))
        ghost_hands, ghost_cards = self._ghost_cards()
        return SeatView.of(self.game_id, me, seat, self.config, self.engine,
                           tuple(self.peer_of_seat), self.stage_index, legal, deadline,
                           waiting, picked, handed, ghost_hands, ghost_cards)

    def _ghost_cards(self) -> tuple[tuple[tuple[Seat, tuple[str | None, ...]], ...],
                                    tuple[tuple[Seat, int, str], ...]]:
        """What every remaining peer knows of each ghost's seat, from the ghost's own view:
        its hand, and its face-down cards on the planets. Only the cards the ghost's seat
        dispatched: what its player was shown of another seat's cards stays that seat's."""
        hands, cards = [], []
        for ghost in self.ghosts.values():
            seen = ghost.session.seat_view()
            if seen is None:
                continue
            board = seen.board()
            hands.append((seen.seat, tuple(c["label"] for c in board["hand"])))
            cards += [(seen.seat, c["slot"], c["label"]) for planet in board["planets"]
                      for c in planet["cards"] if not c["face_up"] and c["label"]
                      and c["dispatcher"] == seen.seat]
        return tuple(sorted(hands)), tuple(sorted(cards))

    def start(self) -> None:
        """Begin the game (after the mesh is up)."""
        self._pump()

    def submit(self, action: Action, stage: int | None = None) -> None:
        """This peer's choice for the input it was asked for (see ``pending_input``);
        ``stage``: the ``input_stage`` it was asked in (an answer to an older question is
        refused, so it is never played in a later stage)."""
        if self.pending_input is None or self.stage is None:
            raise LocalProtocolError("no input is wanted now")
        if stage is not None and stage != self.input_stage:
            raise LocalProtocolError(f"the choice was asked for stage {stage}, which is over")
        if action not in self.pending_input:
            raise LocalProtocolError(f"{action.text()} is not a legal choice now")
        answer = self.stage.spec.answer
        assert answer is not None  # only a decision asks for input
        self.pending_input = None
        self._send(self.stage.kind, answer(self, self.stage, action).to_json())
        self._pump()

    def end_of_log(self) -> None:
        """No more messages will come (a transcript's end): settle every pending abort."""
        if not self.finished and self._recover():
            self._pump()
        if not self.finished and self.escrow_claims:
            self._escrow_stops("the file ends before every other peer published its share")
        self.log_ended = True
        if not self.finished:
            self.referee.settle(final=True)

    def transcript_messages(self) -> list[dict[str, Any]]:
        return [m.to_json() for m in self.msglog.messages]

    # -- plumbing -------------------------------------------------------------------------

    def _send(self, kind: str, body: dict[str, Any]) -> None:
        if self.is_ghost:
            self._ghost_send(kind, body)
            return
        if self.me is None or self.identity is None:
            raise LocalProtocolError("an observer sends nothing")
        body = {"stage": self.stage_index, **body}
        if self.stage is not None and self.stage.state is not None:
            body["state"] = self.stage.state
        if self.stage is not None and self.stage.history is not None:
            body["history"] = self.stage.history
        if self.stage is not None and self.stage.own is not None:
            body["own"] = self.stage.own[self.me]
        signed = self.msglog.create(self.identity, self.me, kind, body)
        self._record(signed)
        self.release_relays()  # what we build on goes out before what we built
        self.outbox.append(FRAME_MESSAGE + signed.encode())
        self.queues[self.me].append(signed)

    def _abort(self, peer: Peer | None, reason: str, evidence: Any = None,
               kind: str = UNFAIR, box: bool = False, stage: int | None = None,
               final: bool = False, *, disputed: bool = False) -> None:
        """Stop the game: ``peer`` proven at fault by ``evidence`` (UNFAIR), or observed
        silent (ABANDONED); tell the others, who re-check it (``p2p.session.blame``).
        ``box``: add our box secret key, so the others can open what was sealed to us.
        ``stage``: the stage the verdict is about (default: the current one). At a table
        with escrow an abandonment is a claim with our share (``recover``), and while it
        waits nothing else is judged; ``final``: the verdict that ends that wait (our claim
        was sent already). ``disputed``: we sign that a claim of our own silence does not
        check, but name nobody ourselves (``blame``: only the others can judge it)."""
        if self.finished or (self.escrow_claims and not final):
            return
        if peer is None and kind == UNFAIR:
            kind = STOPPED
        stage = self.stage_index if stage is None else stage
        if not final and kind == ABANDONED and self._escrow_claim(peer, reason, evidence,
                                                                  stage):
            return  # (a dispute too: at a table with escrow it is a claim with our share)
        judged, verdict = (None, STOPPED) if disputed else (peer, kind)
        self.aborted = Aborted(judged, reason, verdict, stage)
        seat = self.seat_of_peer[judged] if judged is not None and self.seat_of_peer else None
        self.events.append(GameAborted(judged, reason, verdict, stage, evidence, seat))
        if self.me is not None and not self.replaying and not final:
            body: dict[str, Any] = {"kind": kind, "blame": peer, "reason": reason[:500],
                                    "evidence": evidence}
            if box:
                body["box"] = bytes(self._sealed_to_us(stage)).hex()
            if kind == ABANDONED and evidence is None and not self.referee.auditing:
                # A claim of silence names the stage missed, which is ours now unless we agree
                # with a claim about one we passed (a bank overdrawn before a late message).
                body["stage"] = stage
            try:
                self._send("abort", body)
            except (LocalProtocolError, CanonicalEncodingError):
                self._send("abort", {**body, "evidence": None})

    def _sealed_to_us(self, stage: int) -> PrivateKey:
        """The secret key of what was sealed to us in stage ``stage``, opened in our abort
        (the game is void): in ``setup/reveal`` the escrow shares, sealed to our escrow key;
        from then on slot keys, sealed to our box key."""
        escrow = self._escrow_key() if self.escrow else None
        if escrow is not None and 0 < stage <= len(self.stage_kinds) \
                and self.stage_kinds[stage - 1] == StageKind.SETUP_REVEAL:
            return escrow
        return box_key(self.master, self.game_id)

    # -- the stage loop -------------------------------------------------------------------

    def _pump(self) -> None:
        while not self.finished:
            if self._recover():
                continue
            if self.referee.settle():
                if self._recover():  # (the referee has read the claims now)
                    continue
                return
            if self.stage is None:
                self.stage = self._next_stage()
                if self.stage is None:
                    return
                self.stage_index += 1
                self.stage.index = self.stage_index
                self.stage.history, self.stage.own = self.history, self.own
                self.stage_kinds.append(self.stage.kind)
                self.stage_rounds.append(self._round())
                self._entered(self.stage)
                if self._recover():
                    continue
                if self.referee.settle():
                    if self._recover():
                        continue
                    return
            stage = self.stage
            if (self.me is not None and self.me in stage.peers and self.me not in stage.collected
                    and not self.queues[self.me] and not self.replaying):
                self._contribute(stage)
            progressed = False
            for peer in sorted(stage.missing):
                signed = self._message_for(stage, peer)
                if signed is None:
                    if self.finished:
                        return
                    continue
                stage.collected[peer] = signed
                self.answered(peer, stage)
                progressed = True
                if peer == self.me and self.input_stage == stage.index:
                    # Our message for it came from the log or a peer (after a restart):
                    # the question is answered already.
                    self.pending_input = None
            if not stage.missing:
                self.stage = None
                self.history = next_history(self.history, stage.index, stage.collected)
                self.own = next_own(self.own, stage.index, stage.collected)
                try:
                    self._complete(stage)
                except (RemoteProtocolError, RuleViolationError, IllegalActionError,
                        NotWaitingError, MalformedActionError) as exc:
                    if isinstance(exc, DeckCorrupted) and exc.seat is None:
                        self.referee.open_deck(str(exc), exc.evidence)
                        return
                    blamed = self.peer_of(getattr(exc, "seat", None))
                    self._abort(blamed, str(exc), evidence=self._evidence(stage, blamed),
                                box=stage.spec.sealed)
                    return
                self._flush_engine_log()
                continue
            if not progressed:
                self.referee.settle()
                if self._recover():
                    continue
                return

    def _new_ghost(self, peer: Peer, master: bytes) -> GameSession:
        """The session of ``peer``'s seat, handed over with ``master``: of our own class, so
        a session that extends the stage table plays its ghosts with it."""
        return type(self)(self.game_id, self.msglog.keys, peer, None, master, ghost=True)

    def _message_for(self, stage: Stage, peer: Peer) -> SignedMessage | None:
        """``peer``'s message for ``stage``: the next in its queue, checked, or its ghost's
        (None: none yet, or the game stopped on it)."""
        if peer not in self.ghosts:
            queue = self.queues[peer]
            if not queue or queue[0].msg.type == "abort" or self._escrow_waits(peer):
                return None  # (an abort: the referee decides what it proves)
            signed = queue.popleft()
            if signed.msg.type != HANDOVER:
                return signed if self._check_stage_message(stage, peer, signed) else None
            if not self._take_handover(peer, signed, stage):
                return None
        return self._ghost_move(peer, stage)

    def _flush_engine_log(self) -> None:
        if self.engine is None:
            return
        for event in self.engine.events[self.log_base:]:
            self.events.append(LogLine(event.text, event))
        self.log_base = len(self.engine.events)
