"""Who is to blame when a game stops: proof, or unanimous observation, never a peer's word.

An ``abort`` message is a *claim*, not a verdict. Its body: ``{"kind": "unfair" | "abandoned"
| "stopped", "blame": peer | null, "reason": text, "evidence": [signed messages] | null,
"stage": n, "box": hex (optional)}``. Every receiver (and ``solstice verify``) re-checks it
against its own signed log; the claim itself names nobody.

- **Proof** (verdict UNFAIR). The evidence messages are taken into the receiver's own log like
  any relayed copy; they are signed by the accused, so nobody can forge them. Then the
  receiver's own deterministic session either finds the same fault by itself (two messages with
  one (author, seq): equivocation; a malformed, illegal, wrong-stage or wrong-state message
  given the log before it; a failed opening; a failed audit), or it does not. A fault in a key
  sealed to the claimant only is checked with the claimant's box secret key, which its abort
  then carries (the game is void, so it protects nothing any more): the receiver opens the
  sealed keys itself and checks them against what they had to be when they were sealed
  (``Deck.check_disclosed_key``), never against the slots' state now. Evidence copies that
  do not check as messages of this game are dropped quietly: the claim's failure, not its
  target's.
- **Observation** (verdict ABANDONED). A peer that misses a stage's deadline (``clock.py``)
  is declared silent: ``{"kind": "abandoned", "blame": X, "stage": s}``. A receiver agrees
  when, in its own log, X has no message for stage s either; it finds the claim false when it
  holds X's message for stage s, or X had nothing to send in stage s.
- **A corrupted deck** (verdict UNFAIR, proof: every peer's opened deck keys). A peer whose
  opening decrypts to no card (only the recipient sees a private one) sends ``{"kind":
  "corrupt", "deck": <its deck/open-keys message>, "box": ...}``; every peer receiving it
  answers with its own opening (``"answer": true``) and stops. With all openings in, every peer
  runs the deck audit on the public deck messages of its log, which names the author of the
  wrong layer; if every layer is right, the peer that raised the alarm is named instead.
- **A claim that does not check** counts as its sender leaving the game: when a receiver needs
  the sender's next message and finds only its abort, the sender is declared to have
  abandoned the game at that stage (never the peer it accused). That verdict's abort carries
  the failed abort, and is judged by judging it.
- **An observer** (``solstice verify``) has no clock: it judges claims of silence on the whole
  log, at its end, in peer order, so the file's interleaving does not matter.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine.canonical import CanonicalEncodingError, canonical_json, parse_json
from p2p.crypto.sealed import box_key, parse_secret_key, unseal
from p2p.deck.audit import audit_deck
from p2p.deck.deck import Deck
from p2p.errors import LocalProtocolError, P2PError, RemoteProtocolError
from p2p.session.bodies import deck_data
from p2p.session.clock import StageClock
from p2p.session.envelope import MessageLog, SignedMessage
from p2p.session.escrow import open_share, parse_escrow
from p2p.session.events import ABANDONED, STOPPED, UNFAIR, DeckAudit, Peer, Seat, SessionEvent
from p2p.session.opening import SealedKeys
from p2p.session.stages import Stage, StageKind


class RefereedSession(Protocol):
    """What the referee reads and calls of the session it checks (``GameSession`` is one):
    given this, not the session's class, so the referee does not import the session back."""

    game_id: str
    n: int
    me: Peer | None
    master: bytes
    msglog: MessageLog
    queues: list[deque[SignedMessage]]
    future: list[dict[int, SignedMessage]]
    events: list[SessionEvent]
    stage_index: int
    stage: Stage | None
    replaying: bool
    box_public: dict[int, Any]
    escrow_public: dict[int, Any]
    seat_of_peer: list[Seat]
    deck: Deck | None
    card_ids: tuple[int, ...]
    stage_kinds: list[str]
    private_log: list[SealedKeys]
    ghosts: dict[Peer, Any]
    clock: StageClock

    @property
    def finished(self) -> bool: ...

    def peer_of(self, seat: int | None) -> Peer | None: ...

    def absorb(self, signed: SignedMessage, direct: bool = False, quiet: bool = False) -> bool:
        ...

    def due(self, peer: int, stage: int) -> bool: ...

    def came_overdrawn(self, peer: int, stage: int) -> bool: ...

    def claim_of_us_waits(self, abort: SignedMessage | None) -> bool: ...

    def _send(self, kind: str, body: dict[str, Any]) -> None: ...

    def _abort(self, peer: Peer | None, reason: str, evidence: Any = None,
               kind: str = UNFAIR, box: bool = False, stage: int | None = None, *,
               disputed: bool = False) -> None: ...


