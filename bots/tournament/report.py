"""Tournament results, computed from game records only: win rates with Wilson intervals per bot,
per seat and per faction, mean scores, ratings (``bots.ratings``), and a comparison paired by
deal."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from bots.faults import REPLACED_KINDS, Fault
from bots.ratings import MODEL, Rating, finishing_ranks, rate
from bots.tournament.records import GameRecord
from bots.tournament.schedule import Settings, deal_of

Z95 = 1.959963984540054  # standard normal quantile for a two-sided 95 % interval


def wilson_interval(wins: int, games: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (better than p +- z*se near 0 and 1)."""
    if games <= 0:
        return (0.0, 1.0)
    p = wins / games
    denom = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class Tally:
    """Wins out of games (a seat's or a faction's)."""

    games: int = 0
    wins: int = 0

    def add(self, won: bool) -> None:
        self.games += 1
        self.wins += won

    def to_json(self) -> dict[str, Any]:
        lo, hi = wilson_interval(self.wins, self.games)
        return {"games": self.games, "wins": self.wins,
                "win_rate": round(self.wins / self.games, 4) if self.games else 0.0,
                "ci95": [round(lo, 4), round(hi, 4)]}


@dataclass
class BotStats:
    wins: int = 0
    seat_games: int = 0      # seats played (a bot filling 3 seats plays 3 per game)
    score_total: int = 0
    seats: list[int] = field(default_factory=list)  # games played in each seat
    by_seat: list[Tally] = field(default_factory=list)
    by_faction: dict[str, Tally] = field(default_factory=dict)
    decisions: int = 0
    think_seconds: float = 0.0
    cpu_seconds: float = 0.0   # over the decisions of records that kept CPU time
    cpu_decisions: int = 0
    replaced: Counter[str] = field(default_factory=Counter)  # decisions lost, by fault kind

    @property
    def seconds_per_decision(self) -> float:
        return self.think_seconds / self.decisions if self.decisions else 0.0

    @property
    def cpu_per_decision(self) -> float | None:
        """CPU seconds of the playing thread per decision: an in-process bot's thinking, which
        load does not stretch; None when some records did not keep it."""
        if not self.decisions or self.cpu_decisions < self.decisions:
            return None
        return self.cpu_seconds / self.cpu_decisions


@dataclass(frozen=True)
class Paired:
    """Bot ``a`` against bot ``b`` over the deals played from every seat: on how many deals
    each had the higher per-seat win rate, and the mean per-seat score difference a - b."""

    a: str
    b: str
    deals: int
    a_better: int
    b_better: int
    even: int
    score_diff: float
    score_diff_ci95: tuple[float, float] | None   # None with fewer than two deals

    def to_json(self) -> dict[str, Any]:
        ci = self.score_diff_ci95
        return {"bots": [self.a, self.b], "deals": self.deals,
                "better": {self.a: self.a_better, self.b: self.b_better}, "even": self.even,
                "score_diff": round(self.score_diff, 3),
                "score_diff_ci95": [round(ci[0], 3), round(ci[1], 3)] if ci else None}


