"""Deck batches: the cards of one shuffle-and-re-key run, their slots and whose step is next."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from p2p.deck.messages import Rekey, Shuffle


@dataclass(frozen=True)
class Turn:
    """Who must act next: ``step`` is "commit" (every seat, any order), "shuffle" or "rekey"."""

    step: Literal["commit", "shuffle", "rekey"]
    seat: int | None
    batch: int


@dataclass(frozen=True)
class CardSeen:
    """Event: this peer now knows the card in ``slot`` (``public``: so does everyone)."""

    slot: int
    card: int
    public: bool


@dataclass(frozen=True)
class BatchRecord:
    """A batch of the deck as published: its cards (input order), first slot and steps.

    Steps are the n shuffles in seat order followed by the n re-keys in seat order.
    """

    index: int
    first_slot: int
    cards: tuple[int, ...]
    steps: tuple[Shuffle | Rekey, ...]


class Batch:
    """Mutable construction state of one batch (internal)."""

    def __init__(self, index: int, first_slot: int, cards: tuple[int, ...], n_seats: int):
        self.index = index
        self.first_slot = first_slot
        self.cards = cards
        self.n_seats = n_seats
        self.steps: list[Shuffle | Rekey] = []

    @property
    def size(self) -> int:
        return len(self.cards)

    @property
    def complete(self) -> bool:
        return len(self.steps) == 2 * self.n_seats

    def next_step(self) -> tuple[Literal["shuffle", "rekey"], int]:
        done = len(self.steps)
        if done < self.n_seats:
            return "shuffle", done
        return "rekey", done - self.n_seats

    def record(self) -> BatchRecord:
        return BatchRecord(self.index, self.first_slot, self.cards, tuple(self.steps))
