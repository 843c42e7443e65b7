"""Solstice as an OpenSpiel game: ``import bots.rl.openspiel`` registers ``python_solstice``::

    import pyspiel
    import bots.rl.openspiel  # noqa: F401 - registers the game
    game = pyspiel.load_game("python_solstice", {"players": 3})

Chance is explicit, one card or entry at a time: the setup (first player, each planet, each
event, drawn as the rulebook draws them), the deal (each card of the deck from the top),
every shuffle during play (each entry of the permutation) and every relabel of a hand (each
entry of its secret order, seat by seat). Hands are relabelled on the engine's schedule
(``engine.relabel``: at the start of each dispatch phase, and with each pick of a linkable
hand), as in ``play_match`` and at a network table; the relabel order is the holder's secret,
so it is chance that only the holder's information state reflects (its hand in the fresh
slots). A pick round's picks are asked in seat order on the same state and taken together
once all are in. Player actions are the indices of ``bots.rl.encoding`` (the same as the
PettingZoo environment); chance outcomes are below 48.

A player's information state has perfect recall (``bots.rl.recall``): the string is every
view the player was shown, in order, without slot numbers (so no secret relabel order splits
an information state), with its own actions between them; the tensor is the current view's
encoding followed by a memory of every card it has seen (when, where) and what it did with
its own. The observation (string and tensor) is the current view alone. Returns: 1 for the
winner, -1/(n-1) for every other seat (zero-sum).
``resample_from_infostate`` deals the unseen cards where the player's memory of the round's
draft puts them (``bots.memory``, as our ``ismcts`` samples), the rest at random, and re-draws
the picks other seats have made this pick round, so OpenSpiel's ``ISMCTSBot`` can search the
game.
"""

from __future__ import annotations

import copy
import json
from typing import Any, cast

import numpy as np
import pyspiel

from bots.base import Turn
from bots.memory import DraftMemory, Sampler
from bots.rl import encoding as enc
from bots.rl.recall import INFO_STATE_SIZE, Recall
from bots.rl.state_encoding import encode_state, state_indices
from bots.rl.table import game_rewards
from engine import (
    CHANCE,
    Action,
    GameConfig,
    GameState,
    Pick,
    Shuffle,
    apply_in_place,
    apply_trusted,
    final_scores,
    is_over,
    legal_actions,
    new_game,
    ranking,
    to_move,
)
from engine.cards import CARDS, FACTIONS, STANDARD_PLANETS, events_of_kind
from engine.draft import waiting_pickers
from engine.features import scatter
from engine.randomness import RandomStream
from engine.relabel import Relabel, dispatch_relabels_due, pick_relabels_due, relabel_in_place
from engine.sight import Sight
from engine.view import redact

MAX_CHANCE_OUTCOMES = len(CARDS)
MAX_GAME_LENGTH = 4000  # chance nodes included; random games take well under 1,500
_PLANET_ID = {name: i for i, name in enumerate(enc.PLANET_NAMES)}
_EVENT_ID = {card.name: card.id for card in CARDS if card.faction is None}
_PLANS: dict[int, list[tuple[str, tuple[str, ...], int]]] = {}
_OBSERVERS: dict[bool, SolsticeObserver] = {}  # the tensors' observers (SolsticeState._tensor)
_CHANCE_ID, _TERMINAL_ID = int(pyspiel.PlayerId.CHANCE), int(pyspiel.PlayerId.TERMINAL)

_GAME_TYPE = pyspiel.GameType(
    short_name="python_solstice",
    long_name="Python Solstice",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"players": 2},
)


def _setup_plan(n: int) -> list[tuple[str, tuple[str, ...], int]]:
    """What the setup draws, in order: (what, pool, how many), as ``random_config`` does."""
    # Asked at every chance node: made once per player count (listing the events of a kind
    # cost a third of a random game's steps).
    plan = _PLANS.get(n)
    if plan is None:
        plan = _PLANS[n] = _make_setup_plan(n)
    return plan


