"""LAN discovery over mDNS/DNS-SD (python-zeroconf): a host advertises its open lobby as a
``_solstice._tcp`` service, and ``solstice games``/``join SHORT``/the UI browse for them
(protocol.md, "Discovery").

The advertisement (``GameAd``) is plain data with its own encode/decode, so that everything a
peer can put in it is checked here, in one place, before anything is shown or dialed. Discovery
only finds: the joiner still pins the advertised host id in TLS, so a forged advertisement can
at worst point at a game of the forger's own.

Which interfaces multicast goes out on is decided only by ``zeroconf_interfaces``. The
environment variable ``SOLSTICE_DISCOVERY_INTERFACE`` confines discovery to one address (the
test suite sets it to 127.0.0.1): asking for any other one is then an error, not a silent leak.
"""

from __future__ import annotations

import ipaddress
import os
import queue
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import trio
from zeroconf import (
    Error as ZeroconfError,
)
from zeroconf import (
    InterfaceChoice,
    IPVersion,
    ServiceBrowser,
    ServiceInfo,
    ServiceStateChange,
    Zeroconf,
)

from p2p.errors import LocalProtocolError, RemoteProtocolError
from p2p.identity import is_peer_id
from p2p.net.joincode import JoinCode
from p2p.net.lobby import PROTOCOL_VERSION
from p2p.net.node import HostedLobby
from p2p.net.roster import MAX_PLAYERS, MIN_PLAYERS, is_game_id, is_port, valid_name
from p2p.net.shortcode import display, short_code
from p2p.session.timing import DECISION, Timing, parse_clock

SERVICE_TYPE = "_solstice._tcp.local."
INTERFACE_ENV = "SOLSTICE_DISCOVERY_INTERFACE"
_TXT_KEYS = frozenset({"v", "game", "host", "name", "players", "taken"})
# The table's terms (protocol.md, "Discovery"): whether it escrows, and its clock as the six
# whole numbers of the host's clock object, in that order. Optional: an older host has none.
_TERMS_KEYS = frozenset({"escrow", "clock"})
_CLOCK_FIELDS = ("decision", "step", "decision_bank", "decision_increment", "step_bank",
                 "step_increment")
RESOLVE_TIMEOUT_MS = 1500
MAX_TXT_VALUE = 255  # bytes of one TXT value (a DNS TXT string's own limit)


class DiscoveryError(LocalProtocolError):
    """Discovery cannot run as asked (bad interface address, or one outside the confinement)."""


class BadAdvertisement(ValueError):
    """A ``_solstice._tcp`` record that is not a well-formed Solstice game: it is ignored."""


