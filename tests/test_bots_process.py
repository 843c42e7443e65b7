"""Process bots: the example program plays complete games; every kind of misbehaviour is
reported and replaced by a random legal move."""

from __future__ import annotations

import logging
import sys
import textwrap
from pathlib import Path

import pytest

from bots.match import play_match
from bots.process_bot import ProcessBot
from bots.registry import make_bot

EXAMPLE = Path(__file__).resolve().parent.parent / "bots" / "examples" / "example_bot.py"

# A scriptable misbehaving bot: MODE picks the fault, AT the decision number it happens at.
FAULTY = textwrap.dedent("""
    import json, sys, time
    MODE, AT = sys.argv[1], int(sys.argv[2])
    count = 0
    def send(m):
        sys.stdout.write(json.dumps(m) + "\\n"); sys.stdout.flush()
    for line in sys.stdin:
        m = json.loads(line)
        if m["type"] == "hello":
            if MODE == "nohello":
                continue
            send({"type": "log", "message": "hello from the faulty bot"})
            send({"type": "ready", "name": "faulty-" + MODE, "extra": "ignored"})
        elif m["type"] == "decide":
            count += 1
            answer = {"type": "action", "id": m["id"], "action": m["legal"][0]}
            if count == AT:
                if MODE == "garbage":
                    sys.stdout.write("this is not json\\n"); sys.stdout.flush()
                    continue
                if MODE == "illegal":
                    answer["action"] = "0 fly away"
                if MODE == "slow":
                    time.sleep(0.75)
                if MODE == "die":
                    sys.stderr.write("faulty bot: giving up\\n"); sys.stderr.flush()
                    sys.exit(3)
            send({"type": "unknown-type", "note": "must be ignored"})
            send(answer)
""")


@pytest.fixture(scope="module")
def faulty_script(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("bots") / "faulty_bot.py"
    path.write_text(FAULTY)
    return path


def _cmd(script: Path, *args: str, timeout: float | None = None) -> str:
    prefix = f"timeout={timeout}:" if timeout is not None else ""
    return f"cmd:{prefix}{sys.executable} {script} " + " ".join(args)


@pytest.mark.parametrize("players", [2, 4])
def test_example_process_bot_plays_complete_games(players: int) -> None:
    bots = [make_bot(f"cmd:{sys.executable} {EXAMPLE}")] + \
        [make_bot("random") for _ in range(players - 1)]
    try:
        for game in range(2):
            result = play_match(bots, f"example/{players}/{game}")
            assert result.faults == (), result.faults
            assert len(result.scores) == players
        assert bots[0].name == "example"  # the name from its "ready" message
    finally:
        bots[0].close()


def test_example_process_bot_beats_random() -> None:
    bot = make_bot(f"cmd:{sys.executable} {EXAMPLE}")
    wins = 0
    try:
        for game in range(20):
            seat = game % 2
            bots = [make_bot("random"), make_bot("random")]
            bots[seat] = bot
            wins += play_match(bots, f"example-vs-random/{game // 2}").winner == seat
    finally:
        bot.close()
    assert wins >= 14  # 17/20 for this seed at the time of writing (86% over 400 games)


@pytest.mark.parametrize("mode, at, expected", [
    ("garbage", 2, "answered garbage (not JSON)"),
    ("illegal", 2, "answered '0 fly away', which is not one of the legal actions"),
    ("slow", 2, "no action within 0.5 s"),
])
def test_faulty_answers_are_replaced_and_reported(faulty_script, caplog, mode, at,
                                                  expected) -> None:
    bot = make_bot(_cmd(faulty_script, mode, str(at),
                        timeout=0.5 if mode == "slow" else None))
    try:
        with caplog.at_level(logging.ERROR, logger="solstice.bots"):
            result = play_match([bot, make_bot("random")], f"faulty/{mode}")
    finally:
        bot.close()
    assert len(result.faults) == 1, result.faults
    assert expected in result.faults[0]
    assert f"faulty-{mode}" in result.faults[0]  # names the bot
    assert any(expected in r.getMessage() and "playing" in r.getMessage()
               for r in caplog.records)


def test_dying_process_is_reported_once_then_plays_randomly(faulty_script, caplog) -> None:
    bot = make_bot(_cmd(faulty_script, "die", "3"))
    try:
        with caplog.at_level(logging.ERROR, logger="solstice.bots"):
            result = play_match([bot, make_bot("random")], "faulty/die")
            second = play_match([bot, make_bot("random")], "faulty/die-again")
    finally:
        bot.close()
    assert len(result.faults) == 1, result.faults
    fault = result.faults[0]
    assert "died" in fault and "exit code 3" in fault and "giving up" in fault
    assert "random legal actions from now on" in fault
    assert result.actions > 20  # the game went on to the end
    assert len(second.faults) == 1 and "failed to start" in second.faults[0]


def test_bot_that_never_says_ready_is_reported(faulty_script) -> None:
    bot = ProcessBot(f"{sys.executable} {faulty_script} nohello 0", handshake_timeout=0.3)
    try:
        result = play_match([make_bot("random"), bot], "faulty/nohello")
    finally:
        bot.close()
    assert len(result.faults) == 1
    assert "failed to start" in result.faults[0] and "no ready within 0.3 s" in result.faults[0]


def test_missing_program_is_reported() -> None:
    bot = make_bot("cmd:/nonexistent/solstice-bot-program")
    result = play_match([bot, make_bot("random")], "faulty/missing")
    assert len(result.faults) == 1 and "cannot start" in result.faults[0]
