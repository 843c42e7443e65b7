"""Structure-aware fuzzing of every parser of bytes from outside (issue 24).

Each parser gets real, valid inputs (a hello, a lobby update, a signed roster, a signed game
message, a bundle, a chat line, a lobby chat line, a watchers notice, ``D`` and ``S`` frames, a
join code, a discovery record, a transcript, a bot's line), mutated by hypothesis at every
field: a value replaced by hostile JSON text (100 000 nested brackets, huge numbers, floats,
long strings, lone surrogates, other types), a key removed or added, a whole level wrapped;
then encoded canonically or not, in UTF-16, with a BOM, truncated, with a byte flipped or an
invalid UTF-8 byte inserted. The property: the parser answers, or raises only the project's
own error for that input, within bounded time and memory (never RecursionError, never a
crash of its caller).

Seeded (``derandomize``) and small in the normal suite; many more examples under ``slow``.
"""

from __future__ import annotations

import functools
import json
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bots import program_lines
from engine.canonical import FRAME_LIMITS, JSONRefused, canonical_json, parse_json
from p2p.errors import RemoteProtocolError
from p2p.identity import Identity
from p2p.net.chat import ChatNote, ChatRoom
from p2p.net.discovery import BadAdvertisement, GameAd
from p2p.net.joincode import InvalidJoinCode, JoinCode
from p2p.net.lobby import (
    HostLobby,
    JoinerLobby,
    check_hello,
    check_mesh_hello,
    check_mesh_welcome,
    decode_control,
    mesh_hello,
)
from p2p.net.lobbychat import LobbyChat, LobbyNote
from p2p.net.observers import check_watch_hello, watch_hello
from p2p.net.resync import Resync
from p2p.net.roster import Roster, RosterEntry
from p2p.net.watchers import HeardWatchers, Watcher, watchers_frame
from p2p.session.bundle import FRAME_BUNDLE, frame_cost, unbundle
from p2p.session.envelope import SignedMessage, sign_message
from p2p.session.loopback import LoopbackGame
from p2p.session.machine import FRAME_MESSAGE, GameSession
from p2p.storage.transcript import (
    TranscriptUnreadable,
    outcome_of,
    verify_transcript,
    write_transcript,
)

FAST, MANY = 25, 600           # examples per parser: normal suite / ``soak``
TIME_LIMIT = 2.0               # seconds for one input (generous: 2 cores shared)
MEMORY_LIMIT = 64 << 20        # bytes allocated at the peak of one input
EXAMPLES = [pytest.param(FAST, id="seeded"),
            pytest.param(MANY, id="many", marks=[pytest.mark.slow, pytest.mark.soak])]

# ---------------------------------------------------------------- hostile pieces of JSON text

FRAGMENTS = [
    "[" * 100_000, "[" * 100_000 + "]" * 100_000, '{"a":' * 3000 + "0" + "}" * 3000,
    "[" * 33 + "]" * 33, "1" * 5000, "9" * 41, "-" + "9" * 40, "18446744073709551616", "-1",
    "1e400", "1.5", "-0.0", "NaN", "Infinity", "-Infinity", "true", "false", "null", '""',
    '"\\ud800"', '"\\u0000"', '"\\u202e\\u001b[2J"', '"' + "x" * 300_000 + '"', "{}", "[]",
    "[" + "0," * 250_000 + "0]", '{"' + '":0,"'.join(str(i) for i in range(30_000)) + '":0}',
    '"' + "\\\\" * 1000 + '"', '"unterminated', "[1,]", '{"a" 1}', "01", "0x10", "\x00",
    '\\"' * 100_000, '"' + '\\"' * 100_000 + "\\", '"' * 100_000, "\\" * 100_000 + "\\ud800",
    "[" + '"a",' * 100_000 + "[",
]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=5)
    | st.dictionaries(st.text(max_size=10), inner, max_size=5),
    max_leaves=20)

HOLE = "\ue000hole\ue000"


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*path, index))
    return found


def _replace(value: Any, path: tuple[Any, ...], new: Callable[[Any], Any]) -> Any:
    if not path:
        return new(value)
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = _replace(value[path[0]], path[1:], new)
    return copy


_DROP = object()


