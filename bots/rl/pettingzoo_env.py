"""Solstice as a PettingZoo AEC environment (``pip install solstice[rl]``).

Same calling convention as PettingZoo's own classic games::

    from bots.rl import env
    e = env(players=3)
    e.reset(seed=7)
    for i, agent in enumerate(e.possible_agents):
        e.action_space(agent).seed(7 + i)
    for agent in e.agent_iter():
        obs, reward, termination, truncation, info = e.last()
        action = None if termination or truncation else \\
            e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

Agents ``player_0`` .. ``player_{n-1}`` are the seats. The observation is a dict:
``observation`` (float32, ``bots.rl.encoding.OBS_SIZE``: the acting seat's view, encoded) and
``action_mask`` (int8, ``ACTION_SIZE``); ``info["view"]`` is the raw view (the dict bots get,
its ``legal`` the legal actions in text form), for the agent to act. Rewards come at the
end only (``reward="win"`` by default, or ``"margin"``: see ``bots.rl.table.game_rewards``).

``reset(seed=S)`` deals game ``S/0``, and each reset after it ``S/1``, ``S/2``, ...: the games
``solstice simulate --seed S`` plays (unseeded, ``0/0``, ...). ``opponents=["greedy"]`` seats
the project's bots in the last seats (``bots.rl.opponents``): the agents are the other seats.
``info_state=True`` adds ``information_state`` to the observation: the perfect-recall tensor
(``bots.rl.recall``; ``information_state_string(agent)`` is its text). ``snapshot()`` and
``restore()`` save and restore a game; ``copy.deepcopy`` and ``pickle`` give independent
copies (a copy replays the game's actions from its seed: its chance is its own).
``save_game(path)`` writes the game as a record ``solstice replay`` shows.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from operator import attrgetter
from typing import Any, ClassVar, cast

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from bots.rl.encoding import ACTION_SIZE, OBS_SIZE, describe_action
from bots.rl.opponents import Opponents
from bots.rl.recall import INFO_STATE_SIZE
from bots.rl.record import save_game
from bots.rl.table import REWARDS, Table, TableSnapshot
from engine.actions import Action
from engine.state import GameState
from engine.view import view

# what a snapshot keeps besides the table (PettingZoo's per-agent bookkeeping)
_BOOKKEEPING = ("agents", "rewards", "_cumulative_rewards", "terminations", "truncations",
                "infos", "agent_selection", "_games", "_seed_name", "_last_action")


def observation_space(info_state: bool) -> spaces.Dict:
    """An agent's observation: the encoded view, the legal-action mask and, with
    ``info_state``, the perfect-recall information state (``bots.rl.recall``)."""
    fields: dict[str, spaces.Space[Any]] = {
        "observation": spaces.Box(0.0, 1.0, (OBS_SIZE,), dtype=np.float32),
        "action_mask": spaces.Box(0, 1, (ACTION_SIZE,), dtype=np.int8)}
    if info_state:
        fields["information_state"] = spaces.Box(0.0, 1.0, (INFO_STATE_SIZE,),
                                                 dtype=np.float32)
    return spaces.Dict(fields)


class _Shown:
    """What the ``ViewInfo`` objects of an environment share (no reference back to them):
    whether a view was ever read after its step (then the environment copies the state at
    every step from then on), and the game replayed to build such a view (kept for the next
    late read)."""

    __slots__ = ("copy", "replay", "source")

    def __init__(self) -> None:
        self.copy = False
        self.replay: Table | None = None   # a replay of ``source``'s game, some steps in
        self.source: Table | None = None

    def state_at(self, table: Table, steps: int) -> GameState:
        """``table``'s state after ``steps`` of its steps, replayed from its seed (forward
        from the last replay of the same game when that is not past it)."""
        self.copy = True  # a view read late once: copy the state at every step from now on
        replay = self.replay
        if replay is None or self.source is not table or replay.steps > steps:
            snap = table.snapshot()
            replay = Table.restore(TableSnapshot(snap.players, snap.seed, snap.config,
                                                 snap.keep_log, (), snap.played[:steps]))
            self.replay, self.source = replay, table
        for index in table.played[replay.steps:steps]:
            replay.step(index)
        return replay.state


class ViewInfo(dict):  # type: ignore[type-arg]
    """The acting agent's info, ``{"view": the seat's view}``, the view built on first read:
    most agents act on the observation and never read it, and building it cost more than
    the rest of a step. It is the view of its step even if read later: read before the
    environment steps on, it is built from the table's state; read later, from the state of
    its step replayed from the game's seed (``Table.restore``; a replay goes on from the last
    one when the views are read in order), and from then on the environment keeps a copy of
    the state of every step instead (``GameState.snapshot``: the lists a step left as they
    were are shared with the previous step's copy), so that only the first late read pays a
    replay. A copy at every step cost a tenth of a ``raw_env()`` step. Every way of reading
    the dict (item, ``get``, iteration, ``items``, copies, equality, printing) sees the
    view."""

    __slots__ = ("_seat", "_shown", "_state", "_steps", "_table")

    def __init__(self, state: GameState | None, seat: int, table: Table | None = None,
                 shown: _Shown | None = None) -> None:
        """``state``: a copy that nothing changes (``GameState.snapshot``), or None for
        ``table``'s state as it is now (``shown``: what the environment's infos share)."""
        super().__init__(view=None)
        self._state: GameState | None = state
        self._seat = seat
        self._table = table
        self._steps = -1 if table is None else table.steps
        self._shown = shown

    def _fill(self) -> None:
        state, table = self._state, self._table
        if state is None and table is not None:
            state = table.state if table.steps == self._steps else \
                cast(_Shown, self._shown).state_at(table, self._steps)
        if state is not None:
            self._state = self._table = self._shown = None
            dict.__setitem__(self, "view", view(state, self._seat))

    def __getitem__(self, key: Any) -> Any:
        self._fill()
        return dict.__getitem__(self, key)

    def get(self, key: Any, default: Any = None) -> Any:
        self._fill()
        return dict.get(self, key, default)

    def __iter__(self) -> Any:
        self._fill()
        return dict.__iter__(self)

    def items(self) -> Any:
        self._fill()
        return dict.items(self)

    def values(self) -> Any:
        self._fill()
        return dict.values(self)

    def copy(self) -> dict[str, Any]:
        self._fill()
        return dict(dict.items(self))

    def pop(self, key: Any, *default: Any) -> Any:
        self._fill()
        return dict.pop(self, key, *default)

    def __eq__(self, other: object) -> bool:
        self._fill()
        return dict.__eq__(self, other)

    __hash__ = None

    def __repr__(self) -> str:
        self._fill()
        return dict.__repr__(self)

    def __reduce__(self) -> Any:
        self._fill()
        return (dict, (dict(dict.items(self)),))


class raw_env(AECEnv):  # PettingZoo's naming convention
    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["human", "ansi"], "name": "solstice_v0",
                "is_parallelizable": False}

    def __init__(self, players: int = 2, reward: str = "win",
                 render_mode: str | None = None, opponents: Sequence[str] = (),
                 info_state: bool = False) -> None:
        super().__init__()
        if not 2 <= players <= 4:
            raise ValueError(f"Solstice is for 2-4 players, not {players}")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        self.players = players
        self.reward_kind = reward
        self.render_mode = render_mode
        if len(opponents) >= players:
            raise ValueError(f"{len(opponents)} opponent bots leave no seat of {players} "
                             "to an agent")
        learners = players - len(opponents)
        self.opponents = Opponents(list(opponents)) if opponents else None
        self.info_state = info_state
        self.possible_agents = [f"player_{i}" for i in range(learners)]
        self._seat_of = {agent: i for i, agent in enumerate(self.possible_agents)}
        obs_space = observation_space(info_state)
        self.observation_spaces = {agent: obs_space for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(ACTION_SIZE)
                              for agent in self.possible_agents}
        self._seed_name = "0"  # game k of seed S is S/k, as in `solstice simulate --seed S`
        self._games = 0
        self.table: Table | None = None
        self._cached: tuple[tuple[int, int], np.ndarray, np.ndarray] | None = None
        self._observed: tuple[int, int] | None = None  # the observation handed out uncopied
        self._shown = _Shown()  # what this environment's ViewInfos share
        self._copied: GameState | None = None  # the state of the last ViewInfo, once copied
        self._last_played: Action | str = ""

    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._seed_name = str(seed)
            self._games = 0
        game_seed = f"{self._seed_name}/{self._games}"
        self._games += 1
        config = (options or {}).get("config")
        learners = range(len(self.possible_agents))
        self.table = Table(self.players, game_seed, config=config,
                           recall=learners if self.info_state else False)
        if self.opponents is not None:
            self.opponents.start(self.table, range(len(self.possible_agents), self.players),
                                 game_seed)
            self.opponents.play(self.table)
        self._cached = self._observed = None
        self._copied = None
        self.agents = self.possible_agents[:]
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._last_played = ""
        self._select()

    def _select(self) -> None:
        table = self.table
        assert table is not None
        if table.over:
            return
        self.agent_selection = self.possible_agents[table.seat]  # type: ignore[index]
        for agent in self.agents:
            self.infos[agent] = {}
        shown = self._shown
        if shown.copy:  # a view was read after its step: a copy of each step's state
            copied = self._copied = table.state.snapshot(self._copied)
            self.infos[self.agent_selection] = ViewInfo(copied, table.turn.seat)
        else:
            self.infos[self.agent_selection] = ViewInfo(None, table.turn.seat, table, shown)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        table = self.table
        assert table is not None
        seat = self._seat_of[agent]
        # An observation is asked for once a step in the usual loop (``last()``): the arrays
        # made for it are handed out as they are (their two copies were 8 k of a 4-player
        # step's 339 k instructions). Asked again on the same state, it is made once more and
        # kept, and copies of it are handed out from then on: the caller may have changed
        # the arrays it got.
        key = (table.steps, seat)
        cached = self._cached
        if cached is not None and cached[0] == key:
            out = {"observation": cached[1].copy(), "action_mask": cached[2].copy()}
        else:
            if not table.over and seat == table.seat:
                mask = table.action_mask()
            else:
                mask = np.zeros(ACTION_SIZE, dtype=np.int8)
            obs = table.observe(seat)
            if self._observed == key:
                self._cached = (key, obs, mask)
                obs, mask = obs.copy(), mask.copy()
            self._observed = key
            out = {"observation": obs, "action_mask": mask}
        if self.info_state:
            assert table.recall is not None
            out["information_state"] = table.recall[seat].tensor()
        return out

    def information_state_string(self, agent: str) -> str:
        """The agent's perfect-recall record as text (``info_state=True``)."""
        table = self.table
        if table is None or table.recall is None:
            raise RuntimeError("information states need raw_env(info_state=True) and reset()")
        return table.recall[self._seat_of[agent]].string()

    def save_game(self, path: str) -> None:
        """Write the game so far as a record ``solstice replay`` shows (``bots.rl.record``)."""
        if self.table is None:
            raise RuntimeError("reset() the environment before saving its game")
        bots = list(self.opponents.specs) if self.opponents is not None else []
        save_game(self.table, path, self.possible_agents + bots)

    def snapshot(self) -> dict[str, Any]:
        """The game so far (picklable): ``restore`` returns to it, here or in another env of
        the same arguments."""
        if self.table is None:
            raise RuntimeError("reset() the environment before a snapshot")
        out = {name: copy.deepcopy(getattr(self, name)) for name in _BOOKKEEPING
               if hasattr(self, name)}
        out["table"] = self.table.snapshot()
        return out

    def restore(self, snap: dict[str, Any]) -> None:
        for name, value in snap.items():
            if name != "table":
                setattr(self, name, copy.deepcopy(value))
        table_snap: TableSnapshot = snap["table"]
        self.table = Table.restore(table_snap)
        if self.opponents is not None:
            # a bot's own memory is no part of a snapshot: it starts the game afresh
            self.opponents.start(self.table, range(len(self.possible_agents), self.players))
        self._cached = self._observed = None

    def step(self, action: int | None) -> None:
        if (self.terminations[self.agent_selection]
                or self.truncations[self.agent_selection]):
            self._was_dead_step(action)
            return
        table = self.table
        assert table is not None and action is not None
        agent = self.agent_selection
        self._cumulative_rewards[agent] = 0.0
        played = table.step(int(action))
        self._last_played = played  # its text made only when rendered
        if self.opponents is not None:
            self.opponents.play(table)
        if table.over:
            for seat, value in enumerate(table.rewards(self.reward_kind)):
                if seat >= len(self.possible_agents):
                    continue  # a bot's seat
                name = self.possible_agents[seat]
                self.rewards[name] = value
                self.terminations[name] = True
                self.infos[name] = {"scores": table.scores(), "winner": table.winner()}
            self._accumulate_rewards()
            # every agent is stepped once more with None, in seat order
            self.agent_selection = self.agents[0]
        else:
            for name in self.agents:
                self.rewards[name] = 0.0
            self._select()
        if self.render_mode == "human":
            self.render()

    @property
    def _last_action(self) -> str:
        """The text of the last action played (what ``render`` shows; a snapshot keeps it)."""
        last = self._last_played
        return last if isinstance(last, str) else last.text()

    @_last_action.setter
    def _last_action(self, text: str) -> None:
        self._last_played = text

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        table = self.table
        text = _render(table, self._last_action) if table is not None else "(not reset)"
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def _render(table: Table, last: str) -> str:
    """The table as text: public board, scores, the acting seat's hand and options."""
    s = table.state
    lines = [f"round {s.round}  phase {s.phase.value}  last: {last or '-'}"]
    for p, name in enumerate(s.config.planets):
        cards = " ".join((s.label(x) or "?") if s.face_up[x] else "[face down]"
                         for x in s.planets[p])
        lines.append(f"  {name}: {cards}")
    lines.append("  scores: " + ", ".join(f"seat {i} {vp}vp/{c}x" for i, (vp, c) in
                                          enumerate(zip(s.vp, s.casualties, strict=True))))
    if table.over:
        lines.append(f"  over: winner seat {table.winner()}, scores {table.scores()}")
    else:
        turn = table.turn
        hand = " ".join(entry["label"] or "?" for entry in turn.view["hand"])
        lines.append(f"  seat {turn.seat} to act; hand: {hand}")
        lines.append(f"  {len(turn.legal)} legal, e.g. "
                     + "; ".join(describe_action(i) for i in table.legal_indices()[:3]))
    return "\n".join(lines)


