"""Crash trials: 4 real ``solstice`` processes (random bots, 127.0.0.1, separate homes); one
peer, chosen at random, is killed with SIGKILL at a random moment of a random phase (lobby,
roster: just after the host sent it, setup, draft, dispatch, resolution, audit) and restarted
with the same home. A trial passes when every process exits 0 and the four transcripts verify
and agree.

    python bench/bench_crash.py [TRIALS] [SEED]     (default 6 trials, seed 1; each trial
                                                     is a whole game, about 20-40 s)

Stops after about 3 minutes whatever TRIALS says, and prints what it ran.
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from crash_game import random_trial

BUDGET = 180.0


def main(argv: list[str]) -> int:
    trials = int(argv[0]) if argv else 6
    rng = random.Random(int(argv[1]) if len(argv) > 1 else 1)
    started = time.monotonic()
    passed = failed = 0
    for number in range(trials):
        if time.monotonic() - started > BUDGET:
            print(f"stopping: the {BUDGET:.0f} s budget is spent", flush=True)
            break
        t0 = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="solstice-crash-") as root:
            try:
                phase, victim, delay, _ = random_trial(Path(root), rng)
            except AssertionError as exc:
                failed += 1
                print(f"trial {number}: FAILED\n{str(exc)[-3000:]}", flush=True)
                continue
        passed += 1
        print(f"trial {number}: peer {victim} killed {delay:.2f} s into {phase}: ok "
              f"({time.monotonic() - t0:.0f} s)", flush=True)
    print(f"{passed} passed, {failed} failed in {time.monotonic() - started:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
