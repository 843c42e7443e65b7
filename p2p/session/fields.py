"""The state every part of ``GameSession`` shares, declared once with its types.

``GameSession`` is assembled from parts with one job each (``schedule``: which stage comes
next; ``contribute``: our message for a stage; ``complete``: applying a finished stage;
``lockstep``: the stage and state-hash checks; ``inbox``, ``clock``). Each part subclasses
``SessionFields`` so the type checker knows the fields it reads; ``GameSession.__init__`` sets
them, and the stubs below are the methods one part calls in another.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from engine import Action, GameConfig, GameState
from engine.relabel import Relabel
from p2p.crypto.seeds import SeedExchange
from p2p.deck.deck import Deck
from p2p.identity import Identity
from p2p.session.clock import StageClock
from p2p.session.envelope import MessageLog, SignedMessage
from p2p.session.escrow import EscrowShare
from p2p.session.events import UNFAIR, Aborted, Peer, Seat, SessionEvent
from p2p.session.ghostseat import Ghost
from p2p.session.opening import SealedKeys
from p2p.session.stages import Stage, StageSpec
from p2p.session.timing import Timing

if TYPE_CHECKING:
    from p2p.session.blame import Referee


class SessionFields:
    """The fields of ``GameSession`` (see its ``__init__`` for what each holds)."""

    STAGES: ClassVar[Mapping[str, StageSpec]]  # the stage kinds (``stage_table``)

    game_id: str
    n: int
    me: Peer | None
    identity: Identity | None
    master: bytes
    msglog: MessageLog
    queues: list[deque[SignedMessage]]
    future: list[dict[int, SignedMessage]]
    outbox: list[bytes]
    relays: list[bytes]
    events: list[SessionEvent]
    stage_index: int
    stage: Stage | None
    history: str  # the digest of every stage taken so far (``p2p.session.history``)
    own: tuple[str, ...]  # per peer, the digest of its own messages taken so far
    follow_up: Stage | None
    replaying: bool
    on_record: Callable[[SignedMessage], None] | None
    setup: SeedExchange
    box_public: dict[int, Any]
    seat_of_peer: list[Seat]  # drawn at setup: the one place peers and seats are mapped
    peer_of_seat: list[Peer]
    config: GameConfig | None
    deck: Deck | None
    card_ids: tuple[int, ...]
    engine: GameState | None
    actions: list[Action | Relabel]
    known_base: list[int]
    log_base: int
    pending_input: list[Action] | None
    input_stage: int
    away: set[int]
    pick_counter: int
    remasked_round: int
    chance_exchange: SeedExchange | None
    openings: dict[int, dict[str, Any]]
    stage_kinds: list[str]
    result: dict[str, Any] | None
    aborted: Aborted | None
    private_log: list[SealedKeys]
    timing: Timing
    clock: StageClock
    referee: Referee
    rejections: list[int]
    ghosts: dict[Peer, Ghost]
    leave_after_round: int | None
    left: bool
    is_ghost: bool
    escrow: bool  # the table escrows its secrets (the host's setup/commit says)
    escrow_wanted: bool  # we host, and want it to
    agreed_terms: Any  # what we agreed to in the lobby (p2p.net.lobby.TableTerms), or None
    escrow_boxes: dict[int, dict[int, tuple[str, bytes]]]  # author -> holder -> (box, commit)
    escrow_held: dict[int, EscrowShare]  # author -> our share of its secret
    escrow_public: dict[int, Any]  # peer -> the public key its escrow shares are sealed to
    escrow_claims: dict[Peer, Any]  # the peer we claimed -> its ``recover.EscrowClaim``
    escrow_waiting: list[SignedMessage]  # held until the seat is recovered
    recovered: set[tuple[int, int]]  # (author, seq) of the claims a recovery took
    log_ended: bool
    stage_rounds: list[int]

    @property
    def my_seat(self) -> Seat | None:  # provided by GameSession
        raise NotImplementedError

    def _send(self, kind: str, body: dict[str, Any]) -> None:  # provided by GameSession
        raise NotImplementedError

    def _abort(self, peer: Peer | None, reason: str, evidence: Any = None,
               kind: str = UNFAIR, box: bool = False, stage: int | None = None,
               final: bool = False, *, disputed: bool = False) -> None:
        raise NotImplementedError  # provided by GameSession

    def _stage(self, kind: str, peers: Sequence[int] | None = None,
               params: object = None) -> Stage:
        raise NotImplementedError  # provided by Lockstep

    def _reject(self, seat: int | None, reason: str) -> None:
        raise NotImplementedError  # provided by Inbox

    def _set_timing(self, timing: Timing) -> None:
        raise NotImplementedError  # provided by Deadlines

    def _apply(self, action: Action, seat: int | None) -> None:
        raise NotImplementedError  # provided by Completions

    @property
    def finished(self) -> bool:  # provided by GameSession
        raise NotImplementedError

    def _leaving(self) -> bool:
        raise NotImplementedError  # provided by Handovers

    def hand_over(self) -> None:
        raise NotImplementedError  # provided by Handovers

    def _new_ghost(self, peer: Peer, master: bytes) -> Any:
        raise NotImplementedError  # provided by GameSession

    def _round(self) -> int:
        raise NotImplementedError  # provided by Handovers

    def _pump(self) -> None:
        raise NotImplementedError  # provided by GameSession

    def _take_escrows(self, bodies: Sequence[tuple[int, Any]]) -> None:
        raise NotImplementedError  # provided by Recoveries

    def _escrow_stops(self, why: str) -> None:
        raise NotImplementedError  # provided by Recoveries

    def _escrow_key(self) -> Any:
        raise NotImplementedError  # provided by Recoveries

    def _handover_mismatch(self, peer: Peer, master: bytes) -> str | None:
        raise NotImplementedError  # provided by Handovers

    def _feed(self, record: Ghost) -> None:
        raise NotImplementedError  # provided by Handovers

    def absorb(self, signed: SignedMessage, direct: bool = False, quiet: bool = False) -> bool:
        raise NotImplementedError  # provided by Inbox
