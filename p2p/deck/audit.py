"""End-of-game deck audit: re-check every shuffle and re-key from the public transcript.

Input: the public deck messages in log order (what ``Deck.public_transcript`` recorded) and
every seat's ``deck/open-keys`` message. The transcript is replayed through a keyless
observer ``Deck`` (same order and format checks as live play); then, with each seat's opened
seed, every layer is recomputed and compared point by point. The first difference is proven
cheating by that layer's author: its signed message and its opened seed (which matches the
commitment it made before the game) disagree. With no fault, each slot's card is known by
following the card indices through the permutations; every re-mask is then recomputed in
order from its author's seed and the cards of its old slots (``replay_remask``).

Each layer is checked against the published layer before it (equal to the recomputed one, or
the check would have stopped there), so a peer auditing its own game may pass ``own``: its
own layers, which it computed itself, are then taken as published instead of recomputed (only
their permutations are followed). That saves a quarter of a 4-peer audit's multiplications and
changes no verdict; an observer (``solstice verify``) recomputes everything.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from p2p.crypto.commitments import Opening, check_opening
from p2p.crypto.group import card_points, mul, mul_base, scalar_invert, scalar_mul
from p2p.deck.batches import BatchRecord
from p2p.deck.blind import blind_factors
from p2p.deck.deck import Deck
from p2p.deck.keys import DECK_KEYS_DOMAIN, DeckKeys, committed_value
from p2p.deck.messages import Blind, KeyOpening, Rekey, Shuffle, parse_deck_message
from p2p.deck.remask import RemaskRecord, remask_keys, remask_points
from p2p.errors import DeckCorrupted, MalformedMessage, MissingOpening, StepMismatch


@dataclass(frozen=True)
class AuditResult:
    """The proven content of every slot (retired slots included) of a clean deck."""

    slot_cards: dict[int, int]


def open_seats(game_id: str, observer: Deck, openings: Mapping[int, Any]) -> dict[int, DeckKeys]:
    """Check every seat's key opening against its pre-game commitment."""
    keys: dict[int, DeckKeys] = {}
    for seat in range(observer.n_seats):
        data = openings.get(seat)
        if data is None:
            raise MissingOpening(seat, "did not open its deck keys at the end of the game")
        opening = parse_deck_message(seat, data)
        if not isinstance(opening, KeyOpening):
            raise MalformedMessage(seat, "expected a deck/open-keys message", data)
        commitment = observer.key_commitment(seat)
        if commitment is None:
            raise MissingOpening(seat, "never committed to deck keys")
        value = committed_value(game_id, seat, opening.seed)
        check_opening(
            seat, commitment, Opening(DECK_KEYS_DOMAIN, value, opening.salt), DECK_KEYS_DOMAIN
        )
        keys[seat] = DeckKeys(opening.seed)
    return keys


def _mismatch(
    step: Blind | Shuffle | Rekey, batch: BatchRecord, what: str, position: int,
    expected: bytes
) -> StepMismatch:
    published = step.key_commitments if isinstance(step, Rekey) and what != "point" \
        else step.points
    return StepMismatch(
        step.seat,
        f"batch {batch.index} {step.to_dict()['type']} {what} {position} is not what the "
        "opened keys give",
        {
            "message": step.to_dict(),
            "position": position,
            "published": published[position].hex(),
            "expected": expected.hex(),
        },
    )


def _key_mismatch(step: Blind | Shuffle, batch: BatchRecord, expected: bytes) -> StepMismatch:
    return StepMismatch(
        step.seat,
        f"batch {batch.index} {step.TYPE} key is not what the opened keys give",
        {"message": step.to_dict(), "published": step.key.hex(), "expected": expected.hex()},
    )


