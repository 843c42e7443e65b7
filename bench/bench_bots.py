"""Process-bot limits and the cost of the game log, measured (not a test).

1. A bot that writes one 300 MiB line: the client's peak memory (RSS) while it skips it.
2. A bot that writes 200,000 garbage lines: how long until it is cut off, how many faults.
3. ``view.log`` in every mode: local games (tournaments) with and without the game log.

Each part runs in a fresh interpreter so that its peak RSS is its own.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

BOT = textwrap.dedent("""
    import json, sys
    MODE = sys.argv[1]
    first = True
    for line in sys.stdin:
        m = json.loads(line)
        if m["type"] == "hello":
            print(json.dumps({"type": "ready"}), flush=True)
        elif m["type"] == "decide":
            if MODE == "bigline" and first:
                chunk = "x" * (1 << 20)
                for _ in range(300):
                    sys.stdout.write(chunk)
                sys.stdout.write("\\n")
            elif MODE == "flood" and first:
                sys.stdout.write("garbage\\n" * 200_000)
            first = False
            print(json.dumps({"type": "action", "id": m["id"], "action": m["legal"][0]}),
                  flush=True)
""")

CLIENT = textwrap.dedent("""
    import resource, sys, time
    from bots.match import play_match
    from bots.registry import make_bot
    bot = make_bot(f"cmd:{sys.executable} {sys.argv[1]} {sys.argv[2]}")
    started = time.perf_counter()
    result = play_match([bot, make_bot("random")], "bench-limits")
    took = time.perf_counter() - started
    bot.close()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kinds = sorted({f.kind for f in result.faults})
    print(f"{sys.argv[2]}: game finished in {took:.1f} s, {len(result.faults)} fault(s) "
          f"{kinds}, client peak RSS {peak:.0f} MiB")
""")

LOG_COST = textwrap.dedent("""
    import time
    from bots.match import play_match
    from bots.random_bot import RandomBot
    def batch(keep):
        bots = [RandomBot() for _ in range(4)]
        started = time.process_time()
        for game in range(40):
            play_match(bots, f"log/{game}", keep_log=keep)
        return (time.process_time() - started) / 40 * 1000
    best = {False: 1e9, True: 1e9}
    for _ in range(5):
        for keep in (False, True):
            best[keep] = min(best[keep], batch(keep))
    print(f"view.log: 4 random bots, CPU ms per game (best of 5 batches of 40): "
          f"without the log {best[False]:.2f}, with it {best[True]:.2f}")
""")


def main() -> None:
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs", flush=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with tempfile.TemporaryDirectory() as tmp:
        bot, client = Path(tmp) / "bot.py", Path(tmp) / "client.py"
        bot.write_text(BOT)
        client.write_text(CLIENT)
        for mode in ("bigline", "flood"):
            started = time.perf_counter()
            subprocess.run([sys.executable, str(client), str(bot), mode], env=env, check=True,
                           timeout=170)
            print(f"  ({time.perf_counter() - started:.1f} s with start-up)", flush=True)
        subprocess.run([sys.executable, "-c", LOG_COST], env=env, check=True, timeout=170)


if __name__ == "__main__":
    main()
