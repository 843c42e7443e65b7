"""n ``Deck`` objects wired back to back in one process: the reference call sequence.

Used by the tests and the benchmark, and meant as the model for the network session: a
public message goes to every peer (its author included) in one order, a private slot key
only to its recipient. ``tamper`` lets tests rewrite a message in flight to play a cheater.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from p2p.deck.audit import AuditResult, audit_deck
from p2p.deck.batches import CardSeen
from p2p.deck.deck import Deck
from p2p.deck.keys import DeckKeys
from p2p.errors import LocalProtocolError

Tamper = Callable[[int, dict[str, Any]], dict[str, Any]]


class LoopbackTable:
    """A table of ``n_seats`` honest peers; ``tamper(sender, message)`` may alter messages."""

    def __init__(
        self,
        game_id: str,
        n_seats: int,
        n_cards: int,
        tamper: Tamper | None = None,
        keys: Sequence[DeckKeys] | None = None,
    ) -> None:
        self.game_id, self.n_seats, self.n_cards = game_id, n_seats, n_cards
        self.keys = (
            list(keys) if keys is not None else [DeckKeys.generate() for _ in range(n_seats)]
        )
        self.decks = [
            Deck(game_id, n_seats, n_cards, seat, self.keys[seat]) for seat in range(n_seats)
        ]
        self.tamper = tamper

    def _send(self, sender: int, message: dict[str, Any]) -> dict[str, Any]:
        return self.tamper(sender, message) if self.tamper else message

    def broadcast(self, sender: int, message: dict[str, Any]) -> list[CardSeen | None]:
        """Deliver a public message to every peer, the author included."""
        message = self._send(sender, message)
        return [deck.receive(sender, message) for deck in self.decks]

    def commit_all(self) -> None:
        for seat, deck in enumerate(self.decks):
            self.broadcast(seat, deck.commit_message())

    def build(self) -> None:
        """Run shuffle and re-key turns until every batch is ready."""
        while (turn := self.decks[0].turn) is not None:
            assert turn.seat is not None  # only the commit turn has no single seat
            author = self.decks[turn.seat]
            step = {"blind": author.blind, "shuffle": author.shuffle, "rekey": author.rekey}
            message = step[turn.step]()
            self.broadcast(turn.seat, message)

    def setup(self) -> None:
        self.commit_all()
        self.build()

    def open_to(self, slot: int, seat: int) -> CardSeen:
        """Every other seat sends its key for ``slot`` privately to ``seat``."""
        event: CardSeen | None = None
        for sender, deck in enumerate(self.decks):
            if sender != seat:
                event = self.decks[seat].receive(
                    sender, self._send(sender, deck.disclose(slot, seat))
                )
        if event is None:
            raise LocalProtocolError(f"opening slot {slot} to seat {seat} did not complete")
        return event

    def reveal(self, slot: int) -> CardSeen:
        """Every seat publishes its key for ``slot``; returns seat 0's event."""
        events: list[CardSeen | None] = []
        for sender, deck in enumerate(self.decks):
            events = self.broadcast(sender, deck.reveal(slot))
        if events[0] is None:
            raise LocalProtocolError(f"revealing slot {slot} did not complete")
        return events[0]

    def remask(self, seat: int, old: Sequence[int]) -> range:
        """``seat`` moves the cards of ``old`` (slots it knows) to fresh slots."""
        first = self.decks[seat].slot_count
        self.broadcast(seat, self.decks[seat].remask(old))
        return range(first, first + len(old))

    def open_remasked_to(self, slot: int, seat: int) -> CardSeen:
        """The holder of re-masked ``slot`` sends its scalar privately to ``seat``."""
        owner = self.decks[seat].remask_owner(slot)
        if owner is None:
            raise LocalProtocolError(f"slot {slot} is not re-masked")
        event = self.decks[seat].receive(
            owner, self._send(owner, self.decks[owner].unmask_key(slot, seat)))
        if event is None:
            raise LocalProtocolError(f"opening slot {slot} to seat {seat} did not complete")
        return event

    def unmask(self, slot: int) -> CardSeen:
        """The holder of re-masked ``slot`` publishes its scalar; returns seat 0's event."""
        owner = self.decks[0].remask_owner(slot)
        if owner is None:
            raise LocalProtocolError(f"slot {slot} is not re-masked")
        event = self.broadcast(owner, self.decks[owner].unmask(slot))[0]
        assert event is not None
        return event

    def add_batch(self, sources: Sequence[int]) -> range:
        """Put the cards of live slots back under the deck (every peer begins the batch,
        then build)."""
        slots = range(0)
        for deck in self.decks:
            slots = deck.begin_batch(sources)
        self.build()
        return slots

    def audit(self, viewer: int = 0) -> AuditResult:
        openings = {seat: deck.opening_message() for seat, deck in enumerate(self.decks)}
        return audit_deck(
            self.game_id,
            self.n_seats,
            self.n_cards,
            self.decks[viewer].public_transcript,
            openings,
        )
