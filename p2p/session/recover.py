"""Recovering an abandoned seat from the escrow (``p2p.session.escrow``): at a table that
escrows its secrets, a peer that names another abandoned publishes its share of that peer's
master with the claim; once every remaining peer has claimed the same seat abandoned at the
same stage, each peer (and ``solstice verify``) rebuilds the secret, checks it against the
leaver's commitments and plays the seat as a ghost (``p2p.session.handover``). See protocol.md,
"Leaving without a word: the escrow".

A claimant is committed: until the seat is recovered, or its wait for the others' shares runs
out (then the game stops with the abandonment it claimed, as at a table without escrow), it
takes nothing from the peer it gave up, and nothing from the others past their claims or the
stage it claimed at (held, and taken once the seat is recovered), just as a stopped peer takes
nothing more into its log.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from nacl.public import PrivateKey

from p2p.errors import RemoteProtocolError
from p2p.session.escrow import EscrowShare, open_share, parse_escrow, share_commitment, xor
from p2p.session.events import ABANDONED, UNFAIR, LogLine, Peer, SeatHandedOver
from p2p.session.fields import SessionFields
from p2p.session.ghostseat import GHOST_BOT, Ghost
from p2p.session.inbox import MAX_QUEUED
from p2p.session.secrets import escrow_key_of
from p2p.session.stages import StageKind
from p2p.session.timing import STEP

if TYPE_CHECKING:
    from collections.abc import Sequence

    from p2p.session.bodies import SetupRevealBody
    from p2p.session.envelope import SignedMessage

ESCROW_NOTE = ("this table escrows every player's secret: a player named abandoned is played "
               "on by the ghost bot, open-handed, once every other player has published its "
               "share (all of them together could open any player's cards)")


@dataclass(frozen=True)
class EscrowClaim:
    """Our claim of a seat, waiting for the others': the stage it was sent in (by which the
    claims are matched), the stage of its verdict, and since when its wait runs (None: it
    was replayed after a restart, and runs from the first tick after we caught up)."""

    sent_at: int
    stage: int
    since: float | None


def _claims(signed: SignedMessage, peer: int, stage: int) -> bool:
    """``signed`` is an abort sent in ``stage`` that names ``peer`` abandoned."""
    body = signed.msg.body
    return (signed.msg.type == "abort" and body.get("kind") == ABANDONED
            and body.get("blame") == peer and type(body.get("stage")) is int
            and body.get("stage") == stage)


def _claims_another(signed: SignedMessage, given_up: int, me: int) -> bool:
    """``signed`` is an escrow claim of a seat other than ``given_up``'s and ours."""
    body = signed.msg.body
    blame = body.get("blame")
    return (signed.msg.type == "abort" and body.get("kind") == ABANDONED and "escrow" in body
            and type(blame) is int and blame not in (given_up, me)
            and type(body.get("stage")) is int)


