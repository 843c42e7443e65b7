"""The verdict vectors (``verdicts.json``): small transcripts, honest and tampered, each with
what ``solstice verify --json`` gives for it.

Most cases are derived from the one honest 2-peer game of ``transcript.json`` (its identities
and master secrets are fixed, so the tampered messages can be signed again by their authors,
as a cheater would sign its own); the others from the starts of a 3-peer and a 4-peer game
played here from fixed identities and masters. Each edit is deterministic, the sealed boxes
made here included (their ephemeral keys are derived, not drawn), so a rebuild from the same
``transcript.json`` gives the same file. ``build.py --verdicts`` writes it; the test suite
verifies every stored transcript and compares the verdict and the stages its replay enters.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
from collections.abc import Callable
from typing import Any

from nacl import bindings as sodium

from engine.canonical import canonical_json, parse_json
from p2p.crypto.sealed import box_key
from p2p.identity import Identity
from p2p.session.envelope import Message, SignedMessage, sign_message
from p2p.session.events import Peer
from p2p.session.history import GENESIS_HISTORY, next_history, next_own

Transcript = dict[str, Any]
Messages = list[dict[str, Any]]

# Every case but a game's start names the trace it follows (``trace_of``): transcript.json's,
# or the start case's own ``trace``; build.py adds how far (``last_stage``).
TRANSCRIPT_TRACE = "transcript.json"
START3 = "incomplete-3-peers-start"


def seed_bytes(label: str) -> bytes:
    return hashlib.sha256(label.encode()).digest()


IDENTITIES = [Identity.from_private_bytes(seed_bytes(f"transcript identity {i}")) for i in (0, 1)]
MASTERS = [seed_bytes(f"transcript master {i}") for i in (0, 1)]


def signed(data: dict[str, Any]) -> SignedMessage:
    return SignedMessage.decode(canonical_json(data))


def resign(data: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """The message with fields changed (``body`` replaced whole), signed again by its author."""
    msg = dataclasses.replace(signed(data).msg, **changes)
    return sign_message(IDENTITIES[msg.seat], msg).to_json()


def with_body(data: dict[str, Any], edit: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    body = copy.deepcopy(data["msg"]["body"])
    edit(body)
    return resign(data, body=body)


def rethreaded(messages: Messages) -> Messages:
    """The messages after a tampered one as its author's peers (and the author) would have
    signed them had it been sent so: every stage message's ``history`` and ``own`` recomputed
    over the messages before it (stages in order, each stage's messages by author), and
    signed again where they changed. Aborts are left as they are (nothing is signed over
    them)."""
    out = copy.deepcopy(messages)
    stages: dict[int, list[int]] = {}
    for i, data in enumerate(out):
        msg = data["msg"]
        if msg["type"] not in ("abort", "handover") and "history" in msg["body"]:
            stages.setdefault(msg["body"]["stage"], []).append(i)
    n = 1 + max(data["msg"]["seat"] for data in out)
    history, own = GENESIS_HISTORY, (GENESIS_HISTORY,) * n
    for stage in sorted(stages):
        collected: dict[Peer, SignedMessage] = {}
        for i in stages[stage]:
            seat = out[i]["msg"]["seat"]
            due = {"history": history, "own": own[seat]}
            if any(out[i]["msg"]["body"].get(k) != v for k, v in due.items()):
                out[i] = with_body(out[i], lambda b, d=due: b.update(d))
            collected[Peer(seat)] = signed(out[i])
        history = next_history(history, stage, collected)
        own = next_own(own, stage, collected)
    return out


def new_message(messages: Messages, peer: int, kind: str, body: dict[str, Any]) -> dict[str, Any]:
    """The next message of ``peer`` after those in ``messages`` (``prev``: the last one's
    hash, as if the author had received everything before it)."""
    seq = 1 + max((m["msg"]["seq"] for m in messages if m["msg"]["seat"] == peer), default=-1)
    prev = signed(messages[-1]).hash if messages else "00" * 32
    game = messages[0]["msg"]["game"]
    msg = Message(game, peer, seq, prev, kind, body)
    return sign_message(IDENTITIES[peer], msg).to_json()


def negated(point_hex: str) -> str:
    """The same point with the sign of x flipped: a valid point, the negation of the card."""
    raw = bytearray(bytes.fromhex(point_hex))
    raw[31] ^= 0x80
    return raw.hex()


def flip_hex(text: str) -> str:
    return ("1" if text[0] == "0" else "0") + text[1:]


def box_secret(peer: int, game: str) -> str:
    return bytes(box_key(MASTERS[peer], game)).hex()


def seal_deterministically(recipient: bytes, plaintext: bytes, label: str) -> str:
    """libsodium's ``crypto_box_seal`` layout with a derived ephemeral key (protocol.md,
    "Opening cards"): epk || crypto_box(plaintext, nonce = BLAKE2b-24(epk || pk), esk, pk)."""
    esk = seed_bytes(label)
    epk = sodium.crypto_scalarmult_base(esk)
    nonce = hashlib.blake2b(epk + recipient, digest_size=24).digest()
    return (epk + sodium.crypto_box(plaintext, nonce, recipient, esk)).hex()


def find(messages: Messages, peer: int, kind: str, stage: int | None = None) -> int:
    for index, m in enumerate(messages):
        msg = m["msg"]
        if msg["seat"] == peer and msg["type"] == kind and \
                (stage is None or msg["body"].get("stage") == stage):
            return index
    raise AssertionError(f"no {kind} of peer {peer} at stage {stage}")


def cases(base: Transcript, state_of_stage: dict[int, str | None]) -> list[dict[str, Any]]:
    """(name, description, transcript) of every case; ``base`` is transcript.json's file."""
    game = base["roster"]["roster"]["game"]
    m: Messages = base["messages"]
    out: list[dict[str, Any]] = []

    def case(name: str, description: str, messages: Messages | None = None,
             **changes: Any) -> None:
        data = copy.deepcopy(base)
        if messages is not None:
            data["messages"] = messages
        data.update(changes)
        if messages is not None and len(messages) < len(m) and "outcome" not in changes:
            data["outcome"] = {"ok": False, "verdict": "incomplete",
                               "reason": "the game did not finish", "blame": None}
        out.append({"name": name, "description": description, "transcript": data,
                    "trace_of": TRANSCRIPT_TRACE})

    def abort(messages: Messages, peer: int, stage: int, body: dict[str, Any]
              ) -> dict[str, Any]:
        """An abort as a peer sends it: ``stage`` is the sender's current stage."""
        full = {"evidence": None, "reason": "", **body, "stage": stage}
        state = state_of_stage.get(stage)
        if state is not None:
            full["state"] = state  # as a peer's abort carries it (ignored by receivers)
        return new_message(messages, peer, "abort", full)

    # peers: peer 0 holds game seat 1 (white), peer 1 seat 0 (black)
    audit0, audit1 = find(m, 0, "audit"), find(m, 1, "audit")
    action24 = find(m, 0, "action", 24)      # peer 0's first action (dispatch phase, round 1)
    keys11 = [find(m, p, "keys", 11) for p in (0, 1)]  # the first public reveal (slot 2 ...)
    rekey7 = find(m, 0, "deck/step", 7)      # batch 0's last re-key layer (peer 0)
    shuffle4 = find(m, 1, "deck/step", 4)    # peer 1's shuffle layer of batch 0 (the first)
    action25 = find(m, 1, "action", 25)      # peer 1's first action
    keys8 = find(m, 0, "keys", 8)            # the deal: peer 0's keys sealed to seat 0
    commit9 = find(m, 0, "pick/commit", 9)
    remask23 = find(m, 0, "remask", 23)       # peer 0's first dispatch-phase re-mask

    # -- fair ----------------------------------------------------------------------------------
    case("fair", "the honest game as peer 0 wrote it: fair, exit 0")
    case("fair-reordered", "the same messages sorted by (stage, author descending): any "
         "order that keeps each author's seq order verifies the same",
         sorted(m, key=lambda x: (x["msg"]["body"]["stage"], -x["msg"]["seat"])))
    own0 = [x for x in m if x["msg"]["seat"] == 0]
    noise = [resign(own0[-1], seq=own0[-1]["msg"]["seq"] + 1 + i, type="noise")
             for i in range(64)]
    padded = own0 + noise
    case("fair-gap-released-past-64", "peer 0's messages, then 64 validly signed ones after "
         "its audit, all before peer 1's, with peer 0's seq 1 moved after them: they wait "
         "ahead of the gap and are released at once when it fills, past the 64-message bound "
         "(which applies only to messages arriving in sequence): fair",
         [padded[0], *padded[2:], padded[1], *[x for x in m if x["msg"]["seat"] == 1]])

    # -- damaged (exit 2, nobody named) ------------------------------------------------------
    bad_sig = copy.deepcopy(m[:12])
    bad_sig[10]["sig"] = flip_hex(bad_sig[10]["sig"])
    case("damaged-bad-signature", "message 10's signature altered: damaged at 10", bad_sig)
    roster = copy.deepcopy(base["roster"])
    roster["sig"] = flip_hex(roster["sig"])
    case("damaged-bad-roster-signature", "the roster's signature altered: the file is "
         "unreadable (exit 2, no verdict object: `verify --json` prints an error)",
         roster=roster)
    case("damaged-gap", "peer 0's seq 10 deleted: its later messages wait for the gap, which "
         "the file never fills: damaged", [x for i, x in enumerate(m[:30]) if i != 20])
    case("damaged-outcome", "the stated outcome gives other scores than the replay",
         outcome={**base["outcome"], "scores": {"black": 16, "white": 6}})
    case("damaged-malformed", "message 5 has an extra envelope key: damaged at 5",
         [*m[:5], {**m[5], "msg": {**m[5]["msg"], "extra": 1}}, *m[6:8]])

    # -- unfair (exit 1): proofs ---------------------------------------------------------------
    other = with_body(m[commit9], lambda b: b.update(commitment=flip_hex(b["commitment"])))
    case("unfair-equivocation", "a second, different message of peer 0 with seq 6 (its "
         "pick commitment) right after the first: equivocation, proven by both",
         [*m[:commit9 + 1], other, *m[commit9 + 1:commit9 + 3]])
    tail = [resign(own0[-1], seq=own0[-1]["msg"]["seq"] + 1 + i, type="noise")
            for i in range(65 - (len(own0) - own0.index(m[commit9]) - 1))]
    case("unfair-equivocation-before-65-more", "the equivocation above, then peer 0's later "
         "messages padded to 65 after it: the stopped game takes none into a stage and the "
         "65th is refused, but two validly signed messages of one author with one seq prove "
         "the equivocation wherever they are in the file: unfair, peer 0 named at the second",
         [*m[:commit9 + 1], other, *m[commit9 + 1:], *tail])
    reveal0 = with_body(m[2], lambda b: b["seed"].update(salt=flip_hex(b["seed"]["salt"])))
    case("unfair-bad-seed-opening", "peer 0's setup reveal does not open its commitment: "
         "detected when the stage is complete, at message 3 (peer 1's reveal)",
         [*m[:2], reveal0, m[3]])
    for name, key, why in (("unfair-low-order-box-key", "00" * 31 + "80", "32 zero bytes but "
                            "bit 255, one of the 14 refused encodings"),
                           ("unfair-upper-case-box-key", m[1]["msg"]["body"]["box"].upper(),
                            "its true key in upper-case hex, a second encoding")):
        case(name, f"peer 1's setup/commit announces a box key of {why}: peer 1 is named when "
             "the stage is complete", [m[0], with_body(m[1], lambda b, k=key: b.update(box=k))])
    case("unfair-wrong-state-hash", "peer 0's first action carries another state hash",
         [*m[:action24], with_body(m[action24], lambda b: b.update(state=flip_hex(b["state"])))])
    case("unfair-illegal-action", "peer 1's first action dispatches to a planet that does "
         "not exist", [*m[:action25],
                       with_body(m[action25], lambda b: b["action"].update(planet=7))])
    case("unfair-malformed-body", "peer 0's first action has no action",
         [*m[:action24], with_body(m[action24], lambda b: b.pop("action"))])

    def wrong_key(body: dict[str, Any]) -> None:
        body["public"][0]["key"] = body["public"][1]["key"]  # another slot's (valid) key
    case("unfair-key-mismatch", "peer 1 reveals slot 2 with its key of slot 3: the key does "
         "not match its commitment k*B", [*m[:keys11[1]], with_body(m[keys11[1]], wrong_key)])
    def swap_first_two(body: dict[str, Any]) -> None:
        points = body["deck"]["points"]
        points[0], points[1] = points[1], points[0]
    layer = with_body(m[shuffle4], swap_first_two)
    case("unfair-shuffle-argument-fails", "peer 1's shuffle layer of batch 0 (stage 4) has "
         "points 0 and 1 swapped (still a permutation of the cards, and the sum of its "
         "points unchanged): its shuffle argument was made for the true points, so it fails "
         "and every verifier names peer 1 at that message, without any opening",
         rethreaded([*m[:shuffle4], layer, *m[shuffle4 + 1:]]))
    remask = with_body(m[remask23], swap_first_two)
    case("unfair-remask-proof-fails", "peer 0's re-mask of its hand at stage 23 has its fresh "
         "points 0 and 1 exchanged (each still hides one of its cards): its proof ties each "
         "fresh point to one shuffled point, so it fails and every verifier names peer 0 at "
         "that message, without any opening",
         rethreaded([*m[:remask23], remask, *m[remask23 + 1:]]))
    case("unfair-audit-box-secret", "peer 0's audit opens a box secret that is not the one "
         "whose public key it announced in setup/commit",
         [*m[:audit0], with_body(m[audit0], lambda b: b.update(box=box_secret(1, game))),
          *m[audit0 + 1:]])
    case("unfair-audit-deck-opening", "peer 1's audit opens a deck seed salt that does not "
         "open its deck/commit", [*m[:audit1], with_body(m[audit1], lambda b: b["deck"].update(
             salt=flip_hex(b["deck"]["salt"]))), *m[audit1 + 1:]])

    # the deal: peer 0 seals to seat 0 (peer 1) its key of slot 1 under the name of slot 0
    recipient = bytes(box_key(MASTERS[1], game).public_key)
    opened = parse_json(sodium.crypto_box_seal_open(
        bytes.fromhex(m[keys8]["msg"]["body"]["private"]["0"]), recipient,
        bytes(box_key(MASTERS[1], game))))
    opened[0]["key"] = opened[1]["key"]
    false_box = seal_deterministically(recipient, canonical_json(opened), "verdict vector box")
    false_deal = with_body(m[keys8], lambda b: b["private"].update({"0": false_box}))
    case("unfair-false-sealed-key-at-the-audit", "peer 0's sealed keys of the deal give seat "
         "0 a false key for slot 0 (its key of slot 1); only the recipient could see it, and "
         "the file goes on as if it had not looked: the audit opens every sealed box with the "
         "opened box secrets and names peer 0",
         rethreaded([*m[:keys8], false_deal, *m[keys8 + 1:]]))
    head = [*m[:keys8], false_deal, m[keys8 + 1]]
    claim = abort(head, 1, 9, {"kind": "unfair", "blame": 0, "reason": "false sealed key",
                            "evidence": [false_deal], "box": box_secret(1, game)})
    case("unfair-false-sealed-key-claimed", "the same false sealed key, claimed at once by its "
         "recipient (peer 1), whose abort carries the keys message and its box secret: every "
         "verifier opens the box itself and names peer 0", [*head, claim])
    wrong_box = abort(head, 1, 9, {"kind": "unfair", "blame": 0, "reason": "false sealed key",
                                   "evidence": [false_deal], "box": box_secret(0, game)})
    case("abandoned-claim-with-another-box", "the same claim, but the box secret it opens is "
         "not the one peer 1 announced (it is peer 0's): the sealed keys cannot be checked, the "
         "claim proves nothing and its sender is named", [*head, wrong_box])
    twin = with_body(m[commit9], lambda b: b.update(commitment=flip_hex(b["commitment"])))
    head = m[:commit9 + 2]
    claim = abort(head, 1, 10, {"kind": "unfair", "blame": 0, "reason": "equivocation",
                            "evidence": [m[commit9], twin]})
    case("unfair-proven-by-evidence", "peer 1 stops the game with evidence of two different "
         "messages of peer 0 with one seq, the second never sent to anyone else: taken in "
         "like relayed copies, they prove the equivocation", [*head, claim])

    # -- a corrupted deck ------------------------------------------------------------------------
    corrupt_layer = with_body(m[rekey7], lambda b: b["deck"]["points"].__setitem__(
        2, negated(b["deck"]["points"][2])))
    corrupted = rethreaded([*m[:rekey7], corrupt_layer, *m[rekey7 + 1:]])
    case("unfair-rekey-proof-fails", "peer 0's last re-key layer of batch 0 has slot 2's "
         "point negated: its proof does not verify, so every verifier names peer 0 at that "
         "message, without any opening (slot 2 would decrypt to no card at stage 11)",
         corrupted)
    head = corrupted[:keys11[1] + 1]
    openings = {p: m[a]["msg"]["body"]["deck"] for p, a in ((0, audit0), (1, audit1))}
    alarm0 = abort(head, 0, 11, {"kind": "corrupt", "blame": None, "answer": False,
                             "reason": "slot 2 decrypts to no card", "deck": openings[0],
                             "box": box_secret(0, game)})
    alarm1 = abort([*head, alarm0], 1, 11, {"kind": "corrupt", "blame": None, "answer": False,
                                        "reason": "slot 2 decrypts to no card",
                                        "deck": openings[1], "box": box_secret(1, game)})
    case("unfair-rekey-proof-fails-before-the-claims", "the same corrupted layer, the file "
         "ending with both peers' corrupt claims (each opening its deck seed): the layer's "
         "proof names peer 0 at the layer itself, before any claim or opening is read",
         [*head, alarm0, alarm1])
    honest_head = m[:keys11[1] + 1]
    alarm = abort(honest_head, 1, 11, {"kind": "corrupt", "blame": None, "answer": False,
                                   "reason": "slot 2 decrypts to no card",
                                   "deck": openings[1], "box": box_secret(1, game)})
    answer = abort([*honest_head, alarm], 0, 11, {"kind": "corrupt", "blame": None, "answer": True,
                                              "reason": "peer 1 found the deck corrupt",
                                              "deck": openings[0], "box": box_secret(0, game)})
    case("abandoned-false-corrupt-alarm", "an honest deck, peer 1 claiming it corrupt after "
         "stage 11 and peer 0 answering with its opening (the answer first in the file): "
         "every layer checks, so the alarm's author is named as having left the game",
         [*honest_head, answer, alarm])

    # -- abandoned and incomplete (exit 3) ------------------------------------------------------
    head = m[:action24]
    silence = abort(head, 1, 24, {"kind": "abandoned", "blame": 0,
                              "reason": "peer 0 sent nothing for stage 24"})
    case("abandoned-silent-peer", "the file stops where peer 0 must act (stage 24); peer 1 "
         "claims peer 0 silent there: abandoned by peer 0", [*head, silence])
    late = [*m[:action24 + 1]]
    refuted = abort(late, 1, 24, {"kind": "abandoned", "blame": 0,
                              "reason": "peer 0 sent nothing for stage 24"})
    case("abandoned-unanimous-claim-despite-the-message", "peer 0's action for stage 24 is in "
         "the file, and then peer 1 (due at stage 25) claims peer 0 silent at stage 24: with 2 "
         "peers that one claim is every other peer's, the unanimous observation, which a "
         "verifier (no clock) agrees to even with the late message in the file: peer 0 is "
         "named", [*late, refuted])
    unfounded = abort(head, 1, 24, {"kind": "unfair", "blame": 0, "reason": "cheat!",
                                "evidence": [m[action24 - 2]]})
    case("abandoned-unfounded-accusation", "peer 1 accuses peer 0 with an honest message as "
         "evidence: the claim does not check, so its sender is named as having left",
         [*head, unfounded])
    forged = copy.deepcopy(m[action24 - 2])
    forged["sig"] = flip_hex(forged["sig"])
    badly = abort(head, 1, 24, {"kind": "unfair", "blame": 0, "reason": "cheat!",
                            "evidence": [forged]})
    case("abandoned-badly-signed-evidence", "peer 1's accusation carries a copy of peer 0's "
         "message with a bad signature: the copy is dropped without any verdict (not damage: "
         "it is inside a validly signed claim), and the claim names its sender",
         [*head, badly])
    stopped = abort(head, 0, 24, {"kind": "stopped", "blame": None, "reason": "I give up"})
    case("abandoned-stop-naming-nobody", "peer 0, due at stage 24, sends an abort naming "
         "nobody: it is named as having left", [*head, stopped])
    case("incomplete-truncated", "the file ends at stage 24, nobody having claimed anything: "
         "incomplete, nobody named", head)
    return out


