"""Benchmark of the learning environments (``bots.rl``, the rl extra). Figures are CPU time of
this process (``time.process_time``); in the ISMCTS match both bots get the same CPU time per
decision (``time.thread_time``), so the machine's load does not decide it.

* environment steps per CPU-second, random masked play (each step: the acting agent's
  observation and mask, a uniformly random legal index, ``step``), 2 and 4 players: through
  PettingZoo's AEC API (``bots.rl.env``, wrappers included, and ``raw_env``), through the
  bare ``bots.rl.table.Table`` (the observation encoded every step, no PettingZoo) and through
  OpenSpiel's ``python_solstice`` (each player step reads the acting player's
  ``information_state_tensor`` and its ``legal_actions``, then applies a random one; chance
  steps are played but not counted); each figure also per reference unit
  (``bench_engine.reference``);
* ``--only WORKLOAD --count N`` runs one workload for N steps silently, to count its
  instructions under valgrind (per step: the difference of two counts over the difference of
  N), e.g. ``OPENBLAS_NUM_THREADS=1 PYTHONHASHSEED=0 valgrind --tool=cachegrind
  --cache-sim=no .venv/bin/python bench/bench_rl.py --only raw4 --count 2500`` (OpenBLAS's
  idle worker threads spin under valgrind, a different count of instructions every run:
  one thread keeps the counts the same from run to run); workloads ``env2``, ``env4``,
  ``raw2``, ``raw4``, ``table2``, ``table4``, ``openspiel2``, ``openspiel4``;
* ``--vector``: agent steps per CPU-second of ``bots.rl.gym_env.make_vector_env`` (one
  process: the throughput of one core), 1 and 16 games, against ``random`` and ``greedy``,
  and with the perfect-recall information state;
* ``--ismcts SECONDS``: OpenSpiel's ``ISMCTSBot`` (random rollouts, UCT c=2, the max-visit
  policy, on ``python_solstice``) against our ``ismcts`` (``ismcts:time=SECONDS``) in
  two-player games, seats swapped every game, at the same CPU time per decision: ours stops on
  its CPU clock (``ismcts:time=SECONDS,clock=cpu``); OpenSpiel's bot has no time limit of its
  own, so each of its decisions gets as many simulations as its rate in CPU time, measured
  on its decisions so far, fits in the budget (at least ``MIN_SIMULATIONS``: with one its
  search has no visited root and fails). The mean CPU time per decision each bot took, and
  the search each made, are printed with the result.

``--compiled`` fails unless the compiled engine runs (``make`` builds it); ``--pure``
measures the engine's Python sources (``SOLSTICE_PURE=1``).

    .venv/bin/python bench/bench_rl.py [--steps 20000] [--compiled]
    .venv/bin/python bench/bench_rl.py --ismcts 0.5 --games 4
    .venv/bin/python bench/bench_rl.py --vector [--steps 20000]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
if "--pure" in sys.argv:  # the engine's Python sources instead of its compiled build
    os.environ["SOLSTICE_PURE"] = "1"


def _missing_extra() -> str | None:
    try:
        import numpy  # noqa: F401
        import pettingzoo  # noqa: F401
        import pyspiel  # noqa: F401
    except ImportError as exc:
        return f"the rl extra is not installed (pip install '.[rl]'): {exc}"
    return None


def env_steps(players: int, steps: int, wrapped: bool) -> float:
    """Steps per CPU-second of random masked play through the AEC API."""
    import numpy as np

    from bots.rl import env, raw_env

    e = env(players=players) if wrapped else raw_env(players=players)
    rng = np.random.default_rng(players)
    e.reset(seed=players)
    done = 0
    started = time.process_time()
    while done < steps:
        if not e.agents:
            e.reset()
        obs, _, termination, truncation, _ = e.last()
        if termination or truncation:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(legal[rng.integers(len(legal))]))
        done += 1
    return done / (time.process_time() - started)


def table_steps(players: int, steps: int) -> float:
    """Steps per CPU-second through ``Table`` with the acting seat's observation encoded
    every step (``Table.observe``, as the environments encode it)."""
    import numpy as np

    from bots.rl.table import Table

    rng = np.random.default_rng(players)
    done = game = 0
    started = time.process_time()
    table = Table(players, f"bench{game}")
    while done < steps:
        if table.over:
            game += 1
            table = Table(players, f"bench{game}")
        table.observe(table.turn.seat)
        legal = table.legal_indices()
        table.step(legal[int(rng.integers(len(legal)))])
        done += 1
    return done / (time.process_time() - started)


MIN_SIMULATIONS = 2  # OpenSpiel's ISMCTSBot asserts a visited root: one simulation leaves none


def openspiel_simulations(rate: float, seconds: float) -> int:
    """The simulations OpenSpiel's bot gets for ``seconds`` of CPU at ``rate`` a CPU-second."""
    return max(MIN_SIMULATIONS, int(rate * seconds))


