"""What happened in the game, as typed values: the engine emits one event per log line.

Every event is a frozen value of plain fields (factions, card labels, planet names, numbers);
its ``text`` is the one sentence the game's log (``GameState.log``, a bot's view, a scenario's
output) shows for it. Readers that need to know *what* happened (the UI's paced reveal, its
round summary, a first game's explanations) read the fields, never the sentence, so the
wording can change without breaking them.

Factions stand for seats here, as in the log: "white scores" is the white player.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Event:
    """Base of every engine event."""

    @property
    def text(self) -> str:  # pragma: no cover - every event says its own
        raise NotImplementedError


# -- draft --------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class RoundStarted(Event):
    """A round begins with its draft, passing ``direction`` ("left" or "right")."""

    round: int
    direction: str

    @property
    def text(self) -> str:
        return f"Round {self.round}: draft passes {self.direction}"


@dataclass(frozen=True, slots=True)
class DraftOver(Event):
    leftovers: int

    @property
    def text(self) -> str:
        return f"Draft over: {self.leftovers} card(s) left over"


@dataclass(frozen=True, slots=True)
class LeftoversPlaced(Event):
    """The holder of Prophecy places the leftovers instead of dealing them."""

    faction: str

    @property
    def text(self) -> str:
        return f"{self.faction} places the leftovers (Prophecy)"


@dataclass(frozen=True, slots=True)
class DealtFaceUp(Event):
    card: str  # label
    planet: str

    @property
    def text(self) -> str:
        return f"{self.card} is dealt face up to {self.planet}"


# -- dispatch -----------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class DispatchStarted(Event):
    first: str

    @property
    def text(self) -> str:
        return f"Dispatch: {self.first} plays first"


@dataclass(frozen=True, slots=True)
class DispatchedFaceDown(Event):
    """``claim``: what was disclosed (a faction, a card name, "event"), or "none"."""

    faction: str
    planet: str
    claim: str

    @property
    def text(self) -> str:
        shown = "" if self.claim == "none" else f", disclosed as {self.claim}"
        return f"{self.faction} dispatches a card face down to {self.planet}{shown}"


@dataclass(frozen=True, slots=True)
class DispatchedFaceUp(Event):
    faction: str
    card: str  # label
    planet: str

    @property
    def text(self) -> str:
        return f"{self.faction} dispatches {self.card} face up to {self.planet}"


@dataclass(frozen=True, slots=True)
class Captured(Event):
    """``faction`` takes a card of its hand as its prisoner."""

    faction: str

    @property
    def text(self) -> str:
        return f"{self.faction} captures a prisoner"


@dataclass(frozen=True, slots=True)
class DiscardedForRoom(Event):
    """Every planet full and a prisoner already taken: a card of the hand is discarded."""

    faction: str

    @property
    def text(self) -> str:
        return f"{self.faction} cannot play and discards a card"


@dataclass(frozen=True, slots=True)
class VisionFaceUp(Event):
    planet: str

    @property
    def text(self) -> str:
        return f"Vision: all future cards on {self.planet} are played face up"


@dataclass(frozen=True, slots=True)
class Revealed(Event):
    planet: str
    card: str  # label

    @property
    def text(self) -> str:
        return f"Revealed on {self.planet}: {self.card}"


# -- scoring, kills, heals (resolution, and Whispered Secrets at dispatch) -------------------

@dataclass(frozen=True, slots=True)
class Scored(Event):
    """``faction`` scores ``vp``; ``card`` is the card's name that scored (Elder, Assassin,
    Transport...), ``reason`` the log's words for why ("Elder, strongest")."""

    faction: str
    vp: int
    card: str
    reason: str

    @property
    def text(self) -> str:
        return f"{self.faction} scores {self.vp} VP ({self.reason})"


@dataclass(frozen=True, slots=True)
class SecretsScored(Scored):
    """Whispered Secrets scores as it is dispatched face up, not in the resolution."""

    @property
    def text(self) -> str:
        return f"Whispered Secrets: {self.faction} scores {self.vp} VP"


@dataclass(frozen=True, slots=True)
class LostVP(Event):
    """Famine: the favored player loses VP."""

    faction: str
    vp: int

    @property
    def text(self) -> str:
        return f"Famine: {self.faction} loses {self.vp} VP"


@dataclass(frozen=True, slots=True)
class Killed(Event):
    """``card`` (a label) is killed; ``casualty``: the faction that takes a casualty for it
    (its printed owner), None for an event card."""

    card: str
    casualty: str | None

    @property
    def text(self) -> str:
        if self.casualty is None:
            return f"{self.card} is killed"
        return f"{self.card} is killed; {self.casualty} takes a casualty"


@dataclass(frozen=True, slots=True)
class KillAbsorbed(Event):
    @property
    def text(self) -> str:
        return "Honor Guards absorbs the kill"


@dataclass(frozen=True, slots=True)
class Sacrificed(Event):
    """``faction`` sacrifices its Legions so that its other card lives."""

    faction: str

    @property
    def text(self) -> str:
        return f"{self.faction} sacrifices its Legions"


