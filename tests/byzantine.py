"""A byzantine peer for the sans-IO game session: a seeded wrapper around one peer's traffic.

The byzantine peer runs an ordinary ``GameSession`` (so it can make every message an honest
peer could), but every frame it sends passes through its **behaviours**, each of which may
drop, delay, duplicate, reorder, alter and re-sign, replay or equivocate it per receiver, and
may inject frames of its own (forged claims, with evidence from this game or signed for
another). The honest peers run this code unmodified. ``Table`` drives them all with a
simulated clock (deadlines fire when nothing moves), and ``check_table`` states what must hold
whatever the byzantine peer does (see ``tests/test_byzantine.py``).

A behaviour is a small class with ``outgoing`` (rewrite one frame's sends) and ``inject``
(frames of its own, once per round); new ones (a crawler, say) are added to ``BEHAVIOURS`` or
passed to ``Table`` directly.
"""

from __future__ import annotations

import dataclasses
import json
import random
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

from deck_helpers import forged_remask
from nacl import bindings as sodium

from p2p.crypto.group import hash_to_point
from p2p.crypto.sealed import box_key
from p2p.errors import P2PError
from p2p.identity import Identity
from p2p.net.roster import Roster, RosterEntry
from p2p.session.envelope import SignedMessage, sign_message
from p2p.session.escrow import open_share
from p2p.session.events import ABANDONED, STOPPED, UNFAIR, Aborted, GameAborted, Rejected
from p2p.session.machine import FRAME_MESSAGE, GameSession
from p2p.session.secrets import escrow_key_of
from p2p.session.stage_table import DECISIONS
from p2p.session.timing import Timing
from p2p.storage.transcript import outcome_of, verify_transcript, write_transcript

FAST = Timing(decision=6, step=3, grace=1.0)
IDLE_STEP = 0.5        # simulated seconds that pass in a round where nothing moves
MAX_ROUNDS = 40_000
# Simulated seconds the honest peers may take at most: every stall is ended by a deadline
# (decision + step + grace), and a game has a few hundred stages.
TIME_BOUND = 3_000.0


@dataclass
class Send:
    """One frame on its way to one receiver, due ``delay`` simulated seconds from now."""

    to: int
    frame: bytes
    delay: float = 0.0


@dataclass
class Context:
    """What a behaviour may use: the byzantine peer's own session, who the others are, the
    keys the harness holds and a seeded random stream (its choices are the seed's, so a
    failure replays exactly). The same behaviours drive the TLS version."""

    me: int
    n: int
    rng: random.Random
    identities: dict[int, Identity]  # by peer index: ours, and the others' (see signed_by)
    master: bytes                    # ours (for our box key)
    get_session: Callable[[], GameSession | None]

    @property
    def session(self) -> GameSession:
        session = self.get_session()
        assert session is not None
        return session

    @property
    def ready(self) -> bool:
        return self.get_session() is not None

    @property
    def others(self) -> list[int]:
        return [p for p in range(self.n) if p != self.me]

    def sign(self, msg: Any) -> SignedMessage:
        return sign_message(self.identities[self.me], msg)

    def new_message(self, kind: str, body: dict[str, Any]) -> bytes:
        """A message of ours with our next seq, recorded in our own session as sent."""
        session = self.session
        signed = session.msglog.create(self.identities[self.me], self.me, kind, body)
        session.queues[self.me].append(signed)
        return FRAME_MESSAGE + signed.encode()

    def signed_by(self, peer: int, msg: Any) -> SignedMessage:
        """What ``peer`` signed elsewhere (the harness holds every key: this is how the
        byzantine peer gets honest peers' messages *from another game*)."""
        return sign_message(self.identities[peer], msg)

    def box_hex(self) -> str:
        return bytes(box_key(self.master, self.session.game_id)).hex()


def decode(frame: bytes) -> SignedMessage | None:
    if frame[:1] != FRAME_MESSAGE:
        return None
    try:
        return SignedMessage.decode(frame[1:])
    except (P2PError, ValueError, TypeError, RecursionError):  # one a behaviour mangled
        return None


class Behaviour:
    """Active from the byzantine peer's stage ``start`` on, on a ``share`` of its frames."""

    name = "honest"

    def __init__(self, rng: random.Random) -> None:
        self.start = rng.choice([0, 3, 10, 25, 60, 120])
        self.share = rng.choice([0.1, 0.3, 1.0])

    def active(self, ctx: Context) -> bool:
        return ctx.ready and ctx.session.stage_index >= self.start \
            and ctx.rng.random() < self.share

    def outgoing(self, ctx: Context, sends: list[Send]) -> list[Send]:
        return sends

    def inject(self, ctx: Context) -> list[Send]:
        return []

    def __repr__(self) -> str:
        return f"{self.name}(start={self.start}, share={self.share})"


class Drop(Behaviour):
    name = "drop"

    def outgoing(self, ctx: Context, sends: list[Send]) -> list[Send]:
        return [s for s in sends if not self.active(ctx)]


class Delay(Behaviour):
    name = "delay"

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        self.most = rng.choice([0.5, 2.0, 5.0, 12.0])

    def outgoing(self, ctx: Context, sends: list[Send]) -> list[Send]:
        return [dataclasses.replace(s, delay=s.delay + ctx.rng.uniform(0, self.most))
                if self.active(ctx) else s for s in sends]


