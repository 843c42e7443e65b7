"""Game configuration: who plays which faction, which planets and events are in play.

Setup is chance: ``random_config`` draws it from a caller-supplied stream, so the same seed
gives the same table. A configuration is public knowledge.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from engine.cards import (
    CARD_BY_LABEL,
    EVENT_BY_NAME,
    FACTIONS,
    FIRST_GAME_EVENTS,
    PLANETS,
    STANDARD_PLANETS,
    events_of_kind,
)
from engine.randomness import RandomStream


class ConfigError(ValueError):
    """A game configuration that breaks the setup rules."""


@dataclass(frozen=True, slots=True)
class GameConfig:
    factions: tuple[str, ...]   # faction of each seat, seat 0 first
    planets: tuple[str, ...]    # planets top to bottom
    events: tuple[str, ...]     # event names in play
    first_player: int

    def __post_init__(self) -> None:
        n = len(self.factions)
        if not 2 <= n <= 4:
            raise ConfigError(f"Solstice is for 2-4 players, not {n}")
        if len(set(self.factions)) != n or any(f not in FACTIONS for f in self.factions):
            raise ConfigError(f"factions must be distinct, from {FACTIONS}: {self.factions}")
        unknown = [p for p in self.planets if p not in PLANETS]
        if unknown:
            raise ConfigError(f"unknown planet(s): {', '.join(unknown)}")
        if len(set(self.planets)) != len(self.planets):
            raise ConfigError("a planet appears twice")
        bad = [e for e in self.events if e not in EVENT_BY_NAME]
        if bad:
            raise ConfigError(f"unknown event(s): {', '.join(bad)}")
        if len(set(self.events)) != len(self.events):
            raise ConfigError("an event appears twice")
        if not 0 <= self.first_player < n:
            raise ConfigError(f"first player must be a seat 0..{n - 1}")

    def check_setup(self) -> None:
        """The setup rules for a whole game (a resolution scenario may break them)."""
        n = self.n
        if "Desert" in self.planets and self.planets[-1] != "Desert":
            raise ConfigError("the Desert is always placed last")
        if ("Desert" in self.planets) != (n == 2):
            raise ConfigError("the Desert is in play with 2 players, and only then")
        if len([p for p in self.planets if p != "Desert"]) != n:
            raise ConfigError(f"{n} players need {n} planets besides the Desert")

    @property
    def n(self) -> int:
        return len(self.factions)

    def card_ids(self) -> tuple[int, ...]:
        """The cards of this game, in global id order."""
        return _card_ids(self.factions, self.events)

    def to_dict(self) -> dict[str, object]:
        return {"factions": list(self.factions), "planets": list(self.planets),
                "events": list(self.events), "first_player": self.first_player}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> GameConfig:
        try:
            return cls(tuple(data["factions"]), tuple(data["planets"]),  # type: ignore[arg-type]
                       tuple(data["events"]), int(data["first_player"]))  # type: ignore[arg-type, call-overload]
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"bad game configuration: {exc}") from exc


@cache
def _card_ids(factions: tuple[str, ...], events: tuple[str, ...]) -> tuple[int, ...]:
    # every determinization of a search asks for them
    ids = [CARD_BY_LABEL[f"{f}:{t}"].id for f in factions
           for t in ("Legions", "Diplomat", "Assassin", "Duchess", "Marshal", "Elder")]
    ids += [EVENT_BY_NAME[e].id for e in events]
    return tuple(sorted(ids))


def random_config(n: int, stream: RandomStream, *, first_game: bool = False,
                  factions: tuple[str, ...] | None = None) -> GameConfig:
    """Draw a setup as the rulebook says (planets, events by type, first player)."""
    if not 2 <= n <= 4:
        raise ConfigError(f"Solstice is for 2-4 players, not {n}")
    factions = factions or FACTIONS[:n]
    if n == 2:
        planets = (*stream.sample(STANDARD_PLANETS, 2), "Desert")
        events: tuple[str, ...] = (stream.choice(events_of_kind("Deception")),
                  stream.choice(events_of_kind("Fortune")), "Quagmire", "Mercenaries")
    else:
        planets = tuple(stream.sample(STANDARD_PLANETS, n))
        if first_game:
            events = FIRST_GAME_EVENTS
        else:
            events = (*stream.sample(events_of_kind("Fortune"), 2),
                      *stream.sample(events_of_kind("Deception"), 2),
                      *stream.sample(events_of_kind("Destruction"), 4))
    return GameConfig(tuple(factions), tuple(planets), tuple(events), stream.randbelow(n))
