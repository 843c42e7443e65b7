"""A dishonest peer at a real table: three peers over loopback TLS (127.0.0.1), bots playing.

The host (peer 0) and one joiner run this code unmodified; the other joiner is the adversary,
made dishonest by patching its own session or mesh only (matched by its identity key). Each
test ends with the honest peers naming the adversary, in their verdict, their transcript and
``solstice verify``'s exit status, and with no honest process crashing or hanging.
"""

from __future__ import annotations

import dataclasses
import io
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import trio
from test_net_tcp import Peer as TcpPeer

from bots.netseat import bot_chooser
from bots.registry import make_bot
from engine import Dispatch
from engine.actions import action_to_dict
from p2p.identity import Identity
from p2p.net.games import PeerOptions, host_game, join_game
from p2p.net.mesh import Mesh
from p2p.net.transport import NetConfig
from p2p.session.bundle import FRAME_BUNDLE, bundle, unbundle
from p2p.session.envelope import SignedMessage, sign_message
from p2p.session.events import ABANDONED, UNFAIR, ClockRanOut, GameAborted, TableClock
from p2p.session.events import Peer as SessionPeer
from p2p.session.machine import FRAME_MESSAGE, GameSession
from p2p.session.seatview import SeatView
from p2p.session.timing import Timing
from p2p.storage.transcript import verify_transcript

pytestmark = pytest.mark.slow

LOOPBACK = "127.0.0.1"
CFG = NetConfig(handshake_timeout=5.0, first_read_timeout=5.0, grace_period=10.0,
                backoff_initial=0.02, backoff_max=0.2, lobby_timeout=30.0)
# A step's deadline plus grace of 10 s: honest steps at load 20 on 2 cores took over the 3 s
# these games once had (a clean make test beside busy loops named an honest peer at the audit).
FAST = Timing(decision=5, step=8, grace=2.0)
SOLSTICE = Path(sys.executable).parent / "solstice"
ADVERSARY = 2  # the home directory number of the dishonest joiner


class Peer(TcpPeer):
    """A peer of ``test_net_tcp`` that knows its home and identity key before the game."""

    def __init__(self, home: Path) -> None:
        super().__init__(int(home.name.removeprefix("peer")))
        self.home = home
        self.key = Identity.load_or_create(home).public_bytes


Chooser = Callable[[SeatView], Awaitable[Any]]


def is_adversary(table: list[Peer], identity: Any) -> bool:
    return identity is not None and identity.public_bytes == table[ADVERSARY].key


async def play_table(root: Path, adversary_chooser: Chooser | None = None,
                     limit: float = 90, opened: list[GameSession] | None = None) -> list[Peer]:
    """Host + 2 joiners; returns once both honest peers finished (the adversary may hang).
    ``opened``: gets the adversary's own session (a player is given only its seat's view)."""
    table = [Peer(root / f"peer{i}") for i in range(3)]
    code: dict[str, Any] = {}
    ready = trio.Event()
    honest_done = [trio.Event() for _ in table]

    def options(i: int) -> PeerOptions:
        # (linger: an honest peer answers an adversary that never says it is done for 5 s,
        # not the default minute)
        return PeerOptions(home=table[i].home, name=f"bot{i}", bind=LOOPBACK, port=0, net=CFG,
                           timing=FAST, linger=5.0, on_session=opened.append
                           if i == ADVERSARY and opened is not None else None)

    def chooser(i: int) -> Any:
        if i == ADVERSARY and adversary_chooser is not None:
            return adversary_chooser
        return bot_chooser(make_bot("random"), out=io.StringIO())

    def on_lobby(lobby: Any) -> None:
        code["code"] = lobby.code
        ready.set()

    async def run(i: int) -> None:
        if i == 0:
            table[i].session = await host_game(3, chooser(i), table[i], options(i), on_lobby)
        else:
            await ready.wait()
            table[i].session = await join_game(code["code"], chooser(i), table[i], options(i))
        honest_done[i].set()

    with trio.fail_after(limit):
        async with trio.open_nursery() as nursery:
            for i in range(3):
                nursery.start_soon(run, i)
            for i in range(3):
                if i != ADVERSARY:
                    await honest_done[i].wait()
            with trio.move_on_after(5):  # let the adversary end too, if it does
                await honest_done[ADVERSARY].wait()
            nursery.cancel_scope.cancel()
    return table


