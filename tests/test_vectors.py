"""The published test vectors (tests/vectors/*.json) match the implementation.

Every output stored in a vector file is recomputed from its inputs here, so a change to an
encoding, a derivation or the random stream fails this test until the vectors are rebuilt
on purpose (``python tests/vectors/build.py``) and protocol.md says what changed.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

VECTORS = Path(__file__).resolve().parent / "vectors"


def _builder():
    spec = importlib.util.spec_from_file_location("vector_build", VECTORS / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BUILD = _builder()


@pytest.mark.parametrize("name", sorted(BUILD.vector_files()))
def test_vector_file_matches_the_implementation(name: str) -> None:
    stored = json.loads((VECTORS / name).read_text(encoding="utf-8"))
    assert stored == BUILD.vector_files()[name](), f"{name} drifted; see tests/vectors/build.py"


def test_every_vector_file_is_built_and_documented() -> None:
    on_disk = {p.name for p in VECTORS.glob("*.json")}
    assert on_disk == set(BUILD.vector_files()) | {BUILD.TRANSCRIPT_FILE, BUILD.VERDICTS_FILE}
    protocol = (VECTORS.parent.parent / "protocol.md").read_text(encoding="utf-8")
    for name in on_disk:
        assert f"tests/vectors/{name}" in protocol, f"protocol.md does not describe {name}"


def test_the_canonical_vectors_spell_what_the_spec_says() -> None:
    """Independent of the implementation: a few encodings written out by hand."""
    cases = json.loads((VECTORS / "canonical.json").read_text(encoding="utf-8"))["cases"]
    by_value = {json.dumps(c["value"], sort_keys=True): c["encoding_utf8"] for c in cases}
    assert by_value[json.dumps({"a": [True, False, None], "b": 1}, sort_keys=True)] == \
        '{"a":[true,false,null],"b":1}'
    assert by_value[json.dumps("non-ASCII as itself: é € 😀")] == '"non-ASCII as itself: é € 😀"'
    # keys sorted by code point: upper case before lower case, then non-ASCII
    assert by_value[json.dumps({"é": 1, "Z": 2, "a": 3, "B": 4, "😀": 5, "ä": 6},
                               sort_keys=True)] == '{"B":4,"Z":2,"a":3,"ä":6,"é":1,"😀":5}'


def _escaped_as_the_spec_says(text: str) -> str:
    """protocol.md, "Canonical encoding": the escapes, written from the text, not the code."""
    short = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f",
             "\r": "\\r"}
    return '"' + "".join(short.get(c) or (f"\\u{ord(c):04x}" if ord(c) < 0x20 else c)
                         for c in text) + '"'


def test_the_canonical_escapes_are_the_ones_the_spec_lists() -> None:
    cases = json.loads((VECTORS / "canonical.json").read_text(encoding="utf-8"))["cases"]
    strings = [c for c in cases if isinstance(c["value"], str)]
    covered = set("".join(c["value"] for c in strings))
    assert {chr(c) for c in range(0x20)} | {'"', "\\", "\x7f", "\u2028", "/"} <= covered
    for case in strings:
        assert case["encoding_utf8"] == _escaped_as_the_spec_says(case["value"])
    keyed = next(c for c in cases if isinstance(c["value"], dict) and "\ue000" in c["value"])
    keys = sorted(keyed["value"], key=lambda k: [ord(c) for c in k])
    assert keyed["encoding_utf8"] == "{" + ",".join(
        f"{_escaped_as_the_spec_says(k)}:{keyed['value'][k]}" for k in keys) + "}"


def test_the_stream_vectors_follow_the_spec_not_just_the_code() -> None:
    """Recompute the first words straight from protocol.md's definition of the stream."""
    import hashlib

    for case in json.loads((VECTORS / "stream.json").read_text(encoding="utf-8"))["cases"]:
        seed = bytes.fromhex(case["seed_hex"])
        data = b"".join(hashlib.sha256(b"solstice/stream/v1\x00" + seed + i.to_bytes(8, "big"))
                        .digest() for i in range(2))
        words = [str(int.from_bytes(data[8 * k:8 * k + 8], "big")) for k in range(6)]
        assert case["words"] == words