# -- a 3-peer game, for the rules a 2-peer table cannot show ---------------------------------------

GAME3 = "5015ce0000000000000000000000003d"  # its setup seat order is [2, 0, 1]
ROUNDS3 = 12  # loopback rounds played: the first 41 messages of peer 0's log


def small_identities(n: int) -> list[Identity]:
    """The peers of the 3- and 4-peer games: peer i's identity and master are the same in
    both (the seat orders differ: the game ids do)."""
    return [Identity.from_private_bytes(seed_bytes(f"verdict identity {i}")) for i in range(n)]


def small_masters(n: int) -> list[bytes]:
    return [seed_bytes(f"verdict master {i}") for i in range(n)]


def small_game_base(n: int, game: str, rounds: int) -> Transcript:
    """The start of an honest ``n``-peer game (every choice the first legal one; ``rounds``
    loopback rounds), with sealed boxes made with derived ephemeral keys ("verdict n-peer box
    k" for the k-th box sealed, from 1) so that it is the same on every build."""
    from unittest import mock

    from nacl.public import PublicKey

    from p2p.net.roster import Roster, RosterEntry
    from p2p.session.loopback import LoopbackGame
    from p2p.session.machine import GameSession
    from p2p.storage.transcript import FORMAT

    identities, masters = small_identities(n), small_masters(n)
    keys = [identity.public_bytes for identity in identities]
    loop = LoopbackGame(n, game)
    loop.identities, loop.masters = identities, masters
    loop.sessions = [GameSession(game, keys, me, identities[me], masters[me]) for me in range(n)]
    sealed = [0]

    def seal(recipient: PublicKey, data: bytes) -> str:
        sealed[0] += 1
        return seal_deterministically(bytes(recipient), data, f"verdict {n}-peer box {sealed[0]}")

    with mock.patch("p2p.session.opening.seal", seal):
        loop.play(lambda view: view.legal[0], max_rounds=rounds)
    entries = tuple(RosterEntry(i, f"peer{i}", key, "127.0.0.1", 4000 + i)
                    for i, key in enumerate(keys))
    roster = Roster(game, entries).sign(identities[0])
    return {"format": FORMAT, "roster": roster.signed_json(),
            "messages": loop.sessions[0].transcript_messages(),
            "outcome": {"ok": False, "verdict": "incomplete",
                        "reason": "the game did not finish", "blame": None}}


