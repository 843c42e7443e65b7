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
from collections.abc import Callable, Sequence
from typing import Any

from engine import (
    Action,
    GameConfig,
    GameState,
    IllegalActionError,
    MalformedActionError,
    Pick,
    RuleViolationError,
    Shuffle,
    action_from_dict,
    action_to_dict,
    apply_in_place,
    legal_actions,
    new_game,
    random_config,
    reveal_in_place,
    to_move,
)
from engine.canonical import CanonicalEncodingError
from engine.draft import waiting_pickers
from engine.errors import NotWaitingError
from engine.relabel import Relabel
from engine.serialize import public_hash
from engine.state import Phase
from p2p.crypto.commitments import Opening, check_opening, commitment_of
from p2p.crypto.sealed import box_key, parse_public_key
from p2p.crypto.seeds import SeedExchange
from p2p.deck.deck import Deck
from p2p.errors import DeckCorrupted, LocalProtocolError, RemoteProtocolError
from p2p.identity import Identity
from p2p.session.blame import Referee
from p2p.session.bodies import deck_data, field_of
from p2p.session.clock import Deadlines, StageClock
from p2p.session.envelope import MessageLog, SignedMessage
from p2p.session.events import ABANDONED, STOPPED, UNFAIR, Aborted, Event
from p2p.session.inbox import FRAME_MESSAGE, Inbox
from p2p.session.opening import SealedKeys, keys_body, keys_due, slots_to_open, take_keys
from p2p.session.remask import apply_remasks, dispatch_remask_due, own_remask, pick_remaskers
from p2p.session.secrets import PICK_DOMAIN, deck_keys, local_seed, pick_opening, pick_value
from p2p.session.stages import STATEFUL, Stage
from p2p.session.timing import Timing, parse_clock