class Duplicate(Behaviour):
    name = "duplicate"

    def outgoing(self, ctx: Context, sends: list[Send]) -> list[Send]:
        out = []
        for s in sends:
            out.append(s)
            if self.active(ctx):
                out.append(dataclasses.replace(s, delay=s.delay + ctx.rng.choice([0, 1, 4])))
        return out


class Reorder(Behaviour):
    """Holds frames back and lets them go in a shuffled order."""

    name = "reorder"

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        self.held: list[Send] = []

    def outgoing(self, ctx: Context, sends: list[Send]) -> list[Send]:
        out = []
        for s in sends:
            (self.held if self.active(ctx) else out).append(s)
        if len(self.held) > ctx.rng.randrange(1, 6):
            ctx.rng.shuffle(self.held)
            out += self.held
            self.held = []
        return out

    def inject(self, ctx: Context) -> list[Send]:
        if self.held and ctx.rng.random() < 0.2:
            held, self.held = self.held, []
            ctx.rng.shuffle(held)
            return held
        return []


def _mutate_body(rng: random.Random, body: dict[str, Any]) -> dict[str, Any]:
    body = dict(body)
    junk: list[Any] = [None, 0, -1, 2**62, "x", "", [], {}, True, [0] * 3, {"a": [1]}]
    keys = sorted(body)
    choice = rng.randrange(5)
    if choice == 0 and keys:
        del body[rng.choice(keys)]
    elif choice == 1 and keys:
        body[rng.choice(keys)] = rng.choice(junk)
    elif choice == 2:
        body["stage"] = body.get("stage", 0) + rng.choice([-2, -1, 1, 5])
    elif choice == 3:
        body["state"] = secrets.token_hex(32)
    else:
        body[f"extra{rng.randrange(3)}"] = rng.choice(junk)
    return body


def _altered(ctx: Context, signed: SignedMessage) -> SignedMessage:
    """Our message with its content changed, validly signed by us."""
    rng = ctx.rng
    msg = signed.msg
    choice = rng.randrange(6)
    if choice == 0:
        msg = dataclasses.replace(msg, type=rng.choice(["action", "keys", "audit", "remask",
                                                        "pick/reveal", "nonsense"]))
    elif choice == 1:
        msg = dataclasses.replace(msg, seq=max(0, msg.seq + rng.choice([-3, -1, 1, 2])))
    else:
        msg = dataclasses.replace(msg, body=_mutate_body(rng, msg.body))
    return ctx.sign(msg)


class Alter(Behaviour):
    """Our own messages with a field changed and re-signed, to every receiver alike."""

    name = "alter"

    def outgoing(self, ctx: Context, sends: list[Send]) -> list[Send]:
        if not sends:
            return sends
        signed = decode(sends[0].frame)
        if signed is None or signed.msg.seat != ctx.me or not self.active(ctx):
            return sends
        frame = FRAME_MESSAGE + _altered(ctx, signed).encode()
        return [dataclasses.replace(s, frame=frame) for s in sends]


def _forged_proof(rng: random.Random, kind: str, deck: dict[str, Any],
                  stolen: list[list[str]]) -> dict[str, Any]:
    """A deck layer with its proof forged in one of ``ForgeProof.KINDS``."""
    proof = list(deck["proof"])
    if kind == "flip":  # a byte of one scalar changed
        index, at = rng.randrange(len(proof)), rng.randrange(64)
        digit = format(int(proof[index][at], 16) ^ (1 + rng.randrange(15)), "x")
        proof[index] = proof[index][:at] + digit + proof[index][at + 1:]
    elif kind == "swap":  # another slot's response (or the challenge and the response)
        i, j = (1, 2) if len(proof) > 2 else (0, 1)
        proof[i], proof[j] = proof[j], proof[i]
    elif kind == "stolen":  # the proof of another layer of this game
        proof = rng.choice(stolen)
    elif kind == "same-sum":  # a shuffle's points changed, their sum kept (issue 42's gap)
        points = [bytes.fromhex(p) for p in deck["points"]]
        shift = hash_to_point(b"byzantine/same-sum\x00", deck["key"].encode())
        points[0] = sodium.crypto_core_ed25519_add(points[0], shift)
        points[1] = sodium.crypto_core_ed25519_sub(points[1], shift)
        return {**deck, "points": [p.hex() for p in points]}
    elif kind == "permute":  # two outputs exchanged: another permutation than the proven one
        points = list(deck["points"])
        points[0], points[-1] = points[-1], points[0]
        return {**deck, "points": points}
    elif kind == "points":  # a proof for other points: the last output added to the first
        points = list(deck["points"])
        points[0] = sodium.crypto_core_ed25519_add(bytes.fromhex(points[0]),
                                                   bytes.fromhex(points[-1])).hex()
        return {**deck, "points": points}
    else:  # malformed: a scalar missing
        proof = proof[:-1]
    return {**deck, "proof": proof}


