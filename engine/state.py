"""The game state: every card is a slot, and every slot is in exactly one zone.

A state may know the card in a slot or not (``card_of[slot] == -1``): a network peer knows only
public cards and its own; a local game or a search bot's determinized copy knows all
(``omniscient``). ``known[slot]`` is the bitmask of seats that have legitimately seen the slot.

The state is mutable for speed (search bots apply hundreds of thousands of actions); the public
API in ``engine.game`` is functional (``apply`` returns a new state) and ``clone`` is cheap
because everything is flat lists of ints.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

from engine.cards import CARDS, PLANETS, Card
from engine.config import GameConfig
from engine.events import Event

# by card id: a compiled build reads a Final table directly, where ``CARDS[cid].label`` costs a
# module-dict lookup and an interpreted object's attribute (``owner`` and ``label`` run for
# every card killed, revealed or named in a decision)
_LABEL_OF_CARD: Final = [card.label for card in CARDS]
_FACTION_OF_CARD: Final = [card.faction for card in CARDS]

# A step to run: its name, then its arguments (slots, seats, option strings: they vary by step,
# hence Any); a plain tuple so that a state clones and serializes as is.
StepCall = tuple[Any, ...]


class Phase(StrEnum):
    DRAFT = "draft"
    DISPATCH = "dispatch"
    RESOLVE = "resolve"
    OVER = "over"


@dataclass(frozen=True, slots=True)
class Decision:
    """A pending choice for one seat. ``then`` is the engine step that receives the answer."""

    seat: int
    kind: str
    options: tuple[str, ...]
    default: str
    prompt: str
    then: StepCall = field(repr=False, default=())

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # A compiled (mypyc) frozen dataclass cannot be rebuilt field by field, as copy,
        # deepcopy and pickle rebuild a slots dataclass: rebuild it by its constructor.
        return (type(self),
                (self.seat, self.kind, self.options, self.default, self.prompt, self.then))


class GameState:
    __slots__ = (
        "all_mask",
        "awaiting",
        "captured",
        "card_of",
        "casualties",
        "chance",
        "claim",
        "claim_vision",
        "claimer",
        "claims",
        "config",
        "controller",
        "decision",
        "deck",
        "direction",
        "discard",
        "dispatcher",
        "drafted",
        "duchess_scored",
        "events",
        "face_up",
        "first_pick",
        "first_player",
        "hands",
        "initial_sf",
        "keep_log",
        "known",
        "leftovers",
        "log",
        "n",
        "omniscient",
        "phase",
        "picks",
        "planet_discarded",
        "planet_started",
        "planets",
        "prisoner",
        "quota",
        "resolved",
        "round",
        "seat_of_faction",
        "sentry_planet",
        "step",
        "stopped",
        "turn",
        "vision_up",
        "vp",
    )

    config: GameConfig
    n: int
    omniscient: bool
    keep_log: bool
    # per slot
    card_of: list[int]
    known: list[int]
    face_up: list[bool]
    dispatcher: list[int]
    claim: list[str]
    claim_vision: list[bool]
    controller: list[int]
    resolved: list[bool]
    claimer: list[int]
    # zones
    deck: list[int]
    hands: list[list[int]]
    drafted: list[list[int]]
    planets: list[list[int]]
    prisoner: list[int]
    claims: list[tuple[int, int, int]]  # (slot, seat, round claimed)
    discard: list[int]
    leftovers: list[int]
    # scores and table
    vp: list[int]
    casualties: list[int]
    first_player: int
    round: int
    direction: int
    phase: Phase
    # draft
    quota: list[int]
    # this pick round's pick of each seat, None until it picks: each picked slot, then the
    # place in the hand it left (``draft.undo_pick`` puts the hand back from it)
    picks: list[tuple[int, ...] | None]
    first_pick: bool
    # dispatch
    turn: int
    captured: list[bool]
    vision_up: list[bool]
    # resolve
    sentry_planet: int
    planet_started: list[bool]
    stopped: list[bool]
    duchess_scored: list[bool]
    initial_sf: list[tuple[int, int]]
    planet_discarded: list[list[int]]
    # control
    step: StepCall | None
    decision: Decision | None
    chance: tuple[str, int] | None
    awaiting: list[int]
    log: list[str]
    events: list[Event]  # what ``log`` says, as typed values (one per line)
    seat_of_faction: dict[str, int]
    all_mask: int

    def __init__(self, config: GameConfig | None = None, *, omniscient: bool = True,
                 keep_log: bool = True) -> None:
        """A table with no cards yet (``new_slot`` adds them), at the start of round 1: the
        one way to build a state (``new_game``, scenarios and ``state_from_dict`` start here).

        ``GameState()`` (no config) is an empty shell for ``clone`` to fill in, field by field (a
        compiled build cannot make an instance without calling ``__init__``)."""
        if config is None:
            return
        n = config.n
        self.config = config
        self.n = n
        self.omniscient = omniscient
        self.keep_log = keep_log
        self.seat_of_faction = {f: i for i, f in enumerate(config.factions)}
        self.all_mask = (1 << n) - 1
        self.card_of, self.known, self.face_up, self.dispatcher = [], [], [], []
        self.claim, self.claim_vision, self.controller = [], [], []
        self.resolved, self.claimer = [], []
        self.deck = []
        self.hands = [[] for _ in range(n)]
        self.drafted = [[] for _ in range(n)]
        self.planets = [[] for _ in config.planets]
        self.prisoner = [-1] * n
        self.claims, self.discard, self.leftovers = [], [], []
        self.vp, self.casualties = [0] * n, [0] * n
        self.first_player = config.first_player
        self.round, self.direction, self.phase = 1, 1, Phase.DRAFT
        self.quota, self.picks, self.first_pick = [0] * n, [None] * n, False
        self.turn = -1
        self.step, self.decision, self.chance = None, None, None
        self.awaiting, self.log, self.events = [], [], []
        self.reset_round()

    def reset_round(self) -> None:
        """The per-round table: planets' resolve marks, Vision, Sentry, captures."""
        planets = len(self.config.planets)
        self.vision_up = [False] * planets
        self.planet_started = [False] * planets
        self.stopped = [False] * planets
        self.duchess_scored = [False] * planets
        self.initial_sf = [(-1, -1)] * planets
        self.planet_discarded = [[] for _ in range(planets)]
        self.sentry_planet = -1
        self.captured = [False] * self.n

    def card(self, slot: int) -> Card:
        """The card in ``slot``; only for slots this state knows."""
        return CARDS[self.card_of[slot]]

    def label(self, slot: int) -> str | None:
        cid = self.card_of[slot]
        return _LABEL_OF_CARD[cid] if cid >= 0 else None

    def planet_name(self, p: int) -> str:
        return self.config.planets[p]

    def planet_vp(self, p: int) -> int:
        return PLANETS[self.config.planets[p]].vp

    def _shell(self) -> GameState:
        """A copy, not a new table, holding the values it shares with this state (none is
        changed in place); ``clone`` and ``snapshot`` add the lists they copy or keep."""
        new = GameState(None)
        new.config, new.n, new.omniscient = self.config, self.n, self.omniscient
        new.keep_log, new.seat_of_faction, new.all_mask = \
            self.keep_log, self.seat_of_faction, self.all_mask
        new.first_player, new.round, new.direction = \
            self.first_player, self.round, self.direction
        new.phase, new.first_pick, new.turn = self.phase, self.first_pick, self.turn
        new.sentry_planet, new.step = self.sentry_planet, self.step
        new.decision, new.chance = self.decision, self.chance
        return new

    def clone(self) -> GameState:
        """An independent copy (search bots clone thousands: every field spelled out)."""
        new = self._shell()
        new.card_of, new.known, new.face_up = self.card_of[:], self.known[:], self.face_up[:]
        new.dispatcher, new.claim = self.dispatcher[:], self.claim[:]
        new.claim_vision, new.controller = self.claim_vision[:], self.controller[:]
        new.resolved, new.claimer = self.resolved[:], self.claimer[:]
        new.deck, new.prisoner, new.claims = self.deck[:], self.prisoner[:], self.claims[:]
        new.discard, new.leftovers = self.discard[:], self.leftovers[:]
        new.vp, new.casualties, new.quota = self.vp[:], self.casualties[:], self.quota[:]
        new.picks, new.captured, new.vision_up = self.picks[:], self.captured[:], \
            self.vision_up[:]
        new.planet_started, new.stopped = self.planet_started[:], self.stopped[:]
        new.duchess_scored, new.initial_sf = self.duchess_scored[:], self.initial_sf[:]
        new.awaiting, new.log, new.events = self.awaiting[:], self.log[:], self.events[:]
        copy = list.copy
        new.hands = list(map(copy, self.hands))
        new.drafted = list(map(copy, self.drafted))
        new.planets = list(map(copy, self.planets))
        new.planet_discarded = list(map(copy, self.planet_discarded))
        return new

    def resolving_copy(self) -> GameState:
        """A copy for resolving the planets to the end of this round and nothing after
        (``engine.rollout``'s checkpoints, thousands a rollout), every hand empty. It copies
        the lists resolving changes and shares with this state those it only reads or
        replaces (``card_of``, ``dispatcher``, ``claim_vision``, ``vision_up``, the deck, the
        drafts, picks, quotas, leftovers and captures): neither may change those afterwards,
        and the copy may not play past the round's end (the deal changes hands and deck).
        ``tests/test_engine_rollout_options.py`` checks that the world it copies is unchanged."""
        new = self._shell()
        new.card_of, new.known, new.face_up = self.card_of, self.known[:], self.face_up[:]
        new.dispatcher, new.claim = self.dispatcher, self.claim[:]
        new.claim_vision, new.controller = self.claim_vision, self.controller[:]
        new.resolved, new.claimer = self.resolved[:], self.claimer[:]
        new.deck, new.prisoner, new.claims = self.deck, self.prisoner[:], self.claims[:]
        new.discard, new.leftovers = self.discard[:], self.leftovers
        new.vp, new.casualties, new.quota = self.vp[:], self.casualties[:], self.quota
        new.picks, new.captured, new.vision_up = self.picks, self.captured, self.vision_up
        new.planet_started, new.stopped = self.planet_started[:], self.stopped[:]
        new.duchess_scored, new.initial_sf = self.duchess_scored[:], self.initial_sf[:]
        new.awaiting, new.log, new.events = self.awaiting[:], self.log[:], self.events[:]
        copy = list.copy
        new.hands = [[] for _ in self.hands]
        new.drafted = self.drafted
        new.planets = list(map(copy, self.planets))
        new.planet_discarded = list(map(copy, self.planet_discarded))
        return new

    def snapshot(self, prev: GameState | None) -> GameState:
        """A copy of this state that is never to be changed (a record's trail of states), as
        ``clone`` makes it but sharing with ``prev`` (another such copy, of an earlier state
        of the same game, or None) every list that is equal in both: most of a step's lists
        are as they were, and a copy of the per-slot lists (which grow with every relabel)
        costs little next to the garbage collector's passes over them while the trail holds
        them. Neither this copy nor ``prev`` may change afterwards."""
        if prev is None:
            return self.clone()
        new = self._shell()
        new.card_of, new.known = _kept(prev.card_of, self.card_of), _kept(prev.known, self.known)
        new.face_up = _kept(prev.face_up, self.face_up)
        new.dispatcher, new.claim = _kept(prev.dispatcher, self.dispatcher), \
            _kept(prev.claim, self.claim)
        new.claim_vision = _kept(prev.claim_vision, self.claim_vision)
        new.controller = _kept(prev.controller, self.controller)
        new.resolved, new.claimer = _kept(prev.resolved, self.resolved), \
            _kept(prev.claimer, self.claimer)
        new.deck, new.prisoner = _kept(prev.deck, self.deck), _kept(prev.prisoner, self.prisoner)
        new.claims, new.discard = _kept(prev.claims, self.claims), \
            _kept(prev.discard, self.discard)
        new.leftovers, new.vp = _kept(prev.leftovers, self.leftovers), _kept(prev.vp, self.vp)
        new.casualties = _kept(prev.casualties, self.casualties)
        new.quota, new.picks = _kept(prev.quota, self.quota), _kept(prev.picks, self.picks)
        new.captured = _kept(prev.captured, self.captured)
        new.vision_up = _kept(prev.vision_up, self.vision_up)
        new.planet_started = _kept(prev.planet_started, self.planet_started)
        new.stopped = _kept(prev.stopped, self.stopped)
        new.duchess_scored = _kept(prev.duchess_scored, self.duchess_scored)
        new.initial_sf = _kept(prev.initial_sf, self.initial_sf)
        new.awaiting, new.log = _kept(prev.awaiting, self.awaiting), _kept(prev.log, self.log)
        new.events = _kept(prev.events, self.events)
        new.hands = _kept_each(prev.hands, self.hands)
        new.drafted = _kept_each(prev.drafted, self.drafted)
        new.planets = _kept_each(prev.planets, self.planets)
        new.planet_discarded = _kept_each(prev.planet_discarded, self.planet_discarded)
        return new

    # -- zones ------------------------------------------------------------------------------

    def live_slots(self) -> list[int]:
        """Every slot that holds a card now (each card of the game is in exactly one)."""
        hands, drafted, prisoner = self.hands, self.drafted, self.prisoner
        slots = self.deck[:]
        for s in range(self.n):
            slots += hands[s]
            slots += drafted[s]
            if prisoner[s] >= 0:
                slots.append(prisoner[s])
        for cards in self.planets:
            slots += cards
        if self.claims:
            slots += [c[0] for c in self.claims]
        slots += self.discard
        slots += self.leftovers
        return slots

    def new_slot(self, card_id: int, known: int) -> int:
        slot = len(self.card_of)
        self.card_of.append(card_id)
        self.known.append(known)
        self.face_up.append(False)
        self.dispatcher.append(-1)
        self.claim.append("")
        self.claim_vision.append(False)
        self.controller.append(-1)
        self.resolved.append(False)
        self.claimer.append(-1)
        return slot

    def new_slots(self, card_ids: list[int]) -> list[int]:
        """Fresh slots, seen by nobody, for ``card_ids`` (``new_slot`` for a whole batch)."""
        first, k = len(self.card_of), len(card_ids)
        self.card_of += card_ids
        self.known += [0] * k
        self.face_up += [False] * k
        self.dispatcher += [-1] * k
        self.claim += [""] * k
        self.claim_vision += [False] * k
        self.controller += [-1] * k
        self.resolved += [False] * k
        self.claimer += [-1] * k
        return list(range(first, first + k))

    def owner(self, slot: int) -> int:
        """Seat printed on the card in ``slot`` (-1 for events)."""
        faction = _FACTION_OF_CARD[self.card_of[slot]]
        return -1 if faction is None else self.seat_of_faction[faction]

    def emit(self, event: Event) -> None:
        """Record ``event``; the log gets its sentence (both only while the log is kept)."""
        if self.keep_log:
            self.events.append(event)
            self.log.append(event.text)


def _kept(old: list[Any], now: list[Any]) -> list[Any]:
    """``old`` where it equals ``now`` (``GameState.snapshot``), else a copy of ``now``."""
    return old if old == now else now[:]


def _kept_each(old: list[list[int]], now: list[list[int]]) -> list[list[int]]:
    """``_kept`` of each inner list (a per-seat or per-planet list of slots)."""
    if len(old) != len(now):
        return [x[:] for x in now]
    return [old[i] if old[i] == now[i] else now[i][:] for i in range(len(now))]
