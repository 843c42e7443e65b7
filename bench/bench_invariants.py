"""The invariant simulation at full size: 3000 random games per player count (2, 3, 4), every
invariant of ``tests/test_engine_invariants.py`` checked after every action (``make test``
plays 600 per player count). Prints the games checked per second of wall time.

    python bench/bench_invariants.py [--games N]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=3000, help="games per player count")
    args = parser.parse_args()
    env = dict(os.environ, SOLSTICE_INVARIANT_GAMES=str(args.games))
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         str(ROOT / "tests" / "test_engine_invariants.py"), "-k", "keep_every_invariant"],
        cwd=ROOT, env=env, check=False)
    wall = time.monotonic() - started
    games = 3 * args.games
    verdict = "every invariant held" if result.returncode == 0 else "AN INVARIANT FAILED"
    print(f"{games} random games (2, 3 and 4 players) checked after every action in {wall:.1f} s "
          f"wall ({games / wall:.0f} games/s): {verdict}")
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
