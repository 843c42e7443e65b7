#!/usr/bin/env python3
"""A deliberately broken bot program: it commits the mistakes bot authors make, one of each,
so that ``solstice bot-check`` can be seen (and tested) to name every one of them:

    solstice bot-check 'cmd:timeout=1:python3 bots/examples/broken_bot.py'

Decision 1 is preceded by a line that is not JSON; decision 2 is answered pretty-printed;
decision 3 first with a wrong id; decision 4 with an action that is not legal; decision 5 with
the id as a string (faulted 0.5 s later, as garbage is); after every ``end`` it writes one
more answer; and it ignores ``quit``.
Do not copy it: copy ``example_bot.py`` or ``example_bot.js``.
"""

from __future__ import annotations

import json
import sys
from typing import Any


def send(message: dict[str, Any], **options: object) -> None:
    sys.stdout.write(json.dumps(message, **options) + "\n")  # type: ignore[arg-type]
    sys.stdout.flush()


def main() -> None:
    count = 0
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            send({"type": "ready", "name": "broken"})
        elif kind == "decide":
            count += 1
            answer = {"type": "action", "id": message["id"], "action": message["legal"][0]}
            if count == 1:
                print(f"thinking about decision {message['id']}...")  # not JSON
                sys.stdout.flush()
            elif count == 2:
                send(answer, indent=2)  # pretty-printed: one message over several lines
                continue
            elif count == 3:
                send({**answer, "id": message["id"] + 1})  # wrong id, then the right one
            elif count == 4:
                answer["action"] = "pass"  # not one of the legal actions
            elif count == 5:
                answer["id"] = str(message["id"])  # ids are numbers
            send(answer)
        elif kind == "end":
            send({"type": "action", "id": 0, "action": "one more"})  # nothing is pending
        # "quit" is ignored: the program only stops when its input closes


if __name__ == "__main__":
    main()