def assert_adversary_named(table: list[Peer], kind: str, text: str = "") -> int:
    """Both honest peers stopped naming the adversary; so do their transcripts and
    ``solstice verify`` (exit 1 for a proven cheat, 3 for abandonment)."""
    honest = [p for i, p in enumerate(table) if i != ADVERSARY]
    adversary = None
    for peer in honest:
        session = peer.session
        assert session is not None and session.aborted is not None, "did not stop"
        if adversary is None:
            adversary = next(i for i, k in enumerate(session.msglog.keys)
                             if k == table[ADVERSARY].key)
        assert (session.aborted.peer, session.aborted.kind) == (adversary, kind), \
            session.aborted.reason
        assert text in session.aborted.reason, session.aborted.reason
        verdict = verify_transcript(peer.transcript)
        assert verdict.blame == adversary, verdict.summary
        status = subprocess.run([str(SOLSTICE), "verify", str(peer.transcript)],
                                capture_output=True, text=True, timeout=60)
        assert status.returncode == (1 if kind == UNFAIR else 3), status.stderr
        assert "Traceback" not in status.stderr
    assert adversary is not None
    return adversary


# -- 1. a forged abort --------------------------------------------------------------------------


async def test_forged_abort_over_tls_names_its_sender(tmp_path: Path) -> None:
    """At its third decision the adversary stops the game with a signed abort naming the
    host, for an invented reason."""
    decisions = [0]
    opened: list[GameSession] = []

    async def liar(view: SeatView) -> Any:
        decisions[0] += 1
        if decisions[0] < 3:
            return view.legal[0]
        opened[0]._abort(SessionPeer(0), "the host marked the cards")
        await trio.sleep_forever()

    table = await play_table(tmp_path, liar, opened=opened)
    assert_adversary_named(table, ABANDONED, "its accusation does not check")
    for peer in table[:2]:
        assert not any(isinstance(e, GameAborted) and e.peer == 0 for e in peer.events)


# -- 2. equivocation ----------------------------------------------------------------------------


async def test_equivocation_over_tls_is_proven_against_the_cheater(tmp_path: Path,
                                                                   monkeypatch) -> None:
    """The adversary signs two different legal dispatches with one seq, and sends one to
    each honest peer (the rest of its traffic unchanged)."""
    table_ref: list[list[Peer]] = []
    legal_now: dict[str, Any] = {}
    done: list[bool] = []
    honest_send = Mesh.send

    def twin_of(mesh: Mesh, index: int, frame: bytes) -> bytes:
        signed = SignedMessage.decode(frame[1:])
        action = signed.msg.body.get("action")
        others = sorted(i for i in range(3) if i != mesh.my_index)
        if (signed.msg.seat == mesh.my_index and signed.msg.type == "action"
                and action.get("type") == "dispatch" and index == others[1]):
            twins = [a for a in legal_now.get("legal", []) if isinstance(a, Dispatch)
                     and action_to_dict(a) != action]
            if twins and not done:
                done.append(True)
                body = {**signed.msg.body, "action": action_to_dict(twins[0])}
                twin = sign_message(mesh.identity, dataclasses.replace(signed.msg, body=body))
                return FRAME_MESSAGE + twin.encode()
        return frame

    async def send(self: Mesh, index: int, payload: bytes) -> None:
        if is_adversary(table_ref[0], self.identity) and not done:
            if payload[:1] == FRAME_MESSAGE:
                payload = twin_of(self, index, payload)
            elif payload[:1] == FRAME_BUNDLE:  # its own message travels with its relays
                (payload,) = bundle([twin_of(self, index, f) for f in unbundle(payload)])
        await honest_send(self, index, payload)

    async def chooser(view: SeatView) -> Any:
        legal_now["legal"] = list(view.legal)
        return view.legal[0]

    monkeypatch.setattr(Mesh, "send", send)
    root = tmp_path
    table_ref.append([Peer(root / f"peer{i}") for i in range(3)])
    table = await play_table(root, chooser)
    assert done
    assert_adversary_named(table, UNFAIR)  # both honest peers name the adversary, never each other
    for peer in table[:2]:
        assert peer.session is not None and peer.session.aborted is not None
        reason = peer.session.aborted.reason
        # Caught by the two signed copies, or, when the adversary's own next message (built on
        # the copy this peer did not get) arrives before the relay of that copy, by the
        # adversary's state hash: the same author either way (protocol.md, the relay).
        # (or its own-history digest, when its next message comes before the twin's relay)
    assert "equivocation" in reason or "state hash" in reason \
        or "signed two different messages" in reason, reason


async def test_messages_withheld_from_one_peer_reach_it_by_the_relay(tmp_path: Path,
                                                                      monkeypatch) -> None:
    """The adversary never sends its first messages to one honest peer (alone or in a
    bundle): the other honest peer's relays (with its next message, or alone after
    ``RELAY_WAIT``) bring them, and the game ends normally for all three."""
    table_ref: list[list[Peer]] = []
    withheld: list[int] = []
    honest_send = Mesh.send

    def keep(mesh: Mesh, index: int, frame: bytes) -> bool:
        own = SignedMessage.decode(frame[1:]).msg.seat == mesh.my_index
        starved = sorted(i for i in range(3) if i != mesh.my_index)[1]
        if own and index == starved and len(withheld) < 6:
            withheld.append(index)
            return False
        return True

    async def send(self: Mesh, index: int, payload: bytes) -> None:
        if is_adversary(table_ref[0], self.identity):
            if payload[:1] == FRAME_MESSAGE and not keep(self, index, payload):
                return
            if payload[:1] == FRAME_BUNDLE:
                kept = [f for f in unbundle(payload) if keep(self, index, f)]
                if not kept:
                    return
                (payload,) = bundle(kept)
        await honest_send(self, index, payload)

    monkeypatch.setattr(Mesh, "send", send)
    table_ref.append([Peer(tmp_path / f"peer{i}") for i in range(3)])
    table = await play_table(tmp_path, None)
    assert len(withheld) == 6
    for peer in table:
        assert peer.session is not None and peer.session.result is not None, \
            peer.session.aborted if peer.session is not None else "no session"
        assert verify_transcript(peer.transcript).ok


