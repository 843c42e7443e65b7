"""The statements the deck's proofs are about: one per deck layer message.

Every ``deck/blind``, ``deck/shuffle`` and ``deck/rekey`` carries a Chaum-Pedersen proof
(``p2p.crypto.proofs``) that its author applied its secret scalars to the previous layer's
points, checked by every receiver on arrival. The statements, with ``G`` the base point B:

- blind (seat j, batch b, key T = y*B): for each position i, source slot s, input X_i,
  output Y_i: the factor f_i links (G_i, T) and (X_i, Y_i), where G_i is j's slot-key
  commitment k_s*B if s is a deck slot, j's re-mask key r_s*B if j re-masked s, else B
  (so f_i = y*k_s^-1, y*r_s^-1 or y: exactly the blinding factor);
- shuffle (key W = x*T, T = j's blind key in a reshuffle batch, else B): not a DLEQ but a
  shuffle argument (``p2p.crypto.shuffle_proof``): the outputs are a permutation of the
  inputs, each times the x of W = x*T;
- rekey (seat j's shuffle key W of the batch): for each slot i, k_i * w^-1 links (W, K_i)
  and (X_i, Y_i), where K_i is the published k_i*B: so Y_i strips exactly the layer W
  committed to and adds exactly the key the slot will be opened with.

A ``deck/remask`` proves its cards with ``p2p.crypto.remask_proof`` (its header there).

The header binds the game, the author, the message type and its batch (and sources, or first
slot), so a proof copied from another slot, step, message or game fails.
"""

from __future__ import annotations

from collections.abc import Sequence

from p2p.crypto import shuffle_proof
from p2p.crypto.proofs import Instance, transcript_header

#: The standard base point B of Ed25519.
BASE_POINT = bytes.fromhex("5866666666666666666666666666666666666666666666666666666666666666")


def blind_statement(game_id: str, seat: int, batch: int, sources: Sequence[int],
                    bases: Sequence[bytes], inputs: Sequence[bytes], outputs: Sequence[bytes],
                    key: bytes) -> tuple[bytes, list[Instance]]:
    header = transcript_header(game_id, seat, "deck/blind",
                               {"batch": batch, "sources": list(sources)})
    return header, [Instance(g, x, key, y)
                    for g, x, y in zip(bases, inputs, outputs, strict=True)]


def shuffle_header(game_id: str, seat: int, batch: int) -> bytes:
    """The header of a shuffle's argument: the game, the author, the stage and the batch (the
    argument hashes the inputs, outputs, T and W after it)."""
    return shuffle_proof.transcript_header(game_id, seat, "deck/shuffle", {"batch": batch})


def rekey_statement(game_id: str, seat: int, batch: int, first_slot: int, key: bytes,
                    inputs: Sequence[bytes], outputs: Sequence[bytes],
                    commitments: Sequence[bytes]) -> tuple[bytes, list[Instance]]:
    header = transcript_header(game_id, seat, "deck/rekey",
                               {"batch": batch, "first_slot": first_slot})
    return header, [Instance(key, x, k, y)
                    for x, k, y in zip(inputs, commitments, outputs, strict=True)]
