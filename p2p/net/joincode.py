"""Join codes: what a joiner needs (where the host listens, which game, the host's peer id)
in one checksummed base32 string (protocol.md, "Lobby and join codes")."""

from __future__ import annotations

import base64
import hashlib
import ipaddress
from dataclasses import dataclass

from p2p.errors import LocalProtocolError
from p2p.identity import is_peer_id
from p2p.net.roster import GAME_ID_BYTES, is_game_id, is_port

JOIN_CODE_PREFIX = "sol1-"
_CHECKSUM_BYTES = 4
_BASE32 = frozenset("abcdefghijklmnopqrstuvwxyz234567")
# A code is at most 5 + 104 characters (IPv6); text a user pastes may wrap and be indented,
# but anything far longer is no code and is refused before it is looked at.
MAX_CODE_TEXT = 1024


class InvalidJoinCode(ValueError):
    """A join code could not be read (typo, truncation, or not a Solstice code)."""


@dataclass(frozen=True)
class JoinCode:
    """What a joiner needs: where the host listens, which game, and the host's peer id.

    Text form: ``sol1-`` + lowercase unpadded base32 of
    ``family(1: 4 or 6) | address(4 or 16) | port(2, BE) | game id(16) | host id(32) |
    [rendezvous: family(1) | address(4 or 16) | port(2)] | checksum(4)``
    where the checksum is the first 4 bytes of SHA-256 of everything before it. The
    rendezvous part is there only for a game hosted with ``--rendezvous`` (internet play).
    """

    address: str
    port: int
    game_id: str
    host_id: str
    rendezvous: tuple[str, int] | None = None

    def __post_init__(self) -> None:
        try:
            ipaddress.ip_address(self.address)
        except ValueError as exc:
            raise LocalProtocolError(f"join code address must be an IP address: {exc}") from exc
        if not is_port(self.port):
            raise LocalProtocolError(f"bad port {self.port}")
        if not is_game_id(self.game_id) or not is_peer_id(self.host_id):
            raise LocalProtocolError("bad game id or host id")
        if self.rendezvous is not None:
            try:
                ipaddress.ip_address(self.rendezvous[0])
            except ValueError as exc:
                raise LocalProtocolError(f"rendezvous address: {exc}") from exc
            if not is_port(self.rendezvous[1]):
                raise LocalProtocolError(f"bad rendezvous port {self.rendezvous[1]}")

    def encode(self) -> str:
        raw = (
            _endpoint(self.address, self.port)
            + bytes.fromhex(self.game_id)
            + bytes.fromhex(self.host_id)
        )
        if self.rendezvous is not None:
            raw += _endpoint(*self.rendezvous)
        raw += hashlib.sha256(raw).digest()[:_CHECKSUM_BYTES]
        return JOIN_CODE_PREFIX + base64.b32encode(raw).decode("ascii").rstrip("=").lower()

    @classmethod
    def parse(cls, text: str) -> JoinCode:
        """Read a code as typed or pasted: case and white space anywhere are ignored, so a
        code copied from a terminal where it wrapped over two lines still reads."""
        if len(text) > MAX_CODE_TEXT:
            raise InvalidJoinCode(f"{len(text)} characters: far too long for a join code")
        code = "".join(text.split()).lower()
        if not code.startswith(JOIN_CODE_PREFIX):
            raise InvalidJoinCode(f"a join code starts with {JOIN_CODE_PREFIX!r}")
        body = code[len(JOIN_CODE_PREFIX) :]
        if not body:
            raise InvalidJoinCode("the join code is empty")
        if not set(body) <= _BASE32:
            raise InvalidJoinCode("the join code contains characters it cannot hold")
        try:
            raw = base64.b32decode(body.upper() + "=" * (-len(body) % 8))
        except ValueError as exc:  # a length no encoder produces
            raise InvalidJoinCode("the join code is truncated or too long") from exc
        addr_len = {4: 4, 6: 16}.get(raw[0])
        if addr_len is None:
            raise InvalidJoinCode("the join code is damaged (unknown address family)")
        plain = 1 + addr_len + 2 + GAME_ID_BYTES + 32
        trailer = 0
        if len(raw) > plain + _CHECKSUM_BYTES:  # longer than a LAN code: a rendezvous part
            rendezvous_len = {4: 4, 6: 16}.get(raw[plain])
            if rendezvous_len is None:
                raise InvalidJoinCode("the join code is truncated or too long")
            trailer = 1 + rendezvous_len + 2
        if len(raw) != plain + trailer + _CHECKSUM_BYTES:
            raise InvalidJoinCode("the join code is truncated or too long")
        payload, checksum = raw[:-_CHECKSUM_BYTES], raw[-_CHECKSUM_BYTES:]
        if hashlib.sha256(payload).digest()[:_CHECKSUM_BYTES] != checksum:
            raise InvalidJoinCode("the join code is mistyped (checksum mismatch)")
        pos = 1 + addr_len
        address = str(ipaddress.ip_address(payload[1:pos]))
        port = int.from_bytes(payload[pos : pos + 2], "big")
        game_id = payload[pos + 2 : pos + 2 + GAME_ID_BYTES].hex()
        host_id = payload[pos + 2 + GAME_ID_BYTES : plain].hex()
        rendezvous = None
        if trailer:
            end = plain + 1 + (trailer - 3)
            rendezvous = (str(ipaddress.ip_address(payload[plain + 1 : end])),
                          int.from_bytes(payload[end : end + 2], "big"))
        try:
            parsed = cls(address, port, game_id, host_id, rendezvous)
        except LocalProtocolError as exc:
            raise InvalidJoinCode(f"the join code is damaged: {exc}") from exc
        # The last character carries unused bits; one code, one spelling.
        if parsed.encode() != code:
            raise InvalidJoinCode("the join code is mistyped (unused bits set)")
        return parsed

    def __str__(self) -> str:
        return self.encode()


def _endpoint(address: str, port: int) -> bytes:
    ip = ipaddress.ip_address(address)
    return bytes([ip.version]) + ip.packed + port.to_bytes(2, "big")


