"""A finished game's transcript for the UI tests, played by random bots over in-process
sessions (no sockets) and written exactly as a peer writes it at the end of a game."""

from __future__ import annotations

import random
from pathlib import Path

from engine import Action
from p2p.net.roster import Roster, RosterEntry
from p2p.session.loopback import LoopbackGame
from p2p.session.seatview import SeatView
from p2p.storage.transcript import write_transcript

NAMES = ("ana", "bob", "cy", "dee")


def write_finished_game(path: Path, players: int = 4, seed: int = 15,
                        min_rounds: int = 1) -> Path:
    """Play a whole game between random choosers and write its transcript to ``path``.

    The shuffle comes from fresh keys, so a random game may end early (three casualties);
    games are replayed, a bounded number of times, until one lasts ``min_rounds``."""
    rng = random.Random(seed)

    def choose(view: SeatView) -> Action:
        return view.legal[rng.randrange(len(view.legal))]

    for _attempt in range(8):
        game = LoopbackGame(players)
        game.play(choose)
        session = game.sessions[0]
        assert session.result is not None, "the loopback game did not finish"
        if session.result["rounds"] >= min_rounds:
            break
    else:
        raise AssertionError(f"no random game lasted {min_rounds} rounds in 8 tries")
    entries = tuple(RosterEntry(i, NAMES[i], identity.public_bytes, "127.0.0.1", 4464 + i)
                    for i, identity in enumerate(game.identities))
    roster = Roster(game.game_id, entries).sign(game.identities[0])
    return write_transcript(path, roster, session, dict(session.result))