def test_the_state_hash_vectors_follow_the_spec_not_just_the_code() -> None:
    """protocol.md, 'State hash': SHA-256 of the prefix and the canonical public state, whose
    keys are listed there."""
    import hashlib
    import re

    protocol = (VECTORS.parent.parent / "protocol.md").read_text(encoding="utf-8")
    section = protocol.split("### State hash", 1)[1].split("\n### ", 1)[0]
    listed = set(re.findall(r"`([a-z_]+)`", section.split("Fields:", 1)[1].split("\n\n", 1)[0]))
    for case in json.loads((VECTORS / "engine.json").read_text(encoding="utf-8"))["cases"]:
        text = case["initial_public_state_utf8"]
        assert json.loads(text) == case["initial_public_state"]
        assert set(case["initial_public_state"]) == listed
        digest = hashlib.sha256(b"solstice/state/v1\x00" + text.encode()).hexdigest()
        assert digest == case["initial_state"]
        assert case["final_phase"] == "over" and case["steps"]


TRANSCRIPT = json.loads((VECTORS / BUILD.TRANSCRIPT_FILE).read_text(encoding="utf-8"))


def test_the_transcript_vector_verifies_as_a_fair_game(tmp_path: Path) -> None:
    from p2p.storage.transcript import verify_transcript

    path = tmp_path / "transcript.json"
    path.write_text(json.dumps(TRANSCRIPT["transcript"]), encoding="utf-8")
    verdict = verify_transcript(path)
    assert verdict.ok, verdict.summary
    result = {k: v for k, v in verdict.result.items() if k not in ("summary", "players")}
    assert result == TRANSCRIPT["trace"]["result"]


def test_the_transcript_vector_trace_is_what_a_verifier_computes() -> None:
    from p2p.net.roster import Roster

    roster = Roster.from_signed_json(TRANSCRIPT["transcript"]["roster"])
    assert BUILD.transcript_trace(roster, TRANSCRIPT["transcript"]["messages"]) == \
        TRANSCRIPT["trace"]


def test_the_transcript_vector_game_is_reproducible_from_its_seeds() -> None:
    """Everything but the sealed boxes (and so the signatures and prev hashes) is determined
    by the identities, master secrets and choices: a rebuild gives the same trace."""
    assert BUILD.transcript_vector()["trace"] == TRANSCRIPT["trace"]


VERDICTS = json.loads((VECTORS / BUILD.VERDICTS_FILE).read_text(encoding="utf-8"))


def test_the_verdict_vectors_are_the_edits_build_makes_of_the_transcript_vector() -> None:
    """Every case is derived deterministically from transcript.json (re-signed by its
    authors, the one sealed box with a derived ephemeral key): a rebuild gives the same files."""
    built = BUILD.verdict_cases(TRANSCRIPT)
    assert [c["name"] for c in built] == [c["name"] for c in VERDICTS["cases"]]
    for case, stored in zip(built, VERDICTS["cases"], strict=True):
        assert case == {k: v for k, v in stored.items() if k not in ("expected", "last_stage")}, \
            case["name"]
    # every path of "Verifying a transcript": each exit status, and a peer of each index named
    expected = [c["expected"] for c in VERDICTS["cases"]]
    assert {e["verdict"] for e in expected} == {"fair", "unfair", "damaged", "unreadable",
                                                "abandoned", "incomplete"}
    assert {e["blame_peer"] for e in expected if e["verdict"] == "unfair"} == {0, 1, 3}
    assert {e["blame_peer"] for e in expected if e["verdict"] == "abandoned"} == {0, 1, 2}
    # 2, 3 and 4 peers: a start of each small game carries its own trace
    players = {len(c["transcript"]["roster"]["roster"]["players"]) for c in VERDICTS["cases"]}
    assert players == {2, 3, 4}
    assert {len(c["transcript"]["roster"]["roster"]["players"])
            for c in VERDICTS["cases"] if "trace" in c} == {3, 4}