class ForgeProof(Behaviour):
    """Our deck layers (blind, shuffle, re-key, re-mask) sent with a forged proof, to every
    receiver alike and validly signed: a byte flipped, two responses exchanged, the proof of
    another layer of this game (ours or another peer's), points the proof is not about, or a
    proof a scalar short; or, on a shuffle only, points changed with their sum kept or two of
    them exchanged; or, on a re-mask only (``REMASK_KINDS``), a substituted or duplicated
    card. Every honest peer must name us on arrival (the signed message is the proof)."""

    name = "forge-proof"
    KINDS = ("flip", "swap", "stolen", "points", "short", "same-sum", "permute")
    SHUFFLE_ONLY = ("same-sum", "permute")
    #: Re-mask forgeries (``deck_helpers.forged_remask``), re-proven with our own secrets: a
    #: fresh point hiding a card outside the hand, or the card of another fresh point. Not
    #: in KINDS, so the soak seeds draw what they drew before.
    REMASK_KINDS = ("remask-substitute", "remask-duplicate")

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        # The first batch is built in the first stages; later ones at each round's end.
        self.start = rng.choice([0, 3, 60, 120])
        self.kind = rng.choice(self.KINDS)
        self.done = False
        self.only: str | None = None  # forge only a message of this type (None: the first)

    def outgoing(self, ctx: Context, sends: list[Send]) -> list[Send]:
        if not sends or self.done:
            return sends
        signed = decode(sends[0].frame)
        if signed is None or signed.msg.seat != ctx.me or not ctx.ready or \
                self.only not in (None, signed.msg.type):
            return sends
        body = signed.msg.body if isinstance(signed.msg.body, dict) else {}
        where = "remask" if isinstance(body.get("remask"), dict) else "deck"
        deck = body.get(where)
        if not isinstance(deck, dict) or "proof" not in deck or not self.active(ctx):
            return sends
        if self.kind in self.SHUFFLE_ONLY and deck.get("type") != "deck/shuffle":
            return sends
        held = ctx.session.deck
        if self.kind in self.REMASK_KINDS:
            if deck.get("type") != "deck/remask" or len(deck["old"]) < 2 or held is None:
                return sends
            forged = forged_remask(held, deck, self.kind.removeprefix("remask-"))
        else:
            stolen = [list(m["proof"]) for _, m in (held.public_transcript if held else [])
                      if "proof" in m and m["proof"] != deck["proof"]]
            kind = "flip" if self.kind == "stolen" and not stolen else self.kind
            forged = _forged_proof(ctx.rng, kind, deck, stolen)
        body = {**body, where: forged}
        self.done = True
        frame = FRAME_MESSAGE + ctx.sign(dataclasses.replace(signed.msg, body=body)).encode()
        return [dataclasses.replace(s, frame=frame) for s in sends]

    def __repr__(self) -> str:
        return f"{self.name}({self.kind}, start={self.start}, share={self.share})"


class Equivocate(Behaviour):
    """Two different signed messages with one seq: one receiver gets the other version (the
    choice is made once per frame, so it holds when the frame is sent to each receiver apart,
    as over TLS)."""

    name = "equivocate"

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        self.twins: dict[bytes, tuple[int, bytes] | None] = {}

    def outgoing(self, ctx: Context, sends: list[Send]) -> list[Send]:
        out = []
        for s in sends:
            if s.frame not in self.twins:
                signed = decode(s.frame)
                twin = None
                if signed is not None and signed.msg.seat == ctx.me and self.active(ctx):
                    twin = (ctx.rng.choice(ctx.others),
                            FRAME_MESSAGE + _altered(ctx, signed).encode())
                if len(self.twins) < 10_000:
                    self.twins[s.frame] = twin
            twin = self.twins.get(s.frame)
            out.append(dataclasses.replace(s, frame=twin[1])
                       if twin is not None and twin[0] == s.to else s)
        return out


class Garble(Behaviour):
    """Bytes flipped or cut in flight (the signature then fails: blamed on the connection)."""

    name = "garble"

    def outgoing(self, ctx: Context, sends: list[Send]) -> list[Send]:
        out = []
        for s in sends:
            if self.active(ctx) and len(s.frame) > 2:
                data = bytearray(s.frame)
                if ctx.rng.random() < 0.5:
                    i = ctx.rng.randrange(1, len(data))
                    data[i] ^= 1 << ctx.rng.randrange(8)
                else:
                    del data[ctx.rng.randrange(1, len(data)):]
                s = dataclasses.replace(s, frame=bytes(data))
            out.append(s)
        return out


class Replay(Behaviour):
    """Old frames (ours and others' relays) sent again, later, to anyone."""

    name = "replay"

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        self.seen: list[bytes] = []

    def outgoing(self, ctx: Context, sends: list[Send]) -> list[Send]:
        if sends and len(self.seen) < 500:
            self.seen.append(sends[0].frame)
        return sends

    def inject(self, ctx: Context) -> list[Send]:
        if self.seen and self.active(ctx) and ctx.rng.random() < 0.1:
            return [Send(ctx.rng.choice(ctx.others), ctx.rng.choice(self.seen))]
        return []


