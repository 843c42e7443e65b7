"""What a peer keeps on disk.

- ``store``: the per-game store (secret, message log, finished marker); ``chatlog``: its
  chat lines; ``paths``: checks of local paths made before a game starts, and where a
  transcript goes; ``recovery``: a peer whose records of a game were lost.
- ``transcript``: writing a finished game's transcript and verifying one offline
  (``solstice verify``); ``rebuild``: a transcript written again from the stored log.
"""
