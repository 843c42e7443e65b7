"""Ratings of the players of a home's finished LAN games (``solstice ratings --home DIR``).

Only games whose transcript verifies as fair are rated: the verification replays the game
from the signed messages, so the finishing order and who played which faction are the
game's, not what a local file claims. Players are told apart by peer id (a name is whatever a
player typed, and the latest one is shown). A player is marked as a bot where this home knows
it: its own seat when this home played it with ``--bot`` (``note_bot`` records the spec in the
game's folder), and a seat that the ghost bot played on after its player left.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bots.ratings import Rating, finishing_ranks, rate
from p2p.errors import P2PError
from p2p.identity import short_id
from p2p.storage.store import GameStore, StoreError
from p2p.storage.transcript import TranscriptUnreadable, load_transcript, verify_transcript

BOT_NOTE = "played-by.json"  # in a game's folder: this home's seat was played by this bot


def note_bot(home: Path, game_id: str, spec: str) -> None:
    """Record that this home's seat in ``game_id`` was played by the bot ``spec`` (a resumed
    game keeps the first bot noted). Best effort: a game is not lost over a note."""
    path = Path(home) / "games" / game_id / BOT_NOTE
    if path.parent.is_dir() and not path.exists():
        with contextlib.suppress(OSError):
            path.write_text(json.dumps({"bot": spec}) + "\n")


def _noted_bot(folder: Path) -> str | None:
    try:
        bot = json.loads((folder / BOT_NOTE).read_text()).get("bot")
    except (OSError, ValueError, AttributeError):
        return None
    return bot if isinstance(bot, str) else None


@dataclass(frozen=True)
class Seat:
    """One player's part in a rated game."""

    peer: str
    name: str
    faction: str
    score: int
    place: int
    bot: str | None  # what this home knows played the seat ("ghost": after its player left)


@dataclass(frozen=True)
class RatedGame:
    game_id: str
    finished_at: float
    seats: tuple[Seat, ...]


@dataclass
class Player:
    peer: str
    name: str
    rating: Rating
    games: int = 0
    wins: int = 0
    bots: list[str] = field(default_factory=list)  # bots this home knows played for it

    def to_json(self) -> dict[str, Any]:
        return {"peer": self.peer, "name": self.name, "rating": self.rating.to_json(),
                "games": self.games, "wins": self.wins, "bots": self.bots}


@dataclass
class HomeRatings:
    home: Path
    games: list[RatedGame]
    skipped: list[tuple[str, str]]  # (game id, why it is not rated)
    players: list[Player]           # best first (by mu - 3 sigma)

    def to_json(self) -> dict[str, Any]:
        return {"home": str(self.home), "games": [g.game_id for g in self.games],
                "skipped": [{"game": g, "why": why} for g, why in self.skipped],
                "players": [p.to_json() for p in self.players]}


def home_ratings(home: Path, progress: Callable[[str], None] | None = None) -> HomeRatings:
    """Rate the players of every finished, fair game under ``HOME/games``."""
    folders = sorted(p for p in (Path(home) / "games").iterdir() if p.is_dir()) \
        if (Path(home) / "games").is_dir() else []
    games: list[RatedGame] = []
    skipped: list[tuple[str, str]] = []
    for folder in folders:
        if progress is not None:
            progress(folder.name)
        game = _rated_game(Path(home), folder)
        if isinstance(game, str):
            skipped.append((folder.name, game))
        else:
            games.append(game)
    games.sort(key=lambda g: (g.finished_at, g.game_id))
    ratings = rate([(seat.peer, seat.place) for seat in game.seats] for game in games)
    players: dict[str, Player] = {}
    for game in games:
        for seat in game.seats:
            player = players.setdefault(seat.peer, Player(seat.peer, seat.name,
                                                          ratings[seat.peer]))
            player.name = seat.name  # the latest name
            player.games += 1
            player.wins += seat.place == 1
            if seat.bot is not None and seat.bot not in player.bots:
                player.bots.append(seat.bot)
    ranked = sorted(players.values(), key=lambda p: (-p.rating.ordinal, p.peer))
    return HomeRatings(Path(home), games, skipped, ranked)


def _rated_game(home: Path, folder: Path) -> RatedGame | str:
    """The game in ``folder`` as rated, or why it is not rated."""
    store = GameStore(home, folder.name)
    if not store.finished:
        return "not finished"
    try:
        outcome = json.loads(store.finished_path.read_text())
    except (OSError, ValueError) as exc:
        return f"its finished.json is unreadable ({exc})"
    if not isinstance(outcome, dict) or not outcome.get("ok"):
        verdict = outcome.get("verdict") if isinstance(outcome, dict) else None
        return f"it did not end with a result ({verdict or 'no verdict'})"
    path = folder / "transcript.json"
    if not path.is_file():
        return (f"no transcript in its folder (written elsewhere with --transcript?): "
                f"solstice transcript {folder.name} --home {home} rebuilds it")
    try:
        roster, _, _ = load_transcript(path)
        verdict = verify_transcript(path)
    except (TranscriptUnreadable, P2PError) as exc:
        return f"its transcript is unreadable ({exc})"
    if not verdict.ok:
        return f"its transcript does not verify as fair: {verdict.summary}"
    result = verdict.result
    factions = [player["faction"] for player in result["players"]]
    scores = [int(result["scores"][faction]) for faction in factions]
    places = finishing_ranks(scores, factions.index(result["winner"]))
    left = result.get("left", {})
    try:
        me: int | None = store.load_secret()[0]
    except StoreError:
        me = None
    own_bot = _noted_bot(folder)
    seats = []
    for index, (entry, faction) in enumerate(zip(roster.players, factions, strict=True)):
        bot = own_bot if index == me else None
        if faction in left:
            bot = bot or "ghost"
        seats.append(Seat(entry.peer_id, entry.name, faction, scores[index], places[index],
                          bot))
    return RatedGame(folder.name, store.finished_path.stat().st_mtime, tuple(seats))


def shown(player: Player) -> str:
    """A player as the table shows it: name, short peer id, what this home knows of bots."""
    bots = "".join(f" [bot: {bot}]" if bot != "ghost" else " [ghost bot after leaving]"
                   for bot in player.bots)
    return f"{player.name} ({short_id(player.peer)}){bots}"