class ForgeClaim(Behaviour):
    """A signed abort blaming an honest peer, once, with evidence that proves nothing: genuine
    messages of the accused from this game, the same signed for another game, badly signed
    copies, our own box key, or a claim of silence about a stage that is over (every honest
    peer holds the accused's message for it). A claim of silence about the stage the table
    is in is ``InstantSilence`` (finding 3)."""

    name = "forge-claim"

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        self.done = False
        self.keep_playing = rng.random() < 0.5  # an abort is not always our last word

    def inject(self, ctx: Context) -> list[Send]:
        if self.done or not self.active(ctx) or ctx.session.finished:
            return []
        session = ctx.session
        rng = ctx.rng
        accused = rng.choice(ctx.others)
        theirs = [m for m in session.msglog.messages
                  if m.msg.seat == accused and m.msg.type != "abort"]
        if not theirs:
            return []
        self.done = True
        evidence: list[Any] = []
        for signed in rng.sample(theirs, min(len(theirs), rng.randrange(1, 4))):
            how = rng.randrange(3)
            if how == 0:
                evidence.append(signed.to_json())
            elif how == 1:
                other = dataclasses.replace(signed.msg, game=secrets.token_hex(16))
                evidence.append(ctx.signed_by(accused, other).to_json())
            else:
                data = signed.to_json()
                data["sig"] = ("0" if data["sig"][0] != "0" else "1") + data["sig"][1:]
                evidence.append(data)
        kind = rng.choice([UNFAIR, UNFAIR, ABANDONED, STOPPED, "corrupt", "nonsense"])
        body: dict[str, Any] = {"kind": kind, "blame": accused, "reason": "forged",
                                "evidence": evidence, "stage": session.stage_index}
        if kind == ABANDONED:
            body["stage"] = rng.choice(theirs).msg.body.get("stage", 0)  # a stage it played
            body["evidence"] = None
        if kind == "corrupt":  # a false alarm, with our true deck opening or a junk one
            real = session.deck is not None and rng.random() < 0.5
            body["deck"] = session.deck.opening_message() if real and session.deck \
                else {"type": "deck/open-keys", "seat": 0}
        if rng.random() < 0.5:
            body["box"] = ctx.box_hex()
        frame = ctx.new_message("abort", body)
        if not self.keep_playing:
            session.aborted = session.aborted or _gone(session)
        return [Send(p, frame) for p in ctx.others]


class InstantSilence(Behaviour):
    """Declares an honest peer silent at the current stage the moment the stage begins,
    before that peer could answer (finding 3: receivers once agreed before their own
    deadline had passed)."""

    name = "instant-silence"

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        self.done = False

    def inject(self, ctx: Context) -> list[Send]:
        if not ctx.ready:
            return []
        session, stage = ctx.session, ctx.session.stage
        if (self.done or session.finished or stage is None or session.stage_index < self.start
                or stage.kind not in DECISIONS):
            return []  # a decision: the accused is still thinking when the claim lands
        missing = [p for p in stage.missing if p != ctx.me]
        if not missing:
            return []
        self.done = True
        body = {"kind": ABANDONED, "blame": missing[0], "reason": "silent",
                "evidence": None, "stage": session.stage_index}
        frame = ctx.new_message("abort", body)
        session.aborted = session.aborted or _gone(session)
        return [Send(p, frame) for p in ctx.others]


class Leave(Behaviour):
    """Leaves with a handover from its stage ``start`` on: an honest one (the table must play
    on and end fair, the seat played by the ghost), or one whose master is not its own (it
    must be named); a leaver that keeps talking after it left replays its old messages."""

    name = "leave"

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        self.forged = rng.random() < 0.4
        self.chatty = 5 if rng.random() < 0.3 else 0  # old messages it replays once gone
        self.done = False

    def inject(self, ctx: Context) -> list[Send]:
        if not ctx.ready:
            return []
        session = ctx.session
        if self.done:
            if not self.chatty or not session.msglog.messages:
                return []
            self.chatty -= 1
            old = ctx.rng.choice([m for m in session.msglog.messages if m.msg.seat == ctx.me]
                                 or list(session.msglog.messages))
            return [Send(p, FRAME_MESSAGE + old.encode()) for p in ctx.others]
        if session.finished or not session.seat_of_peer or session.stage_index < self.start:
            return []
        self.done = True
        if not self.forged:
            session.hand_over()  # it goes out through the other behaviours, like any frame
            return []
        # (sent as its session sends, after what it has made already, not injected ahead)
        session._send("handover", {"master": ctx.rng.randbytes(32).hex(), "bot": "random"})
        session.left = True
        return []


class Vanish(Behaviour):
    """Is gone for good from its stage ``start`` on: sends nothing more, ever (a machine
    killed, a player who walked away without a word)."""

    name = "vanish"

    def outgoing(self, ctx: Context, sends: list[Send]) -> list[Send]:
        if not ctx.ready or ctx.session.stage_index < self.start:
            return sends
        if not ctx.session.finished:
            ctx.session.aborted = _gone(ctx.session)  # (the table stops playing it)
        return []


def _gone(session: GameSession) -> Any:
    from p2p.session.events import Aborted
    return Aborted(None, "byzantine peer left", STOPPED, session.stage_index)


BEHAVIOURS: list[type[Behaviour]] = [Drop, Delay, Duplicate, Reorder, Alter, Equivocate,
                                     Garble, Replay, ForgeClaim, Leave, Vanish]


