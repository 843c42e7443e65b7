"""Shared randomness: commit, then reveal, then one joint seed for everybody."""

from __future__ import annotations

import hashlib

import pytest

from engine.randomness import RandomStream
from p2p.crypto.seeds import SeedExchange, joint_seed, new_local_seed
from p2p.errors import CommitmentMismatch, MalformedMessage, OutOfOrder


def exchange(n: int):
    locals_ = [new_local_seed("game-1", "planets", seat) for seat in range(n)]
    peers = [SeedExchange("game-1", "planets", n) for _ in range(n)]
    return locals_, peers


@pytest.mark.parametrize("n", [2, 3, 4])
def test_all_peers_get_the_same_joint_seed(n):
    locals_, peers = exchange(n)
    for seat, local in enumerate(locals_):
        for peer in peers:
            peer.receive(seat, local.commit_message)
    for seat, local in reversed(list(enumerate(locals_))):  # reveal order does not matter
        for peer in peers:
            peer.receive(seat, local.reveal_message)
    seeds = [bytes.fromhex(local.reveal_message["seed"]) for local in locals_]
    expected = hashlib.sha256(b"solstice/joint-seed/v1\x00" + b"".join(seeds)).digest()
    assert {peer.joint_seed() for peer in peers} == {expected}
    assert peers[0].stream().permutation(10) == RandomStream(expected).permutation(10)
    assert joint_seed(seeds) == expected


def test_reveal_before_all_commitments_is_refused():
    locals_, peers = exchange(3)
    peers[0].receive(0, locals_[0].commit_message)
    peers[0].receive(1, locals_[1].commit_message)
    with pytest.raises(OutOfOrder) as info:
        peers[0].receive(1, locals_[1].reveal_message)
    assert info.value.seat == 1


def test_duplicate_commitment_and_reveal_are_refused():
    locals_, peers = exchange(2)
    peer = peers[0]
    peer.receive(0, locals_[0].commit_message)
    with pytest.raises(OutOfOrder) as info:
        peer.receive(0, locals_[0].commit_message)
    assert info.value.seat == 0
    peer.receive(1, locals_[1].commit_message)
    peer.receive(1, locals_[1].reveal_message)
    with pytest.raises(OutOfOrder) as info:
        peer.receive(1, locals_[1].reveal_message)
    assert info.value.seat == 1


def test_reveal_not_matching_commitment_blames_that_seat():
    locals_, peers = exchange(3)
    for seat, local in enumerate(locals_):
        peers[0].receive(seat, local.commit_message)
    changed = dict(locals_[2].reveal_message, seed="00" * 32)
    with pytest.raises(CommitmentMismatch) as info:
        peers[0].receive(2, changed)
    assert info.value.seat == 2
    assert info.value.evidence["commitment"] == locals_[2].commit_message["commitment"]


def test_commitment_replayed_by_another_seat_cannot_be_opened():
    # Seat 1 copies seat 0's commitment, then copies seat 0's seed: the seat is bound.
    locals_, peers = exchange(2)
    peers[0].receive(0, locals_[0].commit_message)
    peers[0].receive(1, dict(locals_[0].commit_message, seat=1))
    stolen = dict(locals_[0].reveal_message, seat=1)
    with pytest.raises(CommitmentMismatch) as info:
        peers[0].receive(1, stolen)
    assert info.value.seat == 1


def test_malformed_messages_blame_the_sender():
    locals_, peers = exchange(2)
    with pytest.raises(MalformedMessage) as info:
        peers[0].receive(1, dict(locals_[1].commit_message, commitment="zz"))
    assert info.value.seat == 1
    with pytest.raises(MalformedMessage) as info:
        peers[0].receive(1, locals_[0].commit_message)  # seat field says 0
    assert info.value.seat == 1


def test_joint_seed_not_ready_before_all_reveals():
    _, peers = exchange(2)
    assert not peers[0].complete
    with pytest.raises(Exception, match="joint seed"):
        peers[0].joint_seed()