# -- 3. silence -------------------------------------------------------------------------------


@pytest.mark.soak  # make test's time (issue 40: under 10 minutes): in make soak
async def test_silence_at_the_audit_over_tls_is_abandonment(tmp_path: Path,
                                                            monkeypatch) -> None:
    """The adversary stays connected (keepalives flow) but never sends its audit message."""
    table_ref: list[list[Peer]] = []
    honest_contribute = GameSession._contribute

    def contribute(self: GameSession, stage: Any) -> None:
        if stage.kind == "audit" and is_adversary(table_ref[0], self.identity):
            return
        honest_contribute(self, stage)

    monkeypatch.setattr(GameSession, "_contribute", contribute)
    table_ref.append([Peer(tmp_path / f"peer{i}") for i in range(3)])
    table = await play_table(tmp_path)
    assert_adversary_named(table, ABANDONED, "(audit)")
    for peer in table[:2]:
        assert peer.session is not None and peer.session.aborted is not None
        stopped = next(e for e in peer.events if isinstance(e, GameAborted))
        assert stopped.kind == ABANDONED


# -- 5. crashes -------------------------------------------------------------------------------


async def test_a_bad_sync_request_and_a_zero_box_key_crash_nobody(tmp_path: Path,
                                                                   monkeypatch) -> None:
    """The adversary announces a box key of 32 zero bytes and sends the resync request
    ``{"have":["x","x","x"]}``: both honest peers stop naming it (the key is a low-order point,
    proven by its signed setup message), and neither crashes."""
    table_ref: list[list[Peer]] = []
    honest_send = GameSession._send

    def send(self: GameSession, kind: str, body: dict[str, Any]) -> None:
        if is_adversary(table_ref[0], self.identity) and kind == "setup/commit":
            self.outbox.append(b'S{"have":["x","x","x"]}')
            body = {**body, "box": "00" * 32}
        honest_send(self, kind, body)

    monkeypatch.setattr(GameSession, "_send", send)
    table_ref.append([Peer(tmp_path / f"peer{i}") for i in range(3)])
    table = await play_table(tmp_path)
    assert_adversary_named(table, UNFAIR, "low-order point")


async def test_a_bad_sync_request_alone_does_not_stop_the_game(tmp_path: Path,
                                                                monkeypatch) -> None:
    table_ref: list[list[Peer]] = []
    honest_send = GameSession._send

    def send(self: GameSession, kind: str, body: dict[str, Any]) -> None:
        if is_adversary(table_ref[0], self.identity) and kind in ("setup/commit", "keys"):
            self.outbox.append(b'S{"have":["x","x","x"]}')
            self.outbox.append(b'S{"have":[-1,0,1e400]}')
        honest_send(self, kind, body)

    monkeypatch.setattr(GameSession, "_send", send)
    table_ref.append([Peer(tmp_path / f"peer{i}") for i in range(3)])
    table = await play_table(tmp_path)
    for peer in table:
        assert peer.session is not None and peer.session.result is not None
        assert verify_transcript(peer.transcript).ok


async def test_a_player_who_does_not_answer_gets_a_default_move_over_tls(
        tmp_path: Path) -> None:
    """Its first decision is never answered: after the table's 5 s its own client plays a legal
    default, says so, withdraws the question, and the game goes on to a fair end."""
    asked = [0]

    async def absent_once(view: SeatView) -> Any:
        asked[0] += 1
        if asked[0] == 1:
            await trio.sleep_forever()  # cancelled by the runner when the default is played
        return view.legal[0]

    table = await play_table(tmp_path, absent_once)
    for peer in table:
        assert peer.session is not None and peer.session.result is not None, \
            peer.session.aborted.reason if peer.session and peer.session.aborted else None
        assert verify_transcript(peer.transcript).ok
    timeouts = [e for e in table[ADVERSARY].events if isinstance(e, ClockRanOut)]
    assert len(timeouts) == 1 and "played by default" in timeouts[0].text
    clocks = [e for e in table[0].events if isinstance(e, TableClock)]
    assert clocks and (clocks[0].decision, clocks[0].step) == (FAST.decision, FAST.step)