def strategy(seed: int) -> list[Behaviour]:
    """One to three behaviours, chosen and tuned by ``seed``; from seed 106 on (the soak
    sweep), a quarter of them also forge a deck proof (drawn last, so the others are the same
    as before it existed)."""
    rng = random.Random(seed)
    kinds = rng.sample(BEHAVIOURS, rng.randrange(1, 4))
    behaviours = [kind(rng) for kind in kinds]
    if seed >= 106 and rng.random() < 0.25:
        behaviours.append(ForgeProof(rng))
    return behaviours


# -- the table -------------------------------------------------------------------------------


@dataclass
class Table:
    """n peers wired back to back; peer ``bad`` sends through its behaviours."""

    n: int
    bad: int
    behaviours: Sequence[Behaviour]
    seed: int = 0
    timing: Timing = FAST
    game_id: str = field(default_factory=lambda: secrets.token_hex(16))
    escrow: bool = False  # the host asks for the escrow (3-4 players)
    # the session class of each peer (default: the honest one)
    kinds: dict[int, type[GameSession]] = field(default_factory=dict)
    crash: CrashPlan | None = None  # an honest peer that dies at a kill point and comes back

    def __post_init__(self) -> None:
        self.identities = [Identity.generate() for _ in range(self.n)]
        self.masters = [secrets.token_bytes(32) for _ in range(self.n)]
        keys = [identity.public_bytes for identity in self.identities]
        self.sessions = [self.kinds.get(me, GameSession)(
            self.game_id, keys, me, self.identities[me], self.masters[me], timing=self.timing)
            for me in range(self.n)]
        self.sessions[0].escrow_wanted = self.escrow
        self.ctx = Context(self.bad, self.n, random.Random(self.seed),
                           dict(enumerate(self.identities)), self.masters[self.bad],
                           lambda: self.sessions[self.bad])
        self.choices = random.Random(self.seed + 1)
        self.faults = Faults(self, self.crash) if self.crash is not None else None
        self.now = 0.0
        self.pending: list[tuple[float, int, int, int, bytes]] = []  # (due, order, from, to, f)
        self.order = 0
        self.rounds = 0

    @property
    def honest(self) -> list[GameSession]:
        return [s for i, s in enumerate(self.sessions) if i != self.bad]

    def _post(self, sender: int, sends: list[Send]) -> None:
        for s in sends:
            if s.to != sender and 0 <= s.to < self.n:
                self.order += 1
                self.pending.append((self.now + s.delay, self.order, sender, s.to, s.frame))

    def _flush(self) -> bool:
        moved = False
        # The byzantine peer's frames first, then what it injects (after its own earlier
        # messages, or they would arrive out of order): it may be as quick as the network
        # allows (a claim can overtake the message it is about).
        order = [self.bad] + [p for p in range(self.n) if p != self.bad]
        for sender in order:
            session = self.sessions[sender]
            if self.faults is not None and not self.faults.up(sender):
                continue
            if sender == order[1]:
                for behaviour in self.behaviours:
                    injected = behaviour.inject(self.ctx)
                    if injected:
                        self._post(self.bad, injected)
                        moved = True
            session.release_relays()
            out, session.outbox = session.outbox, []
            for data in out:
                sends = [Send(p, data) for p in range(self.n) if p != sender]
                if sender == self.bad:
                    for behaviour in self.behaviours:
                        sends = behaviour.outgoing(self.ctx, sends)
                self._post(sender, sends)
                moved = True
                if self.faults is not None and self.faults.sent(sender, data):
                    break  # it dies right after this frame left
        due = sorted(p for p in self.pending if p[0] <= self.now)
        if due:
            self.pending = [p for p in self.pending if p[0] > self.now]
            for _, _, sender, to, data in due:
                if self.faults is None:
                    self.sessions[to].receive(sender, data)
                else:
                    self.faults.deliver(sender, to, data)
            moved = True
        return moved

    def play(self, until: Callable[[], bool] | None = None) -> None:
        """Until every honest peer has finished (and the wires are empty), within bounds; or,
        given ``until``, as soon as it holds after a round or a peer's tick (what the peers
        sent since stays in their outboxes)."""
        for session in self.sessions:
            session.tick(0.0)
            session.start()
        for self.rounds in range(MAX_ROUNDS):
            if until is not None and until():
                return
            moved = self._flush()
            if self.faults is not None:
                moved = self.faults.drive() or moved
            for i, session in enumerate(self.sessions):
                if session.finished or (self.faults is not None and not self.faults.up(i)):
                    continue
                view = session.seat_view()
                if view is not None and view.legal:
                    action = view.legal[self.choices.randrange(len(view.legal))]
                    self._call(i, lambda s=session, a=action, v=view: s.submit(a, v.stage))
                    moved = True
            if all(s.finished for s in self.honest) and not self.pending:
                return
            if not moved:
                self.now += IDLE_STEP
                assert self.now <= TIME_BOUND, "the honest peers did not finish in time"
                for i, session in enumerate(self.sessions):
                    if self.faults is None or self.faults.up(i):
                        self._call(i, lambda s=session: s.tick(self.now))
                    if until is not None and until():
                        return
        raise AssertionError("the table did not settle within the round bound")

    def _give_up(self, peer: int, lost: list[int]) -> bool:
        give_up = self.sessions[peer].give_up_on
        result: list[bool] = []
        self._call(peer, lambda: result.append(give_up(lost)))
        return bool(result and result[0])

    def _call(self, peer: int, step: Callable[[], None]) -> None:
        """Run one step of ``peer``'s session: a kill point may fire in it (the peer dies)."""
        if self.faults is None:
            step()
            return
        try:
            step()
        except Died:
            self.faults.died(peer)

    # -- transcripts --

    def roster(self) -> Roster:
        entries = tuple(RosterEntry(i, f"p{i}", identity.public_bytes, "127.0.0.1", 1000 + i)
                        for i, identity in enumerate(self.identities))
        return Roster(self.game_id, entries).sign(self.identities[0])

    def transcript(self, peer: int, folder: Path) -> Path:
        names = [f"p{i}" for i in range(self.n)]
        session = self.sessions[peer]
        return write_transcript(folder / f"t{peer}.json", self.roster(), session,
                                outcome_of(session, names))


