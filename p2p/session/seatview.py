"""What a player (a human in the UI, a bot, a test's chooser) is given instead of the session:
its seat, the game as that seat may know it, the choices it has now, and its clock.

The board is the engine's own seat view (``engine.view.view``, the dict bots and the UI
already read); the state is the engine's redaction for the seat (``engine.view.redact``), so
nothing a seat may not know is reachable from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine import Action, GameConfig, GameState
from engine.view import redact, view
from p2p.session.events import Peer, Seat


@dataclass(frozen=True)
class SeatView:
    """One seat's view of a networked game at one moment.

    ``stage``: the session's stage number now; ``legal``: the choices wanted in it (empty when
    none is); ``deadline``: when our clock runs out for them, on the driver's clock (None: no
    clock running yet, or nothing asked). ``waiting``: the seats whose message the stage
    still needs; ``picked``: in a draft pick, which seats have committed theirs (None in
    other stages); ``peer_of_seat``: who plays each seat (public once the seats are drawn);
    ``handed_over``: the seats whose player handed over (its handover received, taken or
    not yet: the UI says so when it arrives, not only when the game reaches it);
    ``ghost_hands``: (seat, its hand's card labels) of each seat a ghost plays, open-handed
    (every remaining peer knows them); ``ghost_cards``: (seat, slot, label) of each card a
    ghost's seat dispatched face down that is still face down on a planet (its player saw
    it, so every remaining peer, who plays that seat from its published master, knows it)."""

    game_id: str
    peer: Peer
    seat: Seat
    config: GameConfig
    state: GameState
    peer_of_seat: tuple[Peer, ...]
    stage: int
    legal: tuple[Action, ...] = ()
    deadline: float | None = None
    waiting: tuple[Seat, ...] = ()
    picked: tuple[bool, ...] | None = None
    handed_over: tuple[Seat, ...] = ()
    ghost_hands: tuple[tuple[Seat, tuple[str | None, ...]], ...] = ()
    ghost_cards: tuple[tuple[Seat, int, str], ...] = ()

    @classmethod
    def of(cls, game_id: str, peer: Peer, seat: Seat, config: GameConfig, engine: GameState,
           peer_of_seat: tuple[Peer, ...], stage: int, legal: tuple[Action, ...] = (),
           deadline: float | None = None, waiting: tuple[Seat, ...] = (),
           picked: tuple[bool, ...] | None = None,
           handed_over: tuple[Seat, ...] = (),
           ghost_hands: tuple[tuple[Seat, tuple[str | None, ...]], ...] = (),
           ghost_cards: tuple[tuple[Seat, int, str], ...] = ()) -> SeatView:
        """The view of ``seat`` over the session's ``engine`` (a redacted copy is kept)."""
        return cls(game_id, peer, seat, config, redact(engine, seat), peer_of_seat, stage,
                   legal, deadline, waiting, picked, handed_over, ghost_hands, ghost_cards)

    def board(self) -> dict[str, Any]:
        """Everything the seat may know, as plain data (``engine.view.view``)."""
        return view(self.state, self.seat)

    def to_json(self) -> dict[str, Any]:
        """Plain data (for a bot over a pipe, a log, a test)."""
        return {"game": self.game_id, "peer": self.peer, "seat": self.seat,
                "stage": self.stage, "deadline": self.deadline, "view": self.board(),
                "legal": [action.text() for action in self.legal],
                "waiting": list(self.waiting), "picked": self.picked,
                "peer_of_seat": list(self.peer_of_seat)}
