"""Bundles: the message frames a peer has ready, sent as one mesh frame.

Every message is relayed by every peer (see ``inbox``), so a 4-peer game moves about four
times as many message frames as signed messages, and over TLS each frame costs a write, a read
and hops between tasks however cheaply the receiver then drops it. A peer that has several
message frames ready at once (the relays of what just arrived and its own message built on
them) sends them as one ``B`` frame instead: the same frames in the same order, so the
relay-before-own-message rule holds within a bundle as it does between frames.

Wire form: ``b"B" || (len_1 || frame_1) || ... || (len_k || frame_k)``, each ``len`` 4 bytes
big-endian, each frame a whole ``M`` frame (tag included), 1 <= k <= ``MAX_ITEMS``, the items
and their lengths ``MAX_BYTES`` at most. Anything else (a truncated length, an empty or nested
item, another tag inside, more bytes) is refused as a whole,
blaming the connection it came on.
"""

from __future__ import annotations

from p2p.errors import RemoteProtocolError

FRAME_BUNDLE = b"B"
ITEM_TAG = b"M"  # only message frames travel bundled (the runner's own frames never do)
MAX_ITEMS = 64
# A bundle stays well under the transport's 1 MiB frame limit however big its items.
MAX_BYTES = 512 * 1024
_LEN = 4


def bundle(frames: list[bytes]) -> list[bytes]:
    """The frames to send for ``frames`` (message frames, in order): runs of them bundled,
    each bundle within ``MAX_ITEMS`` and ``MAX_BYTES``; a lone frame goes as it is."""
    out: list[bytes] = []
    run: list[bytes] = []
    size = 0

    def close_run() -> None:
        if len(run) == 1:
            out.append(run[0])
        elif run:
            out.append(FRAME_BUNDLE + b"".join(len(f).to_bytes(_LEN, "big") + f for f in run))
        run.clear()

    for frame in frames:
        if frame[:1] != ITEM_TAG or _LEN + len(frame) > MAX_BYTES:
            close_run()
            out.append(frame)
            size = 0
            continue
        if len(run) == MAX_ITEMS or size + _LEN + len(frame) > MAX_BYTES:
            close_run()
            size = 0
        run.append(frame)
        size += _LEN + len(frame)
    close_run()
    return out


def frame_cost(frame: bytes) -> int:
    """How many frames ``frame`` counts as against a peer's frame rate: a bundle counts each
    item it holds (up to the first malformed length), so bundling never raises what a peer
    can make us check per second."""
    if frame[:1] != FRAME_BUNDLE:
        return 1
    count, pos, end = 0, 1, len(frame)
    while pos + _LEN <= end and count <= MAX_ITEMS:
        count += 1
        pos += _LEN + int.from_bytes(frame[pos:pos + _LEN], "big")
    return max(1, count)


def unbundle(frame: bytes, peer: int | None = None) -> list[bytes]:
    """The message frames of a ``B`` frame, in order; RemoteProtocolError (naming ``peer``,
    the connection it came on) if it is not a well-formed bundle."""
    if frame[:1] != FRAME_BUNDLE:
        raise RemoteProtocolError(peer, "not a bundle frame")
    if len(frame) - 1 > MAX_BYTES:  # what ``bundle`` never makes (items and their lengths)
        raise RemoteProtocolError(peer, f"bundle of {len(frame) - 1} bytes, over "
                                        f"{MAX_BYTES >> 10} KiB")
    items: list[bytes] = []
    pos, end = 1, len(frame)
    while pos < end:
        if len(items) == MAX_ITEMS:
            raise RemoteProtocolError(peer, f"bundle of more than {MAX_ITEMS} frames")
        if end - pos < _LEN:
            raise RemoteProtocolError(peer, "bundle truncated in an item length")
        size = int.from_bytes(frame[pos:pos + _LEN], "big")
        pos += _LEN
        if size == 0 or size > end - pos:
            raise RemoteProtocolError(peer, f"bundle item of {size} bytes does not fit the "
                                            "frame" if size else "empty bundle item")
        item = frame[pos:pos + size]
        if item[:1] != ITEM_TAG:
            raise RemoteProtocolError(peer, f"bundle item with tag {item[:1]!r}: only message "
                                            "frames may be bundled")
        items.append(item)
        pos += size
    if not items:
        raise RemoteProtocolError(peer, "empty bundle")
    return items