# -- crashes and full disks on the handover and escrow paths (issue 41) ----------------------

# The messages of the handover and escrow paths a kill point can be placed at.
KILL_KINDS = {
    "handover": lambda m: m.msg.type == "handover",
    "claim": lambda m: m.msg.type == "abort" and "escrow" in m.msg.body,
    "escrow": lambda m: m.msg.type == "setup/reveal" and "escrow" in m.msg.body,
}
# Before the line is on the disk (a kill, or a full disk: the write fails), after it is
# (before it is sent), or right after the frame left.
KILL_POINTS = ("before-write", "after-write", "after-send")
GRACE = 12.0  # simulated seconds a driver waits for a peer that is down (the mesh's grace)
STOPPED_FOR_NOW = "a peer it needs is lost: stopped for now (resumable, no transcript)"


class Died(Exception):
    """A kill point fired: the peer is gone on the spot (what it had not stored is lost)."""


@dataclass
class CrashPlan:
    """Peer ``who`` (honest) dies at the first message of ``kind`` it stores (``mine``: its
    own; else another's) at ``point``, and is started again ``down`` simulated seconds later
    from what it stored; it hands its seat over at stage ``leave`` (None: it stays)."""

    who: int
    kind: str
    point: str
    mine: bool = True
    down: float = 2.0
    leave: int | None = None

    def hits(self, signed: SignedMessage) -> bool:
        return KILL_KINDS[self.kind](signed) and (signed.msg.seat == self.who) == self.mine


def crash_plan(seed: int, n: int, bad: int) -> tuple[CrashPlan, list[Behaviour]]:
    """A kill point on the handover or escrow path, and what makes the table reach it: for
    a claim, the byzantine peer vanishes for good (an honest peer then dies at the claims);
    for a handover, the dying peer leaves."""
    rng = random.Random(seed)
    who = rng.choice([p for p in range(n) if p != bad])
    kind = rng.choice(sorted(KILL_KINDS))
    point = rng.choice(KILL_POINTS)
    plan = CrashPlan(who, kind, point, mine=kind == "handover" or rng.random() < 0.6,
                     down=rng.choice([1.0, 4.0, GRACE + 6]),
                     leave=rng.choice([8, 40, 90]) if kind == "handover" else None)
    behaviours: list[Behaviour] = []
    if kind == "claim":
        gone = Vanish(rng)
        gone.start, gone.share = rng.choice([10, 40, 90]), 1.0
        behaviours.append(gone)
    return plan, behaviours