@st.composite
def mutated_text(draw: st.DrawFn, doc: Any) -> str:
    """``doc`` as JSON text with one structure-aware mutation (or none, sometimes)."""
    path = draw(st.sampled_from(_paths(doc)))
    op = draw(st.sampled_from(["fragment", "fragment", "fragment", "value", "drop", "add",
                               "wrap", "none"]))
    if op == "drop" and path:
        parent = _replace(doc, path[:-1], lambda p: (
            {k: v for k, v in p.items() if k != path[-1]} if isinstance(p, dict)
            else [v for i, v in enumerate(p) if i != path[-1]]))
        return json.dumps(parent)
    if op == "add":
        extra = draw(json_values)
        return json.dumps(_replace(doc, path, lambda v: {**v, "extra": extra}
                                   if isinstance(v, dict) else [*v, extra]
                                   if isinstance(v, list) else [v, extra]))
    if op == "wrap":
        return json.dumps(_replace(doc, path, lambda v: [v]))
    if op == "value":
        other = draw(json_values)
        return json.dumps(_replace(doc, path, lambda v: other))
    if op == "fragment":
        fragment = draw(st.sampled_from(FRAGMENTS))
        return json.dumps(_replace(doc, path, lambda v: HOLE)).replace(
            json.dumps(HOLE), fragment, 1)
    return json.dumps(doc)


@st.composite
def encoded(draw: st.DrawFn, text: str, canonical: bytes | None = None) -> bytes:
    """``text`` encoded in one of the ways a sender might (or might be made to)."""
    how = draw(st.sampled_from(["utf8", "canonical", "spaced", "utf16", "bom", "truncate",
                                "flip", "badbyte"]))
    data = text.encode("utf-8", "surrogatepass")
    if how == "canonical" and canonical is not None:
        return canonical
    if how == "spaced":
        return text.replace(",", ", ").replace(":", ": ").encode("utf-8", "surrogatepass")
    if how == "utf16":
        return text.encode("utf-16", "surrogatepass")
    if how == "bom":
        return b"\xef\xbb\xbf" + data
    if data and how in ("truncate", "flip", "badbyte"):
        at = draw(st.integers(0, len(data) - 1))
        if how == "truncate":
            return data[:at]
        if how == "flip":
            return data[:at] + bytes([data[at] ^ (1 << draw(st.integers(0, 7)))]) + data[at + 1:]
        return data[:at] + b"\xff" + data[at:]
    return data


def mutations(doc: Any) -> st.SearchStrategy[bytes]:
    canonical = canonical_json(doc)
    return mutated_text(doc).flatmap(lambda text: encoded(text, canonical))


def bounded(call: Callable[[], Any], allowed: tuple[type[BaseException], ...] = ()) -> Any:
    """Run ``call``: it answers or raises one of ``allowed``, within the time and memory
    limits; anything else (RecursionError, KeyError, ...) fails the test."""
    tracemalloc.start()
    started = time.perf_counter()
    try:
        return call()
    except allowed as exc:
        return exc
    finally:
        elapsed = time.perf_counter() - started
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert elapsed < TIME_LIMIT, f"took {elapsed:.2f} s"
        assert peak < MEMORY_LIMIT, f"allocated {peak >> 20} MiB"


def fuzz(examples: int, strategy: st.SearchStrategy[Any], check: Callable[[Any], None]) -> None:
    @settings(max_examples=examples, derandomize=True, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                     HealthCheck.filter_too_much])
    @given(strategy)
    def run(data: Any) -> None:
        check(data)

    run()


# ---------------------------------------------------------------- the table the inputs are of


@functools.cache
def table() -> tuple[LoopbackGame, Roster]:
    game = LoopbackGame(2)
    game.play(lambda view: view.legal[0])
    host, ann = game.identities
    players = (RosterEntry(0, "host", host.public_bytes, "127.0.0.1", 4000),
               RosterEntry(1, "ann", ann.public_bytes, "127.0.0.2", 5000))
    return game, Roster(game.game_id, players).sign(host)


def code() -> JoinCode:
    game, roster = table()
    return JoinCode("127.0.0.1", 4000, game.game_id, roster.host_id)


