"""What comes next: the stage the engine state, the deck and the setup call for, and the
peers who contribute to it (see protocol.md, "Stages")."""

from __future__ import annotations

from engine import to_move
from engine.draft import waiting_pickers
from engine.state import Phase
from p2p.crypto.seeds import SeedExchange
from p2p.errors import LocalProtocolError
from p2p.session.fields import SessionFields
from p2p.session.opening import keys_due, slots_to_open
from p2p.session.remask import dispatch_remask_due, pick_remaskers
from p2p.session.stages import PickRound, Seats, Stage, StageKind, ToAct


class Schedule(SessionFields):
    """``_next_stage``: the one place that decides which stage the game is in."""

    def _next_stage(self) -> Stage | None:
        if self.follow_up is not None:
            stage, self.follow_up = self.follow_up, None
            return stage
        if not self.seat_of_peer:
            if not self.setup.all_committed:
                return self._stage(StageKind.SETUP_COMMIT)
            return self._stage(StageKind.SETUP_REVEAL)
        deck = self.deck
        assert deck is not None
        if self.engine is None:
            turn = deck.turn
            if turn is not None and turn.step == "commit":
                return self._stage(StageKind.DECK_COMMIT)
            if turn is not None:
                assert turn.seat is not None
                return self._stage(StageKind.DECK_STEP, [self.peer_of_seat[turn.seat]])
            return None  # unreachable: the engine is created when the deck is ready
        s = self.engine
        opens, self.known_base = slots_to_open(s, self.known_base)
        if opens is not None:
            # Only the seats with keys due contribute: a re-masked slot needs its holder alone.
            senders = [self.peer_of_seat[seat] for seat in range(self.n)
                       if any(keys_due(deck, seat, opens))]
            return self._stage(StageKind.KEYS, senders, opens)
        if s.phase is Phase.OVER:
            if self.result is None and len(self.openings) < self.n:
                return self._stage(StageKind.AUDIT)
            return None
        if s.chance is not None:
            kind = s.chance[0]
            if kind == "leftovers":
                if self.chance_exchange is None:
                    self.chance_exchange = SeedExchange(self.game_id,
                                                        f"leftovers/{s.round}", self.n)
                if not self.chance_exchange.all_committed:
                    return self._stage(StageKind.CHANCE_COMMIT)
                return self._stage(StageKind.CHANCE_REVEAL)
            turn = deck.turn
            if turn is None:
                deck.begin_batch(s.discard)  # hidden or not, as they are (ruling 23)
                turn = deck.turn
            assert turn is not None and turn.seat is not None
            return self._stage(StageKind.DECK_STEP, [self.peer_of_seat[turn.seat]])
        if s.awaiting:
            raise LocalProtocolError(f"engine waits for slots {s.awaiting} nobody opened")
        remaskers = dispatch_remask_due(s, self.remasked_round)
        if remaskers:
            return self._stage(StageKind.REMASK, [self.peer_of_seat[x] for x in remaskers],
                               Seats(tuple(remaskers)))
        pickers = waiting_pickers(s)
        if pickers:
            self.pick_counter += 1
            return self._stage(StageKind.PICK_COMMIT, [self.peer_of_seat[x] for x in pickers],
                               PickRound(tuple(pickers), self.pick_counter,
                                         tuple(pick_remaskers(s, deck, pickers))))
        movers = to_move(s)
        if movers:
            return self._stage(StageKind.ACTION, [self.peer_of_seat[movers[0]]], ToAct(movers[0]))
        return None
