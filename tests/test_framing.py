"""Sans-IO framing: chunked input, several frames per chunk, oversize and truncated streams."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2p.errors import LocalProtocolError, RemoteProtocolError
from p2p.net.framing import FrameDecoder, encode_frame


def test_round_trip_byte_by_byte() -> None:
    payloads = [b"hello", b"", b"x" * 1000]
    stream = b"".join(encode_frame(p) for p in payloads)
    decoder = FrameDecoder()
    out: list[bytes] = []
    for i in range(len(stream)):
        out += decoder.feed(stream[i : i + 1])
    assert out == payloads
    assert decoder.buffered == 0
    decoder.close()  # clean end between frames


def test_several_frames_in_one_chunk() -> None:
    decoder = FrameDecoder()
    assert decoder.feed(encode_frame(b"a") + encode_frame(b"bc") + b"\0\0") == [b"a", b"bc"]
    assert decoder.buffered == 2


@given(
    st.lists(st.binary(max_size=300), max_size=8),
    st.lists(st.integers(min_value=1, max_value=50), min_size=1),
)
def test_any_chunking_gives_the_same_frames(payloads: list[bytes], cuts: list[int]) -> None:
    stream = b"".join(encode_frame(p) for p in payloads)
    decoder = FrameDecoder()
    out: list[bytes] = []
    pos, i = 0, 0
    while pos < len(stream):
        step = cuts[i % len(cuts)]
        out += decoder.feed(stream[pos : pos + step])
        pos, i = pos + step, i + 1
    assert out == payloads


def test_oversize_is_rejected_from_the_header_alone() -> None:
    decoder = FrameDecoder(max_size=100, seat=2)
    with pytest.raises(RemoteProtocolError) as info:
        decoder.feed((101).to_bytes(4, "big"))  # no payload sent: must not wait for it
    assert info.value.seat == 2
    assert "101" in info.value.reason
    with pytest.raises(RemoteProtocolError):  # poisoned: the stream is out of sync
        decoder.feed(b"")


def test_maximum_size_itself_is_allowed() -> None:
    decoder = FrameDecoder(max_size=100)
    assert decoder.feed(encode_frame(b"y" * 100, max_size=100)) == [b"y" * 100]


def test_truncated_stream() -> None:
    decoder = FrameDecoder(seat=1)
    assert decoder.feed(encode_frame(b"hello")[:-2]) == []
    with pytest.raises(RemoteProtocolError) as info:
        decoder.close()
    assert info.value.seat == 1
    half_header = FrameDecoder()
    half_header.feed(b"\0\0")
    with pytest.raises(RemoteProtocolError):
        half_header.close()


def test_sending_oversize_is_a_local_error() -> None:
    with pytest.raises(LocalProtocolError):
        encode_frame(b"z" * 11, max_size=10)
