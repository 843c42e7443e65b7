"""Networking over trio: everything that touches a socket lives here.

- ``framing``, ``tls``, ``transport``: length-prefixed frames over pinned TLS 1.3.
- ``joincode``, ``roster``, ``lobby``: join codes, the signed roster, and the control
  messages of the lobby and the mesh handshake (sans-IO).
- ``mesh``: the full mesh of roster peers with keepalives and reconnects; ``node``: a peer's
  listener, the lobby it hosts or joins, the mesh it forms, stored rosters.
- ``runner``: drives one ``GameSession`` over the mesh (its player is a ``Chooser`` given a
  ``SeatView``); ``notices``: the typed events it adds to the session's (``GameEvent``);
  ``resync``: fetching what a restarted peer lacks; ``games``: host, join or resume a game.
- ``shortcode``, ``discovery``: 8-character short codes and the mDNS advertisement of a
  hosted game (python-zeroconf); ``observers``: the host's spectator links; ``watch``: a
  spectator; ``rematch``: the same table again.
- ``chat``, ``chatlink``: the table chat (signed lines outside the game's lockstep) and the
  player's link to it; ``lobbychat``: the lobby's chat (signed lines the host relays).
"""
