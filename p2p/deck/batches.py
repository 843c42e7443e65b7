"""Deck batches: the cards of one shuffle-and-re-key run, their slots and whose step is next."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from p2p.deck.messages import Blind, Rekey, Shuffle


@dataclass(frozen=True)
class Turn:
    """Who must act next: ``step`` is "commit" (every seat, any order), "blind", "shuffle" or
    "rekey"."""

    step: Literal["commit", "blind", "shuffle", "rekey"]
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
    """A batch of the deck as published: its cards (input order; empty for a reshuffle batch,
    whose inputs are the old slots ``sources``), first slot and steps.

    Steps are, for a reshuffle batch, the n blinding layers in seat order, then the n
    shuffles in seat order, then the n re-keys in seat order.
    """

    index: int
    first_slot: int
    cards: tuple[int, ...]
    steps: tuple[Blind | Shuffle | Rekey, ...]
    sources: tuple[int, ...] = ()


class Batch:
    """Mutable construction state of one batch (internal)."""

    def __init__(self, index: int, first_slot: int, cards: tuple[int, ...], n_seats: int,
                 sources: tuple[int, ...] = ()):
        self.index = index
        self.first_slot = first_slot
        self.cards = cards
        self.sources = sources
        self.n_seats = n_seats
        self.n_blind = n_seats if sources else 0
        self.steps: list[Blind | Shuffle | Rekey] = []

    @property
    def size(self) -> int:
        return len(self.sources) if self.sources else len(self.cards)

    @property
    def complete(self) -> bool:
        return len(self.steps) == self.n_blind + 2 * self.n_seats

    def next_step(self) -> tuple[Literal["blind", "shuffle", "rekey"], int]:
        done = len(self.steps)
        if done < self.n_blind:
            return "blind", done
        done -= self.n_blind
        if done < self.n_seats:
            return "shuffle", done
        return "rekey", done - self.n_seats

    def rekey_step(self, seat: int) -> Rekey:
        step = self.steps[self.n_blind + self.n_seats + seat]
        assert isinstance(step, Rekey)
        return step

    def record(self) -> BatchRecord:
        return BatchRecord(self.index, self.first_slot, self.cards, tuple(self.steps),
                           self.sources)