# The attributes PettingZoo's wrappers read several times a step (``last``, ``observe`` and
# ``step`` of each wrapper): a wrapper finds them through ``BaseWrapper.__getattr__``, one
# failed lookup and a call per wrapper in the chain, about a third of an ``env()`` step.
_FORWARDED = ("agent_selection", "agents", "terminations", "truncations", "infos", "rewards",
              "_cumulative_rewards")
# what OrderEnforcingWrapper refuses before reset (its __getattr__ says so)
_BEFORE_RESET = frozenset(("rewards", "terminations", "truncations", "infos", "agent_selection",
                           "agents"))


def _forwarded(name: str, checked: bool) -> property:
    """The unwrapped environment's attribute ``name``, read (and written) straight there: what
    the wrappers' chain of ``__getattr__`` finds, without the chain. ``checked``: refused
    before reset, as ``OrderEnforcingWrapper`` refuses it (raising AttributeError falls back
    on the wrapper's ``__getattr__``, which says why)."""
    def put(self: Any, value: Any) -> None:
        setattr(self._raw, name, value)

    if not checked:
        # read in C, no Python frame: the wrappers read these about 17 times a step
        return property(attrgetter(f"_raw.{name}"), put)

    def get(self: Any) -> Any:
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self._raw, name)

    return property(get, put)


