"""A peer that lost its records of a game it plays in (its game folder deleted or lost) never
signs a sequence number a second time (protocol.md, "Persistence and restart").

Every message is broadcast, so the others hold what we signed: a peer with no secret stored
for a game that has begun plays on held, like any restarted peer whose log is gone, until
every other peer has re-sent it all it holds, our own messages first among them. Our master
secret derives from the identity key and the game id (``p2p.session.secrets.master_of``), so
it is computed again, and our own first message (``setup/commit``) shows whether it is the
one we played with: its seed commitment and box key derive from it. If it is not (a game
whose secret was drawn at random and kept only in the lost ``secret.json``), nothing we could
sign would match what we signed before: the game is refused, with the reason kept on disk
(``unrecoverable.json``), and nothing is signed.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from pathlib import Path

from engine.canonical import canonical_json
from p2p.crypto.sealed import box_key
from p2p.durable import write_durably
from p2p.session.envelope import SignedMessage
from p2p.session.secrets import local_seed
from p2p.storage.store import GameStore, StoreError

UNRECOVERABLE_FILE = "unrecoverable.json"


class RecordsLost(StoreError):
    """The others hold messages we signed in this game with a secret this home cannot
    recover: we sign nothing in it (the fault is our lost disk, nobody else's)."""


def own_commit_matches(signed: SignedMessage, master: bytes, game_id: str, me: int) -> bool:
    """``signed``, our ``setup/commit``, commits to the seed and box key of ``master``."""
    body = signed.msg.body
    return (body.get("seed") == local_seed(master, game_id, "setup", me)[0]
            and body.get("box") == bytes(box_key(master, game_id).public_key).hex())


def recorder(store: GameStore, me: int, master: bytes,
             fetching: Callable[[], bool] = lambda: True) -> Callable[[SignedMessage], None]:
    """The session's ``on_record``: our own messages are fsynced before they are sent, the
    others' can be fetched again. Our ``setup/commit`` coming back from a peer after our
    records were lost (``fetching()``: the session is held, taking messages back rather than
    signing) is checked against ``master`` first (RecordsLost if it does not match; it is
    then not stored). One we sign now is ours by construction and is not checked."""

    def record(signed: SignedMessage) -> None:
        ours = signed.msg.seat == me
        if ours and signed.msg.type == "setup/commit" and fetching() and not own_commit_matches(
                signed, master, store.game_id, me):
            refuse(store)
        store.append(signed, durable=ours)

    return record


def refusal_path(store: GameStore) -> Path:
    return store.dir / UNRECOVERABLE_FILE


def refusal_text(store: GameStore) -> str:
    return (f"the records of game {store.game_id} in {store.dir} were lost (the folder or its "
            "secret.json was deleted), and the other players hold messages this peer signed in "
            "that game with a secret that cannot be recovered (it was kept only in that "
            "secret.json: a new one cannot match the old commitments). So as never to sign "
            "anything that contradicts them, this peer signs nothing more in that game and "
            "cannot play it on; nobody is at fault, and the others see this peer as gone (their "
            "game stops for now)")


def refuse(store: GameStore) -> None:
    """Keep the refusal on disk (a later resume says so at once) and raise it."""
    text = refusal_text(store)
    with contextlib.suppress(OSError):  # it stands anyway: the same check refuses again
        write_durably(refusal_path(store), canonical_json({"game": store.game_id,
                                                           "reason": text}))
    raise RecordsLost(text)


def refused_before(store: GameStore) -> str | None:
    """The reason this game was refused before (None: it was not)."""
    try:
        reason = json.loads(refusal_path(store).read_text())["reason"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return str(reason)