def vector_steps(num_envs: int, steps: int, opponent: str, info_state: bool = False) -> float:
    """Agent steps per CPU-second of ``make_vector_env`` (random masked actions; each agent
    step includes the opponent bot's moves until the agent's next turn)."""
    import numpy as np

    from bots.rl.gym_env import make_vector_env

    envs = make_vector_env(num_envs, opponents=[opponent], info_state=info_state)
    rng = np.random.default_rng(num_envs)
    obs, _ = envs.reset(seed=num_envs)
    done = 0
    started = time.process_time()
    while done < steps:
        masks = obs["action_mask"]
        actions = np.array([int(rng.choice(np.flatnonzero(m))) if m.any() else 0
                            for m in masks])
        obs, *_ = envs.step(actions)
        done += num_envs
    took = time.process_time() - started
    envs.close()
    return done / took


def openspiel_steps(players: int, steps: int) -> float:
    """Player steps per CPU-second through OpenSpiel's ``python_solstice``, the acting
    player's information-state tensor read every step (chance played, not counted)."""
    import numpy as np
    import pyspiel

    import bots.rl.openspiel  # noqa: F401 - registers python_solstice

    game = pyspiel.load_game("python_solstice", {"players": players})
    rng = np.random.default_rng(players)
    state = game.new_initial_state()
    done = 0
    started = time.process_time()
    while done < steps:
        if state.is_terminal():
            state = game.new_initial_state()
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
            continue
        player = state.current_player()
        state.information_state_tensor(player)
        legal = state.legal_actions(player)
        state.apply_action(legal[int(rng.integers(len(legal)))])
        done += 1
    return done / (time.process_time() - started)


def run_only(workload: str, count: int) -> None:
    """One workload for ``count`` steps, silently (for an instruction count)."""
    players = int(workload[-1])
    kind = workload[:-1]
    if count:
        if kind in ("env", "raw"):
            env_steps(players, count, wrapped=kind == "env")
        elif kind == "table":
            table_steps(players, count)
        else:
            openspiel_steps(players, count)


WORKLOADS = tuple(f"{kind}{n}" for kind in ("env", "raw", "table", "openspiel") for n in (2, 4))


