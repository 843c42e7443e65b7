"""End-of-game audit: with every secret opened, re-check the whole game.

1. The deck: every shuffle and re-key step against the opened deck seeds (``audit_deck``), which
   gives the card in every slot.
2. Every private disclosure: each sealed slot key (or re-mask scalar), opened with its
   recipient's box key, must be the author's true one.
3. Every move: the game is replayed from the true deck with full information, so every
   disclosure claim, pick, dispatch and decision is checked against the real cards.
4. The result: the replay's final scores must be the ones the peers played to.

Any fault raises a RemoteProtocolError subclass naming the seat to blame.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine import (
    Action,
    GameConfig,
    GameState,
    IllegalActionError,
    Shuffle,
    apply_in_place,
    final_scores,
    is_over,
    new_game,
    ranking,
)
from engine.canonical import CanonicalEncodingError, parse_json
from engine.relabel import Relabel, relabel_in_place
from p2p.crypto.sealed import parse_secret_key, unseal
from p2p.deck.audit import audit_deck, open_seats
from p2p.deck.deck import Deck
from p2p.deck.keys import DeckKeys
from p2p.errors import CheatDetected, RemoteProtocolError
from p2p.session.opening import SealedKeys


@dataclass(frozen=True)
class AuditRecord:
    """What the end-of-game audit needs from a finished session, and nothing else: the deck
    with its public transcript, the engine as played, every action and re-mask in the order
    applied, every peer's audit opening (by seat) and every sealed box sent."""

    game_id: str
    n: int
    config: GameConfig
    card_ids: tuple[int, ...]
    deck: Deck
    engine: GameState
    actions: tuple[Action | Relabel, ...]
    openings: Mapping[int, Mapping[str, Any]]
    box_public: Mapping[int, Any]  # by peer
    peer_of_seat: tuple[int, ...]
    private_log: tuple[SealedKeys, ...]
    my_seat: int | None = None  # the auditing player: its own deck layers are followed as made


class AuditFailed(CheatDetected):
    """The audit proved a fault of ``seat``."""


def audit_game(record: AuditRecord) -> dict[str, Any]:
    deck, config, live = record.deck, record.config, record.engine
    n = record.n
    deck_openings = {}
    for seat in range(n):
        opening = record.openings.get(seat, {})
        if not isinstance(opening.get("deck"), dict):
            raise RemoteProtocolError(seat, "audit message lacks its deck key opening")
        deck_openings[seat] = opening["deck"]
    slot_cards = audit_deck(record.game_id, n, len(record.card_ids), deck.public_transcript,
                            deck_openings, own=record.my_seat,
                            proofs_checked=deck.check_proofs).slot_cards
    seat_keys = open_seats(record.game_id, deck, deck_openings)
    _check_private_keys(record, seat_keys)
    replay = _replay(record, slot_cards, seat_keys)
    for slot, card in enumerate(live.card_of):
        if card >= 0 and replay.card_of[slot] != card:
            raise AuditFailed(None, f"slot {slot} was played as card {card}, the deck says "
                                    f"{replay.card_of[slot]}")
    if final_scores(replay) != final_scores(live):
        raise AuditFailed(None, "the replayed game ends with other scores than were played")
    factions = config.factions
    scores = {factions[seat]: score for seat, score in enumerate(final_scores(replay))}
    order = ranking(replay)
    winner = factions[order[0]]
    summary = (f"audit passed: {replay.round} rounds; "
               + ", ".join(f"{f} {v}" for f, v in scores.items()) + f"; {winner} wins")
    return {"ok": True, "scores": scores, "winner": winner, "rounds": replay.round,
            "vp": dict(zip(factions, replay.vp, strict=True)),
            "casualties": dict(zip(factions, replay.casualties, strict=True)),
            "ranking": [factions[s] for s in order], "summary": summary}


def _check_private_keys(record: AuditRecord, seat_keys: dict[int, Any]) -> None:
    boxes = {}
    for seat in range(record.n):
        peer = record.peer_of_seat[seat]
        boxes[seat] = parse_secret_key(seat, record.openings[seat].get("box"),
                                       record.box_public[peer])
    deck = record.deck
    assert deck is not None
    for sealed in record.private_log:
        author, to, box, slots = sealed.author, sealed.to, sealed.box, sealed.slots
        try:
            keys = parse_json(unseal(boxes[to], author, box))
        except (ValueError, CanonicalEncodingError, UnicodeDecodeError):
            raise AuditFailed(author, "a sealed key message is not JSON") from None
        if not isinstance(keys, list) or len(keys) != len(slots):
            raise AuditFailed(author, f"sealed keys for seat {to} do not match the slots due")
        for slot, data in zip(slots, keys, strict=True):
            if deck.remask_owner(slot) == author:
                true_key = seat_keys[author].remask_key(slot).hex()
            else:
                true_key = seat_keys[author].slot_key(slot).hex()
            if not isinstance(data, dict) or data.get("key") != true_key:
                raise AuditFailed(author, f"disclosed a false key for slot {slot} to seat {to}",
                                  evidence={"slot": slot, "to": to})


def _replay(record: AuditRecord, slot_cards: dict[int, int],
            seat_keys: dict[int, DeckKeys]) -> GameState:
    config = record.config
    assert config is not None
    ids = record.card_ids
    size = len(ids)
    state = new_game(config, [ids[slot_cards[slot]] for slot in range(size)], keep_log=False)
    for action in record.actions:
        action = true_action(state, action, slot_cards, ids, seat_keys)
        try:
            apply_any(state, action)
        except IllegalActionError as exc:
            raise AuditFailed(exc.seat, f"with the true cards, {action.text()} is illegal: "
                                        f"{exc.reason}") from None
    if not is_over(state):
        raise AuditFailed(None, "the replayed game is not over")
    return state


def true_action(state: GameState, action: Action | Relabel, slot_cards: dict[int, int],
                ids: tuple[int, ...], seat_keys: dict[int, DeckKeys]) -> Action | Relabel:
    """``action`` as it really happened: a hidden reshuffle's permutation and a re-mask's
    order, which stayed secret in play, from the audited cards and the opened seeds."""
    if isinstance(action, Shuffle) and action.perm is None:
        return _reshuffle_permutation(state, slot_cards, ids)
    if isinstance(action, Relabel):
        # The true order of a re-mask, from its author's opened seed (the deck audit has
        # checked every fresh point against it).
        first, count = len(state.card_of), len(action.old)
        order = tuple(seat_keys[action.seat].remask_order(first, count))
        return Relabel(action.seat, action.old, order)
    return action


def apply_any(state: GameState, action: Action | Relabel) -> None:
    """Apply an engine action, or a re-mask's relabelling, in place."""
    if isinstance(action, Relabel):
        relabel_in_place(state, action)
    else:
        apply_in_place(state, action)


def _reshuffle_permutation(state: GameState, slot_cards: dict[int, int],
                           ids: tuple[int, ...]) -> Shuffle:
    """The permutation a hidden reshuffle made, from the audited cards of the new slots."""
    old_cards = [state.card_of[slot] for slot in state.discard]
    first = len(state.card_of)
    perm = []
    for i in range(len(old_cards)):
        card = ids[slot_cards[first + i]]
        if card not in old_cards:
            raise AuditFailed(None, f"reshuffled slot {first + i} holds a card that was not "
                                    "in the discard")
        position = old_cards.index(card)
        perm.append(position)
        old_cards[position] = -2  # each discard is used once
    return Shuffle(tuple(perm))