def replay_batch(
    batch: BatchRecord, table: tuple[bytes, ...], keys: Mapping[int, DeckKeys],
    observer: Deck | None = None, slot_cards: Mapping[int, int] | None = None,
    own: int | None = None, recompute_proven: bool = False,
) -> list[int]:
    """Recompute every layer of one batch; return the card of each position at the end.

    A reshuffle batch (with ``sources``) starts from the published points of its old slots
    (``observer``) holding the cards already proven (``slot_cards``). The layers of seat
    ``own`` are followed, not recomputed (see the module docstring).

    Blinding layers and re-keys proved on arrival (``p2p.deck.proving``) that they apply
    exactly the scalars their published keys commit to, so once those keys are checked
    against the opened seed (fixed-base multiplications) their points need not be
    recomputed; ``recompute_proven`` recomputes them anyway (the audit as it was before the
    proofs, which ``bench/bench_proofs.py`` prices). Shuffles are always recomputed: their
    argument proves that some permutation was applied, and the audit must check it is the
    committed one, which it follows to learn each slot's card."""
    if batch.sources:
        assert observer is not None and slot_cards is not None
        points = [observer.published_point(slot) for slot in batch.sources]
        cards = [slot_cards[slot] for slot in batch.sources]
    else:
        points = [table[card] for card in batch.cards]
        cards = list(batch.cards)
    for step in batch.steps:
        seat_keys = keys[step.seat]
        if step.seat == own:
            if isinstance(step, Shuffle):
                permutation = seat_keys.permutation(batch.index, len(points))
                cards = [cards[source] for source in permutation]
            points = list(step.points)
            continue
        if isinstance(step, Blind) and not recompute_proven:
            expected_key = mul_base(seat_keys.blind_key(batch.index))
            if step.key != expected_key:
                raise _key_mismatch(step, batch, expected_key)
            expected = list(step.points)
        elif isinstance(step, Rekey) and not recompute_proven:
            for position in range(len(points)):
                commitment = mul_base(seat_keys.slot_key(batch.first_slot + position))
                if step.key_commitments[position] != commitment:
                    raise _mismatch(step, batch, "key commitment", position, commitment)
            expected = list(step.points)
        elif isinstance(step, Blind):
            assert observer is not None
            factors = blind_factors(seat_keys, step.seat, batch.index, batch.sources,
                                    observer.remask_owner)
            expected = [mul(f, point) for f, point in zip(factors, points, strict=True)]
            for position, point in enumerate(expected):
                if step.points[position] != point:
                    raise _mismatch(step, batch, "point", position, point)
        elif isinstance(step, Shuffle):
            x = seat_keys.shuffle_key(batch.index)
            factor = scalar_mul(x, seat_keys.blind_key(batch.index)) if batch.sources else x
            expected_key = mul_base(factor)
            if step.key != expected_key:  # the layer the re-key's proof strips
                raise _key_mismatch(step, batch, expected_key)
            permutation = seat_keys.permutation(batch.index, len(points))
            expected = [mul(x, points[source]) for source in permutation]
            cards = [cards[source] for source in permutation]
            for position, point in enumerate(expected):
                if step.points[position] != point:
                    raise _mismatch(step, batch, "point", position, point)
        else:
            x_inverse = scalar_invert(seat_keys.shuffle_key(batch.index))
            if batch.sources:
                x_inverse = scalar_mul(x_inverse,
                                       scalar_invert(seat_keys.blind_key(batch.index)))
            expected = []
            for position, point in enumerate(points):
                k = seat_keys.slot_key(batch.first_slot + position)
                new_point = mul(scalar_mul(k, x_inverse), point)
                if step.points[position] != new_point:
                    raise _mismatch(step, batch, "point", position, new_point)
                commitment = mul_base(k)
                if step.key_commitments[position] != commitment:
                    raise _mismatch(step, batch, "key commitment", position, commitment)
                expected.append(new_point)
        points = expected
    return cards