@dataclass
class TournamentResult:
    settings: Settings
    records: list[GameRecord]   # sorted by game number

    @property
    def games(self) -> int:
        return len(self.records)

    @property
    def players(self) -> int:
        return self.settings.players

    @property
    def bots(self) -> list[str]:
        """The different bots, in lineup order (a lineup written out seat by seat, as with
        ``--fill``, names a bot once per seat)."""
        return list(dict.fromkeys(self.settings.bots))

    @property
    def faults(self) -> list[Fault]:
        return [f for record in self.records for f in record.faults]

    def fault_counts(self) -> dict[str, int]:
        """Faults per bot spec (each fault is one seat's; most cost a random move)."""
        counts = dict.fromkeys(self.bots, 0)
        for record in self.records:
            for fault in record.faults:
                if fault.seat is not None:
                    counts[record.seats[fault.seat]] += 1
        return counts

    def stats(self) -> dict[str, BotStats]:
        out = {bot: BotStats(seats=[0] * self.players,
                             by_seat=[Tally() for _ in range(self.players)])
               for bot in self.bots}
        for record in self.records:
            for seat, bot in enumerate(record.seats):
                s = out[bot]
                won = record.winner == seat
                s.seat_games += 1
                s.score_total += record.scores[seat]
                s.seats[seat] += 1
                s.wins += won
                s.by_seat[seat].add(won)
                s.by_faction.setdefault(record.factions[seat], Tally()).add(won)
                s.decisions += record.decisions[seat]
                s.think_seconds += record.decisions[seat] * record.seconds_per_decision[seat]
                if record.cpu_per_decision:
                    s.cpu_seconds += record.decisions[seat] * record.cpu_per_decision[seat]
                    s.cpu_decisions += record.decisions[seat]
            for fault in record.faults:
                if fault.kind in REPLACED_KINDS and fault.seat is not None:
                    out[record.seats[fault.seat]].replaced[fault.kind] += 1
        return out

    def complete_deals(self) -> list[list[GameRecord]]:
        """The deals whose every rotation was played, each as its games."""
        deals: dict[int, list[GameRecord]] = defaultdict(list)
        for record in self.records:
            deals[deal_of(record.game, self.players)].append(record)
        return [games for _, games in sorted(deals.items()) if len(games) == self.players]

    def ratings(self) -> dict[str, Rating]:
        """Each bot's rating from every game's finishing order, games in their order."""
        return rate(list(zip(record.seats, finishing_ranks(record.scores, record.winner),
                             strict=True)) for record in self.records)

    def paired(self) -> list[Paired]:
        deals = self.complete_deals()
        return [_pair(a, b, deals) for a, b in combinations(self.bots, 2)]

    def to_json(self) -> dict[str, Any]:
        """The results and every game's reproducible outcome (no wall-clock times, so the same
        settings give the same JSON wherever the games ran)."""
        results = {}
        ratings = self.ratings()
        for bot, s in self.stats().items():
            lo, hi = wilson_interval(s.wins, self.games)
            results[bot] = {
                "wins": s.wins,
                "win_rate": round(s.wins / self.games, 4) if self.games else 0.0,
                "ci95": [round(lo, 4), round(hi, 4)],
                "mean_score": round(s.score_total / s.seat_games, 3) if s.seat_games else 0.0,
                "by_seat": [t.to_json() for t in s.by_seat],
                "by_faction": {f: s.by_faction[f].to_json() for f in sorted(s.by_faction)},
                "replaced": sum(s.replaced.values()),
                "rating": ratings[bot].to_json() if bot in ratings else None,
            }
        for bot, count in self.fault_counts().items():
            results[bot]["faults"] = count
        return {"games": self.games, "players": self.players, "seed": self.settings.seed,
                "bots": list(self.settings.bots), "results": results,
                "paired": [p.to_json() for p in self.paired()],
                "records": [r.outcome() for r in self.records]}


def _per_seat(games: Sequence[GameRecord], bot: str) -> tuple[float, float]:
    """(win rate, mean score) per seat the bot played in these games."""
    seats = wins = score = 0
    for record in games:
        for seat, who in enumerate(record.seats):
            if who == bot:
                seats += 1
                wins += record.winner == seat
                score += record.scores[seat]
    return wins / seats, score / seats


def _pair(a: str, b: str, deals: Sequence[Sequence[GameRecord]]) -> Paired:
    a_better = b_better = even = 0
    diffs = []
    for games in deals:
        a_rate, a_score = _per_seat(games, a)
        b_rate, b_score = _per_seat(games, b)
        a_better += a_rate > b_rate
        b_better += b_rate > a_rate
        even += a_rate == b_rate
        diffs.append(a_score - b_score)
    n = len(diffs)
    mean = sum(diffs) / n if n else 0.0
    ci = None
    if n >= 2:
        sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1))
        half = Z95 * sd / math.sqrt(n)
        ci = (mean - half, mean + half)
    return Paired(a, b, n, a_better, b_better, even, mean, ci)


