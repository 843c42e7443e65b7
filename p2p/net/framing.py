"""Sans-IO length-prefixed frames: a 4-byte big-endian length, then that many payload bytes.

The decoder takes byte chunks of any size (TLS records do not align with frames) and checks the
announced length against a maximum *before* buffering the payload, so a peer cannot make us
allocate or wait for gigabytes.
"""

from __future__ import annotations

from p2p.errors import LocalProtocolError, RemoteProtocolError

HEADER_SIZE = 4
MAX_FRAME_SIZE = 1 << 20  # 1 MiB: far above any game message, small enough to buffer safely.


def encode_frame(payload: bytes, max_size: int = MAX_FRAME_SIZE) -> bytes:
    """The frame carrying ``payload``; LocalProtocolError if it exceeds ``max_size``."""
    if len(payload) > max_size:
        raise LocalProtocolError(f"frame of {len(payload)} bytes exceeds maximum {max_size}")
    return len(payload).to_bytes(HEADER_SIZE, "big") + payload


class FrameDecoder:
    """Incremental decoder: ``feed`` chunks, get complete payloads back in order.

    ``seat`` only labels errors (who sent the bad bytes). After a RemoteProtocolError the
    decoder is poisoned: the stream is out of sync and the connection must be dropped.
    """

    def __init__(self, max_size: int = MAX_FRAME_SIZE, seat: int | None = None) -> None:
        self.max_size = max_size
        self.seat = seat
        self._buffer = bytearray()
        self._error: RemoteProtocolError | None = None

    @property
    def buffered(self) -> int:
        """Bytes received but not yet part of a complete frame."""
        return len(self._buffer)

    def feed(self, data: bytes | bytearray) -> list[bytes]:
        """Add ``data``; return every payload completed by it (possibly none)."""
        if self._error is not None:
            raise self._error
        self._buffer += data
        frames: list[bytes] = []
        while len(self._buffer) >= HEADER_SIZE:
            length = int.from_bytes(self._buffer[:HEADER_SIZE], "big")
            if length > self.max_size:
                self._error = RemoteProtocolError(
                    self.seat, f"announced frame of {length} bytes exceeds maximum {self.max_size}"
                )
                raise self._error
            end = HEADER_SIZE + length
            if len(self._buffer) < end:
                break
            frames.append(bytes(self._buffer[HEADER_SIZE:end]))
            del self._buffer[:end]
        return frames

    def close(self) -> None:
        """The stream ended: RemoteProtocolError if it ended inside a frame (truncated)."""
        if self._error is not None:
            raise self._error
        if self._buffer:
            self._error = RemoteProtocolError(
                self.seat, f"connection closed inside a frame ({len(self._buffer)} bytes pending)"
            )
            raise self._error
