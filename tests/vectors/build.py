"""Build the published test vectors in this folder: ``python tests/vectors/build.py``.

Each file is ``{"name", "description", "cases": [...]}``; every case holds its inputs and the
outputs this implementation computes from them. ``tests/test_vectors.py`` recomputes every
output and compares, so the files cannot drift from the code. Rebuild only when the protocol
changes on purpose, and say so in protocol.md ("Test vectors").
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from nacl import bindings as sodium

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from engine import (  # noqa: E402
    CHANCE,
    action_to_dict,
    apply_in_place,
    legal_actions,
    new_game,
    random_chance,
    random_config,
    to_move,
)
from engine.canonical import canonical_json  # noqa: E402
from engine.cards import CARDS, FIRST_GAME_EVENTS, STANDARD_PLANETS, events_of_kind  # noqa: E402
from engine.randomness import RandomStream  # noqa: E402
from engine.serialize import public_hash, state_to_dict  # noqa: E402
from p2p.crypto import remask_proof, shuffle_proof  # noqa: E402
from p2p.crypto.commitments import Opening, commitment_of  # noqa: E402
from p2p.crypto.group import (  # noqa: E402
    L,
    card_points,
    hash_to_point,
    hash_to_scalar,
    mul,
    mul_base,
    scalar_invert,
    scalar_mul,
)
from p2p.crypto.proofs import Instance, prove, transcript_header  # noqa: E402
from p2p.crypto.sealed import box_key  # noqa: E402
from p2p.crypto.seeds import joint_seed  # noqa: E402
from p2p.deck.deck import Deck  # noqa: E402
from p2p.deck.keys import DeckKeys  # noqa: E402
from p2p.deck.loopback import LoopbackTable  # noqa: E402
from p2p.errors import CheatDetected  # noqa: E402
from p2p.session.secrets import derive  # noqa: E402


def seed_bytes(label: str) -> bytes:
    """Fixed 32-byte inputs for the vectors: SHA-256 of a readable label."""
    return hashlib.sha256(label.encode()).digest()


# -- canonical JSON -------------------------------------------------------------------------

CANONICAL_VALUES: list[Any] = [
    0, -1, 2**63, "", "plain", True, False, None, [], {},
    {"b": 1, "a": [True, False, None]},
    {"é": 1, "Z": 2, "a": 3, "B": 4, "😀": 5, "ä": 6},
    "quote \" backslash \\ slash / tab \t newline \n nul \u0000 del \u007f",
    "non-ASCII as itself: é € 😀",
    [[], [[]], {"x": {"y": {}}}],
    # every character that is escaped (U+0000-U+001F, quote, backslash), then characters that
    # are not: DEL, C1 controls, the line and paragraph separators, slash, a non-BMP character
    "".join(chr(c) for c in range(0x20)) + "\"\\",
    "\u007f\u0080\u0085\u009f\u2028\u2029/\U0010ffff",
    # keys are escaped like strings and sorted by code point of their unescaped text
    {"\U0001f600": 1, "\ue000": 2, "a\n": 3, "a\"": 4, "a": 5, "\u001f": 6},
    [-12, 10**30, -(10**30)],
]


def canonical_case(value: Any) -> dict[str, Any]:
    return {"value": value, "encoding_utf8": canonical_json(value).decode("utf-8")}


# -- random stream --------------------------------------------------------------------------

STREAM_SEEDS = ["", "solstice", "00" * 32]


def stream_case(seed_text: str) -> dict[str, Any]:
    seed = bytes.fromhex(seed_text) if seed_text == "00" * 32 else seed_text.encode()
    words = RandomStream(seed)
    below = RandomStream(seed)
    ranges = [1, 2, 3, 7, 10, 52, 1000, 2**32 + 1, 2**64]
    return {
        "seed_hex": seed.hex(),
        "words": [str(words.word()) for _ in range(6)],  # strings: JSON readers may lose bits
        "randbelow": [{"n": str(n), "value": str(below.randbelow(n))} for n in ranges],
        "permutation_10": RandomStream(seed).permutation(10),
        "sample_5_of_letters": RandomStream(seed).sample(list("abcdefghij"), 5),
        "choice_of_letters_twice": _two_choices(RandomStream(seed), "abcdefghij"),
    }


def _two_choices(stream: RandomStream, items: str) -> list[str]:
    first = stream.choice(items)
    return [first, stream.choice(items)]


# -- commitments and joint seeds ------------------------------------------------------------

def commitment_case(domain: str, value: Any, salt_label: str) -> dict[str, Any]:
    salt = seed_bytes(salt_label)
    return {"domain": domain, "value": value, "salt": salt.hex(),
            "hashed_input_utf8": canonical_json([domain, value, salt.hex()]).decode(),
            "commitment": commitment_of(Opening(domain, value, salt)).hex()}


def joint_seed_case(labels: list[str]) -> dict[str, Any]:
    seeds = [seed_bytes(label) for label in labels]
    return {"seeds": [s.hex() for s in seeds], "joint_seed": joint_seed(seeds).hex()}


# -- group ----------------------------------------------------------------------------------

def group_cases() -> dict[str, Any]:
    tag = b"solstice/test-vector/v1\x00"
    scalars = [hash_to_scalar(tag, bytes([i])) for i in range(3)]
    points = [hash_to_point(tag, bytes([i])) for i in range(3)]
    return {
        "tag_hex": tag.hex(),
        "hash_to_scalar": [{"data_hex": bytes([i]).hex(), "scalar": s.hex()}
                           for i, s in enumerate(scalars)],
        "hash_to_point": [{"data_hex": bytes([i]).hex(), "point": p.hex()}
                          for i, p in enumerate(points)],
        "mul": [{"scalar": s.hex(), "point": p.hex(), "product": mul(s, p).hex()}
                for s, p in zip(scalars, points, strict=True)],
        "mul_base": [{"scalar": s.hex(), "point": mul_base(s).hex()} for s in scalars],
        "scalar_invert": [{"scalar": s.hex(), "inverse": scalar_invert(s).hex()}
                          for s in scalars],
        "card_points": {"game": "0123456789abcdef0123456789abcdef", "cards": 16,
                        "points": [p.hex() for p in
                                   card_points("0123456789abcdef0123456789abcdef", 16)]},
    }


# -- key derivations ------------------------------------------------------------------------

def keys_cases() -> dict[str, Any]:
    game = "0123456789abcdef0123456789abcdef"
    master = seed_bytes("master secret of a test peer")
    deck_seed = seed_bytes("deck seed of a test seat")
    keys = DeckKeys(deck_seed)
    return {
        "game": game,
        "master": master.hex(),
        "derive": [{"label": label, "secret": derive(master, game, label).hex()}
                   for label in ("deck", "salt/deck", "seed/setup", "salt/setup", "pick/1")],
        "box_public_key": bytes(box_key(master, game).public_key).hex(),
        "deck_seed": deck_seed.hex(),
        "shuffle_keys": [{"batch": b, "key": keys.shuffle_key(b).hex()} for b in (0, 1)],
        "permutations": [{"batch": b, "size": m, "permutation": keys.permutation(b, m)}
                         for b, m in ((0, 16), (1, 5))],
        "slot_keys": [{"slot": s, "key": keys.slot_key(s).hex()} for s in (0, 1, 31, 300)],
        # the re-mask's scalars r_f, order rho_f and proof scalar c_f (S = c_f * B, which
        # the audit checks against the opened seed)
        "remask_keys": [{"slot": s, "key": keys.remask_key(s).hex()} for s in (16, 17)],
        "remask_orders": [{"first": f, "size": m, "order": keys.remask_order(f, m)}
                          for f, m in ((16, 4), (40, 6))],
        "remask_shuffle_keys": [{"first": f, "key": keys.remask_shuffle_key(f).hex()}
                                for f in (16, 40)],
    }


# -- deck proofs -----------------------------------------------------------------------------

ORDER_8_POINT = "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"


def dleq_cases() -> list[dict[str, Any]]:
    """One valid 3-instance proof, then the same statement failing each check once."""
    head = {"game": "0123456789abcdef0123456789abcdef", "seat": 1, "kind": "deck/rekey",
            "context": {"batch": 0, "first_slot": 0}}
    secrets = [hash_to_scalar(b"vector/dleq\x00", bytes([i])) for i in range(3)]
    def to_point(label: str) -> bytes:
        return hash_to_point(b"vector/dleq\x00", label.encode())

    bases = [(mul_base((1).to_bytes(32, "little")), to_point("h0")),
             (to_point("g1"), to_point("h1")), (to_point("g2"), to_point("h2"))]
    instances = [Instance(g, h, mul(u, g), mul(u, h))
                 for (g, h), u in zip(bases, secrets, strict=True)]

    def header(fields: dict[str, Any]) -> bytes:
        return transcript_header(fields["game"], fields["seat"], fields["kind"],
                                 fields["context"])

    def case(check: str, fields: dict[str, Any], statement: list[Instance],
             proof: list[bytes], valid: bool) -> dict[str, Any]:
        return {"check": check, **fields, "header": header(fields).hex(),
                "instances": [{"g": i.g.hex(), "h": i.h.hex(), "p": i.p.hex(), "q": i.q.hex()}
                              for i in statement],
                "proof": [x.hex() for x in proof], "valid": valid}

    proof = prove(header(head), instances, secrets)
    bumped = ((int.from_bytes(proof[2], "little") + 1) % L).to_bytes(32, "little")
    other_q = [instances[0], Instance(instances[1].g, instances[1].h, instances[1].p,
                                      mul(secrets[0], instances[1].h)), instances[2]]
    torsion = [instances[0], Instance(instances[1].g, instances[1].h, instances[1].p,
                                      bytes.fromhex(ORDER_8_POINT)), instances[2]]
    valid = {**case("valid", head, instances, proof, True),
             "secrets": [u.hex() for u in secrets]}
    return [
        valid,
        case("a response changed: the recomputed challenge differs", head, instances,
             [*proof[:2], bumped, *proof[3:]], False),
        case("one scalar short", head, instances, proof[:-1], False),
        case("another game in the header", {**head, "game": "f" * 32}, instances, proof,
             False),
        case("another author in the header", {**head, "seat": 0}, instances, proof, False),
        case("another step in the header", {**head, "kind": "deck/blind"}, instances, proof,
             False),
        case("another batch in the header", {**head, "context": {"batch": 1, "first_slot": 0}},
             instances, proof, False),
        case("instance 1 is no DLEQ tuple (its q made with another secret)", head, other_q,
             prove(header(head), other_q, secrets), False),
        case("a point of the statement outside the prime-order group (order 8)", head,
             torsion, proof, False),
        case("responses of two instances exchanged", head, instances,
             [proof[0], proof[2], proof[1], proof[3]], False),
    ]


def shuffle_cases() -> list[dict[str, Any]]:
    """One valid shuffle argument over 3 points (with x and the permutation, so that a prover
    can be checked byte for byte), then one failing case per check."""
    head = {"game": "0123456789abcdef0123456789abcdef", "seat": 1, "kind": "deck/shuffle",
            "context": {"batch": 0}}

    def to_point(label: str) -> bytes:
        return hash_to_point(b"vector/shuffle\x00", label.encode())

    x = hash_to_scalar(b"vector/shuffle\x00", b"x")
    base = mul_base(hash_to_scalar(b"vector/shuffle\x00", b"y"))
    key = mul(x, base)
    inputs = [to_point(f"in{j}") for j in range(3)]
    permutation = [2, 0, 1]
    outputs = [mul(x, inputs[j]) for j in permutation]

    def header(fields: dict[str, Any]) -> bytes:
        return shuffle_proof.transcript_header(fields["game"], fields["seat"], fields["kind"],
                                               fields["context"])

    def case(check: str, fields: dict[str, Any], proof: list[bytes], valid: bool,
             **changed: Any) -> dict[str, Any]:
        statement = {"base": base, "key": key, "inputs": inputs, "outputs": outputs, **changed}
        return {"check": check, **fields, "header": header(fields).hex(),
                "base": statement["base"].hex(), "key": statement["key"].hex(),
                "inputs": [p.hex() for p in statement["inputs"]],
                "outputs": [p.hex() for p in statement["outputs"]],
                "proof": [p.hex() for p in proof], "valid": valid}

    def argue(outs: list[bytes], secret: bytes = x, perm: list[int] = permutation) -> list[bytes]:
        return shuffle_proof.prove(header(head), base, key, inputs, outs, secret, perm)

    proof = argue(outputs)
    m = len(inputs)
    bumped = ((int.from_bytes(proof[-1], "little") + 1) % L).to_bytes(32, "little")
    shift = to_point("shift")
    same_sum = [sodium.crypto_core_ed25519_add(outputs[0], shift),
                sodium.crypto_core_ed25519_sub(outputs[1], shift), outputs[2]]
    other_x = hash_to_scalar(b"vector/shuffle\x00", b"another x")
    under_other_x = [mul(other_x, inputs[j]) for j in permutation]
    swapped_c = [proof[1], proof[0], *proof[2:]]
    off_group = [sodium.crypto_core_ed25519_add(proof[0], bytes.fromhex(ORDER_8_POINT)),
                 *proof[1:]]
    valid = {**case("valid", head, proof, True), "x": x.hex(), "permutation": permutation}
    return [
        valid,
        case("the last response changed: the recomputed challenge differs", head,
             [*proof[:-1], bumped], False),
        case("one entry short", head, proof[:-1], False),
        case("another game in the header", {**head, "game": "f" * 32}, proof, False),
        case("another author in the header", {**head, "seat": 0}, proof, False),
        case("another step in the header", {**head, "kind": "deck/rekey"}, proof, False),
        case("another batch in the header", {**head, "context": {"batch": 1}}, proof, False),
        case("outputs changed with their sum kept (argued by the prover over them)", head,
             argue(same_sum), False, outputs=same_sum),
        case("two outputs exchanged (another permutation than the argued one)", head, proof,
             False, outputs=[outputs[1], outputs[0], outputs[2]]),
        case("outputs under another scalar than the key's", head,
             argue(under_other_x, other_x), False, outputs=under_other_x),
        case("another input (a proof over other inputs)", head, proof, False,
             inputs=[to_point("other"), *inputs[1:]]),
        case("another key W", head, proof, False, key=mul_base(other_x)),
        case("two permutation commitments exchanged", head, swapped_c, False),
        case("a permutation commitment outside the prime-order group (plus order 8)", head,
             off_group, False),
        case("two chain commitments exchanged", head,
             [*proof[:m], proof[m + 1], proof[m], *proof[m + 2:]], False),
    ]


def remask_cases() -> list[dict[str, Any]]:
    """One valid re-mask proof over 3 old slots (with c, the order and the factors a_i, so
    that a prover can be checked byte for byte), then one failing case per check."""
    head = {"game": "0123456789abcdef0123456789abcdef", "seat": 1, "first": 16,
            "old": [4, 7, 9]}

    def to_scalar(label: str) -> bytes:
        return hash_to_scalar(b"vector/remask\x00", label.encode())

    cards = [hash_to_point(b"vector/remask\x00", f"card{j}".encode()) for j in range(4)]
    opening = [to_scalar(f"K{j}") for j in range(3)]  # the holder's K of each old slot
    inputs = [mul(k, p) for k, p in zip(opening, cards[:3], strict=True)]
    c, order = to_scalar("c"), [1, 2, 0]
    r = [to_scalar(f"r{i}") for i in range(3)]
    outputs = [mul(r[i], cards[j]) for i, j in enumerate(order)]
    keys = [mul_base(x) for x in r]

    def factor(i: int, j: int) -> bytes:
        return scalar_mul(r[i], scalar_invert(scalar_mul(c, opening[j])))

    factors = [factor(i, j) for i, j in enumerate(order)]

    def header(fields: dict[str, Any]) -> bytes:
        return remask_proof.header(fields["game"], fields["seat"], fields["first"],
                                   fields["old"])

    def prove_it(outs: list[bytes], facts: list[bytes]) -> remask_proof.RemaskProof:
        return remask_proof.prove(header(head), inputs, outs, keys, c, order, facts)

    def case(check: str, fields: dict[str, Any], proof: remask_proof.RemaskProof,
             valid: bool, **changed: Any) -> dict[str, Any]:
        statement = {"inputs": inputs, "outputs": outputs, "keys": keys, **changed}
        return {"check": check, **fields, "header": header(fields).hex(),
                **{name: [p.hex() for p in points] for name, points in statement.items()},
                "shuffle_key": proof.key.hex(), "shuffled": [p.hex() for p in proof.shuffled],
                "argument": [p.hex() for p in proof.argument],
                "proof": [x.hex() for x in proof.proof], "valid": valid}

    proof = prove_it(outputs, factors)
    bumped = ((int.from_bytes(proof.proof[-1], "little") + 1) % L).to_bytes(32, "little")
    substituted = [mul(r[0], cards[3]), *outputs[1:]]
    duplicated = [outputs[0], mul(r[1], cards[order[0]]), outputs[2]]
    exchanged = [outputs[1], outputs[0], outputs[2]]
    off_group = sodium.crypto_core_ed25519_add(proof.shuffled[0], bytes.fromhex(ORDER_8_POINT))
    valid = {**case("valid", head, proof, True), "c": c.hex(), "order": order,
             "factors": [a.hex() for a in factors]}
    return [
        valid,
        case("the last response changed: the recomputed challenge differs", head,
             replace(proof, proof=(*proof.proof[:-1], bumped)), False),
        case("one scalar short", head, replace(proof, proof=proof.proof[:-1]), False),
        case("another game in the header", {**head, "game": "f" * 32}, proof, False),
        case("another author in the header", {**head, "seat": 0}, proof, False),
        case("another first slot in the header", {**head, "first": 17}, proof, False),
        case("other old slots in the header", {**head, "old": [4, 7, 8]}, proof, False),
        case("a substituted card (fresh point 0 hides a card of no old slot), re-proven",
             head, prove_it(substituted, factors), False, outputs=substituted),
        case("a duplicated card (fresh point 1 hides the card of fresh point 0), re-proven "
             "with that card's factor", head,
             prove_it(duplicated, [factors[0], factor(1, order[0]), factors[2]]), False,
             outputs=duplicated),
        case("fresh points 0 and 1 exchanged (another order than the argument's)", head,
             proof, False, outputs=exchanged),
        case("another input (a proof over other old points)", head, proof, False,
             inputs=[mul(opening[0], cards[3]), *inputs[1:]]),
        case("another shuffle key S", head, replace(proof, key=mul_base(to_scalar("c'"))),
             False),
        case("another key r*B (the keys are bound)", head, proof, False,
             keys=[mul_base(to_scalar("r'")), *keys[1:]]),
        case("shuffled points 0 and 1 exchanged", head,
             replace(proof, shuffled=(proof.shuffled[1], proof.shuffled[0],
                                      proof.shuffled[2])), False),
        case("a shuffled point outside the prime-order group (plus order 8)", head,
             replace(proof, shuffled=(off_group, *proof.shuffled[1:])), False),
    ]


def deck_proof_case() -> dict[str, Any]:
    """A 2-seat deck of 4 cards with a re-mask and a hidden reshuffle: every public deck
    message in log order (the commitments replaced by fixed bytes: the proofs do not read
    them), and forged copies of its layers, each naming its author."""
    game = "d0c0ffee000000000000000000000042"
    table = LoopbackTable(game, 2, 4, keys=[DeckKeys(seed_bytes(f"proof vector seat {s}"))
                                            for s in range(2)])
    table.setup()
    table.open_to(0, 0)
    fresh = table.remask(0, [0])
    table.reveal(1)
    table.add_batch([fresh[0], 1, 2])
    transcript = []
    for sender, message in table.decks[1].public_transcript:
        if message["type"] == "deck/commit":
            message = message | {"commitment": seed_bytes(f"commitment {sender}").hex()}
        transcript.append([sender, message])
    forged = []
    observer = Deck(game, 2, 4, seat=None)
    for index, (sender, message) in enumerate(transcript):
        if "proof" in message:
            proof = message["proof"]
            last = int(proof[-1][:2], 16) ^ 1
            copies = {"last response's first byte xor 1":
                      message | {"proof": [*proof[:-1], f"{last:02x}" + proof[-1][2:]]},
                      "the proof of the message before it (or its own, reversed)":
                      message | {"proof": transcript[index - 1][1].get("proof", proof[::-1])}}
            if message["type"] == "deck/shuffle":
                points = [bytes.fromhex(p) for p in message["points"]]
                shift = hash_to_point(b"vector/shuffle\x00", b"deck shift")
                points[0] = sodium.crypto_core_ed25519_add(points[0], shift)
                points[1] = sodium.crypto_core_ed25519_sub(points[1], shift)
                copies["points 0 and 1 changed, their sum kept"] = \
                    message | {"points": [p.hex() for p in points]}
                copies["points 0 and 1 exchanged"] = message | {"points": [
                    message["points"][1], message["points"][0], *message["points"][2:]]}
            for what, bad in copies.items():
                try:
                    observer.receive(sender, bad)
                except CheatDetected as exc:
                    forged.append({"index": index, "what": what,
                                   "message": bad, "blame": exc.seat,
                                   "refused_as": type(exc).__name__})
                else:
                    raise AssertionError(f"forged proof accepted: {what}")
        observer.receive(sender, message)
    return {"game": game, "n_seats": 2, "n_cards": 4, "transcript": transcript,
            "forged": forged}


# -- cards and setup -------------------------------------------------------------------------

def cards_case() -> dict[str, Any]:
    return {"cards": [{"id": c.id, "label": c.label} for c in CARDS],
            "standard_planets": list(STANDARD_PLANETS),
            "events_of_kind": {kind: list(events_of_kind(kind))
                               for kind in ("Deception", "Fortune", "Destruction")},
            "first_game_events": list(FIRST_GAME_EVENTS)}


def setup_case(n: int, label: str) -> dict[str, Any]:
    """The setup stage's draws from the joint seed: seat order, then the game's configuration."""
    joint = seed_bytes(label)
    stream = RandomStream(joint)
    seat_of_peer = stream.permutation(n)
    config = random_config(n, stream)
    return {"players": n, "joint_seed": joint.hex(), "seat_of_peer": seat_of_peer,
            "planets": list(config.planets), "events": list(config.events),
            "first_player": config.first_player, "card_ids": list(config.card_ids())}


# -- engine action sequences and state hashes -------------------------------------------------

# Whole games from these labels cover, together (tests/test_vectors.py checks it): 2, 3 and 4
# players, every event resolved on a planet, every decision kind, the four claims, captured
# prisoners, Prophecy placing the leftovers, and both ends (16 VP, 3 casualties).
ENGINE_CASES = ((2, "engine vector 2"), (3, "engine vector 3"), (3, "engine vector 3/64"),
                (4, "engine vector 4/62"), (3, "engine vector 3/41"), (2, "engine vector 2/0"))
MAX_ENGINE_STEPS = 2000  # a game ends long before; bounds the loop if the engine ever stalls


def engine_case(n: int, label: str) -> dict[str, Any]:
    """A whole full-information game from fixed seeds, with the public state hash after every
    action. Setup: ``RandomStream(SHA-256(label))`` gives the configuration exactly as the setup
    stage does (after its seat permutation), then ``deck_order`` = the game's card ids permuted
    by ``permutation``; the players' choices and chance come from ``RandomStream(SHA-256(label +
    "/play"))``: chance -> ``permutation(k)``, else the first seat of ``to_move`` takes
    ``legal_actions[randbelow(len)]``."""
    setup = RandomStream(seed_bytes(label))
    setup.permutation(n)  # the seat order, as in the setup stage
    config = random_config(n, setup)
    ids = config.card_ids()
    deck_order = [ids[i] for i in setup.permutation(len(ids))]
    state = new_game(config, deck_order)
    play = RandomStream(seed_bytes(label + "/play"))
    steps: list[dict[str, Any]] = []
    for _ in range(MAX_ENGINE_STEPS):
        movers = to_move(state)
        if not movers:
            break
        if movers[0] == CHANCE:
            action = random_chance(state, play)
        else:
            options = legal_actions(state, movers[0])
            action = options[play.randbelow(len(options))]
        apply_in_place(state, action)
        steps.append({"action": action_to_dict(action), "state": public_hash(state)})
    initial = new_game(config, deck_order)
    public_initial = state_to_dict(initial)
    for hidden in ("card_of", "omniscient", "picks"):
        public_initial.pop(hidden)
    return {"players": n, "setup_seed": seed_bytes(label).hex(),
            "play_seed": seed_bytes(label + "/play").hex(), "config": config.to_dict(),
            "deck_order": deck_order, "initial_public_state": public_initial,
            "initial_public_state_utf8": canonical_json(public_initial).decode(),
            "initial_state": public_hash(initial), "steps": steps,
            "final_phase": state.phase.value}


# -- a complete small transcript -----------------------------------------------------------------

TRANSCRIPT_GAME = "5015ce0000000000000000000000002a"
TRANSCRIPT_FILE = "transcript.json"


def transcript_game() -> tuple[Any, Any]:
    """A 2-peer game from fixed identities and master secrets through the sans-IO loopback,
    every choice the first legal one. Returns (roster, the session of peer 0)."""
    from p2p.identity import Identity
    from p2p.net.roster import Roster, RosterEntry
    from p2p.session.loopback import LoopbackGame

    loop = LoopbackGame(2, TRANSCRIPT_GAME)
    loop.identities = [Identity.from_private_bytes(seed_bytes(f"transcript identity {i}"))
                       for i in range(2)]
    loop.masters = [seed_bytes(f"transcript master {i}") for i in range(2)]
    from p2p.session.machine import GameSession

    keys = [identity.public_bytes for identity in loop.identities]
    loop.sessions = [GameSession(TRANSCRIPT_GAME, keys, me, loop.identities[me], loop.masters[me])
                     for me in range(2)]
    loop.play(lambda view: view.legal[0])
    entries = tuple(RosterEntry(i, f"peer{i}", identity.public_bytes, "127.0.0.1", 4000 + i)
                    for i, identity in enumerate(loop.identities))
    return Roster(TRANSCRIPT_GAME, entries).sign(loop.identities[0]), loop.sessions[0]


def decided(session: Any, stage: Any) -> dict[str, Any]:
    """What the rules decided for a stage, beyond its kind, peers and state hash, in game
    seats: the deck step due, the keys due from each seat, the pickers (and pick number k),
    the seats that must re-mask and the hand each re-masks, the seat to act."""
    from p2p.session.opening import Opens, keys_due
    from p2p.session.stages import PickRound, Seats, ToAct

    engine, deck = session.engine, session.deck
    if stage.kind == "deck/step":
        turn = deck.turn
        step = {"step": turn.step, "seat": turn.seat, "batch": turn.batch}
        if turn.batch > 0:  # a clean-up reshuffle: its inputs, the engine's discard order
            step["sources"] = list(engine.discard)
        return {"deck_step": step}
    if stage.kind in ("chance/commit", "chance/reveal"):
        return {"label": f"leftovers/{engine.round}"}
    if stage.kind == "keys":
        opens = stage.param(Opens)
        due = {}
        for seat in range(session.n):
            public, private = keys_due(deck, seat, opens)
            if public or private:
                due[str(seat)] = {"public": public, "private": private}
        return {"opens": {"public": list(opens.public),
                          "private": {k: list(v) for k, v in opens.private.items()}},
                "keys_due": due}
    if stage.kind == "pick/commit":
        pick = stage.param(PickRound)
        return {"pick": pick.pick, "pickers": list(pick.pickers),
                "remask": {str(seat): list(engine.hands[seat]) for seat in pick.seats}}
    if stage.kind == "remask":
        seats = stage.param(Seats).seats
        return {"remask": {str(seat): list(engine.hands[seat]) for seat in seats}}
    if stage.kind == "action":
        return {"seat": stage.param(ToAct).seat}
    return {}


def stage_entry(session: Any, stage: Any) -> dict[str, Any]:
    """A stage as a trace lists it, when the session enters it."""
    entry = {"stage": stage.index, "kind": stage.kind, "peers": sorted(stage.peers),
             "state": stage.state}
    entry.update(decided(session, stage))
    return entry


def transcript_trace(roster: Any, messages: list[Any], whole: bool = True) -> dict[str, Any]:
    """Replay signed messages through a keyless observer and list what a verifier computes:
    every stage (number, kind, contributing peers, state hash), the joint seeds, the seat
    order, the game's cards, the cards seen and the result. ``whole``: the messages are a
    whole game (else the start of one: no result; the stage it stops at is the last one)."""
    from p2p.session.envelope import SignedMessage
    from p2p.session.machine import GameSession

    observer = GameSession(roster.game_id, [p.key for p in roster.players])
    stages: list[dict[str, Any]] = []
    entered = observer._entered

    def record(stage: Any) -> None:
        stages.append(stage_entry(observer, stage))
        entered(stage)

    observer._entered = record  # type: ignore[method-assign]
    order = sorted(messages, key=lambda m: (m["msg"]["body"]["stage"], m["msg"]["seat"]))
    for data in order:
        observer.accept(SignedMessage.decode(canonical_json(data)), direct=False)
    assert observer.engine is not None and observer.config is not None
    assert observer.result is not None or not whole
    return {"setup_joint_seed": observer.setup.joint_seed().hex(),
            "seat_of_peer": observer.seat_of_peer, "config": observer.config.to_dict(),
            "card_ids": list(observer.card_ids), "stages": stages,
            "public_cards": {str(slot): card for slot, card in
                             enumerate(observer.engine.card_of) if card >= 0},
            "final_state": public_hash(observer.engine),
            "result": {k: v for k, v in observer.result.items() if k != "summary"}
            if observer.result is not None else None}


def transcript_vector() -> dict[str, Any]:
    from p2p.storage.transcript import FORMAT, outcome_of

    roster, session = transcript_game()
    messages = session.transcript_messages()
    return {"name": "a complete transcript",
            "description": "a 2-peer game (fixed identities and master secrets, every choice "
                           "the first legal one) and what a verifier computes from it; the "
                           "sealed boxes are randomised, so only 'trace' is reproducible",
            "identity_seeds": [seed_bytes(f"transcript identity {i}").hex() for i in range(2)],
            "masters": [seed_bytes(f"transcript master {i}").hex() for i in range(2)],
            "transcript": {"format": FORMAT, "roster": roster.signed_json(),
                           "messages": messages,
                           "outcome": outcome_of(session, ["peer0", "peer1"])},
            "trace": transcript_trace(roster, messages)}


# -- verdicts: tampered copies of that transcript and what `solstice verify` says -----------------

VERDICTS_FILE = "verdicts.json"


def verdict_of(transcript: dict[str, Any]) -> dict[str, Any]:
    """What ``solstice verify --json`` prints for a file holding ``transcript`` (``json``;
    null when the file is unreadable and it prints only an error) and its exit status."""
    return verified(transcript)[0]


def verified(transcript: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """``verdict_of(transcript)``, and every stage its replay entered, as a trace lists it
    (none for an unreadable file): the stages of this file, as the verifier decided them."""
    import tempfile
    from unittest import mock

    from p2p.session.machine import GameSession
    from p2p.storage.transcript import TranscriptUnreadable, verify_transcript

    stages: list[dict[str, Any]] = []
    replays: list[Any] = []
    entered = GameSession._entered

    def record(session: Any, stage: Any) -> None:
        if session not in replays:
            replays.append(session)
        stages.append(stage_entry(session, stage))
        entered(session, stage)

    with tempfile.TemporaryDirectory() as folder, \
            mock.patch.object(GameSession, "_entered", record):
        path = Path(folder) / "transcript.json"
        path.write_bytes(canonical_json(transcript))
        try:
            verdict = verify_transcript(path)
        except TranscriptUnreadable:
            return {"exit": 2, "verdict": "unreadable", "blame_peer": None, "message": None,
                    "json": None}, stages
    assert len(replays) <= 1, "the verifier replayed the file more than once"
    data = verdict.to_json()
    return {"exit": verdict.exit_status, "verdict": verdict.status,
            "blame_peer": data.get("blame_peer"), "message": data.get("message"),
            "json": data}, stages


def followed_stages(case: dict[str, Any], base: dict[str, Any], cases: list[dict[str, Any]]
                    ) -> list[dict[str, Any]]:
    """The stages a case's sidecar lists: its own ``trace``'s, or those numbered up to its
    ``last_stage`` of the trace it names (``trace_of``: transcript.json, whose data is
    ``base``, or another case of the file carrying its own)."""
    if "trace" in case:
        return list(case["trace"]["stages"])
    if case["trace_of"] == TRANSCRIPT_FILE:
        stages = base["trace"]["stages"]
    else:
        stages = next(c for c in cases if c["name"] == case["trace_of"])["trace"]["stages"]
    assert 0 <= case["last_stage"] <= len(stages), case["name"]
    return [s for s in stages if s["stage"] <= case["last_stage"]]


def verdict_cases(base: dict[str, Any]) -> list[dict[str, Any]]:
    """Every verdict case derived from ``base`` (transcript.json's data), without verdicts."""
    sys.path.insert(0, str(HERE))
    from verdict_cases import (
        cases,
        four_peer_base,
        four_peer_cases,
        three_peer_base,
        three_peer_cases,
    )

    states = {stage["stage"]: stage["state"] for stage in base["trace"]["stages"]}
    def trace(transcript: dict[str, Any]) -> dict[str, Any]:
        from p2p.net.roster import Roster

        roster = Roster.from_signed_json(transcript["roster"])
        return transcript_trace(roster, transcript["messages"], whole=False)

    return (cases(base["transcript"], states) + three_peer_cases(three_peer_base(), trace)
            + four_peer_cases(four_peer_base(), trace))


def verdicts_vector() -> dict[str, Any]:
    sys.path.insert(0, str(HERE))
    from verdict_cases import GAME3, GAME4

    base = json.loads((HERE / TRANSCRIPT_FILE).read_text(encoding="utf-8"))
    cases = verdict_cases(base)
    for case in cases:
        case["expected"], stages = verified(case["transcript"])
        if "trace" not in case:
            case["last_stage"] = stages[-1]["stage"] if stages else 0
        assert stages == followed_stages(case, base, cases), \
            f"{case['name']} leaves its base trace: give it its own"
    return {"name": "verdicts",
            "description": "transcripts derived from transcript.json's game (peer 0 holds game "
                           "seat 1, peer 1 seat 0) and from the starts of a 3-peer game (seat "
                           "order [2, 0, 1]) and a 4-peer game (seat order [1, 3, 0, 2]), "
                           "honest and tampered, each with the exit status of `solstice "
                           "verify`, its verdict, the peer it names (blame_peer, a peer "
                           "index), the message index it reports and the "
                           "whole `--json` object (its texts are this implementation's "
                           "wording); and the stages its replay enters, with what the rules "
                           "decided at each: a game's start carries its own 'trace' (as "
                           "transcript.json's), every other case names the trace it follows "
                           "('trace_of': transcript.json or a start case) and the last stage "
                           "of it the replay enters ('last_stage'; 0: none); see 'Verifying "
                           "a transcript'",
            "identity_seeds": base["identity_seeds"], "masters": base["masters"],
            "three_peer_game": GAME3, "three_peer_identity_seeds": [
                seed_bytes(f"verdict identity {i}").hex() for i in range(3)],
            "three_peer_masters": [seed_bytes(f"verdict master {i}").hex() for i in range(3)],
            "four_peer_game": GAME4, "four_peer_identity_seeds": [
                seed_bytes(f"verdict identity {i}").hex() for i in range(4)],
            "four_peer_masters": [seed_bytes(f"verdict master {i}").hex() for i in range(4)],
            "cases": cases}


def render_verdicts(data: dict[str, Any]) -> str:
    """One case per line (a transcript pretty-printed would triple the file)."""
    def line(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))

    head = {k: v for k, v in data.items() if k != "cases"}
    text = render(head)[:-3] + ',\n "cases": [\n'
    return text + ",\n".join(line(case) for case in data["cases"]) + "\n ]\n}\n"


