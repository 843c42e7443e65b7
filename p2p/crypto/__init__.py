"""Fair-play primitives: the prime-order group, commitments, shared seeds, sealed boxes.

- ``group``: Ed25519 prime-order group arithmetic (PyNaCl), hash-to-point, card points.
- ``commitments``: commit-reveal hashing with domains and salts.
- ``seeds``: commit-reveal shared randomness between all seats.
- ``sealed``: libsodium sealed boxes that carry one seat's private keys to another.
"""