class Recoveries(SessionFields):
    """The escrow at the start, the claims with shares, and the recovery of a seat."""

    # -- at the start -----------------------------------------------------------------------

    def _take_escrows(self, bodies: Sequence[tuple[int, SetupRevealBody]]) -> None:
        """Every peer's escrow (in ``setup/reveal``): its commitments, and our share of it
        opened and checked (a share that does not open its commitment names its author; our
        abort then carries our escrow key so that every peer can check it)."""
        if not self.escrow:
            for peer, body in bodies:
                if body.escrow is not None:
                    raise RemoteProtocolError(peer, "escrow shares at a table without escrow")
            return
        my_box = self._escrow_key()
        for peer, body in bodies:
            entries = parse_escrow(peer, body.escrow, [p for p in range(self.n) if p != peer])
            self.escrow_boxes[peer] = dict(entries)
        for peer in range(self.n):
            if my_box is not None and self.me is not None and peer != self.me:
                box, commitment = self.escrow_boxes[peer][self.me]
                self.escrow_held[peer] = open_share(self.game_id, peer, self.me, my_box, box,
                                                    commitment)

    def _escrow_key(self) -> PrivateKey | None:
        """What the escrow shares for us are sealed to (None: an observer, or a ghost)."""
        if self.identity is None or self.me is None:
            return None
        return escrow_key_of(self.identity, self.game_id, self.msglog.keys)

    # -- claiming a seat abandoned ----------------------------------------------------------

    def _escrow_claim(self, peer: Peer | None, reason: str, evidence: Any,
                      stage: int) -> bool:
        """Our verdict that ``peer`` abandoned the game at ``stage``, at a table with escrow:
        sent as a claim with our share of its secret, and the game is not over (True); False
        when the escrow does not apply (the abandonment stops the game). A verifier's verdict
        waits the same way, for the others' claims in the file (to its end)."""
        if (not self.escrow or peer is None or peer == self.me or self.ghosts
                or peer not in self.escrow_boxes or self.log_ended
                or (self.me is not None and peer not in self.escrow_held)):
            return False
        if self.escrow_claims:
            return True  # committed to one recovery already: nothing else is judged now
        # The claim is matched with the others' by the stage it is sent in (its ``stage``, as
        # every abort's): the verdict's own stage is kept for when the claim stands.
        self.escrow_claims[peer] = EscrowClaim(self.stage_index, stage,
                                               None if self.replaying else self.clock.now)
        self.events.append(LogLine(f"peer {peer} abandoned the game at stage {stage}: we "
                                   "publish our share of its escrow; its seat is played on "
                                   "by the ghost bot once every other player has too"))
        if self.me is not None and not self.replaying:
            self._send("abort", {"kind": ABANDONED, "blame": peer, "reason": reason[:500],
                                 "evidence": evidence,
                                 "escrow": self.escrow_held[peer].to_json()})
        return True

    def give_up_on(self, peers: Sequence[int]) -> bool:
        """The driver gave up waiting for ``peers`` (they did not come back within its grace
        period): at a table with escrow they are claimed abandoned, to be recovered (True);
        False at a table without (the driver stops the game, to be resumed)."""
        if not self.escrow or self.me is None or self.finished:
            return False
        if (len({*peers, *self.escrow_claims}) > 1 or self.ghosts
                or any(p not in self.escrow_held for p in peers)):
            # A recovery needs the share of every other player: with two gone, a ghost's
            # share out of reach, or no escrow made yet, none can be made now, so the game
            # stops as it would without the escrow, for now (our claim, if made, stands
            # when it is resumed).
            return False
        for peer in peers:
            if peer not in self.escrow_claims:
                self.referee.abandoned([peer], "did not come back within the grace period")
        self._pump()  # the others' claims may be in already: ours completes the recovery
        return True

    def claimed_by_others(self, peer: int) -> bool:
        """Another remaining peer's claim of ``peer``'s seat, with its share, is in (its first
        abort, queued): the table saw ``peer`` gone, and a recovery may be under way."""
        if not self.escrow or self.ghosts or self.finished:
            return False
        for other in range(self.n):
            if other in (peer, self.me):
                continue
            first = next((m for m in self.queues[other] if m.msg.type == "abort"), None)
            stage = first.msg.body.get("stage") if first is not None else None
            if first is not None and type(stage) is int and "escrow" in first.msg.body \
                    and _claims(first, peer, stage):
                return True
        return False

    def claim_of_us_waits(self, abort: SignedMessage | None) -> bool:
        """Restarted, we judge no escrow claim of our own silence before we have caught up
        (and only if we had not judged one before the restart): the others' claims come in
        whole first, so a recovery of our seat all of them agreed to is taken, even when our
        log holds our message for that stage, stored but never sent before we died."""
        return (abort is not None and self.escrow and self.replaying and self.me is not None
                and abort.msg.body.get("blame") == self.me and "escrow" in abort.msg.body
                and not any(m.msg.seat == self.me and m.msg.type == "abort"
                            for m in self.msglog.messages))

    def escrow_waits_for(self) -> list[int]:
        """While our claim waits: the peers whose claim of the same seat is not in yet."""
        if not self.escrow_claims:
            return []
        ((given_up, claim),) = self.escrow_claims.items()
        return [p for p in range(self.n)
                if p not in (given_up, self.me) and p not in self.ghosts
                and not any(_claims(m, given_up, claim.sent_at) for m in self.queues[p])]

    def _escrow_holds(self, signed: SignedMessage) -> bool:
        """While our claim waits for the others' shares: True if ``signed`` is not taken now
        (a message of the peer we gave up is dropped; one past another peer's claim or our
        stage is held for after the recovery)."""
        if self.me is None or not self.escrow_claims:
            return False
        ((given_up, claim),) = self.escrow_claims.items()
        stage = claim.sent_at
        author = signed.msg.seat
        if author == given_up:
            return True
        if author == self.me or author in self.ghosts:
            return False
        held = [m for m in self.escrow_waiting if m.msg.seat == author]
        claimed = bool(held) or any(m.msg.type == "abort" for m in self.queues[author])
        if not claimed and signed.msg.type == "abort":
            if _claims(signed, given_up, stage) or _claims_another(signed, given_up, self.me):
                # Another remaining peer's claim of another seat: two players are gone, and
                # no recovery can be made now. It is taken as it would have been had it come
                # before ours: both claims wait, and the driver's grace period stops the game
                # for now, naming nobody (before: our claim stood alone as a final verdict,
                # by which of two simultaneous claims happened to arrive first).
                return False
            self._escrow_stops(f"peer {author} stopped the game otherwise")
            return True
        at = signed.msg.body.get("stage")
        if not claimed and type(at) is int and at <= stage:
            return False
        if len(held) < MAX_QUEUED and all(m.msg != signed.msg for m in held):
            self.escrow_waiting.append(signed)  # (checked like any message when taken)
        return True

    def _escrow_overdue(self, now: float) -> bool:
        """Our wait for the others' shares ran out: the game stops (True)."""
        if not self.escrow_claims:
            return False
        ((peer, claim),) = self.escrow_claims.items()
        if claim.since is None or any(p in self.away for p in self.escrow_waits_for()):
            # No deadline runs against a peer that is away: its claim's time starts when it
            # is back (the driver's grace period bounds the absence: then the game stops
            # for now, and the claim stands when it is resumed). A claim replayed after our
            # restart waits afresh from when we caught up, never from a clock of before.
            self.escrow_claims[peer] = replace(claim, since=now)
            return False
        if now - claim.since <= self.timing.limit(STEP) + self.timing.grace:
            return False
        self._escrow_stops("not every other peer published its share in time")
        return True

    def _escrow_stops(self, why: str) -> None:
        """The seat we claimed cannot be recovered: our claim stands as the verdict."""
        ((peer, claim),) = self.escrow_claims.items()
        self.escrow_claims.clear()
        self.escrow_waiting.clear()
        self._abort(peer, f"abandoned by peer {peer} at stage {claim.stage}; its escrow was "
                          f"not opened: {why}", kind=ABANDONED, stage=claim.stage, final=True)

    def _escrow_waits(self, peer: Peer) -> bool:
        """Do not take ``peer``'s messages: we claimed it abandoned (a verifier: its own
        verdict did, and waits for the others' claims). A claimant drops the messages of the
        peer it gave up, so a file that holds that peer's message for the stage comes from a
        peer that went on with it, and a verifier (whose referee then finds no silence) takes
        it like any other."""
        return peer in self.escrow_claims

    # -- recovering ---------------------------------------------------------------------------

    def _recover(self) -> bool:
        """Recover a seat once every remaining peer's first abort claims it abandoned, all
        sent in one stage that we have reached (True: recovered, or the game stopped on what
        the shares show)."""
        if (not self.escrow or self.finished or self.stage is None or not self.escrow_boxes
                or self.ghosts):
            return False  # (with a ghost at the table, its share is out of reach: no recovery)
        firsts = {p: next((m for m in self.queues[p] if m.msg.type == "abort"), None)
                  for p in range(self.n) if p not in self.ghosts}
        for peer in sorted(firsts):
            others = {p: m for p, m in firsts.items() if p != peer}
            first = next(iter(others.values()), None)
            at = first.msg.body.get("stage") if first is not None else None
            if (not others or type(at) is not int or at > self.stage_index
                    or not all(m is not None and _claims(m, peer, at)
                               for m in others.values())):
                continue
            if peer != self.me and not self._taken_all_of(peer, others):
                continue
            self._open_escrow(Peer(peer), at, {p: m for p, m in others.items()
                                               if m is not None})
            return True
        return False

    def _taken_all_of(self, peer: int, claims: dict[int, SignedMessage | None]) -> bool:
        """We hold of ``peer`` what its claimants did when they claimed: its messages for the
        stages before (it was missing in the stage they claimed in), and none after them
        queued but its own stop. A verifier reads a file in any order: it also waits until it
        has read each claim, with its evidence (which carries that stop), and until nothing of
        ``peer`` waits ahead of a gap (a live peer holds there what never reached its log,
        and so is in no file)."""
        queue = self.queues[peer]
        if queue and queue[0].msg.type != "abort":
            return False
        return self.me is not None or (
            not self.future[peer]
            and all(self.referee.claims.get(p) is not None
                    and self.referee.claims[p].message == m for p, m in claims.items()))

    def _open_escrow(self, peer: Peer, at: int, claims: dict[int, SignedMessage]) -> None:
        if peer == self.me:  # the others took our seat over while we were away
            self.left = True
            self.events.append(SeatHandedOver(peer, self.seat_of_peer[peer],
                                              self.stage_rounds[at - 1], at, GHOST_BOT,
                                              mine=True, escrow=True))
            return
        escrow = [m.to_json() for m in self.msglog.messages
                  if m.msg.seat == peer and m.msg.type == StageKind.SETUP_REVEAL]
        shares = []
        for other, claim in sorted(claims.items()):
            raw = claim.msg.body.get("escrow")
            if raw is None:
                return self._recovery_fails(other, ABANDONED, f"it declared peer {peer} "
                                            "abandoned but did not publish its escrow share",
                                            [claim.to_json()], at)
            try:
                share = EscrowShare.parse(other, raw)
            except RemoteProtocolError as exc:
                return self._recovery_fails(other, UNFAIR, exc.reason, [claim.to_json()], at)
            if share_commitment(self.game_id, peer, other, share) \
                    != self.escrow_boxes[peer][other][1]:
                return self._recovery_fails(
                    other, UNFAIR, f"its escrow share of peer {peer} does not open the "
                    f"commitment peer {peer} made", [claim.to_json(), *escrow], at)
            shares.append(share.share)
        master = xor(shares)
        problem = self._handover_mismatch(peer, master)
        if problem is not None:
            return self._recovery_fails(
                peer, UNFAIR, f"its escrow does not rebuild its secret: {problem}",
                [*escrow, *(c.to_json() for c in claims.values())], at)
        for other, claim in claims.items():
            self.queues[other].remove(claim)
            self.recovered.add((other, claim.msg.seq))
            self.referee.claims.pop(other, None)
        self.escrow_claims.clear()
        taken = self.msglog.next_seq(peer) - len(self.queues[peer])
        self.queues[peer].clear()
        self.referee.claims.pop(peer, None)  # (what it claimed is not judged any more)
        ghost = self._new_ghost(peer, master)
        ghost.replaying = True
        record = Ghost(ghost, peer, None, taken, self.stage_rounds[at - 1], at,
                       len(self.actions), by="escrow")
        self.ghosts[peer] = record
        self._feed(record)
        ghost.replaying = False
        self.events.append(SeatHandedOver(peer, self.seat_of_peer[peer], record.round, at,
                                          GHOST_BOT, escrow=True))
        self.clock.enter_stage()
        waiting, self.escrow_waiting = self.escrow_waiting, []
        for signed in sorted(waiting, key=lambda m: (m.msg.seat, m.msg.seq)):
            self.absorb(signed)

    def _recovery_fails(self, peer: int, kind: str, reason: str, evidence: Any,
                        at: int) -> None:
        self.escrow_claims.clear()
        self.escrow_waiting.clear()
        self._abort(Peer(peer), f"the escrow was opened and shows: {reason}", evidence,
                    kind=kind, stage=at, final=True)
