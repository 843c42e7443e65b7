"""What a peer keeps on disk: the per-game store (secret, message log), its chat lines
(``chatlog``) and transcripts."""
