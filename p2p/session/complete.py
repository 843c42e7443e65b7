"""Completing a stage: every contribution is in; the bodies are parsed (in seat order) and
applied to the setup, the deck and the engine, one ``_done_<kind>`` per stage kind, named in
the stage table (``stage_table``). A fault raises an error naming the seat at fault;
``GameSession._pump`` turns it into an abort that names the peer."""

from __future__ import annotations

from collections.abc import Sequence

from engine import (
    Action,
    IllegalActionError,
    Pick,
    Shuffle,
    apply_in_place,
    new_game,
    random_config,
    reveal_in_place,
)
from p2p.crypto.commitments import Opening, check_opening
from p2p.crypto.sealed import box_key
from p2p.deck.deck import Deck
from p2p.errors import RemoteProtocolError
from p2p.session.audit import AuditRecord, audit_game
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
    deck_data,
)
from p2p.session.envelope import SignedMessage
from p2p.session.events import STOPPED, GameOver, LogLine, Peer, Seat
from p2p.session.fields import SessionFields
from p2p.session.opening import Opens, take_keys
from p2p.session.recover import ESCROW_NOTE
from p2p.session.remask import apply_remasks
from p2p.session.secrets import PICK_DOMAIN, deck_keys, pick_value
from p2p.session.stages import PickReveal, PickRound, Stage, StageKind, ToAct
from p2p.session.timing import parse_clock