def replay_remask(record: RemaskRecord, table: tuple[bytes, ...], keys: DeckKeys,
                  slot_cards: dict[int, int], own: bool = False) -> None:
    """Recompute one re-mask from its author's opened seed and the proven cards of its old
    slots; add the cards of its fresh slots to ``slot_cards``. ``own``: our own re-mask,
    whose order is followed without recomputing its points."""
    evidence = {"message": record.message()}
    cards = []
    for slot in record.old:
        if slot not in slot_cards:
            raise StepMismatch(record.seat, f"re-masked slot {slot}, which holds no card",
                               evidence)
        cards.append(slot_cards[slot])
    if own:
        for slot, source in zip(record.slots, keys.remask_order(record.first, len(cards)),
                                strict=True):
            slot_cards[slot] = cards[source]
        return
    order, points = remask_points(keys, record.first, [table[card] for card in cards])
    shuffle_key = mul_base(keys.remask_shuffle_key(record.first))
    if record.remask.shuffle_key != shuffle_key:  # its proof's c, committed like the rest
        raise StepMismatch(record.seat, f"re-mask shuffle key (slot {record.first}) is not "
                                        "c*B for its opened keys' c",
                           {**evidence, "published": record.remask.shuffle_key.hex(),
                            "expected": shuffle_key.hex()})
    for what, published_list, expected_list, why in (
            ("key", record.keys, remask_keys(keys, record.first, len(cards)),
             "is not r*B for its opened keys' r"),
            ("point", record.points, points, "is not what its opened keys give")):
        for position, (published, expected) in enumerate(zip(published_list, expected_list,
                                                             strict=True)):
            if published != expected:
                raise StepMismatch(record.seat, f"re-mask {what} {position} (slot "
                                                f"{record.first + position}) {why}",
                                   {**evidence, "position": position,
                                    "published": published.hex(), "expected": expected.hex()})
    for slot, source in zip(record.slots, order, strict=True):
        slot_cards[slot] = cards[source]


def audit_deck(
    game_id: str,
    n_seats: int,
    n_cards: int,
    transcript: Iterable[tuple[int, Any]],
    openings: Mapping[int, Any],
    own: int | None = None,
    recompute_proven: bool = False,
    proofs_checked: bool = False,
) -> AuditResult:
    """Re-check the whole deck; return slot -> card, or raise the first proven fault.

    ``transcript``: (sender, message) pairs of the public deck messages in log order.
    ``openings``: seat -> that seat's ``deck/open-keys`` message.
    ``own``: the auditing player's seat, whose layers are followed, not recomputed.
    ``recompute_proven``: recompute the proven layers' points too (see ``replay_batch``).
    ``proofs_checked``: the transcript is the ``public_transcript`` of a ``Deck`` that checked
    every layer's proof on arrival (a peer's own, or a verifier's replay): not checked again.
    """
    observer = Deck(game_id, n_seats, n_cards, seat=None, check_proofs=not proofs_checked)
    corrupted: DeckCorrupted | None = None
    try:
        for sender, message in transcript:
            observer.receive(sender, message)
    except DeckCorrupted as exc:
        # A reveal hit a bad slot: the layers recorded so far say whose fault it was.
        corrupted = exc
    keys = open_seats(game_id, observer, openings)
    table = card_points(game_id, n_cards)
    slot_cards: dict[int, int] = {}
    # Batches and re-masks in log order (their slot ranges follow each other in that order):
    # each may take its cards from slots proven before it.
    events: list[BatchRecord | RemaskRecord] = [*observer.batch_records(),
                                               *observer.remasks.records]
    events.sort(key=lambda e: e.first_slot if isinstance(e, BatchRecord) else e.first)
    for event in events:
        if isinstance(event, RemaskRecord):
            replay_remask(event, table, keys[event.seat], slot_cards, own=event.seat == own)
            continue
        for slot in event.sources:
            if slot not in slot_cards:
                raise StepMismatch(event.steps[0].seat if event.steps else None,
                                   f"batch {event.index} takes slot {slot}, which holds no "
                                   "card", {"batch": event.index})
        cards = replay_batch(event, table, keys, observer, slot_cards, own, recompute_proven)
        steps = (3 if event.sources else 2) * n_seats
        if len(event.steps) == steps:  # an unfinished batch has no slots to report
            slot_cards.update(
                (event.first_slot + position, card) for position, card in enumerate(cards)
            )
    if corrupted is not None:
        # Every layer checked out, so the reveal's keys (checked against verified key
        # commitments) cannot have decrypted to garbage: nothing more precise to report.
        raise corrupted
    return AuditResult(slot_cards)