def three_peer_base() -> Transcript:
    return small_game_base(3, GAME3, ROUNDS3)


def silence_claim(messages: Messages, peer: int, blame: int, silent_at: int) -> dict[str, Any]:
    """``peer`` of a small game claims ``blame`` silent at stage ``silent_at`` (a claim of
    silence is about the stage its `stage` names), after the messages so far."""
    seq = 1 + max((x["msg"]["seq"] for x in messages if x["msg"]["seat"] == peer), default=-1)
    body = {"kind": "abandoned", "blame": blame, "reason": f"peer {blame} sent nothing for "
            f"stage {silent_at}", "evidence": None, "stage": silent_at}
    game = messages[0]["msg"]["game"]
    msg = Message(game, peer, seq, signed(messages[-1]).hash, "abort", body)
    return sign_message(small_identities(peer + 1)[peer], msg).to_json()


def three_peer_cases(base: Transcript, trace: Callable[[Transcript], dict[str, Any]]
                     ) -> list[dict[str, Any]]:
    """``trace``: what a verifier computes from a transcript (``build.transcript_trace``)."""
    m: Messages = base["messages"]
    out: list[dict[str, Any]] = []
    claim = silence_claim

    def case(name: str, description: str, messages: Messages) -> None:
        out.append({"name": name, "description": description,
                    "transcript": {**copy.deepcopy(base), "messages": messages},
                    "trace_of": START3})

    commits = [find(m, p, "pick/commit", 11) for p in range(3)]
    case(START3, "the start of an honest 3-peer game (seat order [2, 0, 1]): incomplete, "
         "nobody named; its 'trace' lists what the rules decided at every stage, as "
         "transcript.json's does", m)
    del out[-1]["trace_of"]
    out[-1]["trace"] = trace(base)
    head = m[:max(commits) + 1]
    case("abandoned-3-peers-silence-refuted", "the pick commitments of stage 11 are all in, "
         "and peer 0 then claims peer 1 silent at stage 11: peer 2 did not sign such a claim "
         "(no unanimity) and peer 1's message is in the file: refuted, peer 0 is named",
         [*head, claim(head, 0, 1, 11)])
    missing = [x for i, x in enumerate(head) if i != commits[1]]
    alone = [*missing, claim(missing, 0, 1, 11)]
    case("incomplete-3-peers-silence-unwitnessed", "the same stage without peer 1's "
         "commitment, and peer 0's claim that peer 1 is silent there, which no other peer "
         "signed: the file may have been cut after a claim the live table refuted, so one "
         "peer's word names nobody", alone)
    case("abandoned-3-peers-silence-agreed", "the same, and peer 2's claim that peer 1 is "
         "silent there too: every peer but the accused signed it, so peer 1 is named",
         [*alone, claim(alone, 2, 1, 11)])
    step = find(m, 2, "deck/step")  # a deck step of peer 2 alone
    stage = m[step]["msg"]["body"]["stage"]
    early = m[:step]
    case("incomplete-3-peers-claim-about-a-later-stage", f"the file stops before peer 2's "
         f"deck step (stage {stage}), with peer 0's claim that peer 1 was silent at stage 30, "
         "which the replay never reached; the stage it stopped at does not need peer 0: "
         "nobody is named", [*early, claim(early, 0, 1, 30)])
    case("abandoned-3-peers-claim-about-a-later-stage", f"the same claim, sent by peer 2, "
         f"which the stage the replay stopped at (stage {stage}) needs: peer 2 is named",
         [*early, claim(early, 2, 1, 30)])
    return out


