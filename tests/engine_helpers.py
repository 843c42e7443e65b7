"""Small helpers for the engine rule tests: build a game with a chosen deck, act by card label.

Cards are named by label (``"white:Duchess"``, ``"event:Blockade"``) and planets by name, so a
test reads like the rulebook. ``new_game(config, deck_order)`` deals seat s the cards
6s..6s+5 of ``deck_order`` (top first); ``game`` builds that order from hands given by label.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from engine import (
    CARD_BY_LABEL,
    CARDS,
    CHANCE,
    Capture,
    Choose,
    Dispatch,
    GameConfig,
    GameState,
    Pick,
    Shuffle,
    apply_in_place,
    chance_request,
    is_over,
    legal_actions,
    new_game,
    random_chance,
    random_config,
    to_move,
)
from engine.disclosure import legal_claims
from engine.randomness import RandomStream

FIRST_GAME = ("Whispered Secrets", "Rumor", "Hidden Base", "Orbital Bombardment", "Blockade",
              "Honor Guards", "Planetary Siege", "Famine")
# events with claims (and a few face-up ones) for tests of Messenger, Poison, Prophecy, Sentry
CLAIM_EVENTS = ("Whispered Secrets", "Rumor", "Hidden Base", "Prophecy", "Messenger", "Sentry",
                "Poison", "Blockade")


def config(n: int = 3, planets: Sequence[str] | None = None,
           events: Sequence[str] = FIRST_GAME, first_player: int = 0) -> GameConfig:
    factions = ("black", "white", "blue", "green")[:n]
    if planets is None:
        planets = ("Capital", "Industrial", "Water", "Jungle")[:n] if n > 2 else (
            "Capital", "Water", "Desert")
    return GameConfig(factions, tuple(planets), tuple(events), first_player)


def cid(label: str) -> int:
    return CARD_BY_LABEL[label].id


def deck_order(cfg: GameConfig, hands: Sequence[Sequence[str]] = (),
               deck_top: Sequence[str] = ()) -> list[int]:
    """Card ids top first: seat s's six cards, then ``deck_top``, then every other card of the
    game in id order. Seats without a given hand get the lowest unused ids."""
    chosen = [cid(x) for h in hands for x in h] + [cid(x) for x in deck_top]
    assert len(set(chosen)) == len(chosen), "a card is named twice"
    game_ids = set(cfg.card_ids())
    assert set(chosen) <= game_ids, "a named card is not in this game"
    rest = [c for c in sorted(game_ids) if c not in chosen]
    order: list[int] = []
    for seat in range(cfg.n):
        if seat < len(hands):
            assert len(hands[seat]) == 6
            order += [cid(x) for x in hands[seat]]
        else:
            order += [rest.pop(0) for _ in range(6)]
    order += [cid(x) for x in deck_top] + rest
    return order


def game(cfg: GameConfig | None = None, hands: Sequence[Sequence[str]] = (),
         deck_top: Sequence[str] = (), **kw: Any) -> GameState:
    cfg = cfg or config(**kw)
    return new_game(cfg, deck_order(cfg, hands, deck_top))


def labels(s: GameState, slots: Iterable[int]) -> list[str | None]:
    return [s.label(x) for x in slots]


def hand(s: GameState, seat: int) -> list[str]:
    return [s.label(x) or "?" for x in s.hands[seat]]


def planet_index(s: GameState, planet: str) -> int:
    return s.config.planets.index(planet)


def on_planet(s: GameState, planet: str) -> list[str]:
    return [s.label(x) or "?" for x in s.planets[planet_index(s, planet)]]


def slot_in(s: GameState, slots: Iterable[int], label: str) -> int:
    for x in slots:
        if s.label(x) == label:
            return x
    raise AssertionError(f"{label} not found")


def hand_slot(s: GameState, seat: int, label: str) -> int:
    return slot_in(s, s.hands[seat], label)


def pick(s: GameState, seat: int, *cards: str) -> None:
    apply_in_place(s, Pick(seat, tuple(hand_slot(s, seat, c) for c in cards)))


def shuffle(s: GameState, perm: Sequence[int] | None = None) -> None:
    """Answer a pending chance request (identity permutation by default)."""
    _kind, k = chance_request(s)  # type: ignore[misc]
    apply_in_place(s, Shuffle(tuple(range(k)) if perm is None else tuple(perm)))


def draft(s: GameState, wants: dict[int, Sequence[str]] | None = None,
          leftover_perm: Sequence[int] | None = None) -> None:
    """Play the whole Draft phase: each picker takes its first wanted card still in its hand,
    else the first card of its hand (two at once on a 2-player first pick). Then the leftover
    shuffle (identity unless given) and any Prophecy decisions (defaults)."""
    wants = wants or {}
    while to_move(s) and to_move(s) != [CHANCE] and s.phase.value == "draft":
        if s.decision is not None:
            apply_in_place(s, Choose(s.decision.seat, s.decision.default))
            continue
        for seat in to_move(s):
            h = s.hands[seat]
            want = [x for w in wants.get(seat, ()) for x in h if s.label(x) == w]
            rest = [x for x in h if x not in want]
            k = len(legal_actions(s, seat)[0].slots)
            apply_in_place(s, Pick(seat, tuple((want + rest)[:k])))
    if to_move(s) == [CHANCE] and s.phase.value == "draft":
        shuffle(s, leftover_perm)
    while s.decision is not None and s.decision.kind == "prophecy":
        apply_in_place(s, Choose(s.decision.seat, s.decision.default))


def default_claim(s: GameState, slot: int, planet: str) -> str:
    return legal_claims(s.card_of[slot], planet, s.vision_up[planet_index(s, planet)])[0]


def dispatch(s: GameState, seat: int, card: str, planet: str, claim: str | None = None) -> None:
    slot = hand_slot(s, seat, card)
    claim = claim or default_claim(s, slot, planet)
    apply_in_place(s, Dispatch(seat, slot, planet_index(s, planet), claim))


def capture(s: GameState, seat: int, card: str) -> None:
    apply_in_place(s, Capture(seat, hand_slot(s, seat, card)))


def choose(s: GameState, option: str) -> None:
    assert s.decision is not None, "no decision pending"
    apply_in_place(s, Choose(s.decision.seat, option))


def card_labels_in(value: Any) -> set[str]:
    """Every card label mentioned anywhere in a JSON-like value (keys and strings)."""
    found: set[str] = set()
    if isinstance(value, str):
        if ":" in value:
            found.update(lab for lab in ALL_LABELS if lab in value)
    elif isinstance(value, dict):
        for k, v in value.items():
            found |= card_labels_in(k) | card_labels_in(v)
    elif isinstance(value, list | tuple):
        for v in value:
            found |= card_labels_in(v)
    return found


ALL_LABELS = tuple(c.label for c in CARDS)


# -- random play ---------------------------------------------------------------------------

def random_action(s: GameState, stream: RandomStream):
    movers = to_move(s)
    if movers == [CHANCE]:
        return random_chance(s, stream)
    legal = legal_actions(s, movers[0])
    return legal[stream.randbelow(len(legal))]


def random_game(seed: int | str, n: int, *, keep_log: bool = False) -> GameState:
    stream = RandomStream(seed)
    cfg = random_config(n, stream)
    order = list(cfg.card_ids())
    stream.shuffle(order)
    return new_game(cfg, order, keep_log=keep_log)


def random_states(seed: int | str, n: int, max_actions: int = 5000,
                  keep_log: bool = False) -> Iterator[tuple[GameState, Any]]:
    """Yield (state, action about to be applied) through one random game; the state is live
    (mutated after the yield), so copy it if you keep it."""
    s = random_game(seed, n, keep_log=keep_log)
    stream = RandomStream(f"play/{seed}")
    for _ in range(max_actions):
        if is_over(s):
            return
        action = random_action(s, stream)
        yield s, action
        apply_in_place(s, action)
    raise AssertionError(f"game {seed} did not end within {max_actions} actions")


def play_out(s: GameState, stream: RandomStream, max_actions: int = 5000) -> GameState:
    for _ in range(max_actions):
        if is_over(s):
            return s
        apply_in_place(s, random_action(s, stream))
    raise AssertionError("game did not end")


# -- scripted rounds ---------------------------------------------------------------------------

def hands_for_draft(n: int, targets: dict[int, Sequence[str]], leftovers: Sequence[str],
                    direction: int = 1) -> list[list[str]]:
    """Opening hands such that seat s, picking ``targets[s]`` in order (with ``draft``), ends
    up with exactly those cards: the card of pick round r must be in the hand seat s holds
    then. ``leftovers[i]`` is left in the hand seat i holds at the end, so
    an identity leftover shuffle deals it to the i-th planet (n leftovers). 2 players: the first
    two targets of each seat form the double first pick."""
    counts = [2, 1, 1, 1] if n == 2 else [1, 1, 1, 1, 1]
    hands: list[list[str]] = [[] for _ in range(n)]
    for s in range(n):
        cards = list(targets[s])
        assert len(cards) == 5
        for r, k in enumerate(counts):
            j = (s - r * direction) % n  # hand j is with seat j + r*direction at round r
            hands[j] += [cards.pop(0) for _ in range(k)]
    for i in range(n):  # hand (i - R*direction) ends the draft with seat i: planet i's card
        hands[(i - len(counts) * direction) % n].append(leftovers[i])
    return hands


def with_claim(s: GameState, event: str, seat: int) -> int:
    """Make ``seat`` hold ``event`` as a claim from the previous round (acting now): the card
    is taken from the deck and the round's draft is restarted so the claim takes effect.
    Only at the very start of a draft, before any pick."""
    from engine.flow import advance

    slot = slot_in(s, s.deck, f"event:{event}")
    s.deck.remove(slot)
    s.known[slot] = s.all_mask
    s.face_up[slot] = True
    s.claims.append((slot, seat, s.round - 1))
    s.step = ("start_round",)
    advance(s)
    return slot


def next_action(s: GameState):
    """The first legal action (decisions: their default; chance: identity)."""
    movers = to_move(s)
    if movers == [CHANCE]:
        return Shuffle(tuple(range(chance_request(s)[1])))  # type: ignore[index]
    if s.decision is not None:
        return Choose(s.decision.seat, s.decision.default)
    return legal_actions(s, movers[0])[0]


def play_dispatch(s: GameState, plan: dict[int, Sequence[tuple[str, str]]],
                  ) -> list[int]:
    """Play the Dispatch phase: each seat dispatches its planned (card, planet) in order (claim:
    the first legal one; planet "prisoner" captures), then first legal actions. Decisions get
    their defaults. Returns the seats in the order they took turns."""
    todo = {seat: list(p) for seat, p in plan.items()}
    turns: list[int] = []
    while s.phase.value == "dispatch":
        if s.decision is not None:
            apply_in_place(s, Choose(s.decision.seat, s.decision.default))
            continue
        seat = to_move(s)[0]
        turns.append(seat)
        if todo.get(seat):
            card, planet = todo[seat].pop(0)
            if planet == "prisoner":
                capture(s, seat, card)
            else:
                dispatch(s, seat, card, planet)
        else:
            apply_in_place(s, legal_actions(s, seat)[0])
    return turns


def finish_round(s: GameState) -> None:
    """Play first legal actions until the next round's draft starts (or the game ends)."""
    r = s.round
    while not is_over(s) and s.round == r:
        apply_in_place(s, next_action(s))


