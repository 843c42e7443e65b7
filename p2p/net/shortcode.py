"""Short codes: 8 characters that name one advertised game, derived from its host id and game id
(protocol.md, "Short codes").

A short code only *finds* a game among the ones advertised on the LAN; the joiner then checks
that the advertised full ids give the same short code, and TLS pinning checks the host id. The
derivation is a deliberately slow hash (scrypt) so that an attacker on the LAN who grinds game
ids to make its own game collide with someone else's short code pays for every guess.
"""

from __future__ import annotations

import functools
import hashlib

from p2p.errors import LocalProtocolError
from p2p.identity import is_peer_id
from p2p.net.roster import is_game_id

# Crockford's base32: no I, L, O or U, so nothing reads as another character aloud or in print.
ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
SHORT_CODE_CHARS = 8
SHORT_CODE_BITS = 5 * SHORT_CODE_CHARS  # 40
_GROUP = 4  # printed as two groups of four: ABCD-EFGH
# What a typed character may mean: lowercase, and the letters Crockford folds into digits.
_READS_AS = {"O": "0", "I": "1", "L": "1"}
_SALT = b"solstice/short-code/v1"
# scrypt cost: 16 MiB and about 70 ms per code on one core of the development machine; a
# joiner pays it once per advertised game, a collision-grinding attacker once per guess.
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1


class InvalidShortCode(ValueError):
    """What the user typed is not a short code (wrong length or characters)."""


@functools.lru_cache(maxsize=256)
def short_code(host_id: str, game_id: str) -> str:
    """The short code of the game ``game_id`` hosted by ``host_id``: 8 characters, no hyphen."""
    if not is_peer_id(host_id) or not is_game_id(game_id):
        raise LocalProtocolError("a short code is made from a peer id and a game id")
    digest = hashlib.scrypt(
        bytes.fromhex(host_id) + bytes.fromhex(game_id),
        salt=_SALT, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P, dklen=SHORT_CODE_BITS // 8,
        maxmem=64 * 2**20,
    )
    value = int.from_bytes(digest, "big")
    chars = [ALPHABET[(value >> shift) & 31] for shift in range(SHORT_CODE_BITS - 5, -1, -5)]
    return "".join(chars)


def display(code: str) -> str:
    """The printed form: two groups of four (``ABCD-EFGH``), easier to read aloud."""
    return f"{code[:_GROUP]}-{code[_GROUP:]}"


def parse_short_code(text: str) -> str:
    """The canonical short code (8 characters, upper case) of what a user typed: case, white
    space and hyphens are ignored, and O, I, L read as 0, 1, 1."""
    raw = "".join(c for c in text if not c.isspace() and c != "-").upper()
    code = "".join(_READS_AS.get(c, c) for c in raw)
    if len(code) != SHORT_CODE_CHARS:
        raise InvalidShortCode(f"a short code has {SHORT_CODE_CHARS} characters, "
                               f"not {len(code)}")
    bad = sorted(set(code) - set(ALPHABET))
    if bad:
        raise InvalidShortCode(f"a short code cannot contain {''.join(bad)!r}")
    return code


def looks_like_short_code(text: str) -> bool:
    try:
        parse_short_code(text)
    except InvalidShortCode:
        return False
    return True