@dataclass(frozen=True, slots=True)
class MercenariesUsed(Event):
    faction: str
    target: str  # label

    @property
    def text(self) -> str:
        return f"{self.faction} uses Mercenaries on {self.target}"


@dataclass(frozen=True, slots=True)
class Healed(Event):
    """``faction`` heals a casualty through ``card`` (Honor Guards, Medical Team)."""

    faction: str
    card: str

    @property
    def text(self) -> str:
        return f"{self.card}: {self.faction} heals a casualty"


@dataclass(frozen=True, slots=True)
class MartyrKilled(Event):
    """Martyr: ``faction`` kills its prisoner ``card``; ``casualty`` takes the casualty."""

    faction: str
    card: str
    casualty: str

    @property
    def text(self) -> str:
        return (f"Martyr: {self.faction} kills its prisoner {self.card}; "
                f"{self.casualty} takes a casualty")


@dataclass(frozen=True, slots=True)
class PrisonerAdded(Event):
    """Mimic or Escape (``event``): ``faction`` adds its prisoner ``card`` to ``planet``."""

    event: str
    faction: str
    card: str
    planet: str

    @property
    def text(self) -> str:
        return f"{self.event}: {self.faction} adds its prisoner {self.card} to {self.planet}"


# -- resolution ---------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class ResolveStarted(Event):
    @property
    def text(self) -> str:
        return "Resolve planets"


@dataclass(frozen=True, slots=True)
class SentryPlaced(Event):
    faction: str
    planet: str

    @property
    def text(self) -> str:
        return f"{self.faction} places the Sentry on {self.planet}"


@dataclass(frozen=True, slots=True)
class PlanetOpened(Event):
    """A planet's cards are all face up and it starts resolving: its cards (labels, None for
    one this state cannot see), who is strongest and favored there (None: nobody)."""

    planet: str
    cards: tuple[str | None, ...]
    strongest: str | None
    favored: str | None

    @property
    def text(self) -> str:
        return (f"{self.planet}: " + ", ".join(card or "?" for card in self.cards)
                + f"; strongest {self.strongest or 'none'}, favored {self.favored or 'none'}")


@dataclass(frozen=True, slots=True)
class Claimed(Event):
    """``faction`` takes the event ``card`` (a name) in front of it as a claim."""

    faction: str
    card: str

    @property
    def text(self) -> str:
        return f"{self.faction} claims {self.card}"


@dataclass(frozen=True, slots=True)
class AssassinsTie(Event):
    @property
    def text(self) -> str:
        return "Assassins tie for strongest: no more Assassins resolve"


@dataclass(frozen=True, slots=True)
class SiegeStopsDuchess(Event):
    @property
    def text(self) -> str:
        return "Planetary Siege: the Duchess cannot score"


@dataclass(frozen=True, slots=True)
class Bombarded(Event):
    @property
    def text(self) -> str:
        return "Orbital Bombardment: no more cards resolve here"


@dataclass(frozen=True, slots=True)
class Transported(Event):
    """Transport moves ``card`` (a label) to ``to``, or discards it (``to`` None)."""

    card: str
    to: str | None

    @property
    def text(self) -> str:
        if self.to is None:
            return f"Transport discards {self.card}"
        return f"Transport moves {self.card} to {self.to}"


# -- end of a round, end of the game ---------------------------------------------------------

@dataclass(frozen=True, slots=True)
class RoundScores(Event):
    """The table after round ``round``: VP and casualties by faction, in seat order."""

    round: int
    factions: tuple[str, ...]
    vp: tuple[int, ...]
    casualties: tuple[int, ...]

    @property
    def text(self) -> str:
        return f"Scores after round {self.round}: " + ", ".join(
            f"{f} {vp} VP" + (f" ({c} casualt{'y' if c == 1 else 'ies'})" if c else "")
            for f, vp, c in zip(self.factions, self.vp, self.casualties, strict=True))


@dataclass(frozen=True, slots=True)
class GameOver(Event):
    """The game ended after a round: ``reached_vp`` and ``casualty_limit`` name the
    factions that ended it (at least one of them is not empty); ``final`` is each seat's
    final score (VP − casualties), ``winner`` the faction that won (ties broken by fewer
    casualties, then turn order)."""

    factions: tuple[str, ...]
    final: tuple[int, ...]
    winner: str
    reached_vp: tuple[str, ...]
    casualty_limit: tuple[str, ...]

    @property
    def text(self) -> str:
        return ("Game over: " + ", ".join(
            f"{f} {score}" for f, score in zip(self.factions, self.final, strict=True))
            + f"; {self.winner} wins")


# -- scenarios (engine.scenario answers decisions by script) ---------------------------------

@dataclass(frozen=True, slots=True)
class ScriptedChoice(Event):
    faction: str
    answer: str
    kind: str

    @property
    def text(self) -> str:
        return f"{self.faction} chooses {self.answer} ({self.kind})"
