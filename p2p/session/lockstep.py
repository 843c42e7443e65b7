"""Lockstep checks: every stage message names its stage, and the stateful ones carry the
public state hash their author computed, which must be ours (the engines are in step)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.serialize import public_hash
from p2p.errors import LocalProtocolError
from p2p.session.envelope import SignedMessage
from p2p.session.events import Peer
from p2p.session.fields import SessionFields
from p2p.session.history import is_digest
from p2p.session.stages import EVERYONE, Stage


class Lockstep(SessionFields):
    """Building a stage (with the state hash it expects) and checking a message against it."""

    def _stage(self, kind: str, peers: Sequence[int] | None = None,
               params: object = None) -> Stage:
        """A stage of ``kind`` (from the session's stage table) for ``peers`` (default:
        every peer), with what the schedule decided for it."""
        spec = self.STAGES[kind]
        if (peers is None) != (spec.contributors == EVERYONE):
            raise LocalProtocolError(f"stage {kind} is for {spec.contributors}, not {peers}")
        chosen = frozenset(map(Peer, range(self.n) if peers is None else peers))
        state = public_hash(self.engine) if self.engine is not None and spec.stateful else None
        return Stage(spec, chosen, 0, params=params, state=state)

    def _evidence(self, stage: Stage, peer: Peer | None) -> Any:
        if peer is not None and peer in stage.collected:
            return [stage.collected[peer].to_json()]
        return None

    def _check_stage_message(self, stage: Stage, peer: Peer, signed: SignedMessage) -> bool:
        msg = signed.msg
        if msg.type != stage.kind or msg.body.get("stage") != stage.index:
            self._abort(peer, f"sent {msg.type!r} for stage {msg.body.get('stage')} while "
                              f"stage {stage.index} expects {stage.kind!r}", [signed.to_json()])
            return False
        malformed = [key for key, ours in (("own", stage.own), ("history", stage.history))
                     if ours is not None and not is_digest(msg.body.get(key))]
        if malformed:
            self._abort(peer, f"its {malformed[0]!r} is not a digest (64 lowercase hex digits)",
                        [signed.to_json()])
            return False
        if stage.own is not None and msg.body.get("own") != stage.own[peer]:
            # Signed over other messages of its own than those we took from it: only it can
            # sign those, so it signed two pasts of its own (a twin sent elsewhere).
            self._abort(peer, "its own earlier messages differ from those it signed over: "
                              "it signed two different messages with one of its seqs",
                        [signed.to_json()])
            return False
        if stage.history is not None and msg.body.get("history") != stage.history:
            if self.me is None:
                # An observer (a transcript's verifier) holds other messages than the author
                # signed over: the file is not that game's history, whoever is in it. The
                # message stays first in its queue: nothing after it can be taken either.
                self._reject(peer, f"its {msg.type!r} for stage {stage.index} was signed over "
                                   "other messages than the file holds")
                self.queues[peer].appendleft(signed)
            else:
                self._abort(peer, "history differs from ours: signed over other messages "
                                  "than we hold", [signed.to_json()])
            return False
        expected = stage.state
        if expected is not None and msg.body.get("state") != expected:
            self._abort(peer, "state hash differs from ours: the engines are out of step",
                        [signed.to_json()])
            return False
        return True
