"""Every stage kind in one table: who contributes, the body, what our contribution is, what
completing it does, whether its messages carry the state hash, and which game clock (so which
deadline) it runs on. The scheduler (``schedule``) decides which stage comes next; everything
else a stage kind needs is read from here. protocol.md's "Stage kinds" table says the same
(``tests/test_stage_table.py`` checks that it does).

A new kind is one entry here, its handlers, and the situation in ``_next_stage`` that calls
for it.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

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
from p2p.session.complete import Completions as Done
from p2p.session.contribute import Contributions as Give
from p2p.session.stages import EVERYONE, StageKind, StageSpec
from p2p.session.timing import DECISION

K = StageKind

STAGE_TABLE: Mapping[str, StageSpec] = MappingProxyType({spec.kind: spec for spec in (
    StageSpec(K.SETUP_COMMIT, EVERYONE, SetupCommitBody, Done._done_setup_commit,
              Give._give_setup_commit),
    StageSpec(K.SETUP_REVEAL, EVERYONE, SetupRevealBody, Done._done_setup_reveal,
              Give._give_setup_reveal, sealed=True),
    StageSpec(K.DECK_COMMIT, EVERYONE, DeckBody, Done._done_deck_commit,
              Give._give_deck_commit),
    StageSpec(K.DECK_STEP, "the seat whose turn it is", DeckBody, Done._done_deck_step,
              Give._give_deck_step),
    StageSpec(K.KEYS, "the seats with keys due", KeysBody, Done._done_keys, Give._give_keys,
              stateful=True, sealed=True),
    StageSpec(K.AUDIT, EVERYONE, AuditBody, Done._done_audit, Give._give_audit),
    StageSpec(K.CHANCE_COMMIT, EVERYONE, SeedBody, Done._done_chance_commit,
              Give._give_chance_commit),
    StageSpec(K.CHANCE_REVEAL, EVERYONE, SeedBody, Done._done_chance_reveal,
              Give._give_chance_reveal),
    StageSpec(K.REMASK, "every seat with cards", DeckBody, Done._done_remask,
              Give._give_remask),
    StageSpec(K.PICK_COMMIT, "the seats that pick this pick round", PickCommitBody,
              Done._done_pick_commit, answer=Give._answer_pick_commit, stateful=True,
              clock=DECISION),
    StageSpec(K.PICK_REVEAL, "the seats of its pick/commit", PickRevealBody, Done._done_pick_reveal,
              Give._give_pick_reveal),
    StageSpec(K.ACTION, "the seat to act", ActionBody, Done._done_action,
              answer=Give._answer_action, stateful=True, clock=DECISION),
)})

# The kinds that wait for a player's decision (and run on its decision clock).
DECISIONS = frozenset(kind for kind, spec in STAGE_TABLE.items() if spec.clock == DECISION)