def test_every_verdict_case_lists_its_stages() -> None:
    """The sidecar: each case carries its own trace or names one it follows, and how far."""
    with_trace = {c["name"] for c in VERDICTS["cases"] if "trace" in c}
    for case in VERDICTS["cases"]:
        if "trace" in case:
            assert "trace_of" not in case and "last_stage" not in case, case["name"]
        else:
            assert case["trace_of"] in with_trace | {BUILD.TRANSCRIPT_FILE}, case["name"]
            assert isinstance(case["last_stage"], int), case["name"]


@pytest.mark.parametrize("case", VERDICTS["cases"], ids=lambda c: c["name"])
def test_a_verdict_vector_verifies_as_stated(case: dict) -> None:
    """The verdict, and the stages the replay enters (kind, peers, state hash and what the
    rules decided) are the ones the case's sidecar lists."""
    expected, stages = BUILD.verified(case["transcript"])
    assert expected == case["expected"]
    assert stages == BUILD.followed_stages(case, TRANSCRIPT, VERDICTS["cases"])


def test_the_verdict_cases_protocol_md_names_exist() -> None:
    import re

    protocol = (VECTORS.parent.parent / "protocol.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:fair|unfair|damaged|abandoned|incomplete)-[a-z0-9-]+)`",
                           protocol))
    assert named, "protocol.md names no verdict case"
    assert named <= {c["name"] for c in VERDICTS["cases"]}


def test_the_engine_vectors_cover_every_part_of_the_rules() -> None:
    """engine.json's whole games, replayed from their stored actions, cover 2-4 players, every
    event resolved on a planet, every decision kind, the four claims, captured prisoners,
    Prophecy, and both ends; each step's state hash is the stored one."""
    from engine import CARDS, Capture, GameConfig, action_from_dict, apply_in_place, new_game
    from engine.cards import MAX_CASUALTIES, WIN_VP
    from engine.serialize import public_hash

    seen: set[str] = set()
    for case in json.loads((VECTORS / "engine.json").read_text(encoding="utf-8"))["cases"]:
        s = new_game(GameConfig.from_dict(case["config"]), case["deck_order"])
        seen.add(f"players {s.n}")
        for step in case["steps"]:
            if s.decision is not None:
                seen.add(f"decision {s.decision.kind}")
            action = action_from_dict(step["action"])
            if isinstance(action, Capture):
                seen.add("capture")
            apply_in_place(s, action)
            assert public_hash(s) == step["state"]
            for p, here in enumerate(s.planets):
                if s.planet_started[p]:
                    seen.update(f"event {CARDS[s.card_of[x]].name}"
                                for x in here + s.planet_discarded[p]
                                if CARDS[s.card_of[x]].is_event)
            seen.update(f"claim {CARDS[s.card_of[slot]].name}" for slot, _, _ in s.claims)
        seen.update(end for end, hit in (("end 16 VP", max(s.vp) >= WIN_VP),
                                         ("end 3 casualties",
                                          max(s.casualties) >= MAX_CASUALTIES)) if hit)
    kinds = ("whispered_secrets", "vision", "prophecy", "sentry", "sacrifice", "mercenaries",
             "assassin_target", "ambush", "transport", "transport_card", "mimic", "escape",
             "martyr")
    wanted = {"players 2", "players 3", "players 4", "capture", "end 16 VP",
              "end 3 casualties", *(f"decision {k}" for k in kinds),
              *(f"claim {c}" for c in ("Prophecy", "Sentry", "Messenger", "Poison")),
              *(f"event {c.name}" for c in CARDS if c.is_event)}
    assert wanted - seen == set()