class Completions(SessionFields):
    """What each stage kind does once complete."""

    def _seat_order(self, stage: Stage) -> list[tuple[int, SignedMessage]]:
        """Collected messages as (seat, message) in seat order (peer order before seats)."""
        if not self.seat_of_peer:
            return sorted(stage.collected.items())
        return sorted(((self.seat_of_peer[p], m) for p, m in stage.collected.items()),
                      key=lambda x: x[0])

    def _complete(self, stage: Stage) -> None:
        """Parse every body (the one place a stage body is parsed, in seat order, so the
        first bad one blames the same seat in every peer) and apply the stage."""
        spec = stage.spec
        bodies = [(seat, spec.body.parse(seat, signed.msg.body))
                  for seat, signed in self._seat_order(stage)]
        spec.complete(self, stage, bodies)

    def _done_setup_commit(self, stage: Stage,
                           bodies: Sequence[tuple[int, SetupCommitBody]]) -> None:
        for peer, body in bodies:
            self.setup.receive(peer, body.seed)
            self.box_public[peer] = body.box
        # The host (peer 0) sets the table's clock and the escrow; anyone else's is ignored.
        timing = parse_clock(0, bodies[0][1].clock, self.timing)
        escrow = bodies[0][1].escrow and self.n >= 3
        agreed = self.agreed_terms
        if agreed is not None and self.me not in (None, 0) and (
                timing.to_json() != agreed.timing.to_json() or escrow != agreed.escrow):
            # Not the table we agreed to in its lobby: we leave before any share of ours is
            # sent. (The welcome is not signed: this proves nothing to the others.)
            self._abort(None, "the host's table is not the one its lobby showed (clock "
                              f"{timing.describe()}; escrow {'on' if escrow else 'off'}): we "
                              "leave the game", kind=STOPPED)
            return
        self._set_timing(timing)
        self.escrow = escrow
        if self.escrow:
            for peer, body in bodies:
                if body.escrow_box is None:
                    raise RemoteProtocolError(peer, "no escrow box key at a table with escrow")
                self.escrow_public[peer] = body.escrow_box
            self.events.append(LogLine(ESCROW_NOTE))

    def _done_setup_reveal(self, stage: Stage,
                           bodies: Sequence[tuple[int, SetupRevealBody]]) -> None:
        for peer, body in bodies:
            self.setup.receive(peer, body.seed)
        self._take_escrows(bodies)
        stream = self.setup.stream()
        order = stream.permutation(self.n)
        self.seat_of_peer = [Seat(seat) for seat in order]
        self.peer_of_seat = [Peer(order.index(seat)) for seat in range(self.n)]
        self.config = random_config(self.n, stream)
        self.card_ids = self.config.card_ids()
        keys = None
        if self.me is not None:
            keys = deck_keys(self.master, self.game_id)
        self.deck = Deck(self.game_id, self.n, len(self.card_ids), self.my_seat, keys)
        if keys is not None:
            self.deck.commit_message()  # a restarted peer replays instead of contributing
        self.events.append(LogLine(f"Planets: {', '.join(self.config.planets)}; events: "
                                          f"{', '.join(self.config.events)}"))

    def _done_deck_commit(self, stage: Stage, bodies: Sequence[tuple[int, DeckBody]]) -> None:
        assert self.deck is not None
        for seat, body in bodies:
            self.deck.receive(seat, body.deck)

    def _done_deck_step(self, stage: Stage, bodies: Sequence[tuple[int, DeckBody]]) -> None:
        deck = self.deck
        assert deck is not None and self.config is not None
        for seat, body in bodies:
            deck.receive(seat, body.deck)
        if deck.turn is not None:
            return
        if self.engine is None:
            self.engine = new_game(self.config, None)
            self.events.append(LogLine("Deck shuffled by every peer; dealing"))
        else:
            self._apply(Shuffle(None), None)

    def _done_keys(self, stage: Stage, bodies: Sequence[tuple[int, KeysBody]]) -> None:
        assert self.deck is not None and self.engine is not None
        my_box = box_key(self.master, self.game_id) if self.me is not None else None
        seen = take_keys(self.deck, stage.param(Opens), bodies, self.my_seat, my_box,
                         self.private_log)
        reveal_in_place(self.engine, {slot: self.card_ids[card] for slot, card in seen.items()})

    def _done_remask(self, stage: Stage, bodies: Sequence[tuple[int, DeckBody]]) -> None:
        assert self.deck is not None and self.engine is not None
        self.actions += apply_remasks(self.deck, self.engine, self.my_seat,
                                      [(seat, body.deck) for seat, body in bodies])
        self.known_base = self.engine.known[:]  # fresh slots are known to their holder only
        self.remasked_round = self.engine.round

    def _done_chance_commit(self, stage: Stage, bodies: Sequence[tuple[int, SeedBody]]) -> None:
        assert self.chance_exchange is not None
        for seat, body in bodies:
            self.chance_exchange.receive(seat, body.seed)

    def _done_chance_reveal(self, stage: Stage, bodies: Sequence[tuple[int, SeedBody]]) -> None:
        exchange = self.chance_exchange
        assert exchange is not None and self.engine is not None and self.engine.chance
        for seat, body in bodies:
            exchange.receive(seat, body.seed)
        _, k = self.engine.chance
        self.chance_exchange = None
        self._apply(Shuffle(tuple(exchange.stream().permutation(k))), None)

    def _done_pick_commit(self, stage: Stage,
                          bodies: Sequence[tuple[int, PickCommitBody]]) -> None:
        assert self.deck is not None and self.engine is not None
        pick = stage.param(PickRound)
        remasks = []
        for seat, body in bodies:
            if seat in pick.seats:
                if body.remask is None:
                    raise RemoteProtocolError(seat, "field 'remask' must be a dict")
                remasks.append((seat, deck_data(seat, body.remask)))
            elif body.remask is not None:
                raise RemoteProtocolError(seat, "re-masked a hand nobody else could link")
        self.actions += apply_remasks(self.deck, self.engine, self.my_seat, remasks)
        self.known_base = self.engine.known[:]
        # The reveal stage follows at once for the same pickers.
        commitments = {self.peer_of_seat[seat]: body.commitment for seat, body in bodies}
        self.follow_up = self._stage(StageKind.PICK_REVEAL, list(stage.peers),
                                     PickReveal(pick.pickers, pick.pick, commitments))

    def _done_pick_reveal(self, stage: Stage,
                          bodies: Sequence[tuple[int, PickRevealBody]]) -> None:
        assert self.engine is not None
        reveal = stage.param(PickReveal)
        picks = []
        for seat, body in bodies:
            value = pick_value(self.game_id, seat, body.slots, reveal.pick)
            opening = Opening(PICK_DOMAIN, value, body.salt)
            check_opening(seat, reveal.commitments[self.peer_of_seat[seat]], opening,
                          PICK_DOMAIN)
            picks.append(Pick(seat, body.slots))
        for pick in picks:
            self._apply(pick, pick.seat)

    def _done_action(self, stage: Stage, bodies: Sequence[tuple[int, ActionBody]]) -> None:
        seat = stage.param(ToAct).seat
        ((_, body),) = bodies
        if body.action.seat != seat:
            raise RemoteProtocolError(seat, f"acted for seat {body.action.seat}")
        self._apply(body.action, seat)

    def _done_audit(self, stage: Stage, bodies: Sequence[tuple[int, AuditBody]]) -> None:
        for seat, body in bodies:
            self.openings[seat] = body.to_json()
        result = audit_game(self.audit_record())
        if self.ghosts:
            assert self.config is not None
            factions = self.config.factions
            left = {factions[self.seat_of_peer[peer]]: ghost.record()
                    for peer, ghost in sorted(self.ghosts.items())}
            result["left"] = left
            result["summary"] += "".join(
                f"; {faction} left at round {r['round']}, stage {r['stage']}"
                + (" (its secret rebuilt from the escrow)" if r["by"] == "escrow" else "")
                + f": seat played by the {r['bot']} ghost" for faction, r in left.items())
        self.result = result
        self.events.append(GameOver(self.result))

    def audit_record(self) -> AuditRecord:
        """What the end-of-game audit checks (once every seat's audit opening is in)."""
        assert self.deck is not None and self.config is not None and self.engine is not None
        return AuditRecord(self.game_id, self.n, self.config, self.card_ids, self.deck,
                           self.engine, tuple(self.actions), dict(self.openings),
                           dict(self.box_public), tuple(self.peer_of_seat),
                           tuple(self.private_log), self.my_seat)

    def _apply(self, action: Action, seat: int | None) -> None:
        """Apply an engine action; an illegal one is blamed on the seat that sent it."""
        assert self.engine is not None
        try:
            apply_in_place(self.engine, action)
        except IllegalActionError as exc:
            raise RemoteProtocolError(seat, f"illegal action {action.text()}: {exc}") from None
        self.actions.append(action)