def host_lobby() -> HostLobby:
    game, roster = table()
    lobby = HostLobby(game.game_id, 2, roster.players[0])
    ann = game.identities[1]
    lobby.on_hello(ann.public_bytes, "127.0.0.2",
                   canonical_json(JoinerLobby(code(), ann, "ann", 5000).hello()))
    return lobby


# ---------------------------------------------------------------- control messages


def control_docs() -> list[Any]:
    game, roster = table()
    ann = game.identities[1]
    lobby = host_lobby()
    return [JoinerLobby(code(), ann, "ann", 5000).hello(), mesh_hello(game.game_id, 1),
            watch_hello(game.game_id, "eve"), lobby.update(),
            HostLobby.roster_message(roster), lobby.welcome(lobby.joined[1]),
            {"type": "refuse", "reason": "full"}]


@pytest.mark.parametrize("examples", EXAMPLES)
def test_lobby_and_spectator_control_messages(examples: int) -> None:
    game, roster = table()
    ann = game.identities[1]

    def check(data: bytes) -> None:
        joiner = JoinerLobby(code(), ann, "ann", 5000)
        for parse in (lambda: decode_control(data, 0), lambda: check_hello(data, game.game_id),
                      lambda: check_mesh_hello(data, roster, 0, ann.peer_id),
                      lambda: check_mesh_welcome(data, roster, 0),
                      lambda: check_watch_hello(data, game.game_id),
                      lambda: joiner.on_welcome(data), lambda: joiner.on_message(data),
                      lambda: Roster.decode(data)):
            bounded(parse, (RemoteProtocolError,))

    fuzz(examples, st.sampled_from(control_docs()).flatmap(mutations), check)


# ---------------------------------------------------------------- signed game messages, bundles


def message_docs() -> list[Any]:
    game, _ = table()
    messages = game.sessions[0].msglog.messages
    kinds: dict[str, SignedMessage] = {}
    for signed in messages:
        kinds.setdefault(signed.msg.type, signed)
    return [signed.to_json() for signed in kinds.values()]


def fresh_session() -> GameSession:
    game, _ = table()
    keys = [i.public_bytes for i in game.identities]
    return GameSession(game.game_id, keys, 0, game.identities[0], game.masters[0])


@pytest.mark.parametrize("examples", EXAMPLES)
def test_signed_message_frames(examples: int) -> None:
    def check(data: bytes) -> None:
        bounded(lambda: SignedMessage.decode(data, 1), (RemoteProtocolError,))
        session = fresh_session()
        bounded(lambda: session.receive(1, FRAME_MESSAGE + data))  # rejected, never raised

    fuzz(examples, st.sampled_from(message_docs()).flatmap(mutations), check)


@pytest.mark.parametrize("examples", EXAMPLES)
def test_signed_bodies_resigned_by_their_author(examples: int) -> None:
    """Mutated bodies that carry a valid signature get past the envelope to the session."""
    game, _ = table()

    def check(doc: Any) -> None:
        try:
            text = json.dumps(doc)
            obj = parse_json(text)
            original = SignedMessage.decode(canonical_json(doc_original[0]))
            msg = type(original.msg).from_json(obj["msg"])
            signed = sign_message(game.identities[msg.seat if msg.seat < 2 else 1], msg)
        except (ValueError, RemoteProtocolError, KeyError, TypeError, IndexError,
                RecursionError):
            return  # not a message any author could sign: the envelope fuzzer covers it
        session = fresh_session()
        bounded(lambda: session.receive(1, FRAME_MESSAGE + signed.encode()))

    doc_original: list[Any] = []

    @st.composite
    def resignable(draw: st.DrawFn) -> Any:
        doc = draw(st.sampled_from(message_docs()))
        doc_original[:] = [doc]
        path = draw(st.sampled_from([p for p in _paths(doc) if p[:2] == ("msg", "body")]))
        return _replace(doc, path, lambda v: draw(json_values))

    fuzz(examples, resignable(), check)