def test_the_proof_vectors_check_as_stated() -> None:
    """proofs.json: the valid DLEQ proof, shuffle argument and re-mask proof check (and a
    prover with their secrets makes the same bytes), each invalid one fails; the deck's public
    messages all check in order, and each forged copy is refused naming the author it
    names."""
    from engine.canonical import canonical_json
    from p2p.crypto import remask_proof, shuffle_proof
    from p2p.crypto.group import InvalidPoint, check_point_encoding
    from p2p.crypto.proofs import Instance, ProofInvalid, prove, verify
    from p2p.crypto.remask_proof import RemaskProof
    from p2p.deck.deck import Deck
    from p2p.errors import CheatDetected

    (case,) = json.loads((VECTORS / "proofs.json").read_text(encoding="utf-8"))["cases"]
    for dleq in case["dleq"]:
        body = canonical_json(["solstice/deck/dleq/v1", dleq["game"], dleq["seat"],
                               dleq["kind"], dleq["context"]])
        header = len(body).to_bytes(4, "big") + body  # as the spec writes it
        assert header.hex() == dleq["header"]
        instances = [Instance(*(bytes.fromhex(i[k]) for k in "ghpq"))
                     for i in dleq["instances"]]
        proof = [bytes.fromhex(x) for x in dleq["proof"]]
        if dleq["valid"]:
            verify(header, instances, proof)
            assert prove(header, instances, [bytes.fromhex(u) for u in dleq["secrets"]]) == proof
            continue
        with pytest.raises((ProofInvalid, InvalidPoint)):
            for instance in instances:
                for point in (instance.g, instance.h, instance.p, instance.q):
                    check_point_encoding(point)
            verify(header, instances, proof)
    for argument in case["shuffle"]:
        body = canonical_json(["solstice/deck/shuffle-argument/v1", argument["game"],
                               argument["seat"], argument["kind"], argument["context"]])
        header = len(body).to_bytes(4, "big") + body
        assert header.hex() == argument["header"]
        base, key = bytes.fromhex(argument["base"]), bytes.fromhex(argument["key"])
        inputs = [bytes.fromhex(p) for p in argument["inputs"]]
        outputs = [bytes.fromhex(p) for p in argument["outputs"]]
        proof = [bytes.fromhex(x) for x in argument["proof"]]
        if argument["valid"]:
            shuffle_proof.verify(header, base, key, inputs, outputs, proof)
            assert shuffle_proof.prove(header, base, key, inputs, outputs,
                                       bytes.fromhex(argument["x"]),
                                       argument["permutation"]) == proof
            continue
        with pytest.raises(shuffle_proof.ShuffleProofInvalid):
            shuffle_proof.verify(header, base, key, inputs, outputs, proof)
    assert len(case["shuffle"]) >= 10
    for remask in case["remask"]:
        body = canonical_json(["solstice/deck/shuffle-argument/v1", remask["game"],
                               remask["seat"], "deck/remask",
                               {"first": remask["first"], "old": remask["old"]}])
        header = len(body).to_bytes(4, "big") + body
        assert header.hex() == remask["header"]
        inputs, outputs, keys = ([bytes.fromhex(p) for p in remask[name]]
                                 for name in ("inputs", "outputs", "keys"))
        proof = RemaskProof(bytes.fromhex(remask["shuffle_key"]),
                            *(tuple(bytes.fromhex(p) for p in remask[name])
                              for name in ("shuffled", "argument", "proof")))
        if remask["valid"]:
            remask_proof.verify(header, inputs, outputs, keys, proof)
            assert remask_proof.prove(header, inputs, outputs, keys, bytes.fromhex(remask["c"]),
                                      remask["order"],
                                      [bytes.fromhex(a) for a in remask["factors"]]) == proof
            continue
        with pytest.raises(remask_proof.RemaskProofInvalid):
            remask_proof.verify(header, inputs, outputs, keys, proof)
    assert len(case["remask"]) >= 12
    deck = case["deck"]
    observer = Deck(deck["game"], deck["n_seats"], deck["n_cards"], seat=None)
    forged = {}
    for entry in deck["forged"]:
        forged.setdefault(entry["index"], []).append(entry)
    assert forged, "no forged layers"
    for index, (sender, message) in enumerate(deck["transcript"]):
        for entry in forged.get(index, []):
            with pytest.raises(CheatDetected) as refused:
                observer.receive(sender, entry["message"])
            assert (refused.value.seat, type(refused.value).__name__) == \
                (entry["blame"], entry["refused_as"]), entry["what"]
        observer.receive(sender, message)