def _make_setup_plan(n: int) -> list[tuple[str, tuple[str, ...], int]]:
    if n == 2:
        return [("planet", STANDARD_PLANETS, 2),
                ("event", events_of_kind("Deception"), 1),
                ("event", events_of_kind("Fortune"), 1)]
    return [("planet", STANDARD_PLANETS, n),
            ("event", events_of_kind("Fortune"), 2),
            ("event", events_of_kind("Deception"), 2),
            ("event", events_of_kind("Destruction"), 4)]


class SolsticeGame(pyspiel.Game):
    def __init__(self, params: dict[str, Any] | None = None) -> None:
        players = int((params or {}).get("players", 2))
        if not 2 <= players <= 4:
            raise ValueError(f"Solstice is for 2-4 players, not {players}")
        info = pyspiel.GameInfo(
            num_distinct_actions=enc.ACTION_SIZE, max_chance_outcomes=MAX_CHANCE_OUTCOMES,
            num_players=players, min_utility=-1.0, max_utility=1.0, utility_sum=0.0,
            max_game_length=MAX_GAME_LENGTH)
        super().__init__(_GAME_TYPE, info, params or {})
        self.players = players

    def new_initial_state(self) -> SolsticeState:
        return SolsticeState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> SolsticeObserver:
        perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return SolsticeObserver(perfect_recall)


class _Game:
    """The mutable part of a state, copied by ``GameState.clone`` (OpenSpiel clones states
    by deep-copying their attributes)."""

    def __init__(self) -> None:
        self.first_player = -1
        self.drawn: list[list[str]] = []      # per setup draw: the names drawn so far
        self.config: GameConfig | None = None
        self.deck: list[int] = []             # card ids dealt so far, top first
        self.state: GameState | None = None
        self.perm: list[int] = []             # a shuffle's entries drawn so far
        self.mine: list[list[int]] = []       # each seat's own actions so far
        # the relabel schedule (engine.relabel.RelabelSchedule, with its orders drawn as chance)
        self.relabelled: set[int] = set()     # slots made by a relabel
        self.dispatch_round = 0               # the last round whose dispatch relabel is done
        self.stage = ""                       # what the relabels due are for: dispatch, pick
        self.due: list[int] = []              # the seats to relabel, in order
        self.orders: list[tuple[int, ...]] = []  # their orders drawn so far
        self.order: list[int] = []            # the entries of the order being drawn
        self.pickers: list[int] = []          # the pick round being asked (state unchanged)
        self.picks: list[Pick] = []           # its picks so far, in seat order, not applied
        self.recall: list[Recall] = []        # each seat's record of its views and actions
        # Whether the states of the game are kept (the trail below). Not until an information
        # state's string or a resample is asked for (``_keep_states``: the game so far is
        # then replayed with them): until then each seat's record notes the places of the
        # cards of each state at once, from the state itself (all the tensor needs), and
        # the trail stays empty. A copy of the state at every step was a tenth of a
        # 4-player step with the tensor read at each.
        self.keep_states = False
        # What each record has yet to take in, in order: a copy of the state after each step
        # (every seat is shown its view of it; a Sight shares what the seats' records read
        # of it) or a seat's own action (seat, index). Records take it in only when an
        # information state is asked for: a search's rollouts, which never ask, pay one state
        # copy a step, not a view per seat.
        self.trail: list[Sight | tuple[int, int]] = []
        self.last_sight: Sight | None = None  # the trail's last state
        self.taken: list[int] = []            # per seat: how much of the trail its record holds
        # per seat: what it remembers of the round's draft (bots.memory), for resampling
        self.memory: list[DraftMemory] = []
        self.remembered: list[int] = []       # per seat: how much of the trail it has seen
        # the legal actions (and their indices) last listed for a player on the state as it is
        # now: OpenSpiel lists them, then applies one (cleared whenever the state moves on)
        self.listed: tuple[int, list[Action], list[int]] | None = None
        # the player to move on the state as it is now, once asked (pyspiel asks it several
        # times an action); None whenever the state moves on
        self.player: int | None = None
        # the chance outcomes of the state as it is now, once listed (None whenever the state
        # moves on): a shuffle's, a relabel order's and the deal's next outcomes are these
        # less the one drawn
        self.left: list[int] | None = None

    def __deepcopy__(self, memo: dict[int, Any]) -> _Game:
        new = _Game.__new__(_Game)
        new.first_player = self.first_player
        new.drawn = [d[:] for d in self.drawn]
        new.config = self.config
        new.deck = self.deck[:]
        new.state = self.state.clone() if self.state is not None else None
        new.perm = self.perm[:]
        new.mine = [m[:] for m in self.mine]
        new.relabelled = set(self.relabelled)
        new.dispatch_round = self.dispatch_round
        new.stage = self.stage
        new.due = self.due[:]
        new.orders = self.orders[:]
        new.order = self.order[:]
        new.pickers = self.pickers[:]
        new.picks = self.picks[:]
        new.recall = [r.copy() for r in self.recall]
        new.keep_states = self.keep_states
        if not self.keep_states and new.state is not None:
            for recall in new.recall:  # each noted this state as it is: the copy's own
                recall.follow(new.state)
        new.trail = self.trail[:]  # its states are never changed once there
        new.last_sight = self.last_sight
        new.taken = self.taken[:]
        new.memory = [_copy_memory(m) for m in self.memory]
        new.remembered = self.remembered[:]
        new.listed = None  # a resampled clone gets another state
        new.player = None
        new.left = None
        return new