def text_report(result: TournamentResult) -> list[str]:
    """The human-readable table, one line per entry."""
    games = result.games
    lines = []
    ratings = result.ratings()
    for bot, s in result.stats().items():
        lo, hi = wilson_interval(s.wins, games)
        lines.append(f"  {bot:28} wins {s.wins:5} ({_pct(s.wins, games)}, 95% CI "
                     f"{100 * lo:5.1f}-{100 * hi:5.1f}%)  mean score "
                     f"{s.score_total / max(1, s.seat_games):6.2f}  "
                     f"{1000 * s.seconds_per_decision:.1f} ms/decision{_cpu(bot, s)}"
                     f"{_replaced(s)}")
        if bot in ratings:
            lines.append(f"      rating:     {ratings[bot].text()}")
        lines.append("      by seat:    " + "  ".join(
            f"{seat}: {_tally(t)}" for seat, t in enumerate(s.by_seat) if t.games))
        lines.append("      by faction: " + "  ".join(
            f"{f}: {_tally(s.by_faction[f])}" for f in sorted(s.by_faction)))
    if ratings:
        lines.append(f"  ratings: {MODEL}, from each game's finishing order (mu +- sigma; "
                     "ranked by mu - 3 sigma)")
    pairs = result.paired()
    if pairs and pairs[0].deals:
        lines.append(f"  paired by deal ({pairs[0].deals} deals played from every seat):")
    for p in pairs:
        if not p.deals:
            continue
        ci = (f" (95% CI {p.score_diff_ci95[0]:+.2f} to {p.score_diff_ci95[1]:+.2f})"
              if p.score_diff_ci95 else "")
        lines.append(f"    {p.a} vs {p.b}: {p.a} better on {p.a_better}, {p.b} on "
                     f"{p.b_better}, even {p.even}; score per seat {p.score_diff:+.2f}{ci}")
    if result.faults:
        counts = ", ".join(f"{bot} {n}" for bot, n in result.fault_counts().items() if n)
        lines.append(f"  {len(result.faults)} bot fault(s) ({counts}); first: "
                     f"{_printable(str(result.faults[0]))}")
    return lines


def thinking_cpu(bot: str, s: BotStats) -> float | None:
    """``bot``'s CPU seconds per decision when they are its thinking: an in-process bot's
    (a ``cmd:`` program thinks in its own process, where the tournament's thread only waits),
    None otherwise or when some records did not keep them."""
    return None if bot.startswith("cmd:") else s.cpu_per_decision


def _cpu(bot: str, s: BotStats) -> str:
    """An in-process bot's CPU time per decision beside the wall time."""
    cpu = thinking_cpu(bot, s)
    return "" if cpu is None else f", {1000 * cpu:.1f} ms CPU"


def _replaced(s: BotStats) -> str:
    """How many of the bot's decisions a fault cost it (the time per decision counts them
    too: a bot that timed out on every one is no fast bot)."""
    lost = sum(s.replaced.values())
    if not lost:
        return ""
    kinds = ", ".join(f"{kind} {n}" for kind, n in s.replaced.most_common())
    return f" ({lost} of {s.decisions} decisions played for it by random moves: {kinds})"


def _printable(text: str, limit: int = 300) -> str:
    """A bot's words (in a fault) with control characters replaced: they must not drive the
    terminal."""
    return "".join(c if c.isprintable() else "?" for c in text[:limit])


def _pct(wins: int, games: int) -> str:
    return f"{100 * wins / games:5.1f}%" if games else "  -  "


def _tally(t: Tally) -> str:
    lo, hi = wilson_interval(t.wins, t.games)
    return f"{t.wins}/{t.games} ({100 * lo:.0f}-{100 * hi:.0f}%)"