# The stages in which the deck is not complete (no deck yet, or a batch being built): an alarm
# of a corrupted deck raised in one proves nothing.
DECK_BUILDING = frozenset({StageKind.SETUP_COMMIT, StageKind.SETUP_REVEAL, StageKind.DECK_COMMIT,
                           StageKind.DECK_STEP})
MAX_EVIDENCE = 8  # signed messages taken from one abort's evidence
CORRUPT = "corrupt"  # the claim kind that opens the deck keys to find a wrong layer


class _Disputed:
    """A claim of silence that its accused signed it refutes, with no other peer's word."""


DISPUTED = _Disputed()


class _Unwitnessed:
    """A claim of silence at a table of three or more that no other peer's signed word backs
    or refutes in the file, and that the file cannot refute either (the accused's message for
    the stage is not in it)."""


UNWITNESSED = _Unwitnessed()


@dataclass
class Claim:
    """One peer's abort, parsed leniently: a junk body is just a claim that proves nothing."""

    peer: Peer
    kind: str
    blame: Peer | None
    stage: int
    reason: str
    evidence: list[SignedMessage] = field(default_factory=list)
    box: str | None = None
    checked_private: bool = False
    checked_escrow: bool = False
    deck: Any = None       # a corrupt claim's deck key opening
    answer: bool = False   # a corrupt claim answering another's (not raising the alarm)
    message: SignedMessage | None = None  # the abort itself


def parse_claim(session: RefereedSession, signed: SignedMessage) -> Claim:
    body = signed.msg.body
    n = session.n
    blame = body.get("blame")
    if not (isinstance(blame, int) and not isinstance(blame, bool) and 0 <= blame < n):
        blame = None
    stage = body.get("stage")
    if not isinstance(stage, int) or isinstance(stage, bool):
        stage = -1
    raw_kind = body.get("kind")
    kind = raw_kind if isinstance(raw_kind, str) and raw_kind in (UNFAIR, ABANDONED, CORRUPT) \
        else STOPPED
    if kind == CORRUPT and not isinstance(body.get("deck"), dict):
        kind = STOPPED  # no opening: a claim that proves nothing
    reason = body.get("reason")
    evidence = []
    raw = body.get("evidence")
    for item in (raw if isinstance(raw, list) else [])[:MAX_EVIDENCE]:
        try:
            evidence.append(SignedMessage.decode(canonical_json(item)))
        except (RemoteProtocolError, CanonicalEncodingError, ValueError, TypeError,
                RecursionError):
            continue
    box = body.get("box") if isinstance(body.get("box"), str) else None
    return Claim(Peer(signed.msg.seat), kind, None if blame is None else Peer(blame), stage,
                 reason if isinstance(reason, str) else "",
                 evidence, box, deck=body.get("deck"), answer=body.get("answer") is True,
                 message=signed)