@dataclass(frozen=True)
class GameAd:
    """One advertised game: what the host publishes from the moment its lobby opens until its
    game ends."""

    game_id: str
    host_id: str
    name: str
    players: int
    taken: int
    address: str
    port: int
    version: int = PROTOCOL_VERSION
    escrow: bool | None = None  # the table's terms, if the host said them
    clock: Timing | None = None

    @property
    def free(self) -> int:
        return self.players - self.taken

    @property
    def short(self) -> str:
        return short_code(self.host_id, self.game_id)

    def join_code(self) -> JoinCode:
        return JoinCode(self.address, self.port, self.game_id, self.host_id)

    def txt(self) -> dict[str, str]:
        """The DNS-SD TXT record (the address and port travel in the A/SRV records)."""
        txt = {"v": str(self.version), "game": self.game_id, "host": self.host_id,
               "name": self.name, "players": str(self.players), "taken": str(self.taken)}
        if self.escrow is not None and self.clock is not None:
            clock = self.clock.to_json()
            txt.update(escrow="1" if self.escrow else "0",
                       clock=",".join(str(clock[name]) for name in _CLOCK_FIELDS))
        return txt

    def terms_text(self) -> str:
        """The table's terms in a few words ("?" from a host that did not say them)."""
        if self.escrow is None or self.clock is None:
            return "?"
        bank, increment = self.clock.bank(DECISION)
        clock = f"{bank // 60}m+{increment}s" if bank else f"{self.clock.decision}s"
        return clock + (" escrow" if self.escrow else "")

    def to_json(self) -> dict[str, Any]:
        # The short code as every screen shows it and as users type it: with its hyphen.
        return {"short": display(self.short), "code": self.join_code().encode(),
                "host": self.host_id,
                "game": self.game_id, "name": self.name, "players": self.players,
                "taken": self.taken, "free": self.free, "address": self.address,
                "port": self.port, "version": self.version, "escrow": self.escrow,
                "clock": self.clock.to_json() if self.clock is not None else None}

    @classmethod
    def from_record(cls, txt: Mapping[bytes, bytes | None], addresses: list[str],
                    port: int | None) -> GameAd:
        """Read a peer's record; BadAdvertisement says what is wrong with it."""
        if len(txt) not in (len(_TXT_KEYS), len(_TXT_KEYS | _TERMS_KEYS)) or any(
                len(k) > MAX_TXT_VALUE or len(v or b"") > MAX_TXT_VALUE for k, v in txt.items()):
            raise BadAdvertisement(f"TXT keys must be exactly {sorted(_TXT_KEYS)} (and "
                                   f"{sorted(_TERMS_KEYS)}), each value at most "
                                   f"{MAX_TXT_VALUE} bytes")
        try:
            fields = {k.decode("utf-8"): (v or b"").decode("utf-8") for k, v in txt.items()}
        except UnicodeDecodeError as exc:
            raise BadAdvertisement("TXT record is not UTF-8") from exc
        if set(fields) not in (_TXT_KEYS, _TXT_KEYS | _TERMS_KEYS):
            raise BadAdvertisement(f"TXT keys must be exactly {sorted(_TXT_KEYS)} (and "
                                   f"{sorted(_TERMS_KEYS)})")
        escrow, clock = _terms(fields)
        numbers = {}
        for key in ("v", "players", "taken"):
            if not fields[key].isdigit() or len(fields[key]) > 3:
                raise BadAdvertisement(f"{key} is not a small number")
            numbers[key] = int(fields[key])
        if numbers["v"] != PROTOCOL_VERSION:
            raise BadAdvertisement(f"protocol version {numbers['v']} is not ours")
        if not is_game_id(fields["game"]) or not is_peer_id(fields["host"]):
            raise BadAdvertisement("bad game id or host id")
        if not valid_name(fields["name"]):
            raise BadAdvertisement("bad host name")
        players, taken = numbers["players"], numbers["taken"]
        if not MIN_PLAYERS <= players <= MAX_PLAYERS or not 1 <= taken <= players:
            raise BadAdvertisement(f"{taken} of {players} seats taken is impossible")
        if not is_port(port):
            raise BadAdvertisement("bad port")
        address = _usable_address(addresses)
        return cls(fields["game"], fields["host"], fields["name"], players, taken, address,
                   port, numbers["v"], escrow, clock)


def _terms(fields: Mapping[str, str]) -> tuple[bool | None, Timing | None]:
    """The advertised table's terms (None, None: not said)."""
    if "escrow" not in fields:
        return None, None
    if fields["escrow"] not in ("0", "1"):
        raise BadAdvertisement("escrow is not 0 or 1")
    numbers = fields["clock"].split(",")
    if len(numbers) != len(_CLOCK_FIELDS) or not all(
            n.isdigit() and len(n) <= 5 for n in numbers):
        raise BadAdvertisement("clock is not six whole numbers")
    try:
        clock = parse_clock(0, dict(zip(_CLOCK_FIELDS, map(int, numbers), strict=True)),
                            Timing())
    except RemoteProtocolError as exc:
        raise BadAdvertisement(exc.reason) from None
    return fields["escrow"] == "1", clock


def _usable_address(addresses: list[str]) -> str:
    """The address to dial: the first IPv4 one (a join code holds one address), else IPv6."""
    parsed = []
    for text in addresses:
        try:
            parsed.append(ipaddress.ip_address(text))
        except ValueError:
            continue
    usable = [a for a in parsed if not a.is_multicast and not a.is_unspecified]
    if not usable:
        raise BadAdvertisement("no usable address")
    usable.sort(key=lambda a: a.version)
    return str(usable[0])


# --------------------------------------------------------------------------- interfaces


