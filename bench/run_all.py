"""``make bench``: run every benchmark script in this folder, one after the other.

Each script prints its own figures and how they were measured; none of them is a test.
Pass names to run only some: ``python bench/run_all.py engine deck``. The engine and rl
benchmarks measure the engine the tree runs (compiled when ``make`` could build it), then run a
second time on the pure-Python one (``--pure``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
ORDER = ("engine", "invariants", "deck", "proofs", "session", "network", "silence", "bots",
         "worlds", "crash", "lan", "rl")
PURE_TOO = ("engine", "rl")  # run again on the pure-Python engine


def main(argv: list[str]) -> int:
    wanted = argv or [name for name in ORDER if (HERE / f"bench_{name}.py").exists()]
    status = 0
    for name in wanted:
        script = HERE / f"bench_{name}.py"
        if not script.exists():
            print(f"no benchmark named {name!r} (have: {', '.join(ORDER)})", file=sys.stderr)
            status = 2
            continue
        print(f"=== {script.name}", flush=True)
        result = subprocess.run([sys.executable, str(script)], check=False)
        status = status or result.returncode
        if name in PURE_TOO:
            print(f"=== {script.name} --pure", flush=True)
            result = subprocess.run([sys.executable, str(script), "--pure"], check=False)
            status = status or result.returncode
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
