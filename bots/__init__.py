"""Bots: the interface (``bots.base``), built-in bots (``random_bot``, ``greedy``, ``ismcts``),
bots in other processes (``process_bot``, protocol.md "Bot protocol"), spec parsing and
discovery (``registry``), the fault guard (``guard``), local matches (``match``),
tournaments (``tournament``) and a bot in a network seat (``netseat``, given a ``SeatView``).
See README, "Writing a bot"."""