class SolsticeState(pyspiel.State):
    def __init__(self, game: SolsticeGame) -> None:
        super().__init__(game)
        self._n = game.players
        self._g = _Game()
        self._g.mine = [[] for _ in range(self._n)]
        self._g.drawn = [[] for _ in _setup_plan(self._n)]
        self._g.recall = [Recall(seat) for seat in range(self._n)]
        self._g.taken = [0] * self._n
        self._g.memory = [DraftMemory(seat) for seat in range(self._n)]
        self._g.remembered = [0] * self._n

    # --- the setup, as chance ------------------------------------------------------------

    def _setup_step(self) -> tuple[str, tuple[str, ...], int, list[str]] | None:
        """The setup draw pending: (what, pool, index, drawn so far), or None when done."""
        if self._g.config is not None:
            return None  # the setup is done (its last draw made the configuration)
        for i, (what, pool, count) in enumerate(_setup_plan(self._n)):
            if len(self._g.drawn[i]) < count:
                return what, pool, i, self._g.drawn[i]
        return None

    def _chance_outcomes_list(self) -> list[int]:
        """The chance outcomes now, in order (not to be changed: kept for the next node)."""
        g = self._g
        if g.left is None:
            g.left = self._list_chance_outcomes()
        return g.left

    def _list_chance_outcomes(self) -> list[int]:
        g = self._g
        if g.first_player < 0:
            return list(range(self._n))
        step = self._setup_step()
        if step is not None:
            what, pool, _, drawn = step
            ids = _PLANET_ID if what == "planet" else _EVENT_ID
            return sorted(ids[name] for name in pool if name not in drawn)
        if g.state is None:
            assert g.config is not None
            return sorted(set(g.config.card_ids()) - set(g.deck))
        if g.state.chance is None:  # an entry of a relabel's order
            size = len(g.state.hands[g.due[len(g.orders)]])
            return sorted(set(range(size)) - set(g.order))
        k = g.state.chance[1]
        if k > MAX_CHANCE_OUTCOMES:
            raise enc.EncodingError(f"a shuffle of {k} cards; chance outcomes hold "
                                    f"{MAX_CHANCE_OUTCOMES}")
        return sorted(set(range(k)) - set(g.perm))

    def _apply_chance(self, outcome: int) -> None:
        g = self._g
        g.listed = None
        g.player = None
        left, g.left = g.left, None
        if g.first_player < 0:
            g.first_player = outcome
            return
        step = self._setup_step()
        if step is not None:
            what, _, i, _ = step
            g.drawn[i].append(enc.PLANET_NAMES[outcome] if what == "planet"
                              else CARDS[outcome].name)
            if self._setup_step() is None:
                g.config = self._config()
            return
        if g.state is None:
            assert g.config is not None
            g.deck.append(outcome)
            if len(g.deck) == len(g.config.card_ids()):
                g.state = new_game(g.config, g.deck, keep_log=False)
                self._advance()
                self._record()
            else:
                g.left = _less(left, outcome)
            return
        if g.state.chance is None:
            g.order.append(outcome)
            if len(g.order) == len(g.state.hands[g.due[len(g.orders)]]):
                g.orders.append(tuple(g.order))
                g.order = []
                self._advance()
                self._record()
            else:
                g.left = _less(left, outcome)
            return
        g.perm.append(outcome)
        if len(g.perm) == g.state.chance[1]:
            perm, g.perm = tuple(g.perm), []
            apply_in_place(g.state, Shuffle(perm))
            self._advance()
            self._record()
        else:
            g.left = _less(left, outcome)

    def _advance(self) -> None:
        """Take every step that is neither chance nor a player's, in ``play_match``'s order:
        the relabels whose orders are drawn, a pick round's picks once all are in, and noting
        the relabels now due and the pick round now asked."""
        g = self._g
        s = g.state
        while s is not None and not is_over(s):
            if s.chance is not None or len(g.orders) < len(g.due):
                return  # chance: a shuffle, or a relabel's order
            if g.stage:
                moved = {seat: self._relabel(seat, order)
                         for seat, order in zip(g.due, g.orders, strict=True)}
                if g.stage == "dispatch":
                    if g.due:
                        g.dispatch_round = s.round
                else:
                    picks, g.pickers, g.picks = g.picks, [], []
                    for pick in picks:
                        if pick.seat in moved:
                            pick = Pick(pick.seat, tuple(sorted(moved[pick.seat][x]
                                                                for x in pick.slots)))
                        apply_in_place(s, pick)
                g.stage, g.due, g.orders = "", [], []
                continue
            if g.pickers:
                if len(g.picks) < len(g.pickers):
                    return  # the next picker chooses
                g.stage = "pick"
                g.due = pick_relabels_due(s, [pick.seat for pick in g.picks],
                                          g.relabelled.__contains__)
                continue
            due = dispatch_relabels_due(s, g.dispatch_round)
            if due:
                g.stage, g.due = "dispatch", due
                continue
            g.pickers = waiting_pickers(s)
            if not g.pickers:
                return  # a player's decision

    def _relabel(self, seat: int, order: tuple[int, ...]) -> dict[int, int]:
        """Relabel ``seat``'s hand in ``order``; returns old slot -> fresh slot."""
        s = self._g.state
        assert s is not None
        old = tuple(s.hands[seat])
        fresh = relabel_in_place(s, Relabel(seat, old, order))
        self._g.relabelled.update(fresh)
        return {old[source]: fresh[i] for i, source in enumerate(order)}

    def _config(self) -> GameConfig:
        g, n = self._g, self._n
        plan = _setup_plan(n)
        planets = tuple(g.drawn[0]) + (("Desert",) if n == 2 else ())
        events = tuple(name for i in range(1, len(plan)) for name in g.drawn[i])
        if n == 2:
            events += ("Quagmire", "Mercenaries")
        return GameConfig(FACTIONS[:n], planets, events, g.first_player)

    # --- the OpenSpiel interface ----------------------------------------------------------

    def current_player(self) -> int:
        player = self._g.player
        if player is None:
            player = self._g.player = self._current_player()
        return player

    def _current_player(self) -> int:
        # OpenSpiel asks this several times per action: the ids are read once, at import
        s = self._g.state
        if s is None:
            return _CHANCE_ID
        if is_over(s):
            return _TERMINAL_ID
        g = self._g
        if s.chance is not None or len(g.orders) < len(g.due):
            return _CHANCE_ID
        if g.pickers:
            return g.pickers[len(g.picks)]
        seat = to_move(s)[0]
        return _CHANCE_ID if seat == CHANCE else seat

    def is_terminal(self) -> bool:
        s = self._g.state
        return s is not None and is_over(s)

    def is_chance_node(self) -> bool:
        # pyspiel's asks ``current_player`` back through its binding: a round trip through
        # C++ at every call, several per step
        return self.current_player() == _CHANCE_ID

    def legal_actions(self, player: int | None = None) -> list[int]:
        """pyspiel's ``legal_actions``, answered here with the same answers: pyspiel's asks
        ``is_terminal``, ``current_player`` and ``_legal_actions`` back through its binding,
        half the cost of a call. At a chance node the chance outcomes (whoever asks); at a
        player's node that player's (``player`` None: the player to move), nobody else's; an
        error for another pseudo-player; nothing once the game is over."""
        if self.is_terminal():
            return []
        current = self.current_player()
        if current == _CHANCE_ID:
            return self._chance_outcomes_list()[:]  # kept for the next node: a copy
        if player is None or player == current:
            return self._legal_actions(current)
        if player < 0:
            raise pyspiel.SpielError(f"Called LegalActions for pseudo-player {player}")
        return []

    def _legal_actions(self, player: int) -> list[int]:
        s = self._g.state
        assert s is not None
        legal = legal_actions(s, player)
        indices = state_indices(s, player, legal)
        self._g.listed = (player, legal, indices)  # for the action applied next
        return sorted(indices)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        outcomes = self._chance_outcomes_list()
        p = 1.0 / len(outcomes)
        return [(o, p) for o in outcomes]

    def _apply_action(self, action: int) -> None:
        seat = self.current_player()
        if seat == _CHANCE_ID:
            self._apply_chance(action)
            return
        g = self._g
        assert g.state is not None
        listed, g.listed = g.listed, None
        g.player = g.left = None  # the state moves on
        if listed is not None and listed[0] == seat:  # listed on this very state
            _, legal, indices = listed
        else:
            legal = legal_actions(g.state, seat)
            indices = state_indices(g.state, seat, legal)
        chosen = legal[indices.index(action)]
        g.mine[seat].append(action)
        if g.keep_states:
            g.trail.append((seat, action))
        else:
            g.recall[seat].act(action)
        if g.pickers:
            assert isinstance(chosen, Pick)
            g.picks.append(chosen)  # taken with the round's other picks
            if len(g.picks) < len(g.pickers):
                # Held, the round's other picks to come: the state is as it was, and every
                # seat was shown it already (its view again would add nothing to a record).
                return
        else:
            apply_trusted(g.state, chosen)
        self._advance()
        self._record()

    def _record(self) -> None:
        """Every seat is shown its view after each step of the game (a repeated view adds
        nothing to its record): noted on the trail, taken in by ``_recall``."""
        g = self._g
        if g.state is None:
            return
        if not g.keep_states:  # the places noted at once, from the state as it is
            shown = Sight(g.state, None)
            for recall in g.recall:
                recall.note_places(shown)
            return
        last = g.last_sight
        # a copy sharing the lists a step left as they were with the trail's last state
        g.last_sight = Sight(g.state.snapshot(None if last is None else last.state), last)
        g.trail.append(g.last_sight)

    def _keep_states(self) -> None:
        """From now on, keep the states (the records' strings and the draft's memory read
        them): the game so far replayed from its history, keeping them, and this state's
        part taken from the replay (the same game, move for move)."""
        if self._g.keep_states:
            return
        replay = cast(SolsticeState, self.get_game().new_initial_state())
        replay._g.keep_states = True
        for action in self.history():
            replay.apply_action(action)
        self._g = replay._g

    def _draft_memory(self, player: int) -> DraftMemory:
        """What the player remembers of the round's draft, with all the trail seen (each
        state redacted to what the player knows, as a bot sees its turns)."""
        self._keep_states()
        g = self._g
        memory = g.memory[player]
        for entry in g.trail[g.remembered[player]:]:
            if not isinstance(entry, tuple):
                memory.observe(redact(entry.state, player))
        g.remembered[player] = len(g.trail)
        return memory

    def _recall(self, player: int) -> Recall:
        """The player's record, with all the trail taken in."""
        g = self._g
        recall = g.recall[player]
        for entry in g.trail[g.taken[player]:]:
            if isinstance(entry, tuple):
                if entry[0] == player:
                    recall.act(entry[1])
            else:
                recall.see_sight(entry)
        g.taken[player] = len(g.trail)
        return recall

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"chance {action}"
        return f"{player}: {enc.describe_action(action)}"

    def returns(self) -> list[float]:
        s = self._g.state
        if s is None or not is_over(s):
            return [0.0] * self._n
        return game_rewards(list(final_scores(s)), ranking(s)[0], "win")

    def __str__(self) -> str:
        g = self._g
        if g.state is None:
            return f"setup: first player {g.first_player}, drawn {g.drawn}, dealt {len(g.deck)}"
        s = g.state
        rows = [f"round {s.round} {s.phase.value} vp {s.vp} casualties {s.casualties}"]
        for p, name in enumerate(s.config.planets):
            rows.append(f"{name}: " + " ".join(
                (s.label(x) or "?") + ("" if s.face_up[x] else "(down)")
                for x in s.planets[p]))
        return "\n".join(rows)

    # --- what a player knows --------------------------------------------------------------

    def view(self, player: int) -> dict[str, Any] | None:
        """The player's view (None during the setup)."""
        s = self._g.state
        return None if s is None else Turn(s, player, []).view

    def observation_string(self, player: int | None = None) -> str:
        player = self.current_player() if player is None else player
        return _view_string(self, player)

    def information_state_tensor(self, player: int | None = None) -> list[float]:
        """pyspiel's ``information_state_tensor``, answered here: pyspiel's own builds a new
        initial state at every call (to learn the tensor's size) and copies the tensor twice.
        Here the list is made from the record directly (``Recall.tensor_list``); the values are
        the ones pyspiel's path gets from the observer's array (``tests/test_rl_recall_fast``
        compares them at every decision)."""
        return self._tensor(True, player)

    def observation_tensor(self, player: int | None = None) -> list[float]:
        """pyspiel's ``observation_tensor``, answered here (as ``information_state_tensor``)."""
        return self._tensor(False, player)

    def _tensor(self, perfect_recall: bool, player: int | None) -> list[float]:
        player = self.current_player() if player is None else player
        if not 0 <= player < self._n:  # as pyspiel checks it
            raise pyspiel.SpielError(f"player = {player}, num_players_ = {self._n}")
        if perfect_recall:  # the list made straight from the record (no array)
            if self._g.state is None:
                return [0.0] * INFO_STATE_SIZE
            return self._recall(player).tensor_list()
        observer = _OBSERVERS.get(perfect_recall)
        if observer is None:  # one per kind: an observer keeps nothing but its array
            observer = _OBSERVERS[perfect_recall] = SolsticeObserver(perfect_recall)
        observer.set_from(self, player)
        # A list of its few non-zero values over zeros: ``tolist`` makes a float object for
        # each of the thousands of entries, most of them zero (a tenth of a step).
        tensor = observer.tensor
        out = [0.0] * len(tensor)
        where = tensor.view(np.uint32).nonzero()[0]  # the bits: quicker than the floats
        scatter(out, where.tolist(), tensor[where].tolist(), 0)
        return out

    def information_state_string(self, player: int | None = None) -> str:
        """Perfect recall: every view the player was shown, in order, without slot numbers,
        and its own actions between them (``bots.rl.recall``)."""
        player = self.current_player() if player is None else player
        g = self._g
        if g.state is None:
            return _view_string(self, player)  # the setup is public
        self._keep_states()
        return self._recall(player).string()

    def resample_from_infostate(self, player: int, sampler: Any = None) -> SolsticeState:
        """A state the player cannot tell from this one: every card it does not see now dealt
        consistently with every disclosure and with what it remembers of the round's draft
        (the cards of the hands it passed: ``bots.memory.Sampler``), and the picks other
        seats have made this pick round (secret until all are in) made again at random in
        that world."""
        if self._g.state is not None:
            self._keep_states()
        g = self._g
        if g.state is not None:
            self._recall(player)  # taken in once here, not again in every sampled world
        clone: SolsticeState = self.clone()  # pyspiel's clone keeps the Python class
        if g.state is None:
            return clone
        # OpenSpiel's samplers are callables giving a float in [0, 1)
        seed = int(np.random.randint(1 << 62)) if sampler is None else \
            int(sampler() * (1 << 52))
        stream = RandomStream(f"resample/{seed}")
        # the cards the player saw in hands it passed are dealt where it knows them to be
        # (bots.memory, as our ismcts samples), the rest at random, as determinize deals them
        sampler = Sampler(redact(g.state, player), self._draft_memory(player))
        world = clone._g.state = sampler.world(stream)
        for other, made in enumerate(g.state.picks):  # as bots.rl.worlds.sample_world does
            if made is not None and world.picks[other] is None and other != player:
                options = legal_actions(world, other)
                apply_trusted(world, options[stream.randbelow(len(options))])
        # The other seats' records are of the real game: in the sampled world they start from
        # what they are shown there, so nothing of the real game reaches a search through them.
        for seat in range(self._n):
            if seat != player:
                clone._g.recall[seat] = Recall(seat)
                clone._g.recall[seat].see_state(world.clone())  # the world plays on
                clone._g.taken[seat] = len(clone._g.trail)
        for i, pick in enumerate(clone._g.picks):
            if pick.seat != player:
                options = legal_actions(world, pick.seat)
                clone._g.picks[i] = cast(Pick, options[stream.randbelow(len(options))])
        # another state (the same player to move, but asked again)
        clone._g.player = clone._g.left = None
        return clone