@pytest.mark.parametrize("examples", EXAMPLES)
def test_bundles(examples: int) -> None:
    frames = [FRAME_MESSAGE + canonical_json(d) for d in message_docs()]

    @st.composite
    def bundles(draw: st.DrawFn) -> bytes:
        items = draw(st.lists(st.sampled_from(frames) | st.binary(max_size=40)
                              | st.just(FRAME_MESSAGE + b"x" * 200_000), max_size=8))
        data = FRAME_BUNDLE + b"".join(
            draw(st.integers(0, 2**32 - 1) | st.just(len(f))).to_bytes(4, "big") + f
            for f in items)
        return draw(encoded(data.decode("latin-1"))) if draw(st.booleans()) else data

    def check(data: bytes) -> None:
        frame = FRAME_BUNDLE + data[1:]
        bounded(lambda: unbundle(frame, 1), (RemoteProtocolError,))
        assert bounded(lambda: frame_cost(frame)) >= 1
        session = fresh_session()
        bounded(lambda: session.receive(1, frame))

    fuzz(examples, bundles(), check)


# ---------------------------------------------------------------- chat, lobby chat, watchers


@pytest.mark.parametrize("examples", EXAMPLES)
def test_table_chat_lines(examples: int) -> None:
    game, roster = table()
    keys = [p.key for p in roster.players]
    ann = ChatRoom(game.game_id, keys, 1, game.identities[1], ["host", "ann"])
    doc = json.loads(ann.say("good luck", 0.0).frame()[1:])

    def check(data: bytes) -> None:
        room = ChatRoom(game.game_id, keys, 0, game.identities[0], ["host", "ann"])
        assert isinstance(bounded(lambda: room.receive(1, b"C" + data, 0.0)), ChatNote)

    fuzz(examples, mutations(doc), check)


@pytest.mark.parametrize("examples", EXAMPLES)
def test_lobby_chat_lines(examples: int) -> None:
    game, _ = table()
    ann = game.identities[1]
    doc = json.loads(LobbyChat(game.game_id, ann).say("hi all", 0.0).frame())

    def check(data: bytes) -> None:
        host_side = LobbyChat(game.game_id, game.identities[0])
        assert isinstance(bounded(lambda: host_side.relay(ann.public_bytes, data, 0.0)),
                          LobbyNote)
        joiner_side = LobbyChat(game.game_id, Identity.generate())
        assert isinstance(bounded(lambda: joiner_side.hear(data, {ann.peer_id})), LobbyNote)

    fuzz(examples, mutations(doc), check)


@pytest.mark.parametrize("examples", EXAMPLES)
def test_watchers_notices(examples: int) -> None:
    game, roster = table()
    watcher = Watcher(Identity.generate().peer_id, "eve")
    doc = json.loads(watchers_frame(game.identities[0], game.game_id, 1, [watcher])[1:])

    def check(data: bytes) -> None:
        assert isinstance(bounded(lambda: HeardWatchers(roster).receive(0, b"W" + data)), list)

    fuzz(examples, mutations(doc), check)


# ---------------------------------------------------------------- resync


@pytest.mark.parametrize("examples", EXAMPLES)
def test_resync_frames(examples: int) -> None:
    docs = [{"next": [3, 4]}, {"have": [0, 0]}]

    def check(data: bytes) -> None:
        session = fresh_session()
        resync = Resync(session, [1], held=True)
        assert bounded(lambda: resync.on_done(1, b"D" + data)) in (True, False)
        assert isinstance(bounded(lambda: session.sync_reply(b"S" + data)), list)

    fuzz(examples, st.sampled_from(docs).flatmap(mutations), check)


# ---------------------------------------------------------------- join codes, discovery records


@pytest.mark.parametrize("examples", EXAMPLES)
def test_join_codes(examples: int) -> None:
    text = code().encode()

    @st.composite
    def typed(draw: st.DrawFn) -> str:
        chars = list(text)
        for _ in range(draw(st.integers(0, 3))):
            at = draw(st.integers(0, len(chars) - 1))
            chars[at] = draw(st.characters())
        out = "".join(chars)
        cut = draw(st.integers(0, len(out)))
        return draw(st.sampled_from([out, out[:cut], out * 50, " \n".join(out), out.upper(),
                                     out + "a" * 100_000]))

    fuzz(examples, typed(), lambda t: bounded(lambda: JoinCode.parse(t), (InvalidJoinCode,)))


