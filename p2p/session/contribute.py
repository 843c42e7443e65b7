"""Our contribution to a stage: the body of the one message this peer sends for it, or, for
a decision, the question put to our player and then its answer as a body. One ``_give_<kind>``
(or ``_answer_<kind>``) per stage kind, named in the stage table (``stage_table``)."""

from __future__ import annotations

from typing import Any

from engine import Action, Pick, legal_actions, unasked_answer
from p2p.crypto.commitments import Opening, commitment_of
from p2p.crypto.sealed import box_key
from p2p.errors import LocalProtocolError
from p2p.session.bodies import (
    ActionBody,
    AuditBody,
    DeckBody,
    KeysBody,
    PickCommitBody,
    PickRevealBody,
    SeedBody,
    SetupCommitBody,
    SetupRevealBody,
)
from p2p.session.escrow import escrow_body
from p2p.session.events import InputWanted
from p2p.session.fields import SessionFields
from p2p.session.opening import Opens, keys_body
from p2p.session.remask import own_remask
from p2p.session.secrets import local_seed, pick_opening
from p2p.session.stages import PickReveal, PickRound, Seats, Stage


class Contributions(SessionFields):
    """Building our message for a stage from our secrets and the deck."""

    def _contribute(self, stage: Stage) -> None:
        if self._leaving():
            self.hand_over()
            return
        spec = stage.spec
        if spec.contribute is None:  # a decision: ask our player (``submit`` answers)
            assert self.engine is not None and self.my_seat is not None
            forced = unasked_answer(self.engine)
            if forced is not None and forced.seat == self.my_seat and spec.answer is not None:
                # one legal option: not asked (ruling 41), answered as a contribution is
                self._send(spec.kind, spec.answer(self, stage, forced).to_json())
                return
            if self.pending_input is None:
                self.pending_input = legal_actions(self.engine, self.my_seat)
                self.input_stage = stage.index
                self.events.append(InputWanted(stage.index, spec.kind,
                                               tuple(self.pending_input)))
            return
        self._send(spec.kind, spec.contribute(self, stage).to_json())

    # -- steps ----------------------------------------------------------------------------

    def _give_setup_commit(self, stage: Stage) -> SetupCommitBody:
        # (whether the table escrows is the host's word, in this same stage: everyone
        # announces its escrow box key)
        key = self._escrow_key()
        escrow_box = key.public_key if key is not None else None
        body = SetupCommitBody(self._seed("setup", self.me)[0],
                               box_key(self.master, self.game_id).public_key,
                               escrow_box=escrow_box)
        if self.me == 0:  # the host sets the table's clock, and whether it escrows
            return SetupCommitBody(body.seed, body.box, self.timing.to_json(),
                                   self.escrow_wanted and self.n >= 3, escrow_box)
        return body

    def _give_setup_reveal(self, stage: Stage) -> SetupRevealBody:
        seed = self._seed("setup", self.me)[1]
        if not self.escrow:
            return SetupRevealBody(seed)
        boxes = {p: key for p, key in self.escrow_public.items() if p != self.me}
        assert self.me is not None
        return SetupRevealBody(seed, escrow_body(self.master, self.game_id, self.me, boxes))

    def _give_chance_commit(self, stage: Stage) -> SeedBody:
        return SeedBody(self._chance_seed()[0])

    def _give_chance_reveal(self, stage: Stage) -> SeedBody:
        return SeedBody(self._chance_seed()[1])

    def _give_deck_commit(self, stage: Stage) -> DeckBody:
        assert self.deck is not None
        return DeckBody(self.deck.commit_message())

    def _give_deck_step(self, stage: Stage) -> DeckBody:
        assert self.deck is not None and self.deck.turn is not None
        produce = {"blind": self.deck.blind, "shuffle": self.deck.shuffle,
                   "rekey": self.deck.rekey}[self.deck.turn.step]
        return DeckBody(produce())

    def _give_keys(self, stage: Stage) -> KeysBody:
        assert self.deck is not None and self.my_seat is not None
        return keys_body(self.deck, self.my_seat, stage.param(Opens),
                         lambda seat: self.box_public[self.peer_of_seat[seat]])

    def _give_remask(self, stage: Stage) -> DeckBody:
        assert self.deck is not None and self.engine is not None
        assert self.my_seat is not None
        return DeckBody(own_remask(self.deck, self.engine, self.my_seat,
                                   stage.param(Seats).seats)[0])

    def _give_pick_reveal(self, stage: Stage) -> PickRevealBody:
        opening = self._pick_opening_from_commit(stage)
        return PickRevealBody(tuple(opening.value["slots"]), opening.salt)

    def _give_audit(self, stage: Stage) -> AuditBody:
        assert self.deck is not None
        return AuditBody(self.deck.opening_message(),
                         bytes(box_key(self.master, self.game_id)).hex())

    # -- decisions ------------------------------------------------------------------------

    def _answer_action(self, stage: Stage, action: Action) -> ActionBody:
        return ActionBody(action)

    def _answer_pick_commit(self, stage: Stage, action: Action) -> PickCommitBody:
        assert isinstance(action, Pick) and self.deck is not None
        assert self.engine is not None and self.my_seat is not None
        pick = stage.param(PickRound)
        remask = None
        slots = action.slots
        if self.my_seat in pick.seats:
            # We re-mask our hand with the commitment, and pick among the fresh slots.
            remask, fresh = own_remask(self.deck, self.engine, self.my_seat, pick.seats)
            # (in hand order, which for fresh slots is slot order, as legal picks list it)
            slots = tuple(sorted(fresh[slot] for slot in slots))
        opening = pick_opening(self.master, self.game_id, self.my_seat, slots, pick.pick)
        return PickCommitBody(commitment_of(opening), remask)

    # -- our secrets ----------------------------------------------------------------------

    def _seed(self, label: str, seat: int | None) -> tuple[dict[str, Any], dict[str, Any]]:
        assert seat is not None
        return local_seed(self.master, self.game_id, label, seat)

    def _chance_seed(self) -> tuple[dict[str, Any], dict[str, Any]]:
        assert self.chance_exchange is not None and self.my_seat is not None
        return self._seed(self.chance_exchange.label, self.my_seat)

    def _pick_opening_from_commit(self, stage: Stage) -> Opening:
        """Recover our own pick opening from our commitment (after a restart the choice
        itself is found by trying every legal pick against the commitment)."""
        assert self.engine is not None and self.my_seat is not None and self.me is not None
        reveal = stage.param(PickReveal)
        commitment = reveal.commitments[self.me]
        for action in legal_actions(self.engine, self.my_seat):
            assert isinstance(action, Pick)
            opening = pick_opening(self.master, self.game_id, self.my_seat, action.slots,
                                   reveal.pick)
            if commitment_of(opening) == commitment:
                return opening
        raise LocalProtocolError("cannot find our own pick behind our commitment")

