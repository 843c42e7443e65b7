"""The game session: a sans-IO machine that keeps every peer's engine in lockstep.

- ``envelope``: signed messages and the per-author message log (equivocation, replays).
- ``machine``: ``GameSession``, frames in, frames and events out, no sockets and no clock.
- ``audit``: the end-of-game audit of the whole game with every secret opened.
- ``loopback``: n sessions wired back to back in one process (tests, benchmarks).
"""
