"""The Textual terminal app.

- ``app``: the app; ``screens/``, ``widgets``, ``render``, ``choices``: what it shows and how
  a choice is made; ``wording``: the log in plain words.
- ``bridge``: Textual and trio side by side; ``messages``: what crosses between them;
  ``netgame``: the trio side (a networked game, given our ``SeatView`` and typed events).
- ``replay``, ``replay_data``: the replay viewer of a finished game's transcript.
"""