def ismcts_match(seconds: float, games: int) -> None:
    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import ismcts, mcts

    import bots.rl.openspiel  # noqa: F401 - registers python_solstice
    from bots.base import GameInfo, Turn
    from bots.ismcts import IsmctsBot
    from bots.rl import encoding as enc
    from engine import legal_actions

    game = pyspiel.load_game("python_solstice", {"players": 2})
    wins = {"openspiel": 0, "ours": 0}
    think = {"openspiel": [0.0, 0], "ours": [0.0, 0]}
    sims = {"total": 0, "decisions": 0, "ours": 0}
    # OpenSpiel simulations per CPU-second: all its simulations over all its CPU time so far
    spent = [0, 0.0]
    rate = 10.0 / seconds
    for g in range(games):
        rng = np.random.RandomState(g)
        openspiel_seat = g % 2
        ours = IsmctsBot(time=seconds, iterations=1_000_000, clock="cpu")
        state = game.new_initial_state()
        started_ours = False
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(actions, p=probs)))
                continue
            seat = state.current_player()
            full = state._g.state
            legal = legal_actions(full, seat)
            if len(legal) == 1:  # nothing to decide: neither bot is asked
                state.apply_action(state.legal_actions()[0])
                continue
            began = time.thread_time()
            if seat == openspiel_seat:
                n = openspiel_simulations(rate, seconds)
                bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), 2.0, n,
                                       random_state=rng, allow_inconsistent_action_sets=True)
                action = bot.step(state)
                spent[0] += n
                spent[1] += time.thread_time() - began
                rate = spent[0] / max(spent[1], 1e-6)
                sims["total"] += n
                sims["decisions"] += 1
                who = "openspiel"
            else:
                if not started_ours:
                    ours.start(GameInfo(seat, full.config, f"bench{g}".encode()))
                    started_ours = True
                chosen = ours.choose(Turn(full, seat, legal))
                action = enc.state_legal_indices(full, seat, [chosen])[0]
                sims["ours"] += ours.last_iterations
                who = "ours"
            think[who][0] += time.thread_time() - began
            think[who][1] += 1
            state.apply_action(action)
        returns = state.returns()
        winner = "openspiel" if returns[openspiel_seat] > 0 else "ours"
        wins[winner] += 1
        print(f"  game {g + 1}: OpenSpiel ISMCTS seat {openspiel_seat}, winner {winner} "
              f"(scores {list(state._g.state.vp)} vp)", flush=True)
    for who, label in (("openspiel", "OpenSpiel ISMCTSBot"), ("ours", "our ismcts")):
        total, count = think[who]
        print(f"  {label:20s} wins {wins[who]}/{games}, {total / max(count, 1):.3f} CPU-s per "
              f"decision over {count} decisions")
    print(f"  OpenSpiel ISMCTS: {sims['total'] / max(sims['decisions'], 1):.1f} simulations "
          f"per decision; ours: {sims['ours'] / max(think['ours'][1], 1):.1f} iterations")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=20000,
                        help="random masked steps per measurement (default 20000)")
    parser.add_argument("--ismcts", type=float, metavar="SECONDS",
                        help="play the ISMCTS match at SECONDS per decision instead")
    parser.add_argument("--games", type=int, default=2, help="games of the ISMCTS match")
    parser.add_argument("--vector", action="store_true",
                        help="measure make_vector_env (2 players, 1 and 16 games) instead")
    parser.add_argument("--compiled", action="store_true",
                        help="fail unless the compiled engine runs (make builds it)")
    parser.add_argument("--pure", action="store_true",
                        help="measure the pure-Python engine (SOLSTICE_PURE=1)")
    parser.add_argument("--only", choices=WORKLOADS,
                        help="run only this workload for --count steps, printing nothing")
    parser.add_argument("--count", type=int, default=1, help="steps for --only")
    args = parser.parse_args()
    missing = _missing_extra()
    if missing:
        print(f"skipped: {missing}")
        return 0
    if args.only:
        run_only(args.only, args.count)
        return 0
    import engine.game

    compiled = not str(engine.game.__file__).endswith(".py")
    if args.compiled and not compiled:
        parser.error(f"--compiled: the engine runs as pure Python ({engine.ENGINE_REASON})")
    print(f"engine: {'compiled' if compiled else 'pure Python'}")
    if args.ismcts is not None:
        if args.ismcts <= 0 or args.games < 1:
            parser.error("--ismcts needs a positive time and --games at least 1")
        print(f"OpenSpiel ISMCTSBot vs our ismcts, 2 players, {args.ismcts:g} s per decision, "
              f"{args.games} games")
        ismcts_match(args.ismcts, args.games)
        return 0
    if args.vector:
        print(f"make_vector_env agent steps per CPU-second (one core), 2 players, random "
              f"masked actions, {args.steps} steps each")
        for opponent, info_state in (("random", False), ("greedy", False), ("random", True)):
            rates = [vector_steps(n, args.steps, opponent, info_state) for n in (1, 16)]
            print(f"  opponent {opponent:6s} info_state={info_state!s:5s}: 1 game {rates[0]:8.0f}"
                  f"   16 games {rates[1]:8.0f}", flush=True)
        return 0
    from bench_engine import reference

    unit = reference()
    print(f"environment steps per CPU-second, random masked play, {args.steps} steps each "
          f"(goals: raw_env() 20,000, env() 15,000, OpenSpiel with the tensor 10,000); "
          f"reference unit {unit:.3f} s CPU")
    for players in (2, 4):
        wrapped = env_steps(players, args.steps, wrapped=True)
        raw = env_steps(players, args.steps, wrapped=False)
        bare = table_steps(players, args.steps)
        spiel = openspiel_steps(players, args.steps)
        print(f"  {players} players: env() {wrapped:8.0f}   raw_env() {raw:8.0f}   "
              f"Table {bare:8.0f}   OpenSpiel+tensor {spiel:8.0f}", flush=True)
        print(f"  {players} players, per reference unit: env() {wrapped * unit:6.0f}   "
              f"raw_env() {raw * unit:6.0f}   Table {bare * unit:6.0f}   "
              f"OpenSpiel+tensor {spiel * unit:6.0f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