class GameSession(Inbox, Deadlines):
    """One peer's (or an observer's) view of a networked game.

    ``keys``: the Ed25519 public keys of the peers in lobby order (peer index = position).
    ``me``: this peer's index, or None for an observer that re-checks a transcript.
    """

    def __init__(self, game_id: str, keys: Sequence[bytes], me: int | None = None,
                 identity: Identity | None = None, master: bytes | None = None,
                 timing: Timing | None = None) -> None:
        self.game_id = game_id
        self.n = len(keys)
        if not 2 <= self.n <= 4:
            raise LocalProtocolError(f"a game has 2 to 4 peers, not {self.n}")
        if me is not None and (identity is None or master is None):
            raise LocalProtocolError("a playing peer needs its identity and master secret")
        self.me = me
        self.identity = identity
        self.master = master or b""
        self.msglog = MessageLog(game_id, keys)
        self.queues: list[deque[SignedMessage]] = [deque() for _ in range(self.n)]
        self.future: list[dict[int, SignedMessage]] = [{} for _ in range(self.n)]
        self.outbox: list[bytes] = []
        self.events: list[Event] = []
        self.stage_index = 0
        self.stage: Stage | None = None
        self.follow_up: Stage | None = None  # a stage that must come next (a pick's reveal)
        self.replaying = False
        # Called with every message this session records, ours before it is sent: the store
        # writes them ahead, so a restarted peer replays them and never re-signs a sequence
        # number.
        self.on_record: Callable[[SignedMessage], None] | None = None
        # set up by the setup stages
        self.setup = SeedExchange(game_id, "setup", self.n)
        self.box_public: dict[int, Any] = {}
        self.seat_of_peer: list[int] = []
        self.peer_of_seat: list[int] = []
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
        self.result: dict[str, Any] | None = None
        self.aborted: Aborted | None = None
        self.private_log: list[SealedKeys] = []  # every sealed box sent, for the audit
        # liveness and blame: the stage clock (fed by ``tick``), the claims of other peers'
        # aborts (re-checked, never taken at face value), rejected frames per peer
        self.timing = timing or Timing()
        self.clock = StageClock(self.timing)
        self.referee = Referee(self)
        self.rejections = [0] * self.n

    # -- public API -------------------------------------------------------------------------

    @property
    def my_seat(self) -> int | None:
        if self.me is None or not self.seat_of_peer:
            return None
        return self.seat_of_peer[self.me]

    @property
    def finished(self) -> bool:
        return self.result is not None or self.aborted is not None

    def waiting_for(self) -> list[int]:
        """Peers whose message the current stage still needs."""
        if self.stage is None or self.finished:
            return []
        return self.stage.missing

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
        assert self.engine is not None and self.my_seat is not None
        self.pending_input = None
        if self.stage.kind == "pick/commit":
            assert isinstance(action, Pick) and self.deck is not None
            assert self.engine is not None and self.my_seat is not None
            body: dict[str, Any] = {}
            slots = action.slots
            if self.my_seat in self.stage.info["seats"]:
                # We re-mask our hand with the commitment, and pick among the fresh slots.
                body["remask"], fresh = own_remask(self.deck, self.engine, self.my_seat,
                                                   self.stage.info["seats"])
                # (in hand order, which for fresh slots is slot order, as legal picks list it)
                slots = tuple(sorted(fresh[slot] for slot in slots))
            body["commitment"] = commitment_of(self._pick_opening(slots)).hex()
            self._send("pick/commit", body)
        else:
            self._send("action", {"action": action_to_dict(action)})
        self._pump()

    def end_of_log(self) -> None:
        """No more messages will come (a transcript's end): settle every pending abort."""
        if not self.finished:
            self.referee.settle(final=True)

    def transcript_messages(self) -> list[dict[str, Any]]:
        return [m.to_json() for m in self.msglog.messages]

    # -- plumbing -------------------------------------------------------------------------

    def _send(self, kind: str, body: dict[str, Any]) -> None:
        if self.me is None or self.identity is None:
            raise LocalProtocolError("an observer sends nothing")
        body = {**body, "stage": self.stage_index}
        if self.stage is not None and "state" in self.stage.info:
            body["state"] = self.stage.info["state"]
        if kind == "setup/commit" and self.me == 0:
            body["clock"] = self.timing.to_json()  # the host sets the table's clock
        signed = self.msglog.create(self.identity, self.me, kind, body)
        self._record(signed)
        self.outbox.append(FRAME_MESSAGE + signed.encode())
        self.queues[self.me].append(signed)

    def _abort(self, seat: int | None, reason: str, evidence: Any = None,
               kind: str = UNFAIR, box: bool = False, stage: int | None = None) -> None:
        """Stop the game: ``seat`` proven at fault by ``evidence`` (UNFAIR), or observed
        silent (ABANDONED); tell the others, who re-check it (``p2p.session.blame``).
        ``box``: add our box secret key, so the others can open what was sealed to us.
        ``stage``: the stage the verdict is about (default: the current one)."""
        if self.finished:
            return
        if seat is None and kind == UNFAIR:
            kind = STOPPED
        stage = self.stage_index if stage is None else stage
        self.aborted = Aborted(seat, reason, kind, stage)
        who = f"seat {seat}" if seat is not None else "nobody in particular"
        label = {UNFAIR: "blame", ABANDONED: "abandoned by"}.get(kind, "blame")
        self.events.append(Event("aborted", f"game stopped: {reason} ({label}: {who})",
                                 {"seat": seat, "reason": reason, "evidence": evidence,
                                  "kind": kind, "stage": stage}))
        if self.me is not None and not self.replaying:
            body: dict[str, Any] = {"kind": kind, "blame": seat, "reason": reason[:500],
                                    "evidence": evidence}
            if box:
                body["box"] = bytes(box_key(self.master, self.game_id)).hex()
            try:
                self._send("abort", body)
            except (LocalProtocolError, CanonicalEncodingError):
                self._send("abort", {**body, "evidence": None})

    # -- the stage loop -------------------------------------------------------------------

    def _pump(self) -> None:
        while not self.finished:
            if self.referee.settle():
                return
            if self.stage is None:
                self.stage = self._next_stage()
                if self.stage is None:
                    return
                self.stage_index += 1
                self.stage.index = self.stage_index
                self._entered(self.stage)
                if self.referee.settle():
                    return
            stage = self.stage
            if (self.me is not None and self.me in stage.peers and self.me not in stage.collected
                    and not self.queues[self.me] and not self.replaying):
                self._contribute(stage)
            progressed = False
            for peer in sorted(stage.missing):
                if self.queues[peer]:
                    if self.queues[peer][0].msg.type == "abort":
                        continue  # it stopped: the referee decides what its abort proves
                    signed = self.queues[peer].popleft()
                    if not self._check_stage_message(stage, peer, signed):
                        return
                    stage.collected[peer] = signed
                    progressed = True
                    if peer == self.me and self.input_stage == stage.index:
                        # Our message for it came from the log or a peer (after a restart):
                        # the question is answered already.
                        self.pending_input = None
            if not stage.missing:
                self.stage = None
                try:
                    self._complete(stage)
                except (RemoteProtocolError, RuleViolationError, IllegalActionError,
                        NotWaitingError, MalformedActionError) as exc:
                    if isinstance(exc, DeckCorrupted) and exc.seat is None:
                        self.referee.open_deck(str(exc), exc.evidence)
                        return
                    seat = getattr(exc, "seat", None)
                    blamed: int | None = self.peer_of_seat[seat] if isinstance(seat, int) and \
                        self.peer_of_seat and seat < self.n else seat
                    self._abort(blamed, str(exc), evidence=self._evidence(stage, blamed),
                                box=stage.kind == "keys")
                    return
                if stage.kind == "setup/commit":
                    host = stage.collected[0].msg.body.get("clock")
                    try:
                        self._set_timing(parse_clock(0, host, self.timing))
                    except RemoteProtocolError as exc:
                        self._abort(0, str(exc), evidence=self._evidence(stage, 0))
                        return
                self._flush_engine_log()
                continue
            if not progressed:
                self.referee.settle()
                return

    def _evidence(self, stage: Stage, peer: int | None) -> Any:
        if peer is not None and peer in stage.collected:
            return [stage.collected[peer].to_json()]
        return None

    def _check_stage_message(self, stage: Stage, peer: int, signed: SignedMessage) -> bool:
        msg = signed.msg
        if msg.type != stage.kind or msg.body.get("stage") != stage.index:
            self._abort(peer, f"sent {msg.type!r} for stage {msg.body.get('stage')} while "
                              f"stage {stage.index} expects {stage.kind!r}", [signed.to_json()])
            return False
        expected = stage.info.get("state")
        if expected is not None and msg.body.get("state") != expected:
            self._abort(peer, "state hash differs from ours: the engines are out of step",
                        [signed.to_json()])
            return False
        return True

    def _flush_engine_log(self) -> None:
        if self.engine is None:
            return
        for line in self.engine.log[self.log_base:]:
            self.events.append(Event("log", line))
        self.log_base = len(self.engine.log)

    def _stage(self, kind: str, peers: Sequence[int] | None = None, **info: Any) -> Stage:
        chosen = frozenset(range(self.n)) if peers is None else frozenset(peers)
        if self.engine is not None and kind in STATEFUL:
            info.setdefault("state", public_hash(self.engine))
        return Stage(kind, chosen, 0, info=info)

    # -- what comes next --------------------------------------------------------------------

    def _next_stage(self) -> Stage | None:
        if self.follow_up is not None:
            stage, self.follow_up = self.follow_up, None
            return stage
        if not self.seat_of_peer:
            if not self.setup.all_committed:
                return self._stage("setup/commit")
            return self._stage("setup/reveal")
        deck = self.deck
        assert deck is not None
        if self.engine is None:
            turn = deck.turn
            if turn is not None and turn.step == "commit":
                return self._stage("deck/commit")
            if turn is not None:
                assert turn.seat is not None
                return self._stage("deck/step", [self.peer_of_seat[turn.seat]])
            return None  # unreachable: the engine is created when the deck is ready
        s = self.engine
        opens, self.known_base = slots_to_open(s, self.known_base)
        if opens is not None:
            # Only the seats with keys due contribute: a re-masked slot needs its holder alone.
            senders = [self.peer_of_seat[seat] for seat in range(self.n)
                       if any(keys_due(deck, seat, opens))]
            return self._stage("keys", senders, opens=opens)
        if s.phase is Phase.OVER:
            if self.result is None and len(self.openings) < self.n:
                return self._stage("audit")
            return None
        if s.chance is not None:
            kind = s.chance[0]
            if kind == "leftovers":
                if self.chance_exchange is None:
                    self.chance_exchange = SeedExchange(self.game_id,
                                                        f"leftovers/{s.round}", self.n)
                if not self.chance_exchange.all_committed:
                    return self._stage("chance/commit")
                return self._stage("chance/reveal")
            turn = deck.turn
            if turn is None:
                deck.begin_batch(s.discard)  # hidden or not, as they are (ruling 23)
                turn = deck.turn
            assert turn is not None and turn.seat is not None
            return self._stage("deck/step", [self.peer_of_seat[turn.seat]])
        if s.awaiting:
            raise LocalProtocolError(f"engine waits for slots {s.awaiting} nobody opened")
        remaskers = dispatch_remask_due(s, self.remasked_round)
        if remaskers:
            return self._stage("remask", [self.peer_of_seat[x] for x in remaskers],
                               seats=remaskers)
        pickers = waiting_pickers(s)
        if pickers:
            self.pick_counter += 1
            return self._stage("pick/commit", [self.peer_of_seat[x] for x in pickers],
                               pickers=pickers, pick=self.pick_counter,
                               seats=pick_remaskers(s, deck, pickers))
        movers = to_move(s)
        if movers:
            return self._stage("action", [self.peer_of_seat[movers[0]]], seat=movers[0])
        return None

    # -- contributions ---------------------------------------------------------------------

    def _contribute(self, stage: Stage) -> None:
        kind = stage.kind
        if kind in ("action", "pick/commit"):
            assert self.engine is not None and self.my_seat is not None
            if self.pending_input is None:
                self.pending_input = legal_actions(self.engine, self.my_seat)
                self.input_stage = stage.index
                self.events.append(Event("input", kind, self.pending_input))
            return
        body: dict[str, Any]
        if kind == "setup/commit":
            seed = self._local_seed("setup", self.me)
            body = {"seed": seed[0], "box": bytes(box_key(self.master, self.game_id)
                                                  .public_key).hex()}
        elif kind == "setup/reveal":
            body = {"seed": self._local_seed("setup", self.me)[1]}
        elif kind in ("chance/commit", "chance/reveal"):
            assert self.chance_exchange is not None and self.my_seat is not None
            seed = self._local_seed(self.chance_exchange.label, self.my_seat)
            body = {"seed": seed[0] if kind == "chance/commit" else seed[1]}
        elif kind == "deck/commit":
            assert self.deck is not None
            body = {"deck": self.deck.commit_message()}
        elif kind == "deck/step":
            assert self.deck is not None and self.deck.turn is not None
            produce = {"blind": self.deck.blind, "shuffle": self.deck.shuffle,
                       "rekey": self.deck.rekey}[self.deck.turn.step]
            body = {"deck": produce()}
        elif kind == "keys":
            assert self.deck is not None and self.my_seat is not None
            body = keys_body(self.deck, self.my_seat, stage.info["opens"],
                             lambda seat: self.box_public[self.peer_of_seat[seat]])
        elif kind == "remask":
            assert self.deck is not None and self.engine is not None
            assert self.my_seat is not None
            body = {"deck": own_remask(self.deck, self.engine, self.my_seat,
                                       stage.info["seats"])[0]}
        elif kind == "pick/reveal":
            opening = self._pick_opening_from_commit(stage)
            body = {"slots": list(opening.value["slots"]), "salt": opening.salt.hex()}
        elif kind == "audit":
            assert self.deck is not None
            body = {"deck": self.deck.opening_message(),
                    "box": bytes(box_key(self.master, self.game_id)).hex()}
        else:
            raise LocalProtocolError(f"nothing to contribute to {kind}")
        self._send(kind, body)

    def _local_seed(self, label: str, seat: int | None) -> tuple[dict[str, Any], dict[str, Any]]:
        assert seat is not None
        return local_seed(self.master, self.game_id, label, seat)

    def _pick_opening(self, slots: Sequence[int]) -> Opening:
        assert self.stage is not None and self.my_seat is not None
        return pick_opening(self.master, self.game_id, self.my_seat, slots,
                            self.stage.info["pick"])

    def _pick_opening_from_commit(self, stage: Stage) -> Opening:
        """Recover our own pick opening from our commitment (after a restart the choice
        itself is found by trying every legal pick against the commitment)."""
        assert self.engine is not None and self.my_seat is not None and self.me is not None
        commitment = stage.info["commitments"][self.me]
        for action in legal_actions(self.engine, self.my_seat):
            assert isinstance(action, Pick)
            opening = pick_opening(self.master, self.game_id, self.my_seat, action.slots,
                                   stage.info["pick"])
            if commitment_of(opening) == commitment:
                return opening
        raise LocalProtocolError("cannot find our own pick behind our commitment")

    # -- completing a stage ----------------------------------------------------------------

    def _seat_order(self, stage: Stage) -> list[tuple[int, SignedMessage]]:
        """Collected messages as (seat, message) in seat order (peer order before seats)."""
        if not self.seat_of_peer:
            return sorted(stage.collected.items())
        return sorted(((self.seat_of_peer[p], m) for p, m in stage.collected.items()),
                      key=lambda x: x[0])

    def _complete(self, stage: Stage) -> None:
        handler = getattr(self, "_done_" + stage.kind.replace("/", "_"))
        handler(stage)

    def _done_setup_commit(self, stage: Stage) -> None:
        for peer, signed in sorted(stage.collected.items()):
            body = signed.msg.body
            self.setup.receive(peer, field_of(peer, body, "seed", dict))
            self.box_public[peer] = parse_public_key(peer, body.get("box"))

    def _done_setup_reveal(self, stage: Stage) -> None:
        for peer, signed in sorted(stage.collected.items()):
            self.setup.receive(peer, field_of(peer, signed.msg.body, "seed", dict))
        stream = self.setup.stream()
        order = stream.permutation(self.n)
        self.seat_of_peer = order
        self.peer_of_seat = [order.index(seat) for seat in range(self.n)]
        self.config = random_config(self.n, stream)
        self.card_ids = self.config.card_ids()
        keys = None
        if self.me is not None:
            keys = deck_keys(self.master, self.game_id)
        self.deck = Deck(self.game_id, self.n, len(self.card_ids), self.my_seat, keys)
        if keys is not None:
            self.deck.commit_message()  # a restarted peer replays instead of contributing
        self.events.append(Event("log", f"Planets: {', '.join(self.config.planets)}; events: "
                                        f"{', '.join(self.config.events)}"))

    def _done_deck_commit(self, stage: Stage) -> None:
        assert self.deck is not None
        for seat, signed in self._seat_order(stage):
            self.deck.receive(seat, deck_data(seat, field_of(seat, signed.msg.body, "deck", dict)))

    def _done_deck_step(self, stage: Stage) -> None:
        deck = self.deck
        assert deck is not None and self.config is not None
        for seat, signed in self._seat_order(stage):
            deck.receive(seat, deck_data(seat, field_of(seat, signed.msg.body, "deck", dict)))
        if deck.turn is not None:
            return
        if self.engine is None:
            self.engine = new_game(self.config, None)
            self.events.append(Event("log", "Deck shuffled by every peer; dealing"))
        else:
            self._apply(Shuffle(None), None)

    def _done_keys(self, stage: Stage) -> None:
        assert self.deck is not None and self.engine is not None
        my_box = box_key(self.master, self.game_id) if self.me is not None else None
        seen = take_keys(self.deck, stage.info["opens"], self._seat_order(stage), self.my_seat,
                         my_box, self.private_log)
        reveal_in_place(self.engine, {slot: self.card_ids[card] for slot, card in seen.items()})

    def _done_remask(self, stage: Stage) -> None:
        assert self.deck is not None and self.engine is not None
        self.actions += apply_remasks(self.deck, self.engine, self.my_seat,
                                      self._seat_order(stage))
        self.known_base = self.engine.known[:]  # fresh slots are known to their holder only
        self.remasked_round = self.engine.round

    def _done_chance_commit(self, stage: Stage) -> None:
        assert self.chance_exchange is not None
        for seat, signed in self._seat_order(stage):
            self.chance_exchange.receive(seat, field_of(seat, signed.msg.body, "seed", dict))

    def _done_chance_reveal(self, stage: Stage) -> None:
        exchange = self.chance_exchange
        assert exchange is not None and self.engine is not None and self.engine.chance
        for seat, signed in self._seat_order(stage):
            exchange.receive(seat, field_of(seat, signed.msg.body, "seed", dict))
        _, k = self.engine.chance
        self.chance_exchange = None
        self._apply(Shuffle(tuple(exchange.stream().permutation(k))), None)

    def _done_pick_commit(self, stage: Stage) -> None:
        commitments = {}
        for peer, signed in stage.collected.items():
            seat = self.seat_of_peer[peer]  # errors name seats; _pump maps them back to peers
            text = signed.msg.body.get("commitment")
            if not isinstance(text, str) or len(text) != 64:
                raise RemoteProtocolError(seat, "pick commitment must be 32 bytes of hex")
            try:
                commitments[peer] = bytes.fromhex(text)
            except ValueError:
                raise RemoteProtocolError(seat, "pick commitment is not hex") from None
        assert self.deck is not None and self.engine is not None
        remaskers = []
        for seat, signed in self._seat_order(stage):
            if seat in stage.info["seats"]:
                remaskers.append((seat, signed))
            elif "remask" in signed.msg.body:
                raise RemoteProtocolError(seat, "re-masked a hand nobody else could link")
        self.actions += apply_remasks(self.deck, self.engine, self.my_seat, remaskers, "remask")
        self.known_base = self.engine.known[:]
        # The reveal stage follows at once for the same pickers.
        self.follow_up = self._stage("pick/reveal", list(stage.peers), commitments=commitments,
                                     pick=stage.info["pick"], pickers=stage.info["pickers"])

    def _done_pick_reveal(self, stage: Stage) -> None:
        assert self.engine is not None
        picks = []
        for seat, signed in self._seat_order(stage):
            peer = self.peer_of_seat[seat]
            body = signed.msg.body
            slots = field_of(seat, body, "slots", list)
            salt_text = field_of(seat, body, "salt", str)
            try:
                salt = bytes.fromhex(salt_text)
            except ValueError:
                raise RemoteProtocolError(seat, "pick salt is not hex") from None
            value = pick_value(self.game_id, seat, slots, stage.info["pick"])
            opening = Opening(PICK_DOMAIN, value, salt)
            check_opening(seat, stage.info["commitments"][peer], opening, PICK_DOMAIN)
            if not all(isinstance(x, int) and not isinstance(x, bool) for x in slots):
                raise RemoteProtocolError(seat, "pick slots must be integers")
            picks.append(Pick(seat, tuple(slots)))
        for pick in picks:
            self._apply(pick, pick.seat)

    def _done_action(self, stage: Stage) -> None:
        seat = stage.info["seat"]
        (signed,) = stage.collected.values()
        try:
            action = action_from_dict(signed.msg.body.get("action"))
        except MalformedActionError as exc:
            raise RemoteProtocolError(seat, f"malformed action: {exc}") from None
        if action.seat != seat:
            raise RemoteProtocolError(seat, f"acted for seat {action.seat}")
        self._apply(action, seat)

    def _done_audit(self, stage: Stage) -> None:
        from p2p.session.audit import audit_game

        for seat, signed in self._seat_order(stage):
            deck_data(seat, field_of(seat, signed.msg.body, "deck", dict))
            self.openings[seat] = dict(signed.msg.body)
        self.result = audit_game(self)
        self.events.append(Event("over", self.result["summary"], self.result))

    def _apply(self, action: Action, seat: int | None) -> None:
        """Apply an engine action; an illegal one is blamed on the seat that sent it."""
        assert self.engine is not None
        try:
            apply_in_place(self.engine, action)
        except IllegalActionError as exc:
            raise RemoteProtocolError(seat, f"illegal action {action.text()}: {exc}") from None
        self.actions.append(action)


