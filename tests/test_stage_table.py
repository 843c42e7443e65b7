"""The stage table: every stage kind declared once (``p2p.session.stage_table``), the same as
protocol.md's "Stage kinds" table, and a new kind added by one entry plus its handlers."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

import pytest

from p2p.errors import LocalProtocolError, RemoteProtocolError
from p2p.session.loopback import LoopbackGame
from p2p.session.machine import GameSession
from p2p.session.stage_table import DECISIONS, STAGE_TABLE
from p2p.session.stages import EVERYONE, Stage, StageKind, StageSpec
from p2p.session.timing import DECISION, STEP
from tests.test_net_session import assert_stopped, decode, finished_ok, frame, resign, run

PROTOCOL = Path(__file__).resolve().parent.parent / "protocol.md"


def _documented_kinds() -> dict[str, list[str]]:
    """protocol.md's "Stage kinds" table: kind -> its cells."""
    text = PROTOCOL.read_text(encoding="utf-8")
    start = text.index("| stage kind | who contributes | body | `state` | deadline |")
    rows: dict[str, list[str]] = {}
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip("|").split(" | ")]
        rows[cells[0].strip("`")] = cells[1:]
    return rows


def test_every_stage_kind_is_declared_once_with_its_wire_type() -> None:
    assert set(STAGE_TABLE) == {kind.value for kind in StageKind}
    for kind, spec in STAGE_TABLE.items():
        assert spec.kind == kind and type(spec.kind) is str  # encodes canonically


def test_protocol_md_describes_the_stage_table() -> None:
    """Kind by kind: who contributes, the body's fields (each written "`name`: ..." at the
    start of an item), whether the state hash is carried, and the deadline."""
    documented = _documented_kinds()
    assert set(documented) == set(STAGE_TABLE)
    for kind, spec in STAGE_TABLE.items():
        who, body, state, deadline = documented[kind]
        assert who == spec.contributors, kind
        fields = re.findall(r"(?:^|; )`(\w+)`:", body)
        assert fields == [f.name for f in dataclasses.fields(spec.body)], kind
        assert state == ("yes" if spec.stateful else "no"), kind
        assert deadline == spec.clock, kind


def test_the_decisions_are_the_kinds_a_player_answers() -> None:
    assert {"action", "pick/commit"} == DECISIONS
    for spec in STAGE_TABLE.values():
        assert (spec.answer is not None) == (spec.clock == DECISION) == (spec.kind in DECISIONS)


def test_a_kind_is_either_contributed_or_answered() -> None:
    def done(session: Any, stage: Stage, bodies: Sequence[tuple[int, Any]]) -> None:
        pass

    with pytest.raises(ValueError, match="exactly one"):
        StageSpec("toy", EVERYONE, ToyBody, done)
    with pytest.raises(ValueError, match="a decision is answered"):
        StageSpec("toy", EVERYONE, ToyBody, done, contribute=ToySession.give, clock=DECISION)


def test_the_schedule_names_peers_exactly_for_kinds_not_everyone_contributes_to() -> None:
    game = LoopbackGame(2)
    session = game.sessions[0]
    with pytest.raises(LocalProtocolError, match="is for all peers"):
        session._stage(StageKind.SETUP_COMMIT, [0])
    with pytest.raises(LocalProtocolError, match="is for the seat to act"):
        session._stage(StageKind.ACTION)


# -- a toy kind -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ToyBody:
    """A toy stage's body: one word from every peer."""

    word: str

    @classmethod
    def parse(cls, author: int, raw: Mapping[str, Any]) -> Self:
        word = raw.get("word")
        if not isinstance(word, str) or not word.isalpha():
            raise RemoteProtocolError(author, "a toy word must be letters")
        return cls(word)

    def to_json(self) -> dict[str, Any]:
        return {"word": self.word}


class ToySession(GameSession):
    """A session with one more stage kind, ``toy/hello``, once, right after the seats are
    drawn: the table entry, its two handlers and the situation that calls for it."""

    heard: tuple[str, ...] | None = None

    def give(self, stage: Stage) -> ToyBody:
        return ToyBody(f"hello{'abcd'[self.me or 0]}")

    def done(self, stage: Stage, bodies: Sequence[tuple[int, ToyBody]]) -> None:
        self.heard = tuple(body.word for _, body in bodies)

    def _next_stage(self) -> Stage | None:
        if self.seat_of_peer and self.heard is None and self.stage_index == 2:
            return self._stage("toy/hello")
        return super()._next_stage()


TOY = StageSpec("toy/hello", EVERYONE, ToyBody, ToySession.done, ToySession.give)
ToySession.STAGES = {**STAGE_TABLE, TOY.kind: TOY}


def test_a_new_stage_kind_is_one_table_entry_plus_its_handlers() -> None:
    """Every peer contributes to the toy stage, the bodies are parsed and applied in seat
    order at every peer, and the game goes on to its end (its stage numbers one higher)."""
    game = LoopbackGame(3, session=ToySession)
    for session in game.sessions:
        session.start()
    run(game)
    finished_ok(game)
    for session in game.sessions:
        assert isinstance(session, ToySession)
        expected = tuple(f"hello{'abcd'[peer]}" for peer in session.peer_of_seat)
        assert session.heard == expected
        toys = [m for m in session.msglog.messages if m.msg.type == "toy/hello"]
        assert sorted(m.msg.seat for m in toys) == [0, 1, 2]
        assert {m.msg.body["stage"] for m in toys} == {3}
        assert "state" not in toys[0].msg.body  # not stateful: no state hash


def test_a_toy_body_of_the_wrong_shape_blames_its_author() -> None:
    """The toy's checks are its body's ``parse``: nothing else is written for them."""
    game = LoopbackGame(3, session=ToySession)
    cheater = 2

    def tamper(who: int, data: bytes) -> bytes | None:
        signed = decode(data)
        if who == cheater and signed.msg.type == "toy/hello":
            return frame(resign(game, signed, body={**signed.msg.body, "word": "h3llo"}))
        return data

    for session in game.sessions:
        session.start()
    run(game, tamper=tamper)
    assert_stopped(game, cheater, "a toy word must be letters")


def test_a_toy_step_runs_on_the_step_clock() -> None:
    assert TOY.clock == STEP and not TOY.stateful and TOY.kind not in DECISIONS
