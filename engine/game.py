"""The engine's public API: new_game, legal_actions, apply, reveal, to_move.

``apply(state, action)`` returns a new state and leaves the old one untouched;
``apply_in_place`` is the fast path for simulations and search (mutates, no copy). An illegal
action raises IllegalActionError and leaves the state unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine import cleanup, dispatch, draft
from engine import resolution as _resolution
from engine.actions import Action, Capture, Choose, Discard, Dispatch, Pick, Shuffle
from engine.cards import CARDS, HAND_SIZE, PLANET_LIMIT
from engine.config import GameConfig
from engine.disclosure import claims_by_card
from engine.errors import IllegalActionError, NotWaitingError
from engine.flow import advance, advance_until
from engine.randomness import RandomStream
from engine.state import Decision, GameState, Phase

CHANCE = -1  # the "seat" of chance in to_move()
# Phase members as module constants: reading ``Phase.X`` goes through the enum's class and
# costs about ten times a global (these checks run for every action).
_OVER, _DISPATCH, _DRAFT = Phase.OVER, Phase.DISPATCH, Phase.DRAFT


def new_game(config: GameConfig, deck_order: Sequence[int] | None = None, *,
             keep_log: bool = True) -> GameState:
    """A game at the start of round 1, hands dealt.

    ``deck_order`` is the shuffled deck (card ids, top first) when this state may know every
    card (local games); None when the deck is hidden (network peers: mental poker).
    """
    config.check_setup()
    ids = config.card_ids()
    if deck_order is not None and sorted(deck_order) != list(ids):
        raise ValueError("deck_order must be a permutation of the game's cards")
    s = GameState(config, omniscient=deck_order is not None, keep_log=keep_log)
    for i in range(len(ids)):
        s.new_slot(deck_order[i] if deck_order is not None else -1, 0)
    s.deck = list(range(len(ids)))
    for seat in range(s.n):
        for _ in range(HAND_SIZE):
            slot = s.deck.pop(0)
            s.hands[seat].append(slot)
            s.known[slot] |= 1 << seat
    s.step = ("start_round",)
    advance(s)
    return s


def to_move(s: GameState) -> list[int]:
    """Seats that must act now (several during a draft pick), [CHANCE], or [] when the game is
    over or waiting for reveals."""
    # Called before every action, so it reads the state directly (draft.waiting_pickers inline).
    if s.awaiting:
        return []
    phase = s.phase
    if phase is _OVER:
        return []
    if s.chance is not None:
        return [CHANCE]
    if s.decision is not None:
        return [s.decision.seat]
    if s.step is not None:
        return []
    if phase is _DISPATCH:
        return [s.turn] if s.turn >= 0 else []
    if phase is not _DRAFT:
        return []
    picks, quota, drafted, hands = s.picks, s.quota, s.drafted, s.hands
    return [seat for seat in range(s.n) if picks[seat] is None
            and quota[seat] > len(drafted[seat]) and hands[seat]]


def is_over(s: GameState) -> bool:
    return s.phase is _OVER


def pending_decision(s: GameState) -> Decision | None:
    return s.decision


def unasked_answer(s: GameState) -> Choose | None:
    """The answer to the pending decision when only one of its options is legal for its
    seat, else None. Such a decision is not asked (ruling 41): it stays in the state, so that
    peers who cannot see why (a prisoner's card) stop at the same place, and whoever plays
    the seat answers it at once."""
    d = s.decision
    if d is None:
        return None
    allowed = _resolution.decision_options(s, d)
    return Choose(d.seat, allowed[0]) if len(allowed) == 1 else None


def legal_actions(s: GameState, seat: int) -> list[Action]:
    """Every legal action of ``seat`` now (empty if it has nothing to do). Needs the seat's own
    cards to be known to this state. For chance, use ``chance_request``."""
    if s.awaiting or s.phase is _OVER or s.chance is not None:
        return []
    if s.decision is not None:
        if s.decision.seat != seat:
            return []
        return [Choose(seat, option)
                for option in _resolution.decision_options(s, s.decision)]
    if s.step is not None:
        return []
    if s.phase is _DISPATCH:
        if s.turn != seat:
            return []
        return _dispatch_actions(s, seat)
    need = draft.pick_count(s, seat) if s.phase is _DRAFT and 0 <= seat < s.n \
        and s.picks[seat] is None else 0
    if need:
        hand = s.hands[seat]
        picks = _picks
        if len(picks) >= _CACHE_LIMIT:
            picks.clear()
        if need == 1:
            return [picks.get((seat, slot)) or picks.setdefault((seat, slot), Pick(seat, (slot,)))
                    for slot in hand]
        return [picks.get((seat, a, b)) or picks.setdefault((seat, a, b), Pick(seat, (a, b)))
                for i, a in enumerate(hand) for b in hand[i + 1:]]
    return []


# Listing the legal dispatches is most of a decision's cost, and most of that is creating the
# same action values again and again: they are memoised (actions are immutable values) by what
# they depend on. A card's dispatches depend on the seat, its slot and card, and on the open
# planets with their claim tables (``_planets_key``); a capture on seat and slot, a pick on
# seat and slots.
_CACHE_LIMIT = 20_000  # entries per memo (a few hundred games), then it starts again
_planet_keys: dict[tuple[tuple[int, str, bool], ...], int] = {}
_card_dispatches: dict[tuple[int, int, int, int], tuple[Dispatch, ...]] = {}
_captures: dict[tuple[int, int], Capture] = {}
_picks: dict[tuple[int, ...], Pick] = {}  # (seat, slot) or (seat, slot, slot)
# (targets' number, card id) -> that card's (planet, claim) pairs in listing order, for
# drawing one dispatch without making the others
_card_targets: dict[tuple[int, int], tuple[tuple[int, str], ...]] = {}


_OPEN = PLANET_LIMIT  # a planet with fewer cards is open (without a face-up Blockade)
# (planet names, open flags, Vision flags) -> the number of its targets in _planet_keys
_fill_keys: dict[tuple[tuple[str, ...], tuple[bool, ...], tuple[bool, ...]], int] = {}
# by number: each open planet with the truthful claims of every card id there
_claims_of_key: list[tuple[tuple[int, tuple[tuple[str, ...], ...]], ...]] = []


def _planets_key(targets: tuple[tuple[int, str, bool], ...]) -> int:
    key = _planet_keys.get(targets)
    if key is None:
        if len(_planet_keys) >= _CACHE_LIMIT:
            _planet_keys.clear()
            _claims_of_key.clear()
            _fill_keys.clear()
            _card_dispatches.clear()  # their keys hold the cleared numbers
            _card_targets.clear()
        key = _planet_keys[targets] = len(_planet_keys)
        _claims_of_key.append(tuple((p, claims_by_card(name, up)) for p, name, up in targets))
    return key


def _open_targets_key(s: GameState) -> int:
    """The number (``_planets_key``) of the open planets and their Vision marks now."""
    config, planets, vision = s.config, s.planets, s.vision_up
    # The open planets and their Vision marks, read at C speed where no face-up Blockade can
    # close a planet, name the targets' number (``_planets_key``) in a memo of their own.
    if "Blockade" in config.events:
        open_now = dispatch.open_planets(s)
        opens = tuple([p in open_now for p in range(len(planets))])
    else:
        opens = tuple(map(_OPEN.__gt__, map(len, planets)))
    fill = (config.planets, opens, tuple(vision))
    planets_key = _fill_keys.get(fill, -1)
    if planets_key < 0:
        names = config.planets
        planets_key = _planets_key(tuple((p, names[p], vision[p])
                                         for p in dispatch.open_planets(s)))
        if len(_fill_keys) >= _CACHE_LIMIT:
            _fill_keys.clear()
        _fill_keys[fill] = planets_key
    return planets_key


def _dispatch_actions(s: GameState, seat: int) -> list[Action]:
    """The legal actions of ``seat`` on its dispatch turn: every card to every open planet
    with every truthful claim (in hand, planet, claim order), else captures, else discards."""
    hand, card_of = s.hands[seat], s.card_of
    planets_key = _open_targets_key(s)
    targets = _claims_of_key[planets_key]
    actions: list[Action] = []
    memo = _card_dispatches
    for slot in hand:
        cid = card_of[slot]
        key = (seat, slot, cid, planets_key)
        mine = memo.get(key)
        if mine is None:
            if len(memo) >= _CACHE_LIMIT:
                memo.clear()
            mine = memo[key] = tuple([Dispatch(seat, slot, p, claim) for p, claims in targets
                                      for claim in claims[cid]])
        actions += mine
    if not s.captured[seat]:
        captures = _captures
        for slot in hand:
            capture = captures.get((seat, slot))
            if capture is None:
                if len(captures) >= _CACHE_LIMIT:
                    captures.clear()
                capture = captures[seat, slot] = Capture(seat, slot)
            actions.append(capture)
    if not actions:
        actions = [Discard(seat, slot) for slot in hand]
    return actions


def legal_count(s: GameState, seat: int) -> int:
    """``len(legal_actions(s, seat))``, without making the actions."""
    return _legal_at(s, seat, -1, None, True)[1]


def legal_action(s: GameState, seat: int, index: int) -> Action:
    """``legal_actions(s, seat)[index]`` (an equal action, ``0 <= index < legal_count``),
    without making the others. Raises IndexError outside that range."""
    action = _legal_at(s, seat, index, None, False)[0]
    if action is None:
        raise IndexError(f"seat {seat} has no legal action number {index}")
    return action


def draw_legal(s: GameState, seat: int, stream: RandomStream) -> Action:
    """A uniformly random legal action of ``seat``: the very draw
    ``legal[stream.randbelow(len(legal))]`` makes from ``legal = legal_actions(s, seat)``
    (the same words of ``stream``, an equal action), without listing them all. Raises
    ValueError, as ``randbelow(0)`` does, when the seat has none."""
    action = _legal_at(s, seat, -1, stream, False)[0]
    if action is None:  # no legal action: the error drawing from an empty list raises
        stream.randbelow(0)
        raise AssertionError("randbelow(0) returned")
    return action


def _legal_at(s: GameState, seat: int, index: int, stream: RandomStream | None,
              count_only: bool) -> tuple[Action | None, int]:
    """The legal action of ``seat`` at ``index`` (drawn from ``stream`` when given) and their
    number, in ``legal_actions``' order; (None, count) when ``count_only`` or out of range."""
    if s.awaiting or s.phase is _OVER or s.chance is not None:
        count = 0
    elif s.decision is not None:
        if s.decision.seat != seat:
            count = 0
        else:
            options = _resolution.decision_options(s, s.decision)
            count = len(options)
            if not count_only:
                index = _chosen(count, index, stream)
                if index >= 0:
                    return Choose(seat, options[index]), count
        return None, count
    elif s.step is not None:
        count = 0
    elif s.phase is _DISPATCH:
        return (None, 0) if s.turn != seat else _dispatch_at(s, seat, index, stream,
                                                              count_only)
    else:
        need = draft.pick_count(s, seat) if s.phase is _DRAFT and 0 <= seat < s.n \
            and s.picks[seat] is None else 0
        if need:
            hand = s.hands[seat]
            n = len(hand)
            count = n if need == 1 else n * (n - 1) // 2
            index = -1 if count_only else _chosen(count, index, stream)
            if index < 0:
                return None, count
            if need == 1:
                return Pick(seat, (hand[index],)), count
            # pairs (a, b), a before b in the hand, a's row first: as legal_actions lists them
            for i in range(n - 1):
                row = n - 1 - i
                if index < row:
                    return Pick(seat, (hand[i], hand[i + 1 + index])), count
                index -= row
        count = 0
    return None, count


def _chosen(count: int, index: int, stream: RandomStream | None) -> int:
    """The action number asked for (drawn from ``stream`` when given), or -1 when it is not
    one of the ``count`` legal actions."""
    if stream is not None:
        index = stream.randbelow(count)
    return index if 0 <= index < count else -1


def _dispatch_at(s: GameState, seat: int, index: int, stream: RandomStream | None,
                 count_only: bool) -> tuple[Action | None, int]:
    """``_legal_at`` on the seat's dispatch turn: a card's targets are counted from its
    (planet, claim) pairs, and only the chosen action is made."""
    hand, card_of = s.hands[seat], s.card_of
    planets_key = _open_targets_key(s)
    memo = _card_targets
    per_card: list[tuple[tuple[int, str], ...]] = []
    count = 0
    for slot in hand:
        cid = card_of[slot]
        key = (planets_key, cid)
        mine = memo.get(key)
        if mine is None:
            if len(memo) >= _CACHE_LIMIT:
                memo.clear()
            mine = memo[key] = tuple([(p, claim) for p, claims in _claims_of_key[planets_key]
                                      for claim in claims[cid]])
        per_card.append(mine)
        count += len(mine)
    dispatches = count
    captures = not s.captured[seat]
    if captures:
        count += len(hand)
    discards = count == 0
    if discards:
        count = len(hand)
    index = -1 if count_only else _chosen(count, index, stream)
    if index < 0:
        return None, count
    if discards:
        return Discard(seat, hand[index]), count
    if index >= dispatches:
        return Capture(seat, hand[index - dispatches]), count
    for i, mine in enumerate(per_card):
        if index < len(mine):
            p, claim = mine[index]
            return Dispatch(seat, hand[i], p, claim), count
        index -= len(mine)
    raise AssertionError("a dispatch index past the counted dispatches")


def chance_request(s: GameState) -> tuple[str, int] | None:
    """What chance must supply: ("leftovers" | "reshuffle", k) -> Shuffle(permutation of k)."""
    return s.chance


def random_chance(s: GameState, stream: RandomStream) -> Shuffle:
    """The pending chance outcome drawn from a caller-supplied stream (local games and search;
    network games draw it from shared randomness or the mental-poker deck instead)."""
    if s.chance is None:
        raise NotWaitingError("no chance outcome is pending")
    return Shuffle(tuple(stream.permutation(s.chance[1])))


def apply(s: GameState, action: Action) -> GameState:
    """A new state with ``action`` applied; ``s`` is unchanged."""
    new = s.clone()
    apply_in_place(new, action)
    return new


def apply_in_place(s: GameState, action: Action) -> None:
    """Apply ``action`` to ``s``. On an illegal action ``s`` is left unchanged."""
    _check_and_apply(s, action)
    advance(s)


def apply_until(s: GameState, action: Action, stop: str) -> None:
    """``apply_in_place``, stopping before the engine step named ``stop`` (scenarios)."""
    _check_and_apply(s, action)
    advance_until(s, stop)


def _check_and_apply(s: GameState, action: Action) -> None:
    if s.phase is _OVER:
        raise IllegalActionError(action.seat, "cannot act: the game is over")
    if s.awaiting:
        raise IllegalActionError(action.seat, f"cannot act: waiting for slots {s.awaiting} "
                                              "to be revealed")
    handler = _APPLY.get(action.__class__)
    if handler is None:
        raise IllegalActionError(None, f"unknown action {action!r}")
    if s.chance is not None and handler is not _apply_shuffle:
        raise IllegalActionError(action.seat, "cannot act: waiting for a chance outcome")
    handler(s, action)


def apply_trusted(s: GameState, action: Action) -> None:
    """``apply_in_place`` without the legality checks, for search rollouts that apply
    actions the engine itself listed or built by its rules (one of ``legal_actions``, a
    dispatch with a truthful claim to an open planet, a pick of ``pick_count`` cards from the
    hand, a capture of a card in hand, a decision's option). Anything else corrupts the
    state: use ``apply_in_place`` for actions from players, bots or peers."""
    cls = action.__class__
    if cls is Dispatch:
        dispatch.place_dispatch(s, action)  # type: ignore[arg-type]
    elif cls is Pick:
        draft.take_pick(s, action)  # type: ignore[arg-type]
    elif cls is Capture:
        dispatch.take_prisoner(s, action)  # type: ignore[arg-type]
    else:
        _APPLY[cls](s, action)  # the rare ones keep their checks
    advance(s)


def _apply_choose(s: GameState, action: Choose) -> None:
    d = s.decision
    if d is None or d.seat != action.seat:
        raise IllegalActionError(action.seat, "has no decision to make")
    allowed = _resolution.decision_options(s, d)
    if action.option not in allowed:
        raise IllegalActionError(action.seat, f"cannot choose {action.option!r} for {d.kind}: "
                                              f"options are {', '.join(allowed)}")
    s.decision = None
    s.step = (*d.then, action.option)


def _apply_shuffle(s: GameState, action: Shuffle) -> None:
    if s.chance is None:
        raise IllegalActionError(None, "no shuffle is pending")
    kind, k = s.chance
    if action.perm is not None and sorted(action.perm) != list(range(k)):
        raise IllegalActionError(None, f"shuffle must be a permutation of range({k})")
    if kind == "leftovers":
        if action.perm is None:
            raise IllegalActionError(None, "the leftover shuffle is public: give a permutation")
        draft.apply_leftover_shuffle(s, action.perm)
    else:
        cleanup.apply_reshuffle(s, action)
    s.chance = None


_APPLY: dict[type, Callable[[GameState, Any], None]] = {
    Shuffle: _apply_shuffle, Choose: _apply_choose, Pick: draft.apply_pick,
    Dispatch: dispatch.apply_dispatch, Capture: dispatch.apply_capture,
    Discard: dispatch.apply_discard,
}


def reveal(s: GameState, cards: Mapping[int, int]) -> GameState:
    """A new state that knows ``cards`` (slot -> card id), e.g. opened by the deck."""
    new = s.clone()
    reveal_in_place(new, cards)
    return new


def reveal_in_place(s: GameState, cards: Mapping[int, int]) -> None:
    """Learn the cards in some slots. Slots the game is waiting for let it continue."""
    game_ids = set(s.config.card_ids())
    for slot, cid in cards.items():
        if not 0 <= slot < len(s.card_of):
            raise NotWaitingError(f"no slot {slot}")
        if cid not in game_ids:
            raise NotWaitingError(f"card {cid} is not in this game")
        if s.card_of[slot] >= 0 and s.card_of[slot] != cid:
            raise NotWaitingError(f"slot {slot} already holds {CARDS[s.card_of[slot]].label}")
    for slot, cid in cards.items():
        s.card_of[slot] = cid
    s.awaiting = [slot for slot in s.awaiting if s.card_of[slot] < 0]
    if not s.awaiting:
        advance(s)
