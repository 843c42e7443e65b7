"""Probes for what a second verifier, written from protocol.md alone, had to guess (issue 43,
item 5): each pins the rule protocol.md now states, on the stored honest 2-peer game of
``tests/vectors/transcript.json`` edited the way a cheater or a damaged file would.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import pytest

VECTORS = Path(__file__).resolve().parent / "vectors"
sys.path.insert(0, str(VECTORS))

from build import verdict_of  # noqa: E402
from verdict_cases import find, new_message, rethreaded, with_body  # noqa: E402


@pytest.fixture(scope="module")
def honest() -> dict[str, Any]:
    return json.loads((VECTORS / "transcript.json").read_text(encoding="utf-8"))["transcript"]


def _verdict(base: dict[str, Any], messages: list[dict[str, Any]]) -> dict[str, Any]:
    return verdict_of({**copy.deepcopy(base), "messages": messages})


# -- a stray `escrow` field at a table without escrow -------------------------------------------

def test_escrow_shares_at_a_table_without_escrow_blame_their_author(honest) -> None:
    """protocol.md, "Stages": `setup/reveal`'s `escrow` is absent at a table without escrow;
    one that is there (any value but null) blames its author, unfair."""
    m = copy.deepcopy(honest["messages"])
    i = find(m, 1, "setup/reveal")
    m[i] = with_body(m[i], lambda body: body.__setitem__("escrow", {"0": {"box": "00",
                                                                          "commitment": "00"}}))
    got = _verdict(honest, m)
    assert (got["exit"], got["json"]["verdict"], got["json"]["blame_peer"]) == (1, "unfair", 1)
    assert "escrow shares at a table without escrow" in got["json"]["error"]


def test_a_null_escrow_in_setup_reveal_is_taken_as_absent(honest) -> None:
    m = copy.deepcopy(honest["messages"])
    i = find(m, 1, "setup/reveal")
    m[i] = with_body(m[i], lambda body: body.__setitem__("escrow", None))
    assert _verdict(honest, rethreaded(m))["exit"] == 0


def test_a_non_hosts_escrow_flag_is_ignored_but_must_be_a_boolean(honest) -> None:
    """`setup/commit`'s `escrow` is read from the host alone; another peer's `true` changes
    nothing, but any peer's non-boolean `escrow` blames it (the body does not parse)."""
    m = copy.deepcopy(honest["messages"])
    i = find(m, 1, "setup/commit")
    ignored = [*m[:i], with_body(m[i], lambda b: b.__setitem__("escrow", True)), *m[i + 1:]]
    assert _verdict(honest, rethreaded(ignored))["exit"] == 0
    bad = [*m[:i], with_body(m[i], lambda b: b.__setitem__("escrow", "yes")), *m[i + 1:]]
    got = _verdict(honest, bad)
    assert (got["exit"], got["json"]["blame_peer"]) == (1, 1)


# -- the message index of a gap at the end of the file ------------------------------------------

def test_a_gap_at_the_end_reports_the_first_held_message_in_file_order(honest) -> None:
    """"Verifying a transcript", 10: the index reported for a gap is that of the first message
    of the file, in file order, that is still held (its `seq` at or past its author's next
    one), whichever author's gap comes first in the file."""
    m = copy.deepcopy(honest["messages"])
    late0 = max(i for i, x in enumerate(m) if x["msg"]["seat"] == 0 and x["msg"]["seq"] > 5)
    early1 = min(i for i, x in enumerate(m) if x["msg"]["seat"] == 1 and x["msg"]["seq"] == 3)
    kept = [x for i, x in enumerate(m) if i not in (late0, early1)]
    got = _verdict(honest, kept)
    first_held = next(i for i, x in enumerate(kept)
                      if x["msg"]["seat"] == 1 and x["msg"]["seq"] > 3)
    assert (got["exit"], got["json"]["verdict"]) == (2, "damaged")
    assert got["json"]["message"] == first_held < late0


# -- the roster's size at verify time -----------------------------------------------------------

@pytest.mark.parametrize("size", [1, 5])
def test_a_roster_of_fewer_than_2_or_more_than_4_players_is_unreadable(honest, size) -> None:
    """"Verifying a transcript", 3: a roster lists 2-4 players, checked before its signature;
    any other size makes the file unreadable (exit 2, no JSON)."""
    data = copy.deepcopy(honest)
    players = data["roster"]["roster"]["players"]
    while len(players) < size:
        extra = copy.deepcopy(players[-1])
        extra["index"] = len(players)
        players.append(extra)
    del players[size:]
    got = verdict_of(data)
    assert got["exit"] == 2 and got["json"] is None


# -- claims of silence naming the claimant or no peer -------------------------------------------