# -- a 4-peer game: a full table, where unanimity takes three claims ---------------------------

GAME4 = "5015ce0000000000000000000000005c"  # its setup seat order is [1, 3, 0, 2]
ROUNDS4 = 12  # loopback rounds played: the first 42 messages of peer 0's log
START4 = "incomplete-4-peers-start"


def four_peer_base() -> Transcript:
    return small_game_base(4, GAME4, ROUNDS4)


def four_peer_cases(base: Transcript, trace: Callable[[Transcript], dict[str, Any]]
                    ) -> list[dict[str, Any]]:
    """``trace``: what a verifier computes from a transcript (``build.transcript_trace``)."""
    m: Messages = base["messages"]
    identities = small_identities(4)
    out: list[dict[str, Any]] = []

    def case(name: str, description: str, messages: Messages) -> None:
        out.append({"name": name, "description": description,
                    "transcript": {**copy.deepcopy(base), "messages": messages},
                    "trace_of": START4})

    def resigned(data: dict[str, Any], edit: Callable[[dict[str, Any]], None]
                 ) -> dict[str, Any]:
        body = copy.deepcopy(data["msg"]["body"])
        edit(body)
        msg = dataclasses.replace(signed(data).msg, body=body)
        return sign_message(identities[msg.seat], msg).to_json()

    case(START4, "the start of an honest 4-peer game (seat order [1, 3, 0, 2]): incomplete, "
         "nobody named; its 'trace' lists what the rules decided at every stage, as "
         "transcript.json's does", m)
    del out[-1]["trace_of"]
    out[-1]["trace"] = trace(base)

    # stage 2 (setup/reveal) needs all four peers; peer 0's log has them as peers 0, 3, 1, 2
    reveals = [find(m, p, "setup/reveal", 2) for p in range(4)]
    last = max(reveals)
    bad = resigned(m[reveals[3]], lambda b: b["seed"].update(salt=flip_hex(b["seed"]["salt"])))
    case("unfair-4-peers-bad-seed-opening", "peer 3's setup reveal (message "
         f"{reveals[3]}) does not open its commitment: detected when the stage is complete, at "
         f"message {last} (peer {m[last]['msg']['seat']}'s reveal, the stage's last in the "
         "file), and peer 3 is named",
         [x if i != reveals[3] else bad for i, x in enumerate(m[:last + 1])])
    commit = find(m, 3, "deck/commit", 3)
    twin = resigned(m[commit], lambda b: b["deck"].update(
        commitment=flip_hex(b["deck"]["commitment"])))
    case("unfair-4-peers-equivocation", "a second, different message of peer 3 with seq 2 (its "
         "deck commitment, stage 3) right after the first: equivocation, proven at once",
         [*m[:commit + 1], twin])

    head = m[:last + 1]  # stages 1 and 2, every message in
    missing = [x for i, x in enumerate(head) if i != reveals[1]]
    agreed = [missing]
    for peer in (3, 0, 2):
        agreed.append([*agreed[-1], silence_claim(agreed[-1], peer, 1, 2)])
    case("incomplete-4-peers-silence-unwitnessed", "stages 1 and 2 without peer 1's setup "
         "reveal, and the claims of peers 3 and 0 that peer 1 is silent at stage 2 (peer 2 "
         "signed none): not every other peer signed it, and the file cannot refute it, so "
         "nobody is named", agreed[2])
    case("abandoned-4-peers-silence-agreed", "the same with peer 2's claim too: every peer "
         "but the accused signed it, so peer 1 is named", agreed[3])
    claims = [head]
    for peer in (3, 0, 2):
        claims.append([*claims[-1], silence_claim(claims[-1], peer, 1, 2)])
    case("abandoned-4-peers-silence-unanimous", "stages 1 and 2 complete, peer 1's reveal "
         "included, then peers 3, 0 and 2 each claim peer 1 silent at stage 2: every peer but "
         "the accused signed the claim, the unanimous observation, which a verifier agrees to "
         "even with the message in the file: peer 1 is named", claims[3])
    two = [head]
    for peer in (3, 2):
        two.append([*two[-1], silence_claim(two[-1], peer, 1, 2)])
    case("abandoned-4-peers-silence-not-unanimous", "the same file with the claims of peers 3 "
         "and 2 only (peer 0 signed none): not unanimous, and peer 1's reveal is in the file, "
         "so the claims are refuted; they are settled in ascending peer index of their "
         "senders, so peer 2 is named, not peer 3 whose claim comes first in the file", two[2])
    return out
