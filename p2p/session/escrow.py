"""Leaving without a word (opt-in by the host, 3-4 players): every peer escrows its per-game
master secret to the others at the start, split so that only all of them together can rebuild
it; when a peer is named abandoned, every remaining peer publishes its share with its claim,
the secret is rebuilt and checked against the leaver's commitments, and the seat becomes a
ghost (``p2p.session.handover``), as if it had handed over. See protocol.md, "Leaving without
a word: the escrow".

The shares: for the other peers h_1 < ... < h_k of author a, share_i = derive(master,
"escrow/share/<h_i>") for i < k and share_k = master XOR share_1 XOR ... XOR share_(k-1); each
share goes sealed to its holder's escrow key (``secrets.escrow_key_of``: from its identity,
not its master) with a salt (derived too), and its commitment is published in a's
``setup/reveal``. Any k-1 shares are uniformly random: no coalition smaller than all the
others learns anything of the master, and a master rebuilt or handed over opens none of the
shares its player held, so that holds after a recovery too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from nacl.public import PrivateKey, PublicKey

from engine.canonical import CanonicalEncodingError, canonical_json, parse_json
from p2p.crypto.commitments import Opening, commitment_of
from p2p.crypto.sealed import seal, unseal
from p2p.errors import RemoteProtocolError
from p2p.hexfields import is_lower_hex
from p2p.session.secrets import derive

ESCROW_DOMAIN = "solstice/escrow/v1"


@dataclass(frozen=True)
class EscrowShare:
    """One holder's share of one author's master, with the salt of its commitment."""

    share: bytes
    salt: bytes

    def to_json(self) -> dict[str, str]:
        return {"share": self.share.hex(), "salt": self.salt.hex()}

    @classmethod
    def parse(cls, blame: int, raw: Any) -> EscrowShare:
        """A share as published (or as sealed): ``{"share": hex64, "salt": hex64}``."""
        if not isinstance(raw, dict) or set(raw) != {"share", "salt"} or not all(
                is_lower_hex(raw[k], 32) for k in raw):
            raise RemoteProtocolError(blame, "an escrow share must be {share, salt}, each 32 "
                                             "bytes of lowercase hex")
        return cls(bytes.fromhex(raw["share"]), bytes.fromhex(raw["salt"]))


def xor(parts: Sequence[bytes]) -> bytes:
    out = bytes(32)
    for part in parts:
        out = bytes(a ^ b for a, b in zip(out, part, strict=True))
    return out


def shares_of(master: bytes, game_id: str, holders: Sequence[int]) -> dict[int, EscrowShare]:
    """The escrow of ``master``: one share per holder (all the other peers)."""
    ordered = sorted(holders)
    shares = {h: derive(master, game_id, f"escrow/share/{h}") for h in ordered[:-1]}
    shares[ordered[-1]] = xor([master, *shares.values()])
    return {h: EscrowShare(shares[h], derive(master, game_id, f"escrow/salt/{h}"))
            for h in ordered}


def share_commitment(game_id: str, author: int, holder: int, share: EscrowShare) -> bytes:
    value = {"game": game_id, "from": author, "to": holder, "share": share.share.hex()}
    return commitment_of(Opening(ESCROW_DOMAIN, value, share.salt))


def escrow_body(master: bytes, game_id: str, author: int,
                boxes: Mapping[int, PublicKey]) -> dict[str, Any]:
    """``setup/reveal``'s ``escrow``: for each other peer (as text), its share sealed to its
    escrow key (``boxes``) and the share's commitment."""
    out = {}
    for holder, share in shares_of(master, game_id, list(boxes)).items():
        out[str(holder)] = {
            "box": seal(boxes[holder], canonical_json(share.to_json())),
            "commitment": share_commitment(game_id, author, holder, share).hex()}
    return out


def parse_escrow(author: int, raw: Any, holders: Sequence[int]) -> dict[int, tuple[str, bytes]]:
    """An author's ``escrow`` field: holder -> (sealed box, commitment), exactly the holders."""
    if not isinstance(raw, dict) or set(raw) != {str(h) for h in holders}:
        raise RemoteProtocolError(author, f"escrow must hold a share for each of peers "
                                          f"{sorted(holders)}")
    out = {}
    for text, entry in raw.items():
        if (not isinstance(entry, dict) or set(entry) != {"box", "commitment"}
                or not isinstance(entry["box"], str)
                or not is_lower_hex(entry["commitment"], 32)):
            raise RemoteProtocolError(author, "an escrow entry must be {box, commitment: 32 "
                                              "bytes of lowercase hex}")
        out[int(text)] = (entry["box"], bytes.fromhex(entry["commitment"]))
    return out


def open_share(game_id: str, author: int, holder: int, my_box: PrivateKey, box: str,
               commitment: bytes) -> EscrowShare:
    """Open the share ``author`` sealed to us (``holder``) and check it against its
    commitment; a box that does not open, or does not match, blames ``author``."""
    try:
        raw = parse_json(unseal(my_box, author, box))
    except (ValueError, CanonicalEncodingError, UnicodeDecodeError):
        raise RemoteProtocolError(author, "its escrow share is not JSON") from None
    share = EscrowShare.parse(author, raw)
    if share_commitment(game_id, author, holder, share) != commitment:
        raise RemoteProtocolError(author, f"its escrow share sealed to peer {holder} does not "
                                          "open its commitment")
    return share
