"""The peer-to-peer layer: fair hidden play with no server and nobody trusted.

Layers, lowest first (each imports only from those above it in this list, except that
``net/`` and ``storage/`` sit side by side on top; ``tests/test_layers.py`` checks it):

- ``errors``: every error class, split by blame (local misuse, remote fault, proven cheat);
  ``text``: peer text made safe to print; ``durable``: writes that survive a crash;
  ``wire``: the one bounded parser of JSON from outside; ``hexfields``: the one check of a
  received hex field (lowercase, exact length).
- ``identity``: a peer's long-lived Ed25519 identity and its home directory.
- ``crypto/``: group arithmetic, commitments, shared seeds, sealed boxes.
- ``deck/``: the mental-poker deck, its messages, keys and audit.
- ``session/``: signed messages and the sans-IO game session (stages, typed events, the
  seat view, blame, audit).
- ``net/``: trio transport, lobby, mesh and the runner that drives a session over it.
- ``storage/``: the per-game store and transcripts (``solstice verify``); it reads the
  roster and chat formats of ``net/``, which writes through it.
"""