# -- knowledge checks --------------------------------------------------------------------------

def assert_view_does_not_leak(s: GameState, seat: int) -> dict[str, Any]:
    """``view(s, seat)`` names no card the seat may not know: every labelled slot is one the
    seat has seen (``state.known``) and its label is the true card; every card label anywhere
    in the view (log and prompts included) is of a card the seat has seen in some slot."""
    from engine.view import view

    v = view(s, seat)
    bit = 1 << seat
    entries = [*v["hand"], *v["drafted"], *([v["prisoner"]] if v["prisoner"] else [])]
    for planet in v["planets"]:
        entries += planet["cards"]
    for e in entries:
        if e["label"] is not None:
            assert s.known[e["slot"]] & bit, f"seat {seat} sees unseen slot {e['slot']}"
            assert e["label"] == s.label(e["slot"])
    for e in [*v["hand"], *v["drafted"]]:
        assert e["label"] is not None, "a seat always sees its own cards"
    for key, lab in v["known"].items():
        assert s.known[int(key)] & bit and lab == s.label(int(key))
    seen = {CARDS[s.card_of[x]].label for x in range(len(s.card_of))
            if s.known[x] & bit and s.card_of[x] >= 0}
    leaked = card_labels_in(v) - seen
    assert not leaked, f"seat {seat}'s view names unseen card(s) {leaked}"
    return v
