"""``ismcts``: information-set Monte Carlo tree search (single-observer ISMCTS).

Every iteration samples a full-information world consistent with what the seat knows
(``bots.memory.Sampler`` on the redacted state and the seat's memory of the round's draft),
descends a tree whose edges are action texts, expands one untried action, plays on with a
default policy (the rollout), and backs up one reward per seat. Each node stores the reward
of the seat that moved into it, so opponents choose by their own interest (max-n). Because the
legal actions differ between sampled worlds, selection uses availability counts (UCB over the
times a child was selectable), as in Cowling, Powley & Whitehouse (2012).

Simultaneous draft picks are applied one seat at a time, the searching seat first, so its own
pick is never chosen with knowledge of the others'. Chance (leftover shuffles, reshuffles)
is sampled with ``Shuffle(stream.permutation(k))`` and is not part of the tree.

Draft picks are searched like every other move in two-player games and take the pick of the
highest summed card value (``heuristics.draft_value``, as ``greedy`` drafts) with more players
(``draft=auto``, the default; ``draft=search`` or ``draft=value`` for every table size). With
greedy rollouts a pick's rollouts model the round that follows well enough that two-player
searched drafts win clearly: 191 of 200 games against greedy (seed e1, score per seat +9.55),
where value drafts won 178-180 (about +6.8). With four players the picks of four seats fill
the tree and the cap cuts the search short: searched drafts won 103 of 200 games against three
greedy bots (score per seat +2.88) where value drafts won 102 (+3.95) at half the time per
decision. (With the biased rollouts of before, value drafts won in two players too: 162 against
145 of 200 games.) Three-player tables draft by value, untested.

Rollouts play like ``greedy`` by default (``policy=greedy``): a seat's random card goes where
resolving the planets now rates it best (``heuristics.resolved_dispatch``), draft picks by
roulette over card values, decisions by their default. A rollout of random dispatches models
nobody's play; one of greedy moves models a sensible table. It cost 5.6 times as much per
iteration with two players and 12 times with four (README, "Engine speed"; since compiled in
``engine.rollout`` and a move's options resolved from checkpoints, 3.4 and 3.6 times in
instructions), and still won more
at the same time per decision (README, "Measured strength"). A rollout stops at the end of the
round it starts in (``horizon=round``); the reward is then the seat's score margin, and only at
the end of the game is winning weighed too: leading after a round that does not end the game is
worth nothing by itself (``lead=0``), and rewarding it made the search play for an early lead
instead of for points (68.5 % against 75.5 % of 200 games against greedy at 500 iterations).

The worlds honour what the seat remembers of the round's draft (``memory=draft``, the
default; ``bots.memory``): the honest view forgets which slot holds a card that passed through
the seat's hands, but not which cards each later holder took from a hand it passed on (the
ones missing when it came back, or not among the leftovers) nor which are in the hand another
seat holds now. With two players that places all of the opponent's cards but its first pick;
with more, which of a hand's later holders took which card is drawn by their draft values
(``model=value``, the default: a seat takes a card with odds growing as exp(``beta`` times its
value), as the built-in bots draft by value; ``model=uniform``: equal odds), and so are the
cards a seat took unseen. ``beta=auto`` (the default) is 4 with two players, where it only
weighs the opponent's first pick, and 40 with more: nearly the card of highest value, the one
greedy takes. At a table of greedy bots the worlds then place 66 % of the other seats' hand
cards in the right hand, against 55 % with 4, 32 % with equal odds and 16 % without the memory
(``bench/bench_worlds.py``, 60 four-player games). ``memory=off`` deals every unseen card
uniformly, as ``engine.view.determinize`` does. README's "Measured strength" gives what it
won.

Options: ``iterations=N`` and/or ``time=SECONDS`` (stop at whichever comes first; the default
is 5,000 iterations under a 1 s cap: the cap decides, so a game is not reproducible move for
move; with 1,000 iterations, the default before, most two-player decisions stopped at the count
after 0.6-0.8 s of CPU and left the rest of the second unused; ``iterations=N`` alone is),
``bank=auto`` (the default: ``game`` with more than two players, ``off`` with two), ``off``
or ``game``: with a time cap, a game clock of the cap times the
decisions asked: the time a decision leaves unused (a single legal move, a pick by draft value,
which is half of a four-player game's decisions) is kept, and each searched decision may spend
the saved time spread over the cards left in hand, up to three times the cap, so the mean per
decision stays within the cap; a search also stops, saving the rest, once no root move can
overtake the most visited one in the time left (the move it would choose anyway); ``c=``
exploration constant (0.25: rewards are margins, mostly near one half, so less exploration
pays), ``draft=auto`` (the default: search with two players, value with more), ``search`` or
``value``, ``claims=merge``
(the default: dispatches that differ only by their claim share one tree edge, since a claim
changes what the others learn, not the outcome in a sampled world; the claim played is drawn
among them) or ``split`` (one edge per claim), ``prune=K`` (0, off, by default: search only the
K root moves that greedy's one-step estimate ranks best, ``heuristics.one_step_values``),
``win=`` the reward's weight on winning at the end of the game (0.7; the rest is the scaled
score margin), ``lead=`` the same weight on leading when a rollout stops at a round's end (0),
``policy=`` rollout policy (``greedy``, the default; ``biased``: draft picks weighted by card
value, opponents' action cards captured when possible, other dispatches random; ``planets``:
the same, but a seat's own action cards go preferably where they make it strongest or favored,
``heuristics.planet_dispatch``; ``random``: uniform over the legal actions), ``horizon=`` how
far a rollout goes: ``round`` (the default) or ``game`` (to the end of the game). Round
horizons played better in a probe (20 two-player games against greedy at 400 iterations: 14
wins against 5): a rollout to the end of the game is mostly noise from later rounds, and costs
about four times as much. The rollout policies build their actions directly from the state
(hand, open planets, legal claims) rather than listing every legal action, which is most of the
cost of a cheap rollout. README's "Measured strength" gives the tournaments that chose these
defaults.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence

from bots.base import Bot, GameInfo, Turn
from bots.heuristics import (
    margin,
    one_step_values,
    planet_dispatch,
    value_table,
)
from bots.memory import DraftMemory, Sampler, pick_odds
from engine import (
    CARDS,
    CHANCE,
    Action,
    Capture,
    Choose,
    Discard,
    Dispatch,
    GameState,
    Phase,
    Pick,
    RuleViolationError,
    apply_in_place,
    apply_trusted,
    draw_legal,
    is_over,
    legal_actions,
    random_chance,
    to_move,
)
from engine.cleanup import final_scores, ranking
from engine.disclosure import legal_claims
from engine.dispatch import open_planets
from engine.randomness import RandomStream
from engine.rollout import greedy_rollout, rollout_pick

_DRAFT = Phase.DRAFT  # a global: faster to read than the enum member

WIN_WEIGHT = 0.7      # reward = WIN_WEIGHT * won + (1 - WIN_WEIGHT) * scaled score margin
LEAD_WEIGHT = 0.0     # the same weight on leading when a rollout stops with the game going on
MARGIN_SCALE = 12.0   # a margin of this many points counts as a full win/loss in the margin term
DEFAULT_ITERATIONS = 5000  # a bound: the time cap decides (1,000 left most of it unused)
DEFAULT_TIME_CAP = 1.0  # seconds per decision, with the default iterations only
CAP_MARGIN = 0.02     # the part of a time cap the search leaves unused
BANK_MOST = 3.0       # with bank=game, a decision spends at most this many times the cap
BANK_LEAST = 0.25     # ... and at least this part of it (after an overrun)
SETTLE_EVERY = 16     # with bank=game, how often the search asks whether its move is settled
PICK_BETA = 4.0      # a seat's chance to have taken a card grows as exp(PICK_BETA * its value)
PICK_BETA_MANY = 40.0  # ... with more than two players (beta=auto): nearly greedy's own pick
PRUNE_SAMPLES = 4     # sampled worlds for the one-step estimate of the root moves


class Node:
    __slots__ = ("avail", "children", "seat", "total", "visits")

    def __init__(self, seat: int) -> None:
        self.seat = seat                    # the seat whose move led here
        self.children: dict[str, Node] = {}
        self.visits = 0
        self.avail = 0
        self.total = 0.0


class IsmctsBot(Bot):
    """Information-set MCTS over sampled worlds; options iterations=N or time=SECONDS."""

    name = "ismcts"
    description = ("information-set Monte Carlo tree search with greedy rollouts "
                   "(default: as many iterations as a 1 s cap allows, at most 5,000; "
                   "ismcts:iterations=N or ismcts:time=1.0)")

    def __init__(self, iterations: int | None = None, time: float | None = None,
                 c: float = 0.25, policy: str = "greedy", horizon: str = "round",
                 win: float = WIN_WEIGHT, claims: str = "merge", draft: str = "auto",
                 prune: int = 0, lead: float = LEAD_WEIGHT, memory: str = "draft",
                 model: str = "value", beta: float | str = "auto", clock: str = "wall",
                 bank: str = "auto") -> None:
        if iterations is not None and int(iterations) < 1:
            raise ValueError("iterations must be at least 1")
        if time is not None and float(time) <= 0:
            raise ValueError("time must be positive")
        if policy not in ("biased", "random", "planets", "greedy"):
            raise ValueError("policy must be 'greedy', 'planets', 'biased' or 'random'")
        if horizon not in ("game", "round"):
            raise ValueError("horizon must be 'game' or 'round'")
        if not 0.0 <= float(win) <= 1.0:
            raise ValueError("win must be between 0 and 1")
        if claims not in ("merge", "split"):
            raise ValueError("claims must be 'merge' or 'split'")
        if draft not in ("auto", "search", "value"):
            raise ValueError("draft must be 'auto', 'search' or 'value'")
        self.draft = draft
        if memory not in ("draft", "off"):
            raise ValueError("memory must be 'draft' or 'off'")
        self.memory = memory
        if model not in ("value", "uniform"):
            raise ValueError("model must be 'value' or 'uniform'")
        if clock not in ("wall", "cpu"):
            raise ValueError("clock must be 'wall' or 'cpu'")
        # what the time cap counts: wall-clock seconds, or the CPU seconds of the thread that
        # searches (the same search on a loaded machine as on an idle one, for measurements;
        # a decision then takes longer than the cap in wall time)
        self.cpu_clock = clock == "cpu"
        if bank not in ("auto", "game", "off"):
            raise ValueError("bank must be 'auto', 'game' or 'off'")
        # with a time cap: the time a decision leaves unused (one move, a pick by value) is
        # kept for the searched decisions of the same game (bank=auto: with more than two
        # players, where half of the decisions are picks by value; settled by start())
        self.bank_option = bank
        self.bank = bank == "game"
        self._saved = 0.0
        self.model = model
        # beta=auto: PICK_BETA with two players, PICK_BETA_MANY with more (settled by start())
        self.beta_option: float | None = None if beta == "auto" else float(beta)
        self.beta = PICK_BETA if self.beta_option is None else self.beta_option
        self._memory: DraftMemory | None = None
        self._search_drafts = draft == "search"  # settled by start() for draft=auto
        if int(prune) < 0:
            raise ValueError("prune must be 0 (off) or a number of moves")
        self.prune = int(prune)
        self.horizon = horizon
        self.win = float(win)
        if not 0.0 <= float(lead) <= 1.0:
            raise ValueError("lead must be between 0 and 1")
        self.lead = float(lead)
        self.merge_claims = claims == "merge"
        if iterations is None and time is None:
            # the default: a fixed number of iterations (deterministic for a seed while the
            # cap is not reached) under a time cap that keeps every decision within 1 s
            self.iterations: int | None = DEFAULT_ITERATIONS
            self.think_time: float | None = DEFAULT_TIME_CAP
        else:
            self.iterations = int(iterations) if iterations is not None else None
            self.think_time = float(time) if time is not None else None
        self.c = float(c)
        self.policy = policy
        self.last_iterations = 0
        self._expanded: tuple[Node, str] | None = None  # the node the iteration added, if any
        self._sampler: Sampler | None = None  # this decision's worlds

    def start(self, info: GameInfo) -> None:
        super().start(info)
        self._saved = 0.0
        n = info.config.n
        # Rollout draft weights per seat: that seat's card values, floored so that every card
        # stays possible (the default policy must not be deterministic).
        self._values = [value_table(info.config.factions[seat], n) for seat in range(n)]
        self._weights = [[max(v, 0.05) for v in values] for values in self._values]
        self.info_factions = info.config.factions
        self._search_drafts = self.draft == "search" or (self.draft == "auto" and n == 2)
        self.bank = self.bank_option == "game" or (self.bank_option == "auto" and n > 2)
        if self.beta_option is None:
            self.beta = PICK_BETA if n == 2 else PICK_BETA_MANY
        self._memory = DraftMemory(info.seat) if self.memory == "draft" else None
        # how likely each seat is to have taken each card, as a remembered card's taker or
        # for the cards it took unseen: by its draft value (the built-in bots draft by it)
        self._pick_weights = pick_odds(self._values, self.beta) if self.model == "value" \
            else None

    def choose(self, turn: Turn) -> Action:
        clock = time.thread_time if self.cpu_clock else time.perf_counter
        started = clock()
        try:
            return self._choose(turn, clock, started)
        finally:
            if self.bank and self.think_time is not None:
                self._saved += self.think_time * (1 - CAP_MARGIN) - (clock() - started)

    def _choose(self, turn: Turn, clock: Callable[[], float], started: float) -> Action:
        legal = turn.legal
        root_seat = turn.seat
        redacted = turn.state()
        if self._memory is not None:
            self._memory.observe(redacted)
        if len(legal) == 1:
            return legal[0]
        if not self._search_drafts and type(legal[0]) is Pick:
            return self._value_pick(redacted, root_seat, legal)
        root = Node(-1)
        rng = self.rng
        sampler = Sampler(redacted, self._memory, weights=self._pick_weights)
        self._sampler = sampler
        allowed = self._root_moves(redacted, root_seat, legal) if self.prune else None
        # The cap counts from the call, and the search stops before an iteration that would
        # end past it (judged by the mean iteration so far): a draft pick's rollouts run to the
        # round's end, and checking only for a deadline already passed overran it by one of them.
        # It keeps CAP_MARGIN of the cap for the rest (picking the move, a loaded machine's
        # scheduling): without it, games on a busy machine averaged up to 1.001 s a decision.
        deadline = None
        if self.think_time is not None:
            spend = self.think_time * (1 - CAP_MARGIN)
            if self.bank:
                # the game's saved time, spread over the decisions of this phase still to
                # come (the cards left in hand), within BANK_MOST of the cap
                left = max(1, len(redacted.hands[root_seat]))
                spend = max(BANK_LEAST * spend,
                            min(BANK_MOST * spend, spend + self._saved / left))
            deadline = started + spend
        searching = clock()
        done = 0
        while True:
            if self.iterations is not None and done >= self.iterations:
                break
            if deadline is not None and done > 0:
                now = clock()
                per_iteration = (now - searching) / done
                if now + per_iteration >= deadline:
                    break
                if self.bank and done % SETTLE_EVERY == 0 and \
                        _settled(root, (deadline - now) / per_iteration, self.iterations, done):
                    break  # the move is chosen: the time left goes to the game's bank
            world = sampler.world(rng)
            self._expanded = None
            try:
                self._iterate(root, world, root_seat, rng, allowed)
            except RuleViolationError:
                # A seat that lied about a card this seat has seen leaves determinize no
                # truthful world; the engine stops such a world when it reveals the card. Drop
                # the world and the node it expanded (unvisited, it would divide by zero in
                # selection).
                if self._expanded is not None:
                    parent, edge = self._expanded
                    del parent.children[edge]
            done += 1
        self.last_iterations = done
        key = self._key
        by_key: dict[str, list[Action]] = {}
        for a in legal:
            by_key.setdefault(key(a), []).append(a)
        ranked = sorted(((child.visits, child.total, text)
                         for text, child in root.children.items() if text in by_key),
                        reverse=True)
        if not ranked:
            return legal[rng.randbelow(len(legal))]
        options = by_key[ranked[0][2]]
        # merged claims: the search did not tell them apart, so any of them will do
        return options[rng.randbelow(len(options))] if len(options) > 1 else options[0]

    def _root_moves(self, state: GameState, seat: int, legal: Sequence[Action]) -> set[str] | None:
        """The root moves worth searching: the ``prune`` best by greedy's one-step estimate
        (draft value for picks, the planets resolved now on a few sampled worlds for
        dispatches and captures). Few iterations spread over every legal move give each only
        a handful of noisy rollouts; the one-step estimate is cheap and rarely misses the best
        move by far, so the search spends them on the candidates that matter."""
        key = self._key
        reps: dict[str, Action] = {}
        for a in legal:
            reps.setdefault(key(a), a)
        if len(reps) <= self.prune:
            return None
        keys = list(reps)
        first = legal[0]
        values: list[float]
        if isinstance(first, Pick):
            weights = self._values[seat]
            values = [sum(weights[state.card_of[x]] for x in _slots(reps[k])) for k in keys]
        elif type(first) in (Dispatch, Capture, Discard):
            sampler = self._sampler or Sampler(state, None)
            worlds = [sampler.world(self.rng) for _ in range(PRUNE_SAMPLES)]
            values = one_step_values(worlds, seat, [reps[k] for k in keys],
                                     self.info_factions[seat])
        else:
            return None
        order = sorted(range(len(keys)), key=lambda i: -values[i])
        return {keys[i] for i in order[:self.prune]}

    def _value_pick(self, state: GameState, seat: int, legal: Sequence[Action]) -> Action:
        """The pick of the highest summed draft value (greedy's draft)."""
        weights = self._weights[seat]
        scored = [(sum(weights[state.card_of[x]] for x in _slots(a)), i)
                  for i, a in enumerate(legal) if isinstance(a, Pick)]
        top = max(v for v, _ in scored)
        best = [i for v, i in scored if v >= top - 1e-9]
        return legal[best[self.rng.randbelow(len(best))]]

    def _key(self, action: Action) -> str:
        """The tree edge of an action. A dispatch's claim changes only what the others learn,
        not the outcome in a sampled (full-information) world, so with merged claims the
        dispatches that differ only by claim share one edge instead of splitting its visits."""
        if self.merge_claims and type(action) is Dispatch:
            return f"{action.seat} dispatch {action.slot} {action.planet}"
        return action.text()

    # -- one iteration -----------------------------------------------------------------------

    def _iterate(self, root: Node, d: GameState, root_seat: int, rng: RandomStream,
                 allowed: set[str] | None = None) -> None:
        path = [root]
        node = root
        expanded = False
        while not is_over(d):
            movers = to_move(d)
            if not movers:
                return  # a world the engine cannot continue (should not happen): skip it
            if movers[0] == CHANCE:
                apply_in_place(d, random_chance(d, rng))
                continue
            if expanded:
                break
            seat = root_seat if root_seat in movers else movers[0]
            legal = legal_actions(d, seat)
            if self.merge_claims:
                key = self._key
                texts = []
                kept = []
                seen: set[str] = set()
                for a in legal:
                    k = key(a)
                    if k not in seen:
                        seen.add(k)
                        texts.append(k)
                        kept.append(a)
                legal = kept
            else:
                texts = [a.text() for a in legal]
            if allowed is not None and node is root:
                keep = [i for i, t in enumerate(texts) if t in allowed]
                legal = [legal[i] for i in keep]
                texts = [texts[i] for i in keep]
            untried = [i for i, t in enumerate(texts) if t not in node.children]
            for t in texts:
                child = node.children.get(t)
                if child is not None:
                    child.avail += 1
            if untried:
                i = untried[rng.randbelow(len(untried))]
                child = Node(seat)
                child.avail = 1
                node.children[texts[i]] = child
                self._expanded = (node, texts[i])
                expanded = True
            else:
                i = self._select(node, texts)
                child = node.children[texts[i]]
            apply_trusted(d, legal[i])  # one of legal_actions: no need to check it again
            path.append(child)
            node = child
        start_round = d.round
        self._rollout(d, rng, start_round if self.horizon == "round" else None)
        rewards = self._rewards(d)
        for visited in path:
            visited.visits += 1
            if visited.seat >= 0:
                visited.total += rewards[visited.seat]

    def _select(self, node: Node, texts: list[str]) -> int:
        best_i, best_v = 0, -math.inf
        c = self.c
        for i, t in enumerate(texts):
            child = node.children[t]
            v = child.total / child.visits + c * math.sqrt(math.log(child.avail) / child.visits)
            if v > best_v:
                best_i, best_v = i, v
        return best_i

    def _rewards(self, d: GameState) -> list[float]:
        """One reward per seat: at the end of the game, ``win`` weighs winning against the
        margin; at a round's end with the game going on, ``lead`` weighs leading."""
        return _rewards(d, self.win if is_over(d) else self.lead)

    # -- default policy ----------------------------------------------------------------------

    def _rollout(self, d: GameState, rng: RandomStream, stop_round: int | None) -> None:
        """Play on to the end of the game (or of round ``stop_round``: the reshuffle request
        that ends it)."""
        if self.policy == "random":
            while not is_over(d):
                if stop_round is not None and d.round == stop_round and d.chance is not None \
                        and d.chance[0] == "reshuffle":
                    return
                seat = to_move(d)[0]
                if seat == CHANCE:
                    apply_in_place(d, random_chance(d, rng))
                    continue
                # legal[rng.randbelow(len(legal))] without listing them
                apply_trusted(d, draw_legal(d, seat, rng))
            return
        if self.policy == "greedy":
            # the whole rollout in the compiled engine (``engine.rollout``): the same draws and
            # moves as the loop below with ``heuristics.resolved_dispatch`` for dispatches
            greedy_rollout(d, rng, -1 if stop_round is None else stop_round, self._weights,
                           self._values)
            return
        planets_policy = self.policy == "planets"
        while not is_over(d):
            seat = to_move(d)[0]
            if seat == CHANCE:
                if stop_round is not None and d.chance is not None and \
                        d.chance[0] == "reshuffle" and d.round == stop_round:
                    return
                apply_in_place(d, random_chance(d, rng))
            elif d.decision is not None:
                # Defaults are the rules' sensible "do nothing special" answers; random
                # answers to "kill which card?" questions mostly add noise.
                apply_in_place(d, Choose(seat, d.decision.default))
            # the rollout policy builds only legal picks and dispatches: no need to check them
            elif d.phase is _DRAFT:
                apply_trusted(d, self._rollout_pick(d, seat, rng))
            elif planets_policy:
                apply_trusted(d, planet_dispatch(d, seat, rng))
            else:
                apply_trusted(d, _rollout_dispatch(d, seat, rng))

    def _rollout_pick(self, d: GameState, seat: int, rng: RandomStream) -> Action:
        """Draft by roulette over squared card values: mostly good cards, never certain."""
        return rollout_pick(d, seat, rng, self._weights[seat])


def _settled(root: Node, time_left: float, bound: int | None, done: int) -> bool:
    """True when no root move can overtake the most visited one in the iterations left (by
    time, or by the iteration bound): the search would choose it whatever those iterations
    found."""
    left = time_left if bound is None else min(time_left, bound - done)
    first = second = 0
    for child in root.children.values():
        v = child.visits
        if v > first:
            first, second = v, first
        elif v > second:
            second = v
    return first - second > left


def _slots(action: Action) -> tuple[int, ...]:
    return action.slots if isinstance(action, Pick) else ()


def _rollout_dispatch(d: GameState, seat: int, rng: RandomStream) -> Action:
    """A random card to a random open planet, built directly instead of listing every legal
    dispatch (the list is most of a rollout's cost). Opponents' action cards are captured
    when possible: played, they would only add to their owner's strength and favor."""
    hand = d.hands[seat]
    slot = hand[rng.randbelow(len(hand))]
    cid = d.card_of[slot]
    faction = CARDS[cid].faction
    can_capture = not d.captured[seat]
    if can_capture and faction is not None and d.seat_of_faction[faction] != seat:
        return Capture(seat, slot)
    planets = open_planets(d)
    if not planets:
        return Capture(seat, slot) if can_capture else Discard(seat, slot)
    p = planets[rng.randbelow(len(planets))]
    claims = legal_claims(cid, d.config.planets[p], d.vision_up[p])
    return Dispatch(seat, slot, p, claims[0])


def _rewards(d: GameState, win: float = WIN_WEIGHT) -> list[float]:
    scores = final_scores(d)
    won = ranking(d)[0]
    out = []
    for seat in range(d.n):
        m = max(-1.0, min(1.0, margin(scores, seat) / MARGIN_SCALE))
        out.append(win * (seat == won) + (1 - win) * 0.5 * (1 + m))
    return out
