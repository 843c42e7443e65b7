"""The mental-poker deck: cards travel encrypted, each slot opened only to who may see it.

- ``deck``: one seat's ``Deck`` state machine (commit, receive, the slot bookkeeping), made of
  ``shuffling`` (batches, each seat's shuffle and re-key layer), ``opening`` (slot keys
  disclosed or revealed, a slot decrypted), ``blind`` (the blinding layers of a reshuffle)
  and ``remasking`` (re-masked slots; the scheme is in ``remask``); ``batches``: a batch and
  what it records.
- ``keys``: the keys and permutations a seat derives from its committed deck seed.
- ``messages``: the deck messages' wire forms and their parsers.
- ``audit``: the end-of-game deck audit that names the author of a wrong layer.
- ``loopback``: n decks wired back to back (tests, benchmarks, the reference call order).
"""