class Faults:
    """Drives a table's ``CrashPlan`` as the network driver would: the dying peer's store
    (every message it records, its own before they are sent), its death and restart from
    that store with the resync (it takes what the others hold, they take what it holds),
    and for every peer the driver's grace: a peer down (the crashed one, or the byzantine
    one once it vanished) is away, and given up on after ``GRACE`` if the game needs it;
    a restarted peer gives up on one another player's claim names after the table's grace
    (``p2p.net.runner``)."""

    def __init__(self, table: Table, plan: CrashPlan) -> None:
        self.table, self.plan = table, plan
        self.store: list[SignedMessage] = []
        self.fired = False
        self.back_at: float | None = None
        self.resumed_at: float | None = None
        self.down_since: dict[int, float] = {}
        self.rebuilt: dict[int, float] = {}  # seat recovered from the escrow -> when seen
        self.down_when_rebuilt: dict[int, bool] = {}
        table.sessions[plan.who].on_record = self._record

    def _record(self, signed: SignedMessage) -> None:
        hit = not self.fired and self.plan.hits(signed)
        if hit and self.plan.point == "before-write":
            self.fired = True
            raise Died
        self.store.append(signed)
        if hit and self.plan.point == "after-write":
            self.fired = True
            raise Died

    def up(self, peer: int) -> bool:
        return peer != self.plan.who or self.back_at is None

    def sent(self, sender: int, frame: bytes) -> bool:
        """``frame`` of ``sender`` left: True if the peer dies right after it."""
        signed = decode(frame)
        if (sender != self.plan.who or self.fired or self.plan.point != "after-send"
                or signed is None or not self.plan.hits(signed)):
            return False
        self.fired = True
        self.died(sender)
        return True

    def deliver(self, sender: int, to: int, frame: bytes) -> None:
        if self.up(to):
            self.table._call(to, lambda: self.table.sessions[to].receive(sender, frame))

    def died(self, peer: int) -> None:
        session = self.table.sessions[peer]
        session.outbox.clear()
        session.relays.clear()
        self.back_at = self.table.now + self.plan.down
        self.down_since[peer] = self.table.now

    def gone(self) -> set[int]:
        """The peers down now: the crashed one, one stopped for now, and the byzantine one
        once it vanished."""
        table = self.table
        vanished = [b for b in table.behaviours if isinstance(b, Vanish)
                    and table.sessions[table.bad].stage_index >= b.start]
        if vanished and table.bad not in self.down_since:
            self.down_since[table.bad] = table.now
        return set(self.down_since)

    def drive(self) -> bool:
        """One round of the driver's work; True if anything moved."""
        table, plan = self.table, self.plan
        moved = False
        me = table.sessions[plan.who]
        if plan.leave is not None and self.up(plan.who) and not me.finished \
                and me.seat_of_peer and me.stage_index >= plan.leave and not me.left:
            table._call(plan.who, me.hand_over)
            moved = True
        if self.back_at is not None and table.now >= self.back_at:
            self._restart()
            moved = True
        gone = self.gone()
        for i, session in enumerate(table.sessions):
            if not self.up(i):
                continue
            session.away |= gone - {i}
            session.away -= {p for p in session.away if p not in gone}
            for p, ghost in session.ghosts.items():
                if ghost.by == "escrow" and p not in self.rebuilt:
                    self.rebuilt[p] = table.now
                    self.down_when_rebuilt[p] = p in gone
            if session.finished:
                continue
            lost = {p for p in gone if p != i and (
                table.now - self.down_since[p] > GRACE
                or (i == plan.who and self.resumed_at is not None
                    and table.now - self.resumed_at > session.timing.grace
                    and session.claimed_by_others(p)))}
            needed = lost & {*session.waiting_for(), *session.escrow_waits_for()}
            if needed and not table._give_up(i, sorted(needed)) and self.up(i):
                # stopped for now, as the runner does: it exits, and answers nobody
                session.aborted = Aborted(None, STOPPED_FOR_NOW, STOPPED, session.stage_index)
                self.down_since[i] = table.now
                moved = True
        return moved

    def _restart(self) -> None:
        """Start the dead peer again from its store, resynced with every peer that is up."""
        table, who = self.table, self.plan.who
        old = table.sessions[who]
        keys = [identity.public_bytes for identity in table.identities]
        session = GameSession(table.game_id, keys, who, table.identities[who],
                              table.masters[who], timing=table.timing)
        session.escrow_wanted = old.escrow_wanted
        session.tick(table.now)  # (its clock starts now: the replay is not timed)
        session.replaying = True
        for signed in self.store:
            session.accept(signed, direct=False)
        session.on_record = self._record
        table.sessions[who] = session
        self.back_at = None
        del self.down_since[who]
        others = [p for p in range(table.n) if p != who and p not in self.gone()]
        for p in others:  # held, it takes what they hold, then they take what it holds
            for frame in table.sessions[p].sync_reply(session.sync_request()):
                session.receive(p, frame)
        session.replaying = False
        session.outbox.clear()
        session.tick(table.now)
        for p in others:
            for frame in session.sync_reply(table.sessions[p].sync_request()):
                table._call(p, lambda s=table.sessions[p], f=frame: s.receive(who, f))
        self.resumed_at = table.now
        table._call(who, session.start)


# -- what must hold --------------------------------------------------------------------------

LIVE_STATUS = {UNFAIR: "unfair", ABANDONED: "abandoned"}


def live_verdict(session: GameSession) -> tuple[str, int | None]:
    if session.result is not None:
        return "fair", None
    aborted = session.aborted
    assert aborted is not None
    if aborted.peer is None or aborted.kind not in LIVE_STATUS:
        return "incomplete", None
    return LIVE_STATUS[aborted.kind], aborted.peer


MERGE_WINDOW = 8  # stages an author's next message may run ahead of the others' in a merge


def _stage_of(data: Any) -> int:
    stage = data["msg"].get("body", {}).get("stage")
    return stage if isinstance(stage, int) and not isinstance(stage, bool) else 0


def merge_by_author(messages: list[Any], rng: random.Random) -> list[Any]:
    """A random interleaving of ``messages`` that keeps each author's own order, and is one
    the protocol calls valid: no author runs 64 messages ahead of the game (protocol.md,
    "Stages"; a uniform merge of long games did, now and then, and was rightly "damaged").
    Each pick is among the authors whose next message is at most ``MERGE_WINDOW`` stages
    beyond the lowest next one, a few messages each."""
    streams: dict[int, list[Any]] = {}
    for data in messages:
        streams.setdefault(data["msg"]["seat"], []).append(data)
    merged: list[Any] = []
    while streams:
        low = min(_stage_of(stream[0]) for stream in streams.values())
        author = rng.choice([a for a in sorted(streams)
                             if _stage_of(streams[a][0]) <= low + MERGE_WINDOW])
        merged.append(streams[author].pop(0))
        if not streams[author]:
            del streams[author]
    return merged


