"""Checks on the bodies of stage messages: a field of the wrong shape blames its author."""

from __future__ import annotations

from typing import Any

from p2p.errors import RemoteProtocolError


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
