"""Ratings of players from the order they finished in: openskill's Plackett-Luce model (a
Weng-Lin Bayesian rating), which rates free-for-all games of any size, so a four-player game
counts as the finishing order of four players, not as six duels.

A rating is ``mu`` (the skill estimate) and ``sigma`` (its uncertainty); players are ranked by
the conservative ``ordinal`` = mu - 3 sigma, which a player only climbs by winning often *and*
playing enough games. New players start at mu 25, sigma 25/3. Games are rated in the order
they were played.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce

MODEL = "openskill Plackett-Luce"


@dataclass(frozen=True)
class Rating:
    mu: float
    sigma: float
    games: int

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma

    def to_json(self) -> dict[str, Any]:
        return {"mu": round(self.mu, 3), "sigma": round(self.sigma, 3),
                "ordinal": round(self.ordinal, 3), "games": self.games}

    def text(self) -> str:
        return f"{self.mu:.2f} +- {self.sigma:.2f} (mu - 3 sigma {self.ordinal:.2f})"


def finishing_ranks(scores: Sequence[int], winner: int) -> list[int]:
    """Each seat's place (1 first; equal places tie): the winner first (it won any tie on the
    score by the rules' tie-breaks), then the others by final score, equal scores tied."""
    return [1 if seat == winner else
            2 + sum(1 for other, s in enumerate(scores) if other != winner and s > score)
            for seat, score in enumerate(scores)]


def rate(games: Iterable[Sequence[tuple[str, int]]]) -> dict[str, Rating]:
    """The ratings after ``games``, each given as (player, place) per seat, in the order
    played. A player in several seats of one game (a bot filling the free seats) is one
    player: each of its seats is rated from its rating before the game, and its rating after
    is the mean of theirs, so beating copies of itself moves it nowhere."""
    model = PlackettLuce()
    start = model.rating()
    current: dict[str, tuple[float, float]] = {}
    played: dict[str, int] = {}
    for game in games:
        if len({player for player, _ in game}) < 2:
            continue  # nobody to be measured against
        teams = [[model.rating(*current.get(player, (start.mu, start.sigma)))]
                 for player, _ in game]
        after = model.rate(teams, ranks=[float(place) for _, place in game])
        new: dict[str, list[tuple[float, float]]] = {}
        for (player, _), [rating] in zip(game, after, strict=True):
            new.setdefault(player, []).append((rating.mu, rating.sigma))
        for player, seats in new.items():
            current[player] = (sum(mu for mu, _ in seats) / len(seats),
                               sum(sigma for _, sigma in seats) / len(seats))
            played[player] = played.get(player, 0) + 1
    return {player: Rating(mu, sigma, played[player]) for player, (mu, sigma) in current.items()}
