"""Issue 40, case 2: a peer re-signs one of its own messages (another legal choice, well
formed in every field) and puts the twin into an honest peer's transcript. ``verify`` must
name the twin's author or nobody, never the honest peer whose later message no longer fits
the edited file: both messages in the file are an equivocation (the author is named); the
twin in place of the original leaves the stage messages after it signed over the original
(their ``history``: nobody is named for another author's, the twin's author for its own,
whose ``own`` digest shows it signed two pasts of its own).

The twin is made the only way a real cheater could: the same table played again with the
same identities, secrets and choices up to one decision, which goes the other way. For the
replay to match byte for byte up to there, the test draws every secret, identity and sealed
box from the seed."""

from __future__ import annotations

import copy
import hashlib
import json
import random
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from byzantine import Table
from nacl.public import Box, PrivateKey, PublicKey

import p2p.session.escrow
import p2p.session.opening
from p2p.identity import Identity
from p2p.storage.transcript import verify_transcript

GAME = "ab" * 16


class OneOtherChoice(random.Random):
    """The table's choices, except that call ``at`` (when it has a choice) takes the next
    legal action instead."""

    def __init__(self, seed: int, at: int) -> None:
        super().__init__(seed)
        self.calls, self.at = 0, at

    def randrange(self, *args: Any, **kwargs: Any) -> int:
        drawn = super().randrange(*args, **kwargs)
        self.calls += 1
        n = args[0]
        return (drawn + 1) % n if self.calls == self.at and n > 1 else drawn


def _seeded_seal(rng: random.Random) -> Callable[[PublicKey, bytes], str]:
    """libsodium's sealed box (ephemeral key, nonce = BLAKE2b(epk || pk)), its ephemeral key
    drawn from ``rng``: opened by the same ``unseal``."""
    def seal(recipient: PublicKey, data: bytes) -> str:
        ephemeral = PrivateKey(rng.randbytes(32))
        epk = bytes(ephemeral.public_key)
        nonce = hashlib.blake2b(epk + bytes(recipient), digest_size=24).digest()
        return (epk + Box(ephemeral, recipient).encrypt(data, nonce).ciphertext).hex()
    return seal


def _play(monkeypatch: pytest.MonkeyPatch, seed: int, identities: list[Identity],
          at: int | None) -> Table:
    draws = random.Random(seed)
    monkeypatch.setattr(secrets, "token_bytes",
                        lambda n=32: draws.randbytes(n))
    seal = _seeded_seal(random.Random(seed + 1))
    for module in (p2p.session.opening, p2p.session.escrow):
        monkeypatch.setattr(module, "seal", seal)
    given = iter(identities)
    monkeypatch.setattr(Identity, "generate", classmethod(lambda cls: next(given)))
    n = len(identities)
    table = Table(n, bad=n - 1, behaviours=[], seed=seed, game_id=GAME, escrow=n > 2)
    if at is not None:
        table.choices = OneOtherChoice(seed + 1, at)
    table.play()
    monkeypatch.undo()
    return table


def _key(message: dict[str, Any]) -> tuple[int, int]:
    return message["msg"]["seat"], message["msg"]["seq"]


def _twin(original: list[dict[str, Any]], other: list[dict[str, Any]]) -> dict[str, Any]:
    """The first message of ``other`` whose author signed another message with its seq in
    ``original``."""
    by_key = {_key(m): m for m in original}
    return next(m for m in other if _key(m) in by_key and by_key[_key(m)] != m)


def _edits(messages: list[dict[str, Any]], twin: dict[str, Any]) -> dict[str, list[Any]]:
    i = next(j for j, m in enumerate(messages) if _key(m) == _key(twin))
    replaced = copy.deepcopy(messages)
    replaced[i] = twin
    return {"replaced": replaced, "replaced, file cut after it": replaced[:i + 1],
            "both, the twin last": [*messages, twin],
            "both, the twin first": [*messages[:i], twin, *messages[i:]]}


@pytest.mark.parametrize("seed, n, at", [
    (0, 2, 10), (3, 2, 3), pytest.param(1, 3, 25, marks=pytest.mark.soak),
    pytest.param(2, 4, 25, marks=pytest.mark.soak), pytest.param(5, 3, 60, marks=pytest.mark.soak),
    pytest.param(6, 4, 10, marks=pytest.mark.soak), pytest.param(7, 2, 20, marks=pytest.mark.soak)])
def test_a_re_signed_twin_names_its_author_or_nobody(monkeypatch: pytest.MonkeyPatch,
                                                     tmp_path: Path, seed: int, n: int,
                                                     at: int) -> None:
    identities = [Identity.generate() for _ in range(n)]
    honest = _play(monkeypatch, seed, identities, None)
    other = _play(monkeypatch, seed, identities, at)
    files = {peer: json.loads(honest.transcript(peer, tmp_path / "a").read_text())
             for peer in range(n)}
    twin = _twin(files[0]["messages"],
                 json.loads(other.transcript(0, tmp_path / "b").read_text())["messages"])
    author = twin["msg"]["seat"]
    assert twin["msg"]["type"] in ("action", "pick/commit", "pick/reveal")  # a real choice
    for peer, data in files.items():
        for kind, messages in _edits(data["messages"], twin).items():
            path = tmp_path / f"{peer}-{kind}.json"
            path.write_text(json.dumps({**data, "messages": messages}))
            verdict = verify_transcript(path)
            where = (seed, n, at, peer, kind, verdict.summary)
            if kind.startswith("both"):
                assert verdict.status == "unfair" and verdict.blame == author, where
                assert "equivocation" in verdict.summary, where
            else:
                assert verdict.blame in (None, author), where
                assert verdict.status in ("damaged", "incomplete", "unfair"), where