def _less(left: list[int] | None, outcome: int) -> list[int] | None:
    """The outcomes ``left`` without ``outcome`` (None: to be listed again, as when the
    outcome was not among them)."""
    if left is None or outcome not in left:
        return None
    rest = left[:]
    rest.remove(outcome)
    return rest


def _view_string(state: SolsticeState, player: int) -> str:
    g = state._g
    if g.state is None:
        return f"setup first={g.first_player} drawn={g.drawn} dealt={len(g.deck)}"
    view = dict(state.view(player) or {})
    view.pop("log", None)
    return json.dumps(view, sort_keys=True, separators=(",", ":"))


class SolsticeObserver:
    """OpenSpiel's observer: the encoded view as ``tensor`` (``dict["view"]`` is the same
    array), the view as a string; with perfect recall, the tensor goes on with the player's
    memory of every card (``dict["recall"]``, ``bots.rl.recall.Recall.tensor``) and the
    string is its whole record."""

    def __init__(self, perfect_recall: bool) -> None:
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(INFO_STATE_SIZE if perfect_recall else enc.OBS_SIZE, np.float32)
        self.dict = {"view": self.tensor[:enc.OBS_SIZE]}
        if perfect_recall:
            self.dict["recall"] = self.tensor[enc.OBS_SIZE:]

    def set_from(self, state: SolsticeState, player: int) -> None:
        if self.perfect_recall:
            if state._g.state is None:
                self.tensor[:] = 0.0
            else:
                state._recall(player).tensor(out=self.tensor)
            return
        s = state._g.state
        if s is None:
            self.tensor[:] = 0.0
        else:  # the view's encoding, read from the state (the view is not built)
            encode_state(s, player, out=self.tensor)

    def string_from(self, state: SolsticeState, player: int) -> str:
        if self.perfect_recall:
            return state.information_state_string(player)
        return state.observation_string(player)


def _copy_memory(memory: DraftMemory) -> DraftMemory:
    new = copy.copy(memory)
    new.picks = memory.picks[:]  # the one part ``observe`` changes in place
    return new


pyspiel.register_game(_GAME_TYPE, SolsticeGame)
