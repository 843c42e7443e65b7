"""Opening cards: after every engine step, the slots some seats came to know are opened to
them, publicly (every seat reveals its slot key) or privately (slot keys sealed to the
recipient's box key). A re-masked slot is opened by its holder alone, with its re-mask
scalar. See protocol.md, "Opening cards"."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from nacl.public import PrivateKey, PublicKey

from engine import GameState
from engine.canonical import CanonicalEncodingError, canonical_json, parse_json
from p2p.crypto.sealed import seal, unseal
from p2p.deck.deck import Deck
from p2p.deck.messages import parse_deck_message
from p2p.errors import LocalProtocolError, RemoteProtocolError
from p2p.session.bodies import KeysBody, deck_data


@dataclass(frozen=True)
class Opens:
    """What a ``keys`` stage opens: slots to everyone, and slots to single seats."""

    public: tuple[int, ...]
    private: Mapping[str, tuple[int, ...]]   # seat (as text, as on the wire) -> its slots


@dataclass(frozen=True)
class SealedKeys:
    """One sealed box of slot keys as it was sent: kept for the end-of-game audit."""

    author: int  # seat
    to: int  # seat
    box: str
    slots: list[int]  # the slots whose keys the box holds (those due from ``author``)


def keys_due(deck: Deck, author: int, opens: Opens) -> tuple[list[int], dict[str, list[int]]]:
    """The slots whose keys ``author`` must send: (public, {recipient: private}).

    A deck slot needs every seat's slot key (a recipient has its own); a re-masked slot needs
    only its holder's scalar, and nothing when it is opened to the holder itself."""

    def due(slot: int, to: int | None) -> bool:
        owner = deck.remask_owner(slot)
        if owner is None:
            return to != author
        return owner == author and to != author

    public = [slot for slot in opens.public if due(slot, None)]
    private = {}
    for to_text, slots in opens.private.items():
        mine = [slot for slot in slots if due(slot, int(to_text))]
        if mine:
            private[to_text] = mine
    return public, private


def slots_to_open(engine: GameState, base: list[int]) -> tuple[Opens | None, list[int]]:
    """Slots whose card some seats have just come to know (``engine.known`` against its value
    ``base`` at the previous opening), and the new base; ``None`` when nothing is to be
    opened."""
    base = base + [0] * (len(engine.known) - len(base))
    public: list[int] = []
    private: dict[int, list[int]] = {}
    for slot, (now, before) in enumerate(zip(engine.known, base, strict=True)):
        gained = now & ~before
        if not gained:
            continue
        if now == engine.all_mask:
            public.append(slot)
        else:
            for seat in range(engine.n):
                if gained >> seat & 1:
                    private.setdefault(seat, []).append(slot)
    new_base = engine.known[:]
    if not public and not private:
        return None, new_base
    return (Opens(tuple(public), {str(k): tuple(v) for k, v in sorted(private.items())}),
            new_base)


def keys_body(deck: Deck, me: int, opens: Opens,
              box_of_seat: Callable[[int], PublicKey]) -> KeysBody:
    """Our ``keys`` stage body: our public reveals, and our keys for each other recipient
    sealed to its box key."""
    public, due = keys_due(deck, me, opens)
    private = {}
    for seat_text, slots in due.items():
        to = int(seat_text)
        keys = [deck.unmask_key(slot, to) if deck.remask_owner(slot) == me
                else deck.disclose(slot, to) for slot in slots]
        private[seat_text] = seal(box_of_seat(to), canonical_json(keys))
    return KeysBody(tuple(deck.unmask(slot) if deck.remask_owner(slot) == me
                          else deck.reveal(slot) for slot in public), private)


def take_keys(deck: Deck, opens: Opens,
              contributions: Sequence[tuple[int, KeysBody]], me: int | None,
              my_box: PrivateKey | None, sealed_log: list[SealedKeys]) -> dict[int, int]:
    """Apply every seat's ``keys`` message (in seat order): check each public key and, for
    us, each sealed one. Returns the deck card of every slot opened to us or to everyone."""
    seen: dict[int, int] = {}

    def receive(seat: int, data: Any) -> None:
        event = deck.receive(seat, data)
        if event is not None:
            seen[event.slot] = event.card

    for seat, body in contributions:
        public_due, private_due = keys_due(deck, seat, opens)
        public = body.public
        if len(public) != len(public_due):
            raise RemoteProtocolError(seat, f"sent {len(public)} public keys, "
                                            f"{len(public_due)} were due")
        for slot, reveal in zip(public_due, public, strict=True):
            message = parse_deck_message(seat, deck_data(seat, reveal))
            if getattr(message, "slot", None) != slot:
                raise RemoteProtocolError(seat, f"public key for the wrong slot "
                                                f"(expected {slot})")
            receive(seat, reveal)
        private = body.private
        if set(private) != set(private_due):
            raise RemoteProtocolError(seat, f"private keys for seats {sorted(private)}, "
                                            f"expected {sorted(private_due)}")
        for to_text, box in private.items():
            slots = private_due[to_text]
            sealed_log.append(SealedKeys(seat, int(to_text), box, slots))
            if me is None or my_box is None or int(to_text) != me:
                continue
            for slot, data in zip(slots, _unseal_keys(seat, my_box, box, slots), strict=True):
                message = parse_deck_message(seat, deck_data(seat, data))
                if getattr(message, "slot", None) != slot or getattr(message, "to", None) != me:
                    raise RemoteProtocolError(seat, f"sealed key is not for slot {slot}")
                receive(seat, data)
    # Our own newly dealt cards complete with the others' keys; the engine learns them.
    mine = opens.private.get(str(me), ()) if me is not None else ()
    for slot in [*mine, *opens.public]:
        if slot not in seen:
            card = deck.card_of(slot)
            if card is None:
                raise LocalProtocolError(f"slot {slot} did not open")
            seen[slot] = card
    return seen


def _unseal_keys(seat: int, my_box: PrivateKey, box: Any, slots: list[int]) -> list[Any]:
    try:
        keys = parse_json(unseal(my_box, seat, box))
    except (ValueError, CanonicalEncodingError, UnicodeDecodeError):
        raise RemoteProtocolError(seat, "sealed keys are not JSON") from None
    if not isinstance(keys, list) or len(keys) != len(slots):
        raise RemoteProtocolError(seat, "sealed keys do not match the slots due")
    return keys