@pytest.mark.parametrize("blame", [0, 2, -1, True])
def test_a_silence_claim_naming_itself_or_no_peer_names_the_claimant(honest, blame) -> None:
    """"Stopping a game": a `blame` that is no peer index (out of range, a boolean) reads as
    null, and a claim of silence naming its own sender accuses nobody else: either way the
    claim does not check, and its sender is the one that left (abandoned, naming it)."""
    m = copy.deepcopy(honest["messages"])
    head = m[:find(m, 0, "pick/commit") + 1]
    stage = head[-1]["msg"]["body"]["stage"]
    claim = new_message(head, 0, "abort", {"kind": "abandoned", "blame": blame,
                                           "reason": "silent", "evidence": None,
                                           "stage": stage})
    got = _verdict(honest, [*head, claim])
    assert (got["exit"], got["json"]["verdict"], got["json"]["blame_peer"]) == \
        (3, "abandoned", 0)


# -- the trace: a reshuffle batch's sources and the leftovers label's round ---------------------

def test_the_trace_names_each_reshuffle_batchs_sources_and_each_leftovers_label() -> None:
    """protocol.md, "Test vectors": a `deck/step` of a clean-up reshuffle lists its batch's
    `sources` (the engine's discard order, as the batch's `deck/blind` messages carry them),
    and a chance stage its seed label `leftovers/<round>`, the round whose draft just ended
    (as its seed messages carry it)."""
    vector = json.loads((VECTORS / "transcript.json").read_text(encoding="utf-8"))
    messages = vector["transcript"]["messages"]
    by_stage: dict[int, list[dict[str, Any]]] = {}
    for m in messages:
        by_stage.setdefault(m["msg"]["body"].get("stage"), []).append(m["msg"]["body"])
    sources = labels = 0
    rounds = []
    for stage in vector["trace"]["stages"]:
        step = stage.get("deck_step") or {}
        if step.get("batch", 0) > 0:
            blinds = [b["deck"] for b in by_stage[stage["stage"]]
                      if b.get("deck", {}).get("type") == "deck/blind"]
            for blind in blinds:
                assert blind["sources"] == step["sources"]
                sources += 1
        if stage["kind"].startswith("chance/"):
            said = {b["seed"]["label"] for b in by_stage[stage["stage"]]}
            assert said == {stage["label"]}
            rounds.append(int(stage["label"].split("/")[1]))
            labels += 1
    assert sources and labels
    assert rounds == sorted(rounds) and rounds[0] == 1  # one leftover shuffle per draft


# -- names' printability and IP literals, exactly -----------------------------------------------

def _entry(name: str = "alice", address: str = "10.0.0.1") -> dict[str, Any]:
    from p2p.identity import Identity, peer_id_of

    key = Identity.from_private_bytes(bytes(32)).public_bytes
    return {"index": 0, "name": name, "peer": peer_id_of(key), "key": key.hex(),
            "address": address, "port": 4000}


def _roster_entry_ok(**fields: str) -> bool:
    from p2p.errors import RemoteProtocolError
    from p2p.net.roster import RosterEntry

    try:
        RosterEntry.from_json(_entry(**fields))
    except RemoteProtocolError:
        return False
    return True


@pytest.mark.parametrize(("address", "ok"), [
    ("1.2.3.4", True), ("0.0.0.0", True), ("::", True), ("::1", True),
    ("::ffff:1.2.3.4", True), ("FE80::1", True), ("fe80::1%eth0", True),
    ("01.2.3.4", False), ("1.2.3", False), ("256.1.1.1", False), ("0x1.2.3.4", False),
    ("::ffff:01.2.3.4", False), ("fe80::1%", False), ("[::1]", False), (" 1.2.3.4", False),
    ("1.2.3.4/32", False), ("localhost", False), ("\u0661.2.3.4", False),
])
def test_a_roster_address_is_an_ip_literal_exactly_as_protocol_md_lists(address: str,
                                                                        ok: bool) -> None:
    assert _roster_entry_ok(address=address) is ok


@pytest.mark.parametrize(("name", "ok"), [
    ("a b", True), (" ", False), ("e\u0301", False), ("\u00e9", True), ("\U0001F600" * 32, True),
    ("\U0001F600" * 33, False), ("", False), ("a\u00a0b", False), ("a\u200bb", False),
    ("\u2028", False), ("\u00ad", False), ("\ue000", False), ("a\tb", False),
])
def test_a_roster_name_is_1_to_32_printable_code_points(name: str, ok: bool) -> None:
    assert _roster_entry_ok(name=name) is ok


# -- Ed25519's edge rules -----------------------------------------------------------------------

_L = 2**252 + 27742317777372353535851937790883648493
_P = 2**255 - 19
_IDENTITY = (1).to_bytes(32, "little")
_ORDER_8 = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")


def _le(x: int) -> bytes:
    return x.to_bytes(32, "little")