def escrow_claimants(table: Table, author: int) -> set[int]:
    """The peers that published their share of ``author``'s master in a claim."""
    return {m.msg.seat for s in table.honest for m in s.msglog.messages
            if m.msg.type == "abort" and m.msg.body.get("blame") == author
            and "escrow" in m.msg.body}


def escrow_shares_open_to(table: Table, coalition: Sequence[int], author: int) -> set[int]:
    """The holders whose escrow share of ``author``'s master the peers of ``coalition`` can
    read, pooling every key they hold (their box and escrow keys) with what the table made
    public: every share published in a claim, and the box key of every master published (a
    handover's, or one rebuilt from the escrow)."""
    keys = [identity.public_bytes for identity in table.identities]
    session = table.honest[0]
    masters = [table.masters[p] for p in coalition]
    masters += [g.session.master for s in table.honest for g in s.ghosts.values()]
    held = [box_key(m, table.game_id) for m in masters] + [
        escrow_key_of(table.identities[p], table.game_id, keys) for p in coalition]
    opened = escrow_claimants(table, author)
    for holder, (box, commitment) in session.escrow_boxes.get(author, {}).items():
        for key in held:
            try:
                open_share(table.game_id, author, holder, key, box, commitment)
            except P2PError:
                continue
            opened.add(holder)
    return opened


def check_no_small_coalition(table: Table) -> None:
    """No coalition smaller than all the other original players can read every escrow share
    of a player still playing, before or after any recovery (a seat rebuilt from the escrow
    had all of them published, by every other player). A player that published its share
    in a claim gave it to everyone: it counts as one of the coalition."""
    gone = {p for s in table.honest for p in s.ghosts}
    for author in range(table.n):
        if author in gone:
            continue
        others = [p for p in range(table.n) if p != author]
        claimants = escrow_claimants(table, author)
        for size in range(1, len(others)):
            for coalition in combinations(others, size):
                if len(claimants | set(coalition)) == len(others):
                    continue
                opened = escrow_shares_open_to(table, coalition, author)
                assert not set(others) <= opened, (
                    f"seed {table.seed}: peers {coalition} read every escrow share of peer "
                    f"{author}")


def check_crash_table(table: Table, folder: Path, shuffles: int = 1) -> None:
    """The properties of a table with a ``CrashPlan``: every peer but the byzantine one
    (which only vanishes, if anything) finished, the one that died included; those still
    playing at the end agree on the outcome, and name nobody but the byzantine peer (nobody
    at all when it did nothing); no seat was rebuilt from the escrow while its player was
    still answering; no coalition smaller than all the other players can read every share
    of a player's escrow; verify agrees with each of them, in other orders of the file."""
    assert table.faults is not None
    where = f"crash seed {table.seed}, {table.crash}, {list(table.behaviours)}"
    honest = [s for s in table.honest if not s.left]
    assert all(s.finished for s in table.honest), (
        where, [(s.me, s.stage_index) for s in table.honest if not s.finished])
    outcomes = {(live_verdict(s), str(s.result and s.result["scores"])) for s in honest}
    assert len(outcomes) == 1, (where, outcomes)
    for peer, down in table.faults.down_when_rebuilt.items():
        assert down, (where, f"peer {peer}'s seat was rebuilt while it was answering")
    check_no_small_coalition(table)
    bad = table.bad if table.behaviours else -1
    ended = [s for s in honest if s.aborted is None or s.aborted.reason != STOPPED_FOR_NOW]
    check_honest([(s, table.transcript(s.me or 0, folder)) for s in ended], bad, where,
                 shuffles, random.Random(table.seed + 2))


def verdict_of(path: Path) -> tuple[str, int | None]:
    verdict = verify_transcript(path)
    return verdict.status, verdict.blame


def check_table(table: Table, folder: Path, shuffles: int = 1) -> None:
    """The properties, for the sans-IO table (see ``check_honest``)."""
    where = f"seed {table.seed}, {list(table.behaviours)}"
    check_honest([(s, table.transcript(s.me or 0, folder)) for s in table.honest], table.bad,
                 where, shuffles, random.Random(table.seed + 2))


def check_honest(honest: Sequence[tuple[GameSession, Path]], bad: int, where: str,
                 shuffles: int, rng: random.Random) -> None:
    """Every honest peer finished; none named an honest peer (itself included), in its
    verdict or any event; ``verify`` on each honest transcript gives the live verdict, and the
    same on ``shuffles`` per-author-order-preserving shuffles of it."""
    for session, path in honest:
        assert session.finished, (where, session.me, session.stage_index)
        for event in session.events:
            if isinstance(event, GameAborted | Rejected) and event.peer is not None:
                assert event.peer == bad, (where, session.me, event)
        live = live_verdict(session)
        assert verdict_of(path) == live, (where, session.me, live,
                                          verify_transcript(path).summary)
        data = json.loads(path.read_bytes())
        messages = data["messages"]
        for n in range(shuffles):
            data["messages"] = merge_by_author(messages, rng)
            shuffled = path.with_name(f"{path.stem}-shuffled{n}.json")
            shuffled.write_text(json.dumps(data))
            assert verdict_of(shuffled) == live, (where, session.me, n, live,
                                                  verify_transcript(shuffled).summary)
