"""The game session: a sans-IO machine that keeps every peer's engine in lockstep.

- ``machine``: ``GameSession``, frames in (``receive``), frames and events out, no sockets and
  no clock; assembled from parts with one job each, which share the fields of ``fields``:
  ``schedule`` (which stage comes next, who contributes), ``contribute`` (our message for a
  stage), ``complete`` (applying a finished stage), ``lockstep`` (stage numbers and state
  hashes), ``inbox`` (receiving, relaying, resync), ``clock`` (deadlines, fed by ``tick``).
- ``stages``, ``bodies``: a stage and the checks on stage message bodies; ``timing``: the
  table's clock; ``secrets``: every secret derived from one master secret.
- ``opening``: opening cards after each engine step (public reveals, sealed keys);
  ``remask``: hands moved to fresh, unlinkable slots.
- ``events``: the typed events out (``SessionEvent``), ``Aborted``, and ``Peer`` / ``Seat``
  (lobby order vs drawn order); ``seatview``: ``SeatView``, what a player is given.
- ``envelope``: signed messages and the per-author message log (equivocation, replays).
- ``blame``: other peers' aborts re-checked, never taken at face value; ``audit``: the
  end-of-game audit of an ``AuditRecord`` with every secret opened.
- ``loopback``: n sessions wired back to back in one process (tests, benchmarks).
"""
