"""The history a stage message is signed over: a running digest of every stage's messages.

The order in which messages take effect is fixed by the stages (seat order within a stage), so
every honest peer holds the same digest at the start of a stage, whatever order the messages
arrived in. Each stage message carries it (``history``), next to the public state hash. A peer
whose message names another history than ours is out of step (live: it is named, as for a
state hash); ``solstice verify`` finding a message signed over other messages than its file
holds knows the file is not the history that message was written in (a message replaced by
a twin its author re-signed, or one deleted), and names nobody for it: the state hash or the
legality of that message is judged only over the history its author signed (issue 40, case 2).

Each stage message also carries ``own``: the same digest over its author's own messages only.
That one no editor of a file can make wrong for an honest author (it would need the author's
key to sign other messages of its), so a message whose ``own`` differs from its author's
messages in the file proves the author signed two different pasts of its own: it is named,
live and by ``verify`` (a cheater that sent one message to some peers and a twin to others,
then built on the first).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping

from engine.canonical import canonical_json
from p2p.session.envelope import SignedMessage
from p2p.session.events import Peer

HISTORY_DOMAIN = b"solstice/history/v1\n"
OWN_DOMAIN = b"solstice/own-history/v1\n"
GENESIS_HISTORY = "0" * 64


_DIGEST = re.compile(r"[0-9a-f]{64}")


def is_digest(value: object) -> bool:
    """``value`` has a digest's form (64 lowercase hex digits). A stage message whose
    ``history`` or ``own`` has not is its author's fault whatever the file around it holds,
    so it is judged alike live and offline; only a well-formed digest that differs from ours
    can mean that the file, not the author, is at fault."""
    return type(value) is str and _DIGEST.fullmatch(value) is not None


def _hash(signed: SignedMessage) -> str | None:
    # A ghost's message (no signature: every remaining peer makes it itself, its sealed boxes
    # differently) counts as null: what it does is fixed by the messages before it.
    return signed.hash if signed.sig else None


def next_history(history: str, stage: int, collected: Mapping[Peer, SignedMessage]) -> str:
    """The digest after stage ``stage`` took ``collected`` (by peer)."""
    entries = [[peer, _hash(signed)] for peer, signed in sorted(collected.items())]
    data = bytes.fromhex(history) + canonical_json([stage, entries])
    return hashlib.sha256(HISTORY_DOMAIN + data).hexdigest()


def next_own(own: tuple[str, ...], stage: int,
             collected: Mapping[Peer, SignedMessage]) -> tuple[str, ...]:
    """Each peer's digest of its own messages after stage ``stage`` took ``collected``."""
    out = list(own)
    for peer, signed in collected.items():
        data = bytes.fromhex(out[peer]) + canonical_json([stage, _hash(signed)])
        out[peer] = hashlib.sha256(OWN_DOMAIN + data).hexdigest()
    return tuple(out)
