"""Engine benchmark: every figure is CPU time of this process (``time.process_time``) or of a
child process (``resource.getrusage``), not wall time, because the machine is shared.

Figures:

* games per CPU-second: random 4-player games played as ``solstice simulate --players 4
  --bots random`` plays them (``bots.match.play_match`` with random bots: guard, ``Turn``,
  seeds ``"0/0"``, ``"0/1"``, ...), and the bare engine loop (a random legal action applied
  with ``apply_in_place``, no bots);
* ISMCTS iterations per CPU-second (``ismcts:iterations=200,policy=biased``) at 2 and 4
  players, over the first decisions of seat 0 in seeded games where the other seats play at
  random;
* ``view``, ``redact`` and ``determinize``: CPU microseconds per call on the states of seeded
  4-player games (every 5th state of each game, every seat);
* CLI start-up: CPU seconds of ``solstice --help``, ``solstice bots`` and ``solstice rules
  cards`` (a fresh interpreter each, best of 3), and of a bare interpreter for reference.

``--tree PATH`` measures another checkout of the project (for a before/after comparison);
The engine measured is the one the tree runs by default: compiled (mypyc, ``engine/_compiled``,
built by ``make``) when it is built, else its sources; ``--pure`` measures the sources
(``SOLSTICE_PURE=1``, the CLI start-up figures too) and ``--compiled`` fails unless the compiled
engine runs. Every run also times a fixed pure-Python reference workload (:func:`reference`)
and prints the games per reference unit (games per CPU-second times the reference's CPU
seconds), a figure that moves less with the machine's load and speed than the raw rate;
``--profile`` prints a cProfile of the random games. ``--only WORKLOAD --count N`` runs one
workload N times and prints nothing, to count its instructions under valgrind, which a shared
machine cannot disturb (per unit: the difference of two counts over the difference of N):

    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
        .venv/bin/python bench/bench_engine.py --only simulate --count 41 [--tree PATH]

With random hash seeds a count moves by about 1% between runs of the same code: set
``PYTHONHASHSEED=0`` for counts that repeat exactly.

Units: ``simulate`` and ``bare`` a game, ``ismcts2``/``ismcts4`` a decision of 100 iterations
(``--policy greedy``: with the default bot's greedy rollouts instead of the biased ones),
``view``/``redact``/``determinize`` a pass over 440 (state, seat) pairs.

    .venv/bin/python bench/bench_engine.py [--games 600] [--tree PATH] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import os
import platform
import pstats
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def _tree_from_argv(argv: list[str]) -> Path:
    """The checkout to measure: ``--tree PATH`` (read before the imports below need it)."""
    for i, arg in enumerate(argv):
        if arg == "--tree" and i + 1 < len(argv):
            return Path(argv[i + 1]).resolve()
        if arg.startswith("--tree="):
            return Path(arg.split("=", 1)[1]).resolve()
    return ROOT


TREE = _tree_from_argv(sys.argv)
sys.path.insert(0, str(TREE))
if "--pure" in sys.argv:  # the engine's Python sources instead of its compiled build
    os.environ["SOLSTICE_PURE"] = "1"

from bots.base import GameInfo, Turn  # noqa: E402
from bots.ismcts import IsmctsBot  # noqa: E402
from bots.match import play_match  # noqa: E402
from bots.registry import make_bot  # noqa: E402
from engine import (  # noqa: E402
    CHANCE,
    GameState,
    apply_in_place,
    is_over,
    legal_actions,
    new_game,
    random_chance,
    random_config,
    to_move,
)
from engine.randomness import RandomStream  # noqa: E402
from engine.view import determinize, redact, view  # noqa: E402

Chooser = Callable[[GameState, list[Any]], Any]


def play_random(seed: str, players: int, *, keep_log: bool = False,
                on_state: Callable[[GameState], None] | None = None,
                seat0: Chooser | None = None) -> None:
    """One seeded game where every seat plays a uniformly random legal action, except seat 0
    when ``seat0(state, legal)`` is given; ``on_state`` sees the state after each action."""
    stream = RandomStream(seed)
    config = random_config(players, stream)
    deck = list(config.card_ids())
    stream.shuffle(deck)
    s = new_game(config, deck, keep_log=keep_log)
    while not is_over(s):
        movers = to_move(s)
        if movers == [CHANCE]:
            action = random_chance(s, stream)
        elif seat0 is not None and 0 in movers:
            action = seat0(s, legal_actions(s, 0))
        else:
            legal = legal_actions(s, movers[0])
            action = legal[stream.randbelow(len(legal))]
        apply_in_place(s, action)
        if on_state is not None:
            on_state(s)


def reference(rounds: int = 3) -> float:
    """CPU seconds of a fixed pure-Python workload (best of ``rounds``): dict, list, tuple and
    integer work much like the engine's, on no project code, so it stays the same across
    commits; a rate times this is a figure per reference unit."""
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        table: dict[int, list[int]] = {}
        total = 0
        for i in range(5_000_000):
            key = (i * 7919) % 1009
            row = table.setdefault(key, [])
            row.append(i)
            if len(row) > 8:
                total += sum(row) + len(tuple(row))
                row.clear()
        best = min(best, time.process_time() - start)
    assert total > 0
    return best


def simulate_games(games: int, players: int) -> float:
    """Games per CPU-second, as ``solstice simulate --bots random`` plays them."""
    seats = [make_bot("random") for _ in range(players)]
    start = time.process_time()
    for game in range(games):
        play_match(seats, f"0/{game}")
    return games / (time.process_time() - start)


def bare_engine_games(games: int, players: int) -> float:
    """Games per CPU-second of the engine alone: random legal actions, no bots, no log."""
    start = time.process_time()
    for seed in range(games):
        play_random(f"bench/{seed}", players)
    return games / (time.process_time() - start)


def _game_states(seed: str, players: int, every: int) -> list[GameState]:
    """Every ``every``-th state (a copy) of one seeded random game."""
    states: list[GameState] = []
    count = [0]

    def keep(s: GameState) -> None:
        count[0] += 1
        if count[0] % every == 0:
            states.append(s.clone())

    play_random(seed, players, keep_log=True, on_state=keep)
    return states


def view_costs(games: int, players: int) -> dict[str, float]:
    """CPU microseconds per call of view, redact and determinize."""
    states = [s for g in range(games) for s in _game_states(f"views/{g}", players, 5)]
    pairs = [(s, seat) for s in states for seat in range(players)]
    out = {}
    start = time.process_time()
    for s, seat in pairs:
        view(s, seat)
    out["view"] = (time.process_time() - start) / len(pairs) * 1e6
    start = time.process_time()
    redacted = [redact(s, seat) for s, seat in pairs]
    out["redact"] = (time.process_time() - start) / len(pairs) * 1e6
    stream = RandomStream("determinize")
    start = time.process_time()
    for r in redacted:
        determinize(r, stream)
    out["determinize"] = (time.process_time() - start) / len(pairs) * 1e6
    return out


class _Done(Exception):
    """Enough decisions measured: stop the game being played."""


def ismcts_rate(players: int, decisions: int, iterations: int, policy: str = "biased") -> float:
    """ISMCTS iterations per CPU-second over the first ``decisions`` choices of seat 0 in
    seeded games (a decision with one legal action is not searched and not counted), with
    rollouts of ``policy`` (the cheap biased ones by default; the bot's default is greedy)."""
    total = [0, 0.0]  # iterations, CPU seconds

    def search(s: GameState, legal: list[Any]) -> Any:
        start = time.process_time()
        action = bot.choose(Turn(s, 0, legal))
        if len(legal) > 1:
            total[1] += time.process_time() - start
            total[0] += bot.last_iterations
            if total[0] >= decisions * iterations:
                raise _Done
        return action

    game = 0
    while total[0] < decisions * iterations:
        seed = f"ismcts-bench/{players}/{game}"
        game += 1
        # by default the cheap biased rollouts the engine figures were first taken with: the
        # greedy rollouts of the bot's default cost several times as much per iteration
        bot = IsmctsBot(iterations=iterations, policy=policy)
        bot.start(GameInfo(0, random_config(players, RandomStream(seed)), b"bench"))
        try:
            play_random(seed, players, seat0=search)
        except _Done:
            break
    return total[0] / total[1]


def cli_cpu(tree: Path, args: list[str], runs: int = 3) -> float:
    """Best CPU seconds (user + system) of a fresh ``solstice ARGS`` process."""
    code = "import sys; from ui.cli import main; sys.argv[0] = 'solstice'; sys.exit(main())"
    command = [sys.executable, "-c", code, *args] if args != ["<bare>"] else \
        [sys.executable, "-c", "pass"]
    env = {**os.environ, "PYTHONPATH": str(tree)}
    best = float("inf")
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(command, env=env, cwd=tree, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False, timeout=120)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        best = min(best, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
    return best


def run_only(workload: str, count: int, policy: str = "biased") -> None:
    """One workload ``count`` times, silently (for an instruction count)."""
    if workload in ("simulate", "bare"):
        if count:
            (simulate_games if workload == "simulate" else bare_engine_games)(count, 4)
    elif workload.startswith("ismcts"):
        if count:
            ismcts_rate(int(workload[-1]), decisions=count, iterations=100, policy=policy)
    else:
        states = [s for g in range(4) for s in _game_states(f"views/{g}", 4, 5)]
        pairs = [(s, seat) for s in states for seat in range(4)]
        redacted = [redact(s, seat) for s, seat in pairs]
        stream = RandomStream("determinize")
        for _ in range(count):
            if workload == "view":
                for s, seat in pairs:
                    view(s, seat)
            elif workload == "redact":
                for s, seat in pairs:
                    redact(s, seat)
            else:
                for r in redacted:
                    determinize(r, stream)


WORKLOADS = ("simulate", "bare", "ismcts2", "ismcts4", "view", "redact", "determinize")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=600,
                        help="random 4-player games to time (default 600)")
    parser.add_argument("--tree", type=Path, default=ROOT,
                        help="the checkout to measure (default: this one; read at import)")
    parser.add_argument("--profile", action="store_true", help="also profile the random games")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--only", choices=WORKLOADS,
                        help="run only this workload, --count times, printing nothing")
    parser.add_argument("--count", type=int, default=1, help="repetitions for --only")
    parser.add_argument("--policy", default="biased", choices=("biased", "greedy"),
                        help="the ISMCTS rollouts measured (default biased; greedy is the "
                             "bot's default)")
    parser.add_argument("--compiled", action="store_true",
                        help="fail unless the compiled engine runs (make builds it)")
    parser.add_argument("--pure", action="store_true",
                        help="measure the pure-Python engine (SOLSTICE_PURE=1)")
    args = parser.parse_args()
    tree = TREE
    import engine.game
    compiled = not str(engine.game.__file__).endswith(".py")
    if args.compiled and not compiled:
        parser.error(f"--compiled: the engine runs as pure Python ({engine.ENGINE_REASON})")
    if args.only:
        run_only(args.only, args.count, args.policy)
        return

    print(f"tree:    {tree} (engine: {'compiled' if compiled else 'pure Python'})")
    print(f"machine: {platform.machine()} ({os.cpu_count()} CPUs), {platform.system()} "
          f"{platform.release()}, load {os.getloadavg()[0]:.2f}")
    print(f"python:  {platform.python_implementation()} {platform.python_version()}")
    print("all figures are CPU time (process_time / getrusage), not wall time", flush=True)
    simulate_games(30, 4)  # warm-up (caches in engine.disclosure)
    unit = reference()
    rate = simulate_games(args.games, 4)
    unit = min(unit, reference())  # before and after: the less disturbed of the two
    print(f"reference unit: {unit:.3f} s CPU (best of 6)", flush=True)
    print(f"solstice simulate, random 4-player games: {rate:.0f} games per CPU-second "
          f"({args.games} games), {rate * unit:.0f} per reference unit", flush=True)
    bare = bare_engine_games(args.games, 4)
    print(f"bare engine, random 4-player games:       {bare:.0f} games per CPU-second",
          flush=True)
    for players in (2, 4):
        its = ismcts_rate(players, decisions=12, iterations=200, policy=args.policy)
        print(f"ISMCTS, {players} players:                     {its:.0f} iterations per "
              f"CPU-second (12 decisions x 200 iterations, {args.policy} rollouts), "
              f"{its * unit:.0f} per reference unit", flush=True)
    costs = view_costs(8, 4)
    print("per call, 4 players (us CPU):             " +
          ", ".join(f"{name} {value:.0f}" for name, value in costs.items()), flush=True)
    for label, cli_args in (("bare python -c pass", ["<bare>"]), ("solstice --help", ["--help"]),
                            ("solstice bots", ["bots"]),
                            ("solstice rules cards", ["rules", "cards"])):
        print(f"start-up, {label + ':':24} {cli_cpu(tree, cli_args):.3f} s CPU (best of 3)",
              flush=True)
    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        simulate_games(min(args.games, 300), 4)
        profiler.disable()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(args.top)


if __name__ == "__main__":
    main()