def zeroconf_interfaces(interface: str | None) -> tuple[InterfaceChoice | list[str], IPVersion]:
    """The zeroconf interface list for ``--discovery-interface`` (None: all LAN interfaces,
    unless the environment confines discovery to one address)."""
    confined = os.environ.get(INTERFACE_ENV) or None
    if confined is not None and interface not in (None, confined):
        raise DiscoveryError(f"discovery is confined to {confined} by {INTERFACE_ENV}; "
                             f"it may not use {interface}")
    chosen = interface or confined
    if chosen is None:
        return InterfaceChoice.All, IPVersion.V4Only
    try:
        ip = ipaddress.ip_address(chosen)
    except ValueError:
        raise DiscoveryError(f"--discovery-interface wants an IP address, not {chosen!r}") from None
    return [str(ip)], IPVersion.V4Only if ip.version == 4 else IPVersion.V6Only


def open_zeroconf(interface: str | None) -> Zeroconf:
    """The one place a Zeroconf (and so a multicast socket) is made."""
    interfaces, ip_version = zeroconf_interfaces(interface)
    try:
        return Zeroconf(interfaces=interfaces, ip_version=ip_version)
    except OSError as exc:
        raise DiscoveryError(f"cannot start discovery on {interface or 'the LAN'}: {exc}") \
            from exc


# --------------------------------------------------------------------------- advertising


def _service_info(ad: GameAd, name: str | None = None) -> ServiceInfo:
    instance = f"solstice-{ad.short.lower()}"
    return ServiceInfo(
        SERVICE_TYPE, name or f"{instance}.{SERVICE_TYPE}", port=ad.port, properties=ad.txt(),
        server=f"{instance}-{ad.game_id[:8]}.local.",
        addresses=[ipaddress.ip_address(ad.address).packed],
    )


class Advertiser:
    """Publishes one game while its lobby is open. Blocking calls: run them in a thread."""

    def __init__(self, ad: GameAd, interface: str | None) -> None:
        self._zc = open_zeroconf(interface)
        self._info = _service_info(ad)
        self.ad = ad

    def register(self) -> None:
        self._zc.register_service(self._info, allow_name_change=True)

    def update(self, ad: GameAd) -> None:
        """Publish new seat counts (same service name: only the TXT record changes)."""
        self.ad = ad
        # The registered name (register may have renamed it on a clash), with the new TXT.
        self._info = _service_info(ad, self._info.name)
        self._zc.update_service(self._info)

    def close(self) -> None:
        """Withdraw the advertisement (goodbye packets) and close the sockets."""
        try:
            self._zc.unregister_service(self._info)
        finally:
            self._zc.close()


# --------------------------------------------------------------------------- browsing