def _forwarding(name: str, base: type[Any], checked: bool = False) -> type[Any]:
    """``base`` (one of PettingZoo's wrappers) with the attributes of ``_FORWARDED`` read
    from the unwrapped environment directly; nothing else of it changes. ``name``: the
    module's name for the class (pickle finds a class by its module and name)."""
    attrs: dict[str, Any] = {name: _forwarded(name, checked and name in _BEFORE_RESET)
                             for name in _FORWARDED}

    def __init__(self: Any, env: AECEnv, *args: Any, **kwargs: Any) -> None:
        self._raw = env.unwrapped
        base.__init__(self, env, *args, **kwargs)

    attrs["__init__"] = __init__
    attrs["__str__"] = lambda self: str(self.env)  # as the wrappers print for our class
    attrs["__module__"] = __name__
    attrs["__qualname__"] = name
    return type(name, (base,), attrs)


_TerminateIllegal = _forwarding("_TerminateIllegal", wrappers.TerminateIllegalWrapper)
_OrderEnforcing = _forwarding("_OrderEnforcing", wrappers.OrderEnforcingWrapper, checked=True)
# the same once reset (``_has_reset`` is never cleared): nothing left to check
_OrderEnforcingReset = _forwarding("_OrderEnforcingReset", _OrderEnforcing)


