"""Completing a stage: every contribution is in, applied in seat order to the setup, the
deck and the engine (one ``_done_<kind>`` per stage kind). A fault raises an error naming the
seat at fault; ``GameSession._pump`` turns it into an abort that names the peer."""

from __future__ import annotations

from engine import (
    Action,
    IllegalActionError,
    MalformedActionError,
    Pick,
    Shuffle,
    action_from_dict,
    apply_in_place,
    new_game,
    random_config,
    reveal_in_place,
)
from p2p.crypto.commitments import Opening, check_opening
from p2p.crypto.sealed import box_key, parse_public_key
from p2p.deck.deck import Deck
from p2p.errors import RemoteProtocolError
from p2p.session.audit import AuditRecord, audit_game
from p2p.session.bodies import deck_data, field_of
from p2p.session.envelope import SignedMessage
from p2p.session.events import GameOver, LogLine, Peer, Seat
from p2p.session.fields import SessionFields
from p2p.session.opening import take_keys
from p2p.session.remask import apply_remasks
from p2p.session.secrets import PICK_DOMAIN, deck_keys, pick_value
from p2p.session.stages import Stage


class Completions(SessionFields):
    """What each stage kind does once complete."""

    def _seat_order(self, stage: Stage) -> list[tuple[int, SignedMessage]]:
        """Collected messages as (seat, message) in seat order (peer order before seats)."""
        if not self.seat_of_peer:
            return sorted(stage.collected.items())
        return sorted(((self.seat_of_peer[p], m) for p, m in stage.collected.items()),
                      key=lambda x: x[0])

    def _complete(self, stage: Stage) -> None:
        handler = getattr(self, "_done_" + stage.kind.replace("/", "_"))
        handler(stage)

    def _done_setup_commit(self, stage: Stage) -> None:
        for peer, signed in sorted(stage.collected.items()):
            body = signed.msg.body
            self.setup.receive(peer, field_of(peer, body, "seed", dict))
            self.box_public[peer] = parse_public_key(peer, body.get("box"))

    def _done_setup_reveal(self, stage: Stage) -> None:
        for peer, signed in sorted(stage.collected.items()):
            self.setup.receive(peer, field_of(peer, signed.msg.body, "seed", dict))
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

    def _done_deck_commit(self, stage: Stage) -> None:
        assert self.deck is not None
        for seat, signed in self._seat_order(stage):
            self.deck.receive(seat, deck_data(seat, field_of(seat, signed.msg.body, "deck", dict)))

    def _done_deck_step(self, stage: Stage) -> None:
        deck = self.deck
        assert deck is not None and self.config is not None
        for seat, signed in self._seat_order(stage):
            deck.receive(seat, deck_data(seat, field_of(seat, signed.msg.body, "deck", dict)))
        if deck.turn is not None:
            return
        if self.engine is None:
            self.engine = new_game(self.config, None)
            self.events.append(LogLine("Deck shuffled by every peer; dealing"))
        else:
            self._apply(Shuffle(None), None)

    def _done_keys(self, stage: Stage) -> None:
        assert self.deck is not None and self.engine is not None
        my_box = box_key(self.master, self.game_id) if self.me is not None else None
        seen = take_keys(self.deck, stage.info["opens"], self._seat_order(stage), self.my_seat,
                         my_box, self.private_log)
        reveal_in_place(self.engine, {slot: self.card_ids[card] for slot, card in seen.items()})

    def _done_remask(self, stage: Stage) -> None:
        assert self.deck is not None and self.engine is not None
        self.actions += apply_remasks(self.deck, self.engine, self.my_seat,
                                      self._seat_order(stage))
        self.known_base = self.engine.known[:]  # fresh slots are known to their holder only
        self.remasked_round = self.engine.round

    def _done_chance_commit(self, stage: Stage) -> None:
        assert self.chance_exchange is not None
        for seat, signed in self._seat_order(stage):
            self.chance_exchange.receive(seat, field_of(seat, signed.msg.body, "seed", dict))

    def _done_chance_reveal(self, stage: Stage) -> None:
        exchange = self.chance_exchange
        assert exchange is not None and self.engine is not None and self.engine.chance
        for seat, signed in self._seat_order(stage):
            exchange.receive(seat, field_of(seat, signed.msg.body, "seed", dict))
        _, k = self.engine.chance
        self.chance_exchange = None
        self._apply(Shuffle(tuple(exchange.stream().permutation(k))), None)

    def _done_pick_commit(self, stage: Stage) -> None:
        commitments = {}
        for peer, signed in stage.collected.items():
            seat: int = self.seat_of_peer[peer]  # errors name seats; _pump maps them to peers
            text = signed.msg.body.get("commitment")
            if not isinstance(text, str) or len(text) != 64:
                raise RemoteProtocolError(seat, "pick commitment must be 32 bytes of hex")
            try:
                commitments[peer] = bytes.fromhex(text)
            except ValueError:
                raise RemoteProtocolError(seat, "pick commitment is not hex") from None
        assert self.deck is not None and self.engine is not None
        remaskers = []
        for seat, signed in self._seat_order(stage):
            if seat in stage.info["seats"]:
                remaskers.append((seat, signed))
            elif "remask" in signed.msg.body:
                raise RemoteProtocolError(seat, "re-masked a hand nobody else could link")
        self.actions += apply_remasks(self.deck, self.engine, self.my_seat, remaskers, "remask")
        self.known_base = self.engine.known[:]
        # The reveal stage follows at once for the same pickers.
        self.follow_up = self._stage("pick/reveal", list(stage.peers), commitments=commitments,
                                     pick=stage.info["pick"], pickers=stage.info["pickers"])

    def _done_pick_reveal(self, stage: Stage) -> None:
        assert self.engine is not None
        picks = []
        for seat, signed in self._seat_order(stage):
            peer = self.peer_of_seat[seat]
            body = signed.msg.body
            slots = field_of(seat, body, "slots", list)
            salt_text = field_of(seat, body, "salt", str)
            try:
                salt = bytes.fromhex(salt_text)
            except ValueError:
                raise RemoteProtocolError(seat, "pick salt is not hex") from None
            value = pick_value(self.game_id, seat, slots, stage.info["pick"])
            opening = Opening(PICK_DOMAIN, value, salt)
            check_opening(seat, stage.info["commitments"][peer], opening, PICK_DOMAIN)
            if not all(isinstance(x, int) and not isinstance(x, bool) for x in slots):
                raise RemoteProtocolError(seat, "pick slots must be integers")
            picks.append(Pick(seat, tuple(slots)))
        for pick in picks:
            self._apply(pick, pick.seat)

    def _done_action(self, stage: Stage) -> None:
        seat = stage.info["seat"]
        (signed,) = stage.collected.values()
        try:
            action = action_from_dict(signed.msg.body.get("action"))
        except MalformedActionError as exc:
            raise RemoteProtocolError(seat, f"malformed action: {exc}") from None
        if action.seat != seat:
            raise RemoteProtocolError(seat, f"acted for seat {action.seat}")
        self._apply(action, seat)

    def _done_audit(self, stage: Stage) -> None:
        for seat, signed in self._seat_order(stage):
            deck_data(seat, field_of(seat, signed.msg.body, "deck", dict))
            self.openings[seat] = dict(signed.msg.body)
        self.result = audit_game(self.audit_record())
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


