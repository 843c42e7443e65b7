"""Suite-wide guard: LAN discovery (mDNS multicast) may use the loopback interface only.

Set at import, before any test or fixture runs, so that in-process code and every
``solstice`` subprocess a test starts (they inherit the environment) are confined to
127.0.0.1; asking discovery for another interface is then an error (p2p.net.discovery).
"""

from __future__ import annotations

import os

import pytest

from p2p.net.discovery import INTERFACE_ENV
from ui.app.pacing import PACE_ENV

LOOPBACK = "127.0.0.1"
os.environ[INTERFACE_ENV] = LOOPBACK
# The UI reveals a round's resolution step by step; tests that are not about it run unpaced.
os.environ[PACE_ENV] = "0"


@pytest.fixture(autouse=True)
def _discovery_on_loopback_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(INTERFACE_ENV, LOOPBACK)  # again, in case a test changed it