def _reset(self: Any, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
    wrappers.OrderEnforcingWrapper.reset(self, seed=seed, options=options)
    if self._has_reset:
        self.__class__ = _OrderEnforcingReset


_OrderEnforcing.reset = _reset
_ForwardingAssertOutOfBounds = _forwarding("_ForwardingAssertOutOfBounds",
                                           wrappers.AssertOutOfBoundsWrapper)


class _AssertOutOfBounds(_ForwardingAssertOutOfBounds):  # type: ignore[misc, valid-type]
    def step(self, action: Any) -> None:
        # an index in range needs none of the space's checks (``Discrete.contains`` converts
        # it to a numpy integer first); anything else goes through the wrapper's own
        if type(action) is int and 0 <= action < ACTION_SIZE:
            self.env.step(action)
        else:
            super().step(action)


def env(**kwargs: Any) -> AECEnv:
    """The wrapped environment, as PettingZoo's games give it: an illegal action ends the game
    for the agent that played it (reward -1), out-of-range actions and calls out of order
    raise. The wrappers are PettingZoo's own (``TerminateIllegalWrapper``,
    ``AssertOutOfBoundsWrapper``, ``OrderEnforcingWrapper``: ``isinstance`` holds), each
    reading the environment's per-agent bookkeeping directly rather than through the
    wrapper chain."""
    e: AECEnv = raw_env(**kwargs)
    e = _TerminateIllegal(e, illegal_reward=-1)
    e = _AssertOutOfBounds(e)
    return _OrderEnforcing(e)
