"""Short codes, the game advertisement record and the interface rules, without any network."""

from __future__ import annotations

import os

import pytest
from zeroconf import InterfaceChoice, IPVersion

from p2p.identity import Identity
from p2p.net.discovery import (
    INTERFACE_ENV,
    BadAdvertisement,
    DiscoveryError,
    GameAd,
    zeroconf_interfaces,
)
from p2p.net.joincode import JoinCode
from p2p.net.roster import new_game_id
from p2p.net.shortcode import (
    ALPHABET,
    SHORT_CODE_CHARS,
    InvalidShortCode,
    display,
    looks_like_short_code,
    parse_short_code,
    short_code,
)

HOST = Identity.generate().peer_id
GAME = new_game_id()


def _ad(**changes: object) -> GameAd:
    fields = {"game_id": GAME, "host_id": HOST, "name": "alice", "players": 3, "taken": 1,
              "address": "127.0.0.1", "port": 4242}
    fields.update(changes)
    return GameAd(**fields)  # type: ignore[arg-type]


def _record(ad: GameAd, **txt: str | None) -> dict[bytes, bytes | None]:
    fields: dict[str, str | None] = {**ad.txt(), **txt}
    return {k.encode(): (v.encode() if v is not None else None)
            for k, v in fields.items() if v != "<drop>"}


# --------------------------------------------------------------------------- short codes


def test_the_test_suite_confines_discovery_to_loopback() -> None:
    assert os.environ[INTERFACE_ENV] == "127.0.0.1"


def test_a_short_code_is_eight_unambiguous_characters() -> None:
    code = short_code(HOST, GAME)
    assert len(code) == SHORT_CODE_CHARS == 8
    assert set(code) <= set(ALPHABET)
    assert not set("ILOU") & set(ALPHABET)


def test_a_short_code_depends_on_both_ids() -> None:
    other_host = Identity.generate().peer_id
    codes = {short_code(HOST, GAME), short_code(other_host, GAME),
             short_code(HOST, new_game_id())}
    assert len(codes) == 3
    assert short_code(HOST, GAME) == short_code(HOST, GAME)


def test_a_short_code_is_read_as_typed_or_spoken() -> None:
    code = short_code(HOST, GAME)
    assert parse_short_code(display(code)) == code
    assert parse_short_code(" " + display(code).lower() + " ") == code
    assert parse_short_code("oi1l-0abc") == "0111" + "0ABC"


@pytest.mark.parametrize("text", ["ABCD-EFG", "ABCD-EFGHJ", "ABCD-EFGU", "ABCD-EF*H", ""])
def test_a_malformed_short_code_is_refused(text: str) -> None:
    with pytest.raises(InvalidShortCode):
        parse_short_code(text)
    assert not looks_like_short_code(text)


# --------------------------------------------------------------------------- advertisement


def test_an_advertisement_reads_back_as_it_was_published() -> None:
    ad = _ad()
    assert GameAd.from_record(_record(ad), ["127.0.0.1"], 4242) == ad


def test_an_advertisement_lists_what_games_json_promises() -> None:
    ad = _ad(taken=2)
    obj = ad.to_json()
    assert {"short", "code", "host", "name", "players", "free"} <= set(obj)
    assert obj["free"] == 1 and obj["short"] == display(short_code(HOST, GAME))
    assert "-" in obj["short"]  # as the screens show it and users type it
    assert JoinCode.parse(obj["code"]) == JoinCode("127.0.0.1", 4242, GAME, HOST)


def test_an_advertisement_prefers_an_ipv4_address_for_the_join_code() -> None:
    ad = GameAd.from_record(_record(_ad()), ["fe80::1", "192.168.1.7"], 4242)
    assert ad.address == "192.168.1.7"


@pytest.mark.parametrize(("txt", "why"), [
    ({"v": "2"}, "version"),
    ({"v": "x"}, "not a small number"),
    ({"host": "00" * 31}, "host id"),
    ({"game": "zz" * 16}, "game id"),
    ({"name": "evil\x1b[2J"}, "name"),
    ({"name": ""}, "name"),
    ({"players": "5"}, "impossible"),
    ({"taken": "4"}, "impossible"),
    ({"taken": "0"}, "impossible"),
    ({"taken": "<drop>"}, "keys"),
    ({"extra": "1"}, "keys"),
])
def test_a_malformed_advertisement_is_refused(txt: dict[str, str], why: str) -> None:
    with pytest.raises(BadAdvertisement, match=why):
        GameAd.from_record(_record(_ad(), **txt), ["127.0.0.1"], 4242)


def test_an_advertisement_without_a_usable_address_or_port_is_refused() -> None:
    with pytest.raises(BadAdvertisement, match="address"):
        GameAd.from_record(_record(_ad()), ["224.0.0.251", "not an address"], 4242)
    with pytest.raises(BadAdvertisement, match="port"):
        GameAd.from_record(_record(_ad()), ["127.0.0.1"], 0)


def test_an_advertisement_that_is_not_utf8_is_refused() -> None:
    record = _record(_ad())
    record[b"name"] = b"\xff\xfe"
    with pytest.raises(BadAdvertisement, match="UTF-8"):
        GameAd.from_record(record, ["127.0.0.1"], 4242)


# --------------------------------------------------------------------------- interfaces


def test_confined_discovery_uses_only_the_confining_address() -> None:
    assert zeroconf_interfaces(None) == (["127.0.0.1"], IPVersion.V4Only)
    assert zeroconf_interfaces("127.0.0.1") == (["127.0.0.1"], IPVersion.V4Only)


def test_confined_discovery_refuses_any_other_interface() -> None:
    with pytest.raises(DiscoveryError, match=r"confined to 127\.0\.0\.1"):
        zeroconf_interfaces("192.168.1.7")


def test_unconfined_discovery_defaults_to_all_lan_interfaces(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(INTERFACE_ENV)
    assert zeroconf_interfaces(None) == (InterfaceChoice.All, IPVersion.V4Only)
    assert zeroconf_interfaces("::1") == (["::1"], IPVersion.V6Only)


def test_a_discovery_interface_must_be_an_address(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(INTERFACE_ENV)
    with pytest.raises(DiscoveryError, match="wants an IP address"):
        zeroconf_interfaces("eth0")


def test_watch_and_join_explain_that_a_short_code_needs_discovery() -> None:
    from typer.testing import CliRunner

    from ui.cli import app

    for command in ("watch", "join"):
        result = CliRunner().invoke(app, [command, "ABCD-EFGH", "--no-discovery"])
        assert result.exit_code == 2
        assert "--no-discovery turns off; use the long join code" in result.output
        assert "Traceback" not in result.output
