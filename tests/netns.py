"""A simulated LAN of separate hosts for the real-network tests: each host a Linux network
namespace with its own address on 192.0.2.0/24 (TEST-NET-1: nobody is there), their
interfaces TAP devices joined by a userspace switch (tests/netwire.py) that can drop, delay
and reorder frames and cut any link, one way or both. Routers with NAT (nftables) put homes
behind "the internet" for the rendezvous tests.

Needs root, ``ip``, ``/dev/net/tun`` (and ``nft`` for routers): ``unavailable()`` says in
one line what is missing, and the tests skip with it. Everything made is removed on exit,
even when a test fails (namespaces first: their interfaces and processes go with them).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import signal
import struct
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

WIRE = Path(__file__).with_name("netwire.py")
SOLSTICE = Path(sys.executable).parent / "solstice"
_TUNSETIFF = 0x400454CA
_IFF_TAP, _IFF_NO_PI = 0x0002, 0x1000


def unavailable(router: bool = False) -> str | None:
    """Why namespace tests cannot run here (one line), or None when they can."""
    if sys.platform != "linux":
        return "network namespaces are Linux only"
    if os.geteuid() != 0:
        return "network namespace tests need root"
    if shutil.which("ip") is None:
        return "network namespace tests need `ip` (iproute2)"
    if not os.path.exists("/dev/net/tun"):
        return "network namespace tests need /dev/net/tun"
    if router and shutil.which("nft") is None:
        return "router (NAT) tests need `nft` (nftables)"
    probe = f"sol-probe-{uuid.uuid4().hex[:6]}"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode != 0:
        return f"cannot make a network namespace: {made.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


def sh(*args: str) -> str:
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: {done.stderr.strip()}")
    return done.stdout


def _tap(name: str) -> int:
    """A TAP device named ``name`` in this namespace; its file descriptor stays attached
    when the device moves to another namespace."""
    fd = os.open("/dev/net/tun", os.O_RDWR)
    fcntl.ioctl(fd, _TUNSETIFF, struct.pack("16sH", name.encode(), _IFF_TAP | _IFF_NO_PI))
    return fd


@dataclass
class Host:
    name: str
    ns: str
    address: str
    port: int  # its port on the switch
    device: str = "eth0"

    def argv(self, *command: str) -> list[str]:
        return ["ip", "netns", "exec", self.ns, *command]


class Wire:
    """The switch process and its command line."""

    def __init__(self, fds: dict[int, int], seed: int) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(WIRE), *(f"{fd}:{port}" for port, fd in fds.items())],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, pass_fds=list(fds.values()),
            env={**os.environ, "NETWIRE_SEED": str(seed)})
        self._answer()

    def _answer(self) -> str:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline().strip()
        if not line.startswith("ok"):
            raise RuntimeError(f"netwire: {line or 'exited'}")
        return line

    def send(self, command: str) -> str:
        assert self.proc.stdin is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        return self._answer()

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@dataclass
class Segment:
    """One switched Ethernet segment (a LAN, or "the internet") and the hosts on it."""

    prefix: str
    subnet: str  # "192.0.2": hosts get subnet.10, .11, ...
    hosts: list[Host] = field(default_factory=list)
    wire: Wire | None = None

    def _w(self) -> Wire:
        assert self.wire is not None
        return self.wire

    def impair(self, loss: float = 0.0, delay_ms: float = 0.0, jitter_ms: float = 0.0) -> None:
        """Every link of the segment: drop ``loss`` of the frames, delay each by
        ``delay_ms`` +- ``jitter_ms`` (a jitter reorders frames)."""
        self._w().send(f"impair {loss} {delay_ms} {jitter_ms}")

    def block(self, source: Host, target: Host) -> None:
        """Frames from ``source`` no longer reach ``target`` (the other way still works)."""
        self._w().send(f"block {source.port} {target.port}")

    def cut(self, host: Host) -> None:
        """``host`` is cut off from every other host, both ways."""
        for other in self.hosts:
            if other is not host:
                self.block(host, other)
                self.block(other, host)

    def heal(self) -> None:
        self._w().send("heal")

    def stats(self) -> tuple[int, int]:
        _, forwarded, dropped = self._w().send("stats").split()
        return int(forwarded), int(dropped)


class Net:
    """Namespaces, segments and processes made by one test; ``close`` removes them all."""

    def __init__(self, tag: str | None = None) -> None:
        self.tag = tag or uuid.uuid4().hex[:5]
        self.namespaces: list[str] = []
        self.segments: list[Segment] = []
        self.procs: list[subprocess.Popen[bytes]] = []
        self._taps = 0

    def namespace(self, role: str) -> str:
        ns = f"sol-{self.tag}-{role}"
        sh("ip", "netns", "add", ns)
        self.namespaces.append(ns)
        sh("ip", "-n", ns, "link", "set", "lo", "up")
        return ns

    def segment(self, subnet: str, members: list[tuple[str, str, str]], seed: int = 0
                ) -> Segment:
        """A switch joining ``members`` (namespace, device name, address/len) by TAPs."""
        seg = Segment(f"{self.tag}{len(self.segments)}", subnet)
        fds: dict[int, int] = {}
        try:
            for port, (ns, device, cidr) in enumerate(members):
                temp = f"st{self.tag}{self._taps}"
                self._taps += 1
                fds[port] = _tap(temp)
                sh("ip", "link", "set", temp, "netns", ns)
                sh("ip", "-n", ns, "link", "set", temp, "name", device)
                sh("ip", "-n", ns, "addr", "add", cidr, "dev", device)
                sh("ip", "-n", ns, "link", "set", device, "up")
                seg.hosts.append(Host(ns.rsplit("-", 1)[-1], ns, cidr.split("/")[0], port,
                                      device))
            seg.wire = Wire(fds, seed)
        finally:
            for fd in fds.values():
                os.close(fd)  # the switch holds its own copies
        self.segments.append(seg)
        return seg

    def lan(self, hosts: int, subnet: str = "192.0.2", seed: int = 0) -> Segment:
        """``hosts`` hosts h0, h1, ... at subnet.10, .11, ... on one switch, each with a
        default route on it (so a host knows its own LAN address as a real one does)."""
        names = [self.namespace(f"h{i}") for i in range(hosts)]
        seg = self.segment(subnet, [(ns, "eth0", f"{subnet}.{10 + i}/24")
                                    for i, ns in enumerate(names)], seed)
        for host in seg.hosts:
            sh("ip", "-n", host.ns, "route", "add", "default", "dev", "eth0")
        return seg

    def internet(self, kinds: list[str], seed: int = 0) -> tuple[Host, list[Host], Segment]:
        """A "public" host (203.0.113.10: the rendezvous's) and one home per NAT kind in
        ``kinds``: a router on the internet (203.0.113.20, .21, ...) with NAT, and behind it a
        player's host at 198.51.100.2 (every home the same private range, as at home).
        Returns the public host, the players' hosts and the internet segment."""
        public = self.namespace("pub")
        routers = [self.namespace(f"r{i}") for i in range(len(kinds))]
        members = [(public, "eth0", "203.0.113.10/24")]
        members += [(r, "wan0", f"203.0.113.{20 + i}/24") for i, r in enumerate(routers)]
        seg = self.segment("203.0.113", members, seed)
        players = []
        for i, (router, kind) in enumerate(zip(routers, kinds, strict=True)):
            home = self.namespace(f"p{i}")
            inside, outside = f"v{self.tag}{i}a", f"v{self.tag}{i}b"
            sh("ip", "link", "add", inside, "type", "veth", "peer", "name", outside)
            sh("ip", "link", "set", inside, "netns", home)
            sh("ip", "link", "set", outside, "netns", router)
            sh("ip", "-n", home, "link", "set", inside, "name", "eth0")
            sh("ip", "-n", router, "link", "set", outside, "name", "lan0")
            sh("ip", "-n", home, "addr", "add", "198.51.100.2/24", "dev", "eth0")
            sh("ip", "-n", router, "addr", "add", "198.51.100.1/24", "dev", "lan0")
            sh("ip", "-n", home, "link", "set", "eth0", "up")
            sh("ip", "-n", router, "link", "set", "lan0", "up")
            sh("ip", "-n", home, "route", "add", "default", "via", "198.51.100.1")
            sh("ip", "netns", "exec", router, "sh", "-c",
               "echo 1 > /proc/sys/net/ipv4/ip_forward")
            _nat(router, kind)
            players.append(Host(f"p{i}", home, "198.51.100.2", -1))
        return seg.hosts[0], players, seg

    def readdress(self, host: Host, address: str) -> None:
        """The host's address changes (a DHCP renew handing out another one)."""
        sh("ip", "-n", host.ns, "addr", "flush", "dev", host.device)
        sh("ip", "-n", host.ns, "addr", "add", f"{address}/24", "dev", host.device)
        sh("ip", "-n", host.ns, "route", "replace", "default", "dev", host.device)
        host.address = address

    def start(self, host: Host | str, args: list[str], log: Path,
              env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        """``solstice ARGS`` in the host's namespace, its output in ``log``."""
        ns = host.ns if isinstance(host, Host) else host
        with log.open("ab") as handle:
            proc = subprocess.Popen(["ip", "netns", "exec", ns, str(SOLSTICE), *args],
                                    stdout=handle, stderr=subprocess.STDOUT,
                                    env={**_namespace_env(), **(env or {})})
        self.procs.append(proc)
        return proc

    def run(self, host: Host, args: list[str], timeout: float
            ) -> subprocess.CompletedProcess[str]:
        """``solstice ARGS`` in the host's namespace, to its end."""
        return subprocess.run(["ip", "netns", "exec", host.ns, str(SOLSTICE), *args],
                              capture_output=True, text=True, timeout=timeout,
                              env=_namespace_env())

    def close(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
                proc.wait(10)
        for seg in self.segments:
            if seg.wire is not None:
                seg.wire.close()
        for ns in reversed(self.namespaces):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


NAT_KINDS = ("full-cone", "port-restricted", "symmetric")


def _nat(router: str, kind: str) -> None:
    """The router's NAT, one of ``NAT_KINDS``. All masquerade the home behind the router's
    internet address and let in replies. Full cone: anything sent to the router's address
    from anywhere is forwarded home (to the same port: masquerading keeps ports where it
    can). Port-restricted: only replies to what the home sent. Symmetric: as port-restricted,
    and every connection out gets a fresh random port, so the port a rendezvous sees is no
    use to anyone else. Like a home router, none answers what it was not asked (no reset
    for a connection to a port nobody forwards: the SYN is dropped)."""
    if kind not in NAT_KINDS:
        raise ValueError(kind)
    masquerade = "masquerade random" if kind == "symmetric" else "masquerade"
    inbound = 'iifname "wan0" dnat to 198.51.100.2' if kind == "full-cone" else ""
    rules = f"""
table ip nat {{
  chain pre {{
    type nat hook prerouting priority -100;
    {inbound}
  }}
  chain post {{
    type nat hook postrouting priority 100;
    oifname "wan0" {masquerade}
  }}
}}
table ip filter {{
  chain incoming {{
    type filter hook input priority 0;
    iifname "wan0" ct state new drop
  }}
  chain passing {{
    type filter hook forward priority 0; policy drop;
    ct state established,related accept
    iifname "lan0" accept
    ct status dnat accept
  }}
}}
"""
    done = subprocess.run(["ip", "netns", "exec", router, "nft", "-f", "-"], input=rules,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"nft in {router}: {done.stderr.strip()}")


def _namespace_env() -> dict[str, str]:
    """The suite confines discovery to loopback (tests/conftest.py); a namespace's multicast
    stays inside the test's namespaces, so there discovery uses every interface, as a
    player's does."""
    return {k: v for k, v in os.environ.items() if k != "SOLSTICE_DISCOVERY_INTERFACE"}


@contextmanager
def network(tag: str | None = None) -> Iterator[Net]:
    net = Net(tag)
    with ExitStack() as stack:
        stack.callback(net.close)
        yield net


def wait_for(log: Path, text: str, timeout: float, proc: subprocess.Popen[bytes] | None = None
             ) -> str:
    """Wait until ``text`` is in ``log``; return the log. Fails with the log shown."""
    deadline = time.monotonic() + timeout
    content = ""
    while time.monotonic() < deadline:
        content = log.read_text(errors="replace") if log.exists() else ""
        if text in content:
            return content
        if proc is not None and proc.poll() is not None:
            break
        time.sleep(0.05)
    raise AssertionError(f"{text!r} not seen in {log}:\n{content}")
