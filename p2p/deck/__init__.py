"""The mental-poker deck: cards travel encrypted, each slot opened only to who may see it.

- ``deck``: one seat's ``Deck`` state machine (commit, shuffle, re-key, open, batches).
- ``keys``: the keys and permutations a seat derives from its committed deck seed.
- ``messages``: the deck messages' wire forms and their parsers.
- ``audit``: the end-of-game deck audit that names the author of a wrong layer.
- ``loopback``: n decks wired back to back (tests, benchmarks, the reference call order).
"""