def vector_files() -> dict[str, Callable[[], dict[str, Any]]]:
    """File name -> builder. The test imports this to recompute every file."""
    return {
        "canonical.json": lambda: {
            "name": "canonical JSON",
            "description": "value -> its canonical encoding (UTF-8 text); see 'Canonical encoding'",
            "cases": [canonical_case(v) for v in CANONICAL_VALUES]},
        "stream.json": lambda: {
            "name": "random stream",
            "description": "RandomStream(seed): words (decimal strings), randbelow, permutation, "
                           "sample and choice; see 'Random stream'",
            "cases": [stream_case(s) for s in STREAM_SEEDS]},
        "commitments.json": lambda: {
            "name": "commitments and joint seeds",
            "description": "commitment = SHA-256(prefix || canonical [domain, value, salt_hex]); "
                           "joint seed of seeds in seat order",
            "cases": [commitment_case("solstice/seed/v1", {"game": "g1", "label": "setup",
                                                          "seat": 0, "seed": "00" * 32}, "s1"),
                      commitment_case("solstice/pick/v1", {"game": "g1", "seat": 2, "pick": 3,
                                                          "slots": [4, 9]}, "s2")],
            "joint_seeds": [joint_seed_case(["a", "b"]), joint_seed_case(["a", "b", "c", "d"])]},
        "group.json": lambda: {
            "name": "group arithmetic",
            "description": "hash_to_scalar, hash_to_point, multiplication, inversion and card "
                           "points in the Ed25519 prime-order group (libsodium encodings)",
            "cases": [group_cases()]},
        "cards.json": lambda: {
            "name": "card ids and setup tables",
            "description": "every card's global id and label; the ordered lists the setup "
                           "draws from",
            "cases": [cards_case()]},
        "setup.json": lambda: {
            "name": "setup draws",
            "description": "from the setup joint seed's stream: seat_of_peer = permutation(n), "
                           "then planets, events and first player; the game's card ids",
            "cases": [setup_case(n, f"setup vector {n}/{k}")
                      for n in (2, 3, 4) for k in (0, 1, 2)]},
        "engine.json": lambda: {
            "name": "engine action sequences and public state hashes",
            "description": "whole full-information games from fixed seeds: each action (as "
                           "action_to_dict) and the public state hash after it; see 'State "
                           "hash'",
            "cases": [engine_case(n, label) for n, label in ENGINE_CASES]},
        "proofs.json": lambda: {
            "name": "deck proofs",
            "description": "Chaum-Pedersen (DLEQ) proofs, shuffle arguments and re-mask "
                           "proofs as protocol.md 'Deck proofs' gives them: for each, a valid "
                           "proof (with its secrets, so that a prover can be checked byte for "
                           "byte) and one invalid proof per check; then a "
                           "whole 2-seat deck's public messages, every proof valid, and forged "
                           "copies of its layers and re-mask, each naming its author",
            "cases": [{"dleq": dleq_cases(), "shuffle": shuffle_cases(),
                       "remask": remask_cases(), "deck": deck_proof_case()}]},
        "keys.json": lambda: {
            "name": "key derivations",
            "description": "secrets derived from a master secret; deck shuffle keys, "
                           "re-mask scalars, orders and shuffle scalars, "
                           "permutations and slot keys derived from a deck seed",
            "cases": [keys_cases()]},
    }


def render(data: dict[str, Any]) -> str:
    # Pretty for readers; the values inside are what matters (the canonical encodings are
    # given as text in the cases that need bytes).
    return json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def main() -> None:
    for name, build in vector_files().items():
        (HERE / name).write_text(render(build()), encoding="utf-8")
        print(f"wrote {HERE / name}")
    # Re-verified rather than recomputed (its sealed boxes differ on every build); written
    # only when asked, so that rebuilding the other vectors does not replace it.
    if "--transcript" in sys.argv:
        (HERE / TRANSCRIPT_FILE).write_text(render(transcript_vector()), encoding="utf-8")
        print(f"wrote {HERE / TRANSCRIPT_FILE}")
    # Derived from the stored transcript.json (rebuild it after that one).
    if "--transcript" in sys.argv or "--verdicts" in sys.argv:
        (HERE / VERDICTS_FILE).write_text(render_verdicts(verdicts_vector()), encoding="utf-8")
        print(f"wrote {HERE / VERDICTS_FILE}")


if __name__ == "__main__":
    main()