class Referee:
    """Re-checks every abort a session receives; decides when a claim is proven, agreed with,
    or false (then its sender has left)."""

    def __init__(self, session: RefereedSession) -> None:
        self.session = session
        self.claims: dict[int, Claim] = {}
        self.auditing = False  # the deck is corrupt: collecting every peer's deck opening

    def unopened(self) -> list[int]:
        """While auditing a corrupt deck: the peers whose deck opening is not in yet."""
        return [p for p in range(self.session.n)
                if p not in self.claims or self.claims[p].kind != CORRUPT]

    # -- the session's own verdicts ----------------------------------------------------------

    def abandoned(self, peers: list[int], why: str, stage: int | None = None) -> None:
        """``peers`` missed the current stage (or stage number ``stage``, one we passed): stop,
        naming the first (all are listed)."""
        s = self.session
        names = ", ".join(f"peer {p}" for p in peers)
        if stage is None:
            stage = s.stage_index
        kind = s.stage_kinds[stage - 1] if 1 <= stage <= len(s.stage_kinds) else "?"
        if self.auditing:  # counted from the alarm, the same stage at every peer
            kind, stage = "deck audit", self._alarm_stage()
        s._abort(Peer(peers[0]), f"abandoned by {names} at stage {stage} ({kind}): {why}",
                 kind=ABANDONED, stage=stage)

    # -- other peers' claims -----------------------------------------------------------------

    def settle(self, final: bool = False) -> bool:
        """Look at every abort received; True if the session stopped. ``final``: no more
        messages will come (the end of a transcript)."""
        s = self.session
        found = True
        while found:  # a claim's evidence may bring in another peer's abort: read it too
            found = False
            for peer in range(s.n):
                if peer in self.claims or peer in s.ghosts:
                    continue  # (a ghost's player has left: nothing it says is judged)
                stop = next((m for m in s.queues[peer] if m.msg.type == "abort"), None)
                if stop is None:
                    continue
                claim = self.claims[peer] = parse_claim(s, stop)
                found = True
                for signed in claim.evidence:
                    # Taken like any relayed copy; a copy that does not check (another
                    # game's, a bad signature) proves nothing and is the claim's failure.
                    s.absorb(signed, quiet=True)
                if s.finished:
                    return True
        if not self.auditing:
            self._answer_alarm()
        if self.auditing:
            return self._audit(final) or True
        # At the end of a log, in peer order: the verdict must not depend on which claim
        # happened to come first in the file.
        claims = sorted(self.claims.values(), key=lambda c: c.peer) if final \
            else list(self.claims.values())
        for claim in claims:
            if self._resolve(claim, final):
                return True
        return s.finished

    def open_deck(self, reason: str, evidence: Any, answer: bool = False) -> None:
        """The deck is corrupt (we found it, or a peer says so): open our deck keys to every
        peer, stop playing, and wait for everyone's (the deadline names who does not)."""
        s = self.session
        if self.auditing or s.deck is None:
            return
        self.auditing = True
        s.clock.enter_stage()
        s.events.append(DeckAudit(reason))
        if s.me is None or s.replaying:
            return
        body = {"kind": CORRUPT, "blame": None, "reason": reason[:500], "answer": answer,
                "deck": s.deck.opening_message(), "evidence": evidence,
                "box": bytes(box_key(s.master, s.game_id)).hex()}
        try:
            s._send("abort", body)
        except (LocalProtocolError, CanonicalEncodingError):
            s._send("abort", {**body, "evidence": None})

    def _answer_alarm(self) -> None:
        """Open our deck keys for a peer's alarm once we stand where it raised it: the deck
        audit must see every deck step the alarmist had (a receiver still behind would find
        a layer "missing" that its author was not yet due to send). An alarm about a deck not
        complete at that stage proves nothing (no opening had been made to go wrong): judged
        by the deck as it was when that stage began, never as it is now (a receiver further on
        may have finished the batch the alarmist's stage was building)."""
        s = self.session
        for claim in sorted(self.claims.values(), key=lambda c: c.peer):
            # An answer is no alarm of its own: it is judged by the alarm it answers (in a
            # transcript it may come before that alarm, since only each author's order holds).
            if claim.kind != CORRUPT or claim.answer or s.stage_index < claim.stage:
                continue
            if claim.stage < 1 or s.stage_kinds[claim.stage - 1] in DECK_BUILDING \
                    or s.deck is None:
                claim.kind = STOPPED
                continue
            self.open_deck(f"peer {claim.peer} found the deck corrupt", None, answer=True)
            return

    def _alarm_stage(self) -> int:
        alarms = [c for c in self.claims.values() if c.kind == CORRUPT and not c.answer]
        return min((c.stage for c in alarms), default=self.session.stage_index)

    def _audit(self, final: bool) -> bool:
        s = self.session
        missing = self.unopened()
        if missing:
            if final:  # a log that ends here proves nobody's silence: name nobody
                s._abort(None, "the deck audit is incomplete: no deck opening from peer(s) "
                               f"{', '.join(map(str, missing))}", kind=STOPPED,
                         stage=self._alarm_stage())
            return s.finished
        assert s.deck is not None
        openings: dict[int, Any] = {s.seat_of_peer[p]: c.deck for p, c in self.claims.items()}
        proof = [c.message.to_json() for c in self.claims.values() if c.message is not None]
        try:
            audit_deck(s.game_id, s.n, len(s.card_ids), s.deck.public_transcript, openings,
                       proofs_checked=s.deck.check_proofs)
        except P2PError as exc:
            peer = s.peer_of(getattr(exc, "seat", None))
            # The proof: every peer's signed deck opening, with the deck messages of the log.
            s._abort(peer, f"deck audit: {getattr(exc, 'reason', exc)}", evidence=proof)
            return True
        alarm = min((p for p, c in self.claims.items() if not c.answer), default=0)
        s._abort(Peer(alarm), f"abandoned by peer {alarm}: it found the deck corrupt, but the "
                              "audit of every layer shows it is not", kind=ABANDONED,
                 stage=self._alarm_stage())
        return True

    def _resolve(self, claim: Claim, final: bool, seen: frozenset[int] = frozenset()) -> bool:
        s = self.session
        peer = claim.peer
        if claim.kind == ABANDONED and claim.blame is not None and claim.blame != peer \
                and self._about_its_abort(claim):
            # "X stopped the game and its claim does not check": X's own abort (taken into
            # our log from the evidence) is what we judge, whichever claim comes first.
            target = self.claims.get(claim.blame)
            if target is not None and claim.blame not in seen \
                    and self._resolve(target, final, seen | {peer}):
                return True
            if not final and self._blocked_on(peer) and target is None and s.me is not None:
                self._left(claim, "it stopped the game")
                return True
            return False
        if claim.kind == ABANDONED and claim.blame is not None and claim.blame != peer:
            if s.me is None and not final:
                # An observer (a transcript being verified) has no clock: where the claim
                # stands in the file says nothing about time, so it is judged on the whole
                # log, once it is all in (the same for every order of the file that keeps
                # each author's own order).
                return False
            if not final and s.claim_of_us_waits(claim.message):
                return False
            verdict = self._check_silence(claim, final)
            if verdict is DISPUTED:
                s._abort(None, f"peer {peer} declared peer {claim.blame} silent at stage "
                               f"{claim.stage} and peer {claim.blame} signed that it was "
                               "not; no other peer's word decides between them",
                         kind=STOPPED, stage=claim.stage)
                return True
            if verdict is UNWITNESSED:
                s._abort(None, f"peer {peer} declared peer {claim.blame} silent at stage "
                               f"{claim.stage}, and no other peer signed in this file that it "
                               "saw the silence or that it did not: one peer's word names "
                               "nobody (a file cut after the claim looks the same)",
                         kind=STOPPED, stage=claim.stage)
                return True
            if verdict is True:
                self.abandoned([claim.blame], f"peer {peer} saw it silent too", claim.stage)
                return True
            if verdict is False:
                self._left(claim, f"it declared peer {claim.blame} silent at stage "
                                  f"{claim.stage}, but that peer's message for it is here or "
                                  "none was due")
                return True
            if final and not self._blocked_on(peer):
                # The log ends before that stage, held up by another peer: it cannot be
                # checked here, so it names nobody (the claimant did its part up to there).
                return False
        elif claim.box is not None and self._check_sealed_to_claimant(claim):
            return True
        if claim.kind == CORRUPT and claim.answer and s.me is None and not final:
            # An answer is judged by the alarm it answers, and in a file that alarm may come
            # after it (only each author's order holds): an observer waits for the whole log.
            return False
        if not final and self._accused_to_come(claim):
            # The accused's message for this stage is here and not taken yet: the stage loop
            # takes it first (it may hold the very fault claimed: a claimant still deciding
            # when it found it had nothing of its own to send for the stage).
            return False
        if final and s.stage is not None and peer not in s.stage.missing \
                and self._evidence_waiting(claim):
            # The log ends held up by another peer before the stage that takes the claim's
            # evidence: what it claims cannot be checked, so it names nobody (the claimant
            # did its part; a file cut there, or missing another's last message, proves
            # nothing).
            return False
        # An observer names a claimant that holds up the stage only at the log's end: a
        # proof against it may come later in the file (each author's order is all that
        # holds), and a proof weighs more than a claim left standing.
        if (self._blocked_on(peer) and s.me is not None) or final:
            self._left(claim, "its accusation does not check against our log"
                       if claim.blame is not None else "it stopped the game")
            return True
        return False

    def _evidence_waiting(self, claim: Claim) -> bool:
        """Some evidence message of the claim waits, not yet applied by a stage (in its
        author's queue, ahead of a gap, or collected by a stage still incomplete)."""
        s = self.session
        collected = list(s.stage.collected.values()) if s.stage is not None else []
        return any(m in s.queues[m.msg.seat] or m in s.future[m.msg.seat].values()
                   or m in collected for m in claim.evidence if 0 <= m.msg.seat < s.n)

    def _disputed_by(self, claim: Claim) -> set[int]:
        """The peers whose own claim is that ``claim`` does not check: it names the claim's
        sender, with that very abort as its evidence."""
        return {c.peer for c in self.claims.values()
                if c.kind == ABANDONED and c.blame == claim.peer and c is not claim
                and claim.message is not None and claim.message in c.evidence}

    def _about_its_abort(self, claim: Claim) -> bool:
        """The claim carries a genuine abort of the peer it names (its signature, this game)."""
        s = self.session
        return any(m.msg.seat == claim.blame and m.msg.type == "abort"
                   and m.msg.game == s.game_id and m.verify(s.msglog.keys[m.msg.seat])
                   for m in claim.evidence)

    def _accused_to_come(self, claim: Claim) -> bool:
        """The current stage needs the accused, and its next message is in its queue."""
        s, accused = self.session, claim.blame
        return (accused is not None and s.stage is not None and accused in s.stage.missing
                and bool(s.queues[accused]) and s.queues[accused][0].msg.type != "abort")

    def _blocked_on(self, peer: int) -> bool:
        """The current stage needs ``peer``, and all it sent for it is an abort."""
        s = self.session
        return (s.stage is not None and peer in s.stage.missing
                and bool(s.queues[peer]) and s.queues[peer][0].msg.type == "abort")

    def _left(self, claim: Claim, why: str) -> None:
        s = self.session
        said = f" (it said: {claim.reason[:200]!r})" if claim.reason else ""
        # A claim of our own silence: our message went out, but when it reached the claimant
        # only the others can tell (we may have been stalled). We sign that the claim does
        # not check, as any peer would, and name nobody ourselves.
        disputed = claim.kind == ABANDONED and claim.blame is not None \
            and claim.blame == s.me
        # The stage after the last one it contributed to, by our log: the same at every
        # honest peer (they hold the same messages of it), wherever each one is now.
        stages = [m.msg.body.get("stage") for m in s.msglog.messages
                  if m.msg.seat == claim.peer and m.msg.type != "abort"]
        numbers = [x for x in stages if isinstance(x, int) and not isinstance(x, bool)]
        stage = max(numbers) + 1 if numbers else s.stage_index
        # Its abort goes with ours: our claim is "its claim does not check", judged by
        # every receiver on that abort itself (never as a claim of silence at ``stage``,
        # which it may not even have been due in).
        evidence = [claim.message.to_json()] if claim.message is not None else None
        reason = (f"peer {claim.peer} declared us silent at stage {claim.stage}; our message "
                  "for it went out, but only the other peers can tell whether it reached them "
                  "in time, so we name nobody (we sign that the claim does not check)"
                  if disputed else f"abandoned by peer {claim.peer} at stage {stage}: it "
                                   f"stopped the game and {why}{said}")
        s._abort(claim.peer, reason, kind=ABANDONED, stage=stage, evidence=evidence,
                 disputed=disputed)

    def _check_silence(self, claim: Claim,
                       final: bool = False) -> bool | _Disputed | _Unwitnessed | None:
        """Does our log agree that ``claim.blame`` sent nothing for stage ``claim.stage``?
        True: agreed; False: refuted; None: not yet known (we are not that far yet, or our
        own deadline for it there has not passed: its message may still come). An observer
        re-checking a transcript agrees only at the log's end (``final``)."""
        s = self.session
        silent = claim.blame
        assert silent is not None
        if s.me is None:
            # A transcript has no clock: what decides is what the peers signed about it.
            disputes = self._disputed_by(claim)
            if self._unanimous(silent, claim.stage) and not (s.n == 2 and silent in disputes):
                # Every other peer signing that it saw the silence is the observation
                # itself, even if the late message came in after the verdicts (with two
                # peers, one word: the accused's signed dispute stands against it).
                return True
            if disputes - {silent}:
                return False  # a witness signed that it does not check: as it was live
            if silent in disputes:
                return DISPUTED  # claim against claim, and no witness
        held = [*s.msglog.messages, *s.future[silent].values()]
        if s.me is not None and silent == s.me:
            # Our own silence: our own measure of ourselves proves nothing (a stalled
            # machine does not see its own stall). Once our message is out we dispute it.
            return False if any(m.msg.seat == silent and m.msg.type != "abort"
                                and m.msg.body.get("stage") == claim.stage
                                for m in held) else None
        if any(m.msg.seat == silent and m.msg.type != "abort"
               and m.msg.body.get("stage") == claim.stage for m in held):
            # Its message refutes the stage's deadline, not a game clock it had overdrawn
            # (by our own measure) before the message came.
            return s.me is not None and s.came_overdrawn(silent, claim.stage)
        if s.future[silent]:
            # Later messages of it wait for a gap in its sequence: the missing one may be its
            # message for that stage. Silence is not seen, so it is not agreed to.
            return None
        if s.stage_index < claim.stage:
            return None
        if s.stage_index > claim.stage or s.stage is None:
            return False
        if silent not in s.stage.missing:
            return False
        if s.me is None:
            # Not every other peer signed that it saw the silence (that was agreed above):
            # at three or more, the live table may have refuted the claim in aborts that the
            # file lost, so the claimant's word alone names nobody.
            return UNWITNESSED if final else None
        return True if s.due(silent, claim.stage) else None

    def _unanimous(self, silent: int, stage: int) -> bool:
        """Every peer but ``silent`` signed a claim that it was silent at ``stage``."""
        s = self.session
        said = {m.msg.seat for m in s.msglog.messages
                if m.msg.type == "abort" and m.msg.body.get("kind") == ABANDONED
                and m.msg.body.get("blame") == silent and m.msg.body.get("stage") == stage}
        return all(p in said for p in range(s.n) if p != silent)

    def _check_private(self, claim: Claim) -> bool:
        """The claimant opened its box key: check every key the accused sealed to it in the
        evidence's ``keys`` messages, once we have processed them."""
        s = self.session
        accused = claim.blame
        if accused is None or not s.seat_of_peer or s.deck is None:
            claim.checked_private = True
            return False
        to = s.seat_of_peer[claim.peer]
        author = s.seat_of_peer[accused]
        boxes = {sealed.box: sealed for sealed in s.private_log
                 if sealed.author == author and sealed.to == to}
        wanted = [m for m in claim.evidence if m.msg.seat == accused and m.msg.type == "keys"]
        pending = [m for m in wanted if s.msglog.get(accused, m.msg.seq) == m]
        sealed_texts = [m.msg.body.get("private", {}).get(str(to)) for m in pending
                        if isinstance(m.msg.body.get("private"), dict)]
        if not wanted or any(t not in boxes for t in sealed_texts if isinstance(t, str)):
            if not wanted:
                claim.checked_private = True
            return False  # not processed yet
        claim.checked_private = True
        try:
            key = parse_secret_key(to, claim.box, s.box_public[claim.peer])
        except RemoteProtocolError:
            return False
        for text in sealed_texts:
            if not isinstance(text, str):
                continue
            sealed = boxes[text]
            try:
                keys = parse_json(unseal(key, author, text))
                if not isinstance(keys, list) or len(keys) != len(sealed.slots):
                    raise RemoteProtocolError(author, "sealed keys do not match the slots due")
                for slot, data in zip(sealed.slots, keys, strict=True):
                    # Against what the key had to be when it was sealed, never the slot's
                    # state now (re-masked or put back since: an honest key stays right).
                    s.deck.check_disclosed_key(author, to, slot, deck_data(author, data))
            except (ValueError, CanonicalEncodingError, UnicodeDecodeError):
                return self._proven(claim, "its sealed keys are not JSON")
            except RemoteProtocolError as exc:
                return self._proven(claim, exc.reason)
        return False

    def _check_sealed_to_claimant(self, claim: Claim) -> bool:
        """What the accused sealed to the claimant, opened with the box key the claim
        carries: its escrow share, or its slot keys (True: the fault is proven)."""
        if not claim.checked_escrow and self._check_escrow(claim):
            return True
        return (not claim.checked_private and self.session.deck is not None
                and self._check_private(claim))

    def _check_escrow(self, claim: Claim) -> bool:
        """The claimant opened its box key: check the escrow share the accused sealed to it
        (in the accused's ``setup/reveal``, in the evidence), once that is in our log."""
        s = self.session
        accused = claim.blame
        reveal = next((m for m in claim.evidence if m.msg.seat == accused
                       and m.msg.type == StageKind.SETUP_REVEAL), None)
        if accused is None or reveal is None:
            claim.checked_escrow = True
            return False
        if s.msglog.get(accused, reveal.msg.seq) != reveal or claim.peer not in s.escrow_public:
            return False  # not processed yet
        claim.checked_escrow = True
        try:
            key = parse_secret_key(claim.peer, claim.box, s.escrow_public[claim.peer])
            entries = parse_escrow(accused, reveal.msg.body.get("escrow"),
                                   [p for p in range(s.n) if p != accused])
            box, commitment = entries[claim.peer]
            open_share(s.game_id, accused, claim.peer, key, box, commitment)
        except RemoteProtocolError as exc:
            if exc.seat != accused:
                return False  # the claimant's box key is not its own: the claim fails
            s._abort(accused, f"{exc.reason} (opened with the box key peer {claim.peer} "
                              "revealed)", evidence=[reveal.to_json()])
            return True
        return False

    def _proven(self, claim: Claim, reason: str) -> bool:
        s = self.session
        evidence = [m.to_json() for m in claim.evidence if m.msg.seat == claim.blame]
        s._abort(claim.blame, f"{reason} (keys sealed to peer {claim.peer}, opened with the "
                              "box key it revealed)", evidence=evidence)
        return True