def test_ed25519_takes_small_order_and_non_canonical_keys() -> None:
    """"Signed messages": the key is decoded leniently: the identity (a small-order key, for
    which [0]B = R = identity forges any message) and a y at or above p (here p + 1, the
    identity again) are taken."""
    from p2p.identity import verify_signature

    forged = _IDENTITY + _le(0)
    assert verify_signature(_IDENTITY, forged, b"any message")
    assert verify_signature(_le(_P + 1), forged, b"any message")


def test_ed25519_refuses_a_non_canonical_s_or_r() -> None:
    """S must be below L, and R is compared by its bytes with the canonical encoding of
    [S]B - [h]A (so a non-canonical R never verifies)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from p2p.identity import verify_signature

    key = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
    public = key.public_key().public_bytes(serialization.Encoding.Raw,
                                           serialization.PublicFormat.Raw)
    sig = key.sign(b"m")
    s = int.from_bytes(sig[32:], "little")
    assert verify_signature(public, sig, b"m")
    assert not verify_signature(public, sig[:32] + _le(s + _L), b"m")
    assert not verify_signature(_IDENTITY, _le(_P + 1) + _le(0), b"m")


def test_ed25519_is_cofactorless() -> None:
    """The check is [S]B = R + [h]A exactly, not multiplied by the cofactor 8: with a
    mixed-order key A = aB + T (T of order 8), an honest signature verifies only when
    h = 0 mod 8."""
    import hashlib

    from nacl import bindings as sodium

    from p2p.identity import verify_signature

    a = int.from_bytes(hashlib.sha512(b"a").digest(), "little") % _L
    key = sodium.crypto_core_ed25519_add(sodium.crypto_scalarmult_ed25519_base_noclamp(_le(a)),
                                         _ORDER_8)
    outcomes: dict[bool, set[bool]] = {True: set(), False: set()}
    for i in range(40):
        message = b"m%d" % i
        r = int.from_bytes(hashlib.sha512(b"r" + message).digest(), "little") % _L
        big_r = sodium.crypto_scalarmult_ed25519_base_noclamp(_le(r))
        h = int.from_bytes(hashlib.sha512(big_r + key + message).digest(), "little") % _L
        signature = big_r + _le((r + h * a) % _L)
        outcomes[h % 8 == 0].add(verify_signature(key, signature, message))
    assert outcomes == {True: {True}, False: {False}}


# -- a sealed key entry's `to` and `type` at the audit ------------------------------------------

@pytest.mark.parametrize("edit", [
    {"to": 1}, {"type": "deck/remask-key"}, {"slot": 99}, {"extra": True}])
def test_the_audit_reads_only_the_key_of_a_sealed_entry(honest, edit) -> None:
    """"End of game and audit": opening the sealed keys, the audit compares each entry's
    `key` with the true key of its slot (the slots due, in order) and reads nothing else:
    an entry whose `to`, `type` or `slot` is wrong, or that has an extra field, passes
    there. Only its recipient, live, refuses it ("Opening cards"): a keyless verifier of a
    file in which the recipient went on finds the game fair."""
    from nacl import bindings as sodium
    from verdict_cases import MASTERS, seal_deterministically

    from engine.canonical import canonical_json, parse_json
    from p2p.crypto.sealed import box_key

    m = copy.deepcopy(honest["messages"])
    game = honest["roster"]["roster"]["game"]
    keys8 = find(m, 0, "keys", 8)  # the deal: peer 0's keys sealed to seat 0 (peer 1)
    recipient = bytes(box_key(MASTERS[1], game).public_key)
    opened = parse_json(sodium.crypto_box_seal_open(
        bytes.fromhex(m[keys8]["msg"]["body"]["private"]["0"]), recipient,
        bytes(box_key(MASTERS[1], game))))
    opened[0].update(edit)
    box = seal_deterministically(recipient, canonical_json(opened), "guess probe box")
    m[keys8] = with_body(m[keys8], lambda body: body["private"].update({"0": box}))
    got = _verdict(honest, rethreaded(m))
    assert (got["exit"], got["json"]["verdict"]) == (0, "fair"), got["json"]


# -- which layer a bad slot point found at decryption blames ------------------------------------

def test_the_audit_blames_the_first_layer_off_its_commitment_in_the_batchs_order() -> None:
    """"Deck audit", 3: the audit recomputes the batch's layers in their order (shuffles,
    then re-keys, each seat's in seat order) and blames the first layer that differs from
    its author's committed seed, at its lowest differing position. Every layer proves itself
    on arrival, so only a shuffle that applies a valid permutation other than the committed
    one (and argues it) gets this far: here seat 1's shuffle (exchanged at positions 5 and
    6), not seat 2's later one, although seat 2's differs at lower positions (2, 3)."""
    from deck_helpers import other_permutation

    from p2p.deck.keys import DeckKeys
    from p2p.deck.loopback import LoopbackTable
    from p2p.errors import StepMismatch

    keys = [DeckKeys.generate() for _ in range(3)]
    table = LoopbackTable("guess", 3, 16, other_permutation(keys, "guess", {1: 5, 2: 2}),
                          keys=keys)
    table.setup()  # every argument checks: each is a permutation
    assert sorted(table.reveal(slot).card for slot in range(16)) == list(range(16))
    with pytest.raises(StepMismatch) as info:
        table.audit()
    assert (info.value.seat, info.value.evidence["position"]) == (1, 5)


# -- handover, ghost and escrow verification: what the ghost bot draws --------------------------

def test_every_ghost_decision_is_the_documented_draw(monkeypatch) -> None:
    """"Leaving with a handover", step by step: at each stage that asks the ghost's seat to
    choose (a `pick/commit` or an `action`), the ghost's legal actions are
    `legal_actions(its engine, its seat)` in the engine's order, listed before any re-mask
    of its hand (a pick on a re-masked hand then goes to the fresh slots, ascending), and
    it plays `legal[i]`, i from a fresh RandomStream(SHA-256("solstice/ghost/v1\\0" || setup
    joint seed || stage number as 4 bytes big-endian)), one `randbelow(len(legal))` per
    stage. A keyless observer (the verifier) draws the same."""
    import hashlib

    from engine.randomness import RandomStream
    from p2p.session import ghost as ghost_module
    from p2p.session.loopback import LoopbackGame
    from p2p.session.machine import GameSession

    draws: list[tuple[Any, int, tuple[Any, ...], Any]] = []
    real = ghost_module.ghost_choice

    def recording(joint_seed: bytes, stage: int, legal: Any) -> Any:
        chosen = real(joint_seed, stage, legal)
        draws.append((joint_seed, stage, tuple(legal), chosen))
        return chosen

    monkeypatch.setattr(ghost_module, "ghost_choice", recording)
    game = LoopbackGame(3)
    game.sessions[1].leave_after_round = 0
    rng = RandomStream(b"guess")
    game.play(lambda view: view.legal[rng.randbelow(len(view.legal))])
    assert draws
    for joint_seed, stage, legal, chosen in draws:
        seed = hashlib.sha256(b"solstice/ghost/v1\x00" + joint_seed +
                              stage.to_bytes(4, "big")).digest()
        assert chosen == legal[RandomStream(seed).randbelow(len(legal))]
    remaining = game.sessions[0]
    assert {d[0] for d in draws} == {remaining.setup.joint_seed()}
    # every remaining peer, and the observer's replay, make the very same draw at each stage
    live: dict[int, tuple[Any, Any]] = {}
    for _, stage, legal, chosen in draws:
        assert live.setdefault(stage, (legal, chosen)) == (legal, chosen)
    draws.clear()
    observer = GameSession(game.game_id, [i.public_bytes for i in game.identities])
    for signed in remaining.msglog.messages:
        observer.accept(signed, direct=False)
    observer.end_of_log()
    assert observer.result == remaining.result
    assert {stage: (legal, chosen) for _, stage, legal, chosen in draws} == live


def test_a_seat_recovered_from_the_escrow_draws_as_a_handed_over_one(monkeypatch) -> None:
    """The same draws for a seat played on from the escrow ("Leaving without a word"): the
    rebuilt master plays the ghost exactly as a handover's would."""
    import hashlib
    import random

    from byzantine import Table, Vanish

    from engine.randomness import RandomStream
    from p2p.session import ghost as ghost_module

    draws: list[tuple[bytes, int, tuple[Any, ...], Any]] = []
    real = ghost_module.ghost_choice

    def recording(joint_seed: bytes, stage: int, legal: Any) -> Any:
        chosen = real(joint_seed, stage, legal)
        draws.append((joint_seed, stage, tuple(legal), chosen))
        return chosen

    monkeypatch.setattr(ghost_module, "ghost_choice", recording)
    gone = Vanish(random.Random(0))
    gone.start, gone.share = 40, 1.0
    table = Table(3, bad=2, behaviours=[gone], seed=7, escrow=True, kinds={})
    table.play()
    assert all(s.result is not None and s.result["left"] for s in table.honest)
    assert {r["by"] for s in table.honest for r in s.result["left"].values()} == {"escrow"}
    assert draws
    per_stage: dict[int, tuple[Any, Any]] = {}
    for joint_seed, stage, legal, chosen in draws:
        seed = hashlib.sha256(b"solstice/ghost/v1\x00" + joint_seed +
                              stage.to_bytes(4, "big")).digest()
        assert chosen == legal[RandomStream(seed).randbelow(len(legal))]
        assert per_stage.setdefault(stage, (legal, chosen)) == (legal, chosen)
