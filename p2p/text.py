"""Peer-supplied text made safe to show on a terminal.

Names, abort reasons and anything else a peer or a transcript file says may hold control
characters and escape sequences (erase a line, move the cursor, print a fake verdict) or
bidirectional overrides. ``printable`` turns every such character into a visible ``\\xNN`` /
``\\uNNNN`` escape, so what is shown is exactly what was sent and nothing more, and cuts very
long text. Every place that shows peer text uses it (headless log, ``verify`` output, the
finished-game summary; the Textual app calls it too).
"""

from __future__ import annotations

import unicodedata

LIMIT = 500

# Unicode categories never shown raw: controls (C0, C1, DEL), format characters (bidi
# overrides, zero-width joiners...), line/paragraph separators, unassigned and private use.
_HIDDEN = frozenset({"Cc", "Cf", "Zl", "Zp", "Cn", "Co", "Cs"})


def printable(text: object, limit: int = LIMIT) -> str:
    """``text`` (any value; non-strings are shown with ``str``) on one line, escaped."""
    value = text if isinstance(text, str) else str(text)
    if len(value) > limit:
        value = value[:limit] + "…"
    out = []
    for ch in value:
        if unicodedata.category(ch) in _HIDDEN:
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(ch)
    return "".join(out)
