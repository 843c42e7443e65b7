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
  sealed keys itself and checks them against their public commitments.
- **Observation** (verdict ABANDONED). A peer that misses a stage's deadline (``clock.py``)
  is declared silent: ``{"kind": "abandoned", "blame": X, "stage": s}``. A receiver agrees
  when, in its own log, X has no message for stage s either; it finds the claim false when it
  holds X's message for stage s, or X had nothing to send in stage s.
- **A claim that does not check** counts as its sender leaving the game: when a receiver needs
  the sender's next message and finds only its abort, the sender is declared to have
  abandoned the game at that stage (never the peer it accused).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engine.canonical import CanonicalEncodingError, canonical_json, parse_json
from p2p.crypto.sealed import parse_secret_key, unseal
from p2p.deck.messages import parse_deck_message
from p2p.errors import RemoteProtocolError
from p2p.session.bodies import deck_data
from p2p.session.envelope import SignedMessage
from p2p.session.events import ABANDONED, UNFAIR

if TYPE_CHECKING:
    from p2p.session.machine import GameSession

MAX_EVIDENCE = 8  # signed messages taken from one abort's evidence


@dataclass
class Claim:
    """One peer's abort, parsed leniently: a junk body is just a claim that proves nothing."""

    peer: int
    kind: str
    blame: int | None
    stage: int
    reason: str
    evidence: list[SignedMessage] = field(default_factory=list)
    box: str | None = None
    checked_private: bool = False


def parse_claim(session: GameSession, signed: SignedMessage) -> Claim:
    body = signed.msg.body
    n = session.n
    blame = body.get("blame")
    if not (isinstance(blame, int) and not isinstance(blame, bool) and 0 <= blame < n):
        blame = None
    stage = body.get("stage")
    if not isinstance(stage, int) or isinstance(stage, bool):
        stage = -1
    kind = body.get("kind") if body.get("kind") in (UNFAIR, ABANDONED) else "stopped"
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
    return Claim(signed.msg.seat, kind, blame, stage, reason if isinstance(reason, str) else "",
                 evidence, box)


class Referee:
    """Re-checks every abort a session receives; decides when a claim is proven, agreed with,
    or false (then its sender has left)."""

    def __init__(self, session: GameSession) -> None:
        self.session = session
        self.claims: dict[int, Claim] = {}

    # -- the session's own verdicts ----------------------------------------------------------

    def abandoned(self, peers: list[int], why: str) -> None:
        """``peers`` missed the current stage: stop, naming the first (all are listed)."""
        s = self.session
        names = ", ".join(f"peer {p}" for p in peers)
        kind = s.stage.kind if s.stage is not None else "?"
        s._abort(peers[0], f"abandoned by {names} at stage {s.stage_index} ({kind}): {why}",
                 kind=ABANDONED)

    # -- other peers' claims -----------------------------------------------------------------

    def settle(self, final: bool = False) -> bool:
        """Look at every abort received; True if the session stopped. ``final``: no more
        messages will come (the end of a transcript)."""
        s = self.session
        for peer in range(s.n):
            if peer not in self.claims:
                stop = next((m for m in s.queues[peer] if m.msg.type == "abort"), None)
                if stop is None:
                    continue
                claim = self.claims[peer] = parse_claim(s, stop)
                for signed in claim.evidence:
                    s.absorb(signed)
                if s.finished:
                    return True
        for claim in self.claims.values():
            if self._resolve(claim, final):
                return True
        return s.finished

    def _resolve(self, claim: Claim, final: bool) -> bool:
        s = self.session
        peer = claim.peer
        if claim.kind == ABANDONED and claim.blame is not None and claim.blame != peer:
            verdict = self._check_silence(claim)
            if verdict is True:
                s.referee.abandoned([claim.blame], f"peer {peer} saw it silent too")
                return True
            if verdict is False:
                self._left(claim, f"it declared peer {claim.blame} silent at stage "
                                  f"{claim.stage}, but that peer's message for it is here or "
                                  "none was due")
                return True
        elif (claim.box is not None and not claim.checked_private and s.deck is not None
              and self._check_private(claim)):
            return True
        if self._blocked_on(peer) or final:
            self._left(claim, "its accusation does not check against our log"
                       if claim.blame is not None else "it stopped the game")
            return True
        return False

    def _blocked_on(self, peer: int) -> bool:
        """The current stage needs ``peer``, and all it sent for it is an abort."""
        s = self.session
        return (s.stage is not None and peer in s.stage.missing
                and bool(s.queues[peer]) and s.queues[peer][0].msg.type == "abort")

    def _left(self, claim: Claim, why: str) -> None:
        s = self.session
        said = f" (it said: {claim.reason[:200]!r})" if claim.reason else ""
        s._abort(claim.peer, f"abandoned by peer {claim.peer} at stage {s.stage_index}: it "
                             f"stopped the game and {why}{said}", kind=ABANDONED)

    def _check_silence(self, claim: Claim) -> bool | None:
        """Does our log agree that ``claim.blame`` sent nothing for stage ``claim.stage``?
        True: agreed; False: refuted; None: we are not that far yet."""
        s = self.session
        silent = claim.blame
        assert silent is not None
        if any(m.msg.seat == silent and m.msg.type != "abort"
               and m.msg.body.get("stage") == claim.stage for m in s.msglog.messages):
            return False
        if s.stage_index < claim.stage:
            return None
        if s.stage_index > claim.stage or s.stage is None:
            return False
        return silent in s.stage.missing

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
                    message = parse_deck_message(author, deck_data(author, data))
                    if getattr(message, "slot", None) != slot or \
                            getattr(message, "to", None) != to:
                        raise RemoteProtocolError(author, f"sealed key is not for slot {slot}")
                    s.deck.check_slot_key(author, slot, message.key, data)  # type: ignore[attr-defined]
            except (ValueError, CanonicalEncodingError, UnicodeDecodeError):
                return self._proven(claim, "its sealed keys are not JSON")
            except RemoteProtocolError as exc:
                return self._proven(claim, exc.reason)
        return False

    def _proven(self, claim: Claim, reason: str) -> bool:
        s = self.session
        evidence = [m.to_json() for m in claim.evidence if m.msg.seat == claim.blame]
        s._abort(claim.blame, f"{reason} (keys sealed to peer {claim.peer}, opened with the "
                              "box key it revealed)", evidence=evidence)
        return True