class Browser:
    """Watches the LAN for advertised games; ``poll`` resolves what changed. Blocking calls:
    run them in a thread."""

    def __init__(self, interface: str | None) -> None:
        self._zc = open_zeroconf(interface)
        self._changes: queue.SimpleQueue[tuple[str, ServiceStateChange]] = queue.SimpleQueue()
        self._browser = ServiceBrowser(self._zc, SERVICE_TYPE, handlers=[self._on_change])
        self.games: dict[str, GameAd] = {}  # by service name
        self.ignored: dict[str, str] = {}  # service name -> why its record was not usable

    def _on_change(self, zeroconf: Zeroconf, service_type: str, name: str,
                   state_change: ServiceStateChange) -> None:
        self._changes.put((name, state_change))

    def poll(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for one change and apply it; True if there was one."""
        try:
            name, change = self._changes.get(timeout=max(timeout, 0.0))
        except queue.Empty:
            return False
        if change is ServiceStateChange.Removed:
            self.games.pop(name, None)
            return True
        info = ServiceInfo(SERVICE_TYPE, name)
        if not info.request(self._zc, RESOLVE_TIMEOUT_MS):
            self.ignored[name] = "did not answer"
            return True
        try:
            self.games[name] = GameAd.from_record(info.properties, info.parsed_addresses(),
                                                  info.port)
            self.ignored.pop(name, None)
        except BadAdvertisement as exc:
            self.games.pop(name, None)
            self.ignored[name] = str(exc)
        return True

    def close(self) -> None:
        self._browser.cancel()
        self._zc.close()


def browse(interface: str | None, wait: float,
           done: Callable[[list[GameAd]], bool] | None = None) -> list[GameAd]:
    """The games advertised on the LAN, gathered for ``wait`` seconds (or until ``done`` says
    enough), sorted by host name."""
    browser = Browser(interface)
    try:
        deadline = time.monotonic() + wait
        while (left := deadline - time.monotonic()) > 0:
            browser.poll(min(left, 0.2))
            if done is not None and done(list(browser.games.values())):
                break
        games = list(browser.games.values())
    finally:
        browser.close()
    return sorted(games, key=lambda ad: (ad.name, ad.short))


class ShortCodeNotFound(LocalProtocolError):
    """No game advertised on the LAN has the short code the user typed."""


class ShortCodeAmbiguous(LocalProtocolError):
    """More than one advertised game has the short code: someone may be imitating a game."""


def find_short(code: str, interface: str | None, wait: float,
               settle: float = 1.0) -> GameAd:
    """The advertised game whose full ids give ``code`` (canonical form). Browsing goes on for
    ``settle`` seconds after the first match, so that an imitation is seen and refused."""
    first_match: list[float] = []

    def done(games: list[GameAd]) -> bool:
        if any(ad.short == code for ad in games) and not first_match:
            first_match.append(time.monotonic())
        return bool(first_match) and time.monotonic() - first_match[0] >= settle

    games = browse(interface, wait, done)
    # Keyed by where it is too: a copy of the real record (the same ids) that points at
    # another address is an imitation as much as a record with other ids is.
    matches = {(ad.host_id, ad.game_id, ad.address, ad.port): ad for ad in games
               if ad.short == code}
    if not matches:
        raise ShortCodeNotFound(f"no game with short code {display(code)} was found on the "
                                f"LAN in {wait:g} s (is the host running, on this network?)")
    if len(matches) > 1:
        raise ShortCodeAmbiguous(f"{len(matches)} games on the LAN claim short code "
                                 f"{display(code)}; someone may be imitating the game: use "
                                 "the long join code")
    return next(iter(matches.values()))


POLL_LOBBY_SECONDS = 0.25


def lobby_ad(lobby: HostedLobby, name: str) -> GameAd:
    code = lobby.code
    terms = lobby.lobby.terms() if callable(lobby.lobby.terms) else lobby.lobby.terms
    escrow, clock = (terms.escrow, terms.timing) if terms is not None else (None, None)
    if lobby.roster is not None:  # playing: no free seat (a rematch may start with fewer)
        seated = len(lobby.roster.players)
        return GameAd(code.game_id, code.host_id, name, seated, seated, code.address,
                      code.port, PROTOCOL_VERSION, escrow, clock)
    return GameAd(code.game_id, code.host_id, name, lobby.lobby.players, len(lobby.joined()),
                  code.address, code.port, PROTOCOL_VERSION, escrow, clock)


async def advertise_lobby(lobby: HostedLobby, name: str, interface: str | None,
                          on_note: Callable[[str], None] = lambda text: None) -> None:
    """Advertise ``lobby``'s game until this task is cancelled (when the host's game ends),
    keeping the seat counts current; a full game stays listed, for spectators. The joins are
    polled: the lobby has no hook, and a quarter second of staleness in a listing does not
    matter. Discovery is a convenience: if it cannot start (no multicast here), ``on_note``
    says so and the game goes on with its long join code."""
    ad = lobby_ad(lobby, name)
    try:
        advertiser = await trio.to_thread.run_sync(Advertiser, ad, interface)
    except DiscoveryError as exc:
        on_note(f"not advertised on the LAN ({exc}); give the others the long join code")
        return
    try:
        await trio.to_thread.run_sync(advertiser.register)
        while True:
            started = lobby.roster is not None
            current = lobby_ad(lobby, name)
            if current != advertiser.ad:
                await trio.to_thread.run_sync(advertiser.update, current)
            if started:
                break
            await trio.sleep(POLL_LOBBY_SECONDS)
        await trio.sleep_forever()
    except (ZeroconfError, OSError) as exc:
        on_note(f"the LAN advertisement failed ({exc}); give the others the long join code")
    finally:
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(advertiser.close)
