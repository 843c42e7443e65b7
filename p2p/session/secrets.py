"""Every secret of a game derives from one master secret, and the master from the identity key
and the game id: a restarted peer rebuilds its seeds, salts and deck keys and never
contradicts what it already published, even when its game folder is gone."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from nacl.public import PrivateKey

from p2p.crypto.commitments import Opening, commitment_of
from p2p.crypto.seeds import SEED_DOMAIN
from p2p.deck.keys import DECK_KEYS_DOMAIN, DeckKeys, committed_value
from p2p.identity import Identity

SECRET_DOMAIN = b"solstice/secret/v1\x00"
PICK_DOMAIN = "solstice/pick/v1"


MASTER_DOMAIN = b"solstice/master/v1\x00"


def master_of(identity: Identity, game_id: str, peer_keys: Sequence[bytes]) -> bytes:
    """The master secret of a game: derived from the identity key, the game id and the
    table's public keys in roster order, so a peer whose game folder was lost computes it
    again (and so never contradicts what it signed before; ``p2p.storage.recovery``). The
    keys are in it because the game id is the host's choice: a host that reused the id of a
    game whose secrets were opened at its audit, at another table, must not get the same
    secrets again."""
    return identity.derive_secret(MASTER_DOMAIN + game_id.encode() + b"\x00" +
                                  b"".join(peer_keys))


FIXED_MASTER_DOMAIN = b"solstice/fixed-master/v1\x00"


def fixed_master(seed: bytes, game_id: str, peer: int) -> bytes:
    """A master secret fixed by ``seed`` instead of drawn from the identity key: the same
    every time, so the same seeds and deck keys, so the same deal (``solstice play --learn``:
    a curated first game). Only for a game whose every peer runs in one process (the player
    and its own local bots): its secrets are nobody's to hide from; a table with anyone else
    at it never uses this (``master_of``). Each peer's differs (equal seeds would cancel in
    the joint randomness)."""
    return hashlib.sha256(FIXED_MASTER_DOMAIN + seed + b"\x00" + game_id.encode() + b"\x00" +
                          peer.to_bytes(4, "big")).digest()


ESCROW_KEY_DOMAIN = b"solstice/escrow-key/v1\x00"


def escrow_key_of(identity: Identity, game_id: str, peer_keys: Sequence[bytes]) -> PrivateKey:
    """The key escrow shares are sealed to (``p2p.session.escrow``): like the master, from
    the identity key, the game id and the table, so a restarted peer computes it again; but
    not from the master, so a master rebuilt from the escrow (or published in a handover)
    opens none of the shares its player held of the others' masters."""
    return PrivateKey(identity.derive_secret(ESCROW_KEY_DOMAIN + game_id.encode() + b"\x00" +
                                             b"".join(peer_keys)))


def derive(master: bytes, game_id: str, label: str) -> bytes:
    return hashlib.sha256(SECRET_DOMAIN + master + game_id.encode() + b"/" +
                          label.encode()).digest()


def local_seed(master: bytes, game_id: str, label: str,
               seat: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """This seat's (commit, reveal) seed messages for ``label``."""
    seed = derive(master, game_id, f"seed/{label}")
    salt = derive(master, game_id, f"salt/{label}")
    value = {"game": game_id, "label": label, "seat": seat, "seed": seed.hex()}
    commitment = commitment_of(Opening(SEED_DOMAIN, value, salt))
    return ({"type": "seed/commit", "seat": seat, "label": label,
             "commitment": commitment.hex()},
            {"type": "seed/reveal", "seat": seat, "label": label, "seed": seed.hex(),
             "salt": salt.hex()})


def pick_opening(master: bytes, game_id: str, seat: int, slots: Sequence[int],
                 pick: int) -> Opening:
    """The opening of seat's ``pick``-th pick commitment (its salt derives from the master)."""
    return Opening(PICK_DOMAIN, pick_value(game_id, seat, slots, pick),
                   derive(master, game_id, f"pick/{pick}"))


def pick_value(game_id: str, seat: int, slots: Sequence[int], pick: int) -> dict[str, Any]:
    return {"game": game_id, "seat": seat, "pick": pick, "slots": list(slots)}


def deck_keys(master: bytes, game_id: str) -> DerivedDeckKeys:
    return DerivedDeckKeys(derive(master, game_id, "deck"), derive(master, game_id, "salt/deck"))


@dataclass(frozen=True)
class DerivedDeckKeys(DeckKeys):
    """Deck keys whose seed commitment has a salt derived from the master secret too (``commit``
    draws a random one): a restarted peer must open the commitment it published before."""

    salt: bytes = field(default=b"", repr=False)

    def commitment(self, game_id: str, seat: int) -> tuple[bytes, Opening]:
        opening = Opening(DECK_KEYS_DOMAIN, committed_value(game_id, seat, self.seed), self.salt)
        return commitment_of(opening), opening
