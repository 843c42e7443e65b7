"""The bodies of stage messages, one frozen class per shape, each parsed in one place
(``parse``): a field of the wrong shape blames its author. What a body means for the game (is
the deck message the one due, does the opening match its commitment) is checked when the
stage completes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Self

from nacl.public import PublicKey

from engine import Action, MalformedActionError, action_from_dict, action_to_dict
from p2p.crypto.sealed import parse_public_key
from p2p.errors import RemoteProtocolError
from p2p.hexfields import parse_lower_hex


def field_of(seat: int, body: Any, name: str, typ: type) -> Any:
    value = body.get(name) if isinstance(body, dict) else None
    if not isinstance(value, typ):
        raise RemoteProtocolError(seat, f"field {name!r} must be a {typ.__name__}")
    return value


def deck_data(seat: int, data: Any) -> Any:
    """A deck message must at least be an object with a string ``type`` (parse_deck_message
    looks the type up in a dict, so a list or object there raised TypeError)."""
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise RemoteProtocolError(seat, "deck message must be an object with a string 'type'")
    return data


def _hex(seat: int, text: Any, what: str, size: int | None = None) -> bytes:
    if not isinstance(text, str) or (size is not None and len(text) != 2 * size):
        raise RemoteProtocolError(seat, f"{what} must be {size} bytes of hex" if size
                                  else f"{what} must be a hex string")
    value = parse_lower_hex(text, size)
    if value is None:
        raise RemoteProtocolError(seat, f"{what} is not hex")
    return value


@dataclass(frozen=True)
class SetupCommitBody:
    """``setup/commit``: a seed commitment, the author's box public key and its escrow box
    public key (``p2p.session.secrets.escrow_key_of``; needed at a table with escrow); the
    host's also the table's clock and whether the table escrows its secrets (checked when the stage
    completes: only the host's count)."""

    seed: dict[str, Any]
    box: PublicKey
    clock: Any = None
    escrow: bool = False
    escrow_box: PublicKey | None = None  # what escrow shares for the author are sealed to

    @classmethod
    def parse(cls, author: int, raw: Mapping[str, Any]) -> Self:
        escrow = raw.get("escrow", False)
        if type(escrow) is not bool:
            raise RemoteProtocolError(author, "field 'escrow' must be true or false")
        escrow_box = raw.get("escrow_box")
        return cls(field_of(author, raw, "seed", dict), parse_public_key(author, raw.get("box")),
                   raw.get("clock"), escrow,
                   None if escrow_box is None else parse_public_key(author, escrow_box))

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"seed": self.seed, "box": bytes(self.box).hex()}
        if self.escrow_box is not None:
            body["escrow_box"] = bytes(self.escrow_box).hex()
        if self.clock is not None:
            body["clock"] = self.clock
        if self.escrow:
            body["escrow"] = True
        return body


@dataclass(frozen=True)
class SetupRevealBody:
    """``setup/reveal``: the seed reveal, and at a table that escrows its secrets the author's
    escrow (``p2p.session.escrow``: checked when the stage completes)."""

    seed: dict[str, Any]
    escrow: Any = None

    @classmethod
    def parse(cls, author: int, raw: Mapping[str, Any]) -> Self:
        return cls(field_of(author, raw, "seed", dict), raw.get("escrow"))

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"seed": self.seed}
        if self.escrow is not None:
            body["escrow"] = self.escrow
        return body


@dataclass(frozen=True)
class SeedBody:
    """``chance/commit``, ``chance/reveal``: a seed commit or reveal."""

    seed: dict[str, Any]

    @classmethod
    def parse(cls, author: int, raw: Mapping[str, Any]) -> Self:
        return cls(field_of(author, raw, "seed", dict))

    def to_json(self) -> dict[str, Any]:
        return {"seed": self.seed}


@dataclass(frozen=True)
class DeckBody:
    """``deck/commit``, ``deck/step``, ``remask``: one ``deck/*`` message."""

    deck: dict[str, Any]

    @classmethod
    def parse(cls, author: int, raw: Mapping[str, Any]) -> Self:
        return cls(deck_data(author, field_of(author, raw, "deck", dict)))

    def to_json(self) -> dict[str, Any]:
        return {"deck": self.deck}


@dataclass(frozen=True)
class KeysBody:
    """``keys``: the author's public reveals and unmasks, and its keys for single seats, each
    sealed to that seat's box key (by seat, as text)."""

    public: tuple[Any, ...]
    private: Mapping[str, Any]

    @classmethod
    def parse(cls, author: int, raw: Mapping[str, Any]) -> Self:
        return cls(tuple(field_of(author, raw, "public", list)),
                   field_of(author, raw, "private", dict))

    def to_json(self) -> dict[str, Any]:
        return {"public": list(self.public), "private": dict(self.private)}


@dataclass(frozen=True)
class AuditBody:
    """``audit``: the author's ``deck/open-keys`` message and its box secret key (which the
    audit checks against the author's ``setup/commit`` box key)."""

    deck: dict[str, Any]
    box: Any

    @classmethod
    def parse(cls, author: int, raw: Mapping[str, Any]) -> Self:
        return cls(deck_data(author, field_of(author, raw, "deck", dict)), raw.get("box"))

    def to_json(self) -> dict[str, Any]:
        return {"deck": self.deck, "box": self.box}


@dataclass(frozen=True)
class PickCommitBody:
    """``pick/commit``: the commitment to a pick, and the hand's re-mask when the pick round
    has the author re-mask (``remask``, else absent)."""

    commitment: bytes
    remask: dict[str, Any] | None = None

    @classmethod
    def parse(cls, author: int, raw: Mapping[str, Any]) -> Self:
        commitment = _hex(author, raw.get("commitment"), "pick commitment", 32)
        if "remask" not in raw:
            return cls(commitment)
        return cls(commitment, field_of(author, raw, "remask", dict))

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"commitment": self.commitment.hex()}
        if self.remask is not None:
            body["remask"] = self.remask
        return body


@dataclass(frozen=True)
class PickRevealBody:
    """``pick/reveal``: the picked slots and the commitment's salt."""

    slots: tuple[int, ...]
    salt: bytes

    @classmethod
    def parse(cls, author: int, raw: Mapping[str, Any]) -> Self:
        slots = field_of(author, raw, "slots", list)
        salt = _hex(author, field_of(author, raw, "salt", str), "pick salt")
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in slots):
            raise RemoteProtocolError(author, "pick slots must be integers")
        return cls(tuple(slots), salt)

    def to_json(self) -> dict[str, Any]:
        return {"slots": list(self.slots), "salt": self.salt.hex()}


@dataclass(frozen=True)
class ActionBody:
    """``action``: the engine action, as ``action_to_dict`` writes it."""

    action: Action

    @classmethod
    def parse(cls, author: int, raw: Mapping[str, Any]) -> Self:
        try:
            return cls(action_from_dict(raw.get("action")))
        except MalformedActionError as exc:
            raise RemoteProtocolError(author, f"malformed action: {exc}") from None

    def to_json(self) -> dict[str, Any]:
        return {"action": action_to_dict(self.action)}
