"""Our contribution to a stage: the body of the one message this peer sends for it (or,
for a decision, the question put to our player)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine import Pick, legal_actions
from p2p.crypto.commitments import Opening, commitment_of
from p2p.crypto.sealed import box_key
from p2p.errors import LocalProtocolError
from p2p.session.events import InputWanted
from p2p.session.fields import SessionFields
from p2p.session.opening import keys_body
from p2p.session.remask import own_remask
from p2p.session.secrets import local_seed, pick_opening
from p2p.session.stages import Stage


class Contributions(SessionFields):
    """Building our message for a stage from our secrets and the deck."""

    def _contribute(self, stage: Stage) -> None:
        kind = stage.kind
        if kind in ("action", "pick/commit"):
            assert self.engine is not None and self.my_seat is not None
            if self.pending_input is None:
                self.pending_input = legal_actions(self.engine, self.my_seat)
                self.input_stage = stage.index
                self.events.append(InputWanted(stage.index, kind, tuple(self.pending_input)))
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