@pytest.mark.parametrize("examples", EXAMPLES)
def test_discovery_records(examples: int) -> None:
    game, roster = table()
    txt = {k.encode(): v.encode() for k, v in GameAd(game.game_id, roster.host_id, "host", 2, 1,
                                                     "127.0.0.1", 4000).txt().items()}

    @st.composite
    def records(draw: st.DrawFn) -> tuple[dict[bytes, bytes | None], list[str], int | None]:
        record: dict[bytes, bytes | None] = dict(txt)
        for _ in range(draw(st.integers(0, 3))):
            key = draw(st.sampled_from([*record, b"extra", b"\xff"]))
            record[key] = draw(st.none() | st.binary(max_size=300)
                               | st.sampled_from([b"9" * 1000, b"\xff\xfe", b"-1", b"0"]))
        if draw(st.booleans()) and record:
            record.pop(draw(st.sampled_from(sorted(record))))
        addresses = draw(st.lists(st.sampled_from(["127.0.0.1", "::1", "224.0.0.1", "0.0.0.0",
                                                   "x", "999.1.1.1", ""]), max_size=3))
        port = draw(st.none() | st.integers(-5, 70_000))
        return record, addresses, port

    fuzz(examples, records(), lambda r: bounded(lambda: GameAd.from_record(*r),
                                                 (BadAdvertisement,)))


# ---------------------------------------------------------------- transcripts


@pytest.mark.parametrize("examples", [pytest.param(8, id="seeded"),
                                      pytest.param(120, id="many",
                                                   marks=[pytest.mark.slow, pytest.mark.soak])])
def test_transcripts(examples: int, tmp_path_factory: pytest.TempPathFactory) -> None:
    game, roster = table()
    base = tmp_path_factory.mktemp("transcripts")
    honest = write_transcript(base / "honest.json", roster, game.sessions[0],
                              outcome_of(game.sessions[0], ["host", "ann"]))
    doc = json.loads(honest.read_bytes())
    doc = {**doc, "messages": doc["messages"][:12]}  # a short game: each replay is quick

    def check(data: bytes) -> None:
        path = base / "fuzzed.json"
        path.write_bytes(data)
        bounded(lambda: verify_transcript(path), (TranscriptUnreadable,))

    fuzz(examples, mutations(doc), check)


# ---------------------------------------------------------------- bot lines, the parser itself


@pytest.mark.parametrize("examples", EXAMPLES)
def test_bot_lines(examples: int) -> None:
    docs = [{"type": "ready", "name": "x"}, {"type": "action", "id": 3, "action": {"x": [1]}},
            {"type": "log", "message": "thinking"}]

    def check(data: bytes) -> None:
        text = data.decode("utf-8", "replace")  # what the reader thread hands over
        bounded(lambda: program_lines.parse(text))

    fuzz(examples, st.sampled_from(docs).flatmap(mutations), check)


@pytest.mark.parametrize("examples", EXAMPLES)
def test_the_bounded_parser_refuses_only_with_its_own_error(examples: int) -> None:
    def check(data: bytes) -> None:
        got = bounded(lambda: parse_json(data), (JSONRefused,))
        if not isinstance(got, JSONRefused):
            assert canonical_json(got) is not None  # what it takes re-encodes

    fuzz(examples, st.sampled_from(control_docs() + message_docs()).flatmap(mutations)
         | st.binary(max_size=200), check)


@pytest.mark.parametrize("examples", EXAMPLES)
def test_the_bounded_parser_takes_every_value_within_its_limits(examples: int) -> None:
    fuzz(examples, json_values,
         lambda value: bounded(lambda: _round_trip(value)))


def _round_trip(value: Any) -> None:
    data = canonical_json(value)
    assert len(data) <= FRAME_LIMITS.max_bytes
    assert parse_json(data) == value


def test_the_limits_are_the_documented_ones() -> None:
    """protocol.md, "Parser limits", states these numbers."""
    text = (Path(__file__).resolve().parent.parent / "protocol.md").read_text()
    assert "### Parser limits" in text
    for number in ("32 levels", "200 000 values", "40 digits", "64 KiB", "1 MiB"):
        assert number in text, number
