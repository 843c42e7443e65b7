"""A finished game rebuilt from its transcript, move by move, with the true cards.

``load_replay`` first verifies the transcript (``solstice verify``'s check); only a fair game
is replayed. The true card of every slot comes from the audited deck, so each step's state is
the full-information game: ``view(state, seat)`` is what that seat saw at that moment, and
``open_view`` shows every card.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine import (
    Action,
    Capture,
    Choose,
    Discard,
    Dispatch,
    GameState,
    Pick,
    final_scores,
    new_game,
)
from engine.canonical import canonical_json
from engine.events import Captured, DiscardedForRoom, DispatchedFaceDown, DispatchedFaceUp, Event
from engine.relabel import Relabel
from engine.view import view
from p2p.deck.audit import audit_deck, open_seats
from p2p.errors import P2PError
from p2p.identity import IDENTITY_FILE, Identity
from p2p.session.audit import apply_any, true_action
from p2p.session.envelope import SignedMessage
from p2p.session.machine import GameSession
from p2p.storage.transcript import TranscriptUnreadable, load_transcript, verify_transcript
from p2p.text import printable
from ui.app.wording import card_name, describe, disclosed, option_words, readable


class ReplayRefused(Exception):
    """The transcript does not verify, so it is not replayed (the message says why)."""


@dataclass(frozen=True)
class Step:
    """The game right after one player's move (step 0: the start, before any move)."""

    state: GameState
    move: str           # the move in words, true cards named
    seat: int | None    # who moved (None for the start)
    disclosed: str = ""  # for a face-down dispatch: what was disclosed ...
    truth: str = ""      # ... and what the card really was
    log: tuple[str, ...] = ()  # the engine's events this move produced, in words ...
    events: tuple[Event, ...] = ()  # ... and as events


@dataclass(frozen=True)
class Replay:
    path: Path
    game_id: str
    names: tuple[str, ...]      # player name per seat
    factions: tuple[str, ...]   # faction per seat
    steps: tuple[Step, ...]
    result: dict[str, Any]

    def round_starts(self) -> dict[int, int]:
        """Round number -> index of its first step."""
        out: dict[int, int] = {}
        for index, step in enumerate(self.steps):
            out.setdefault(step.state.round, index)
        return out

    def scores_by_round(self) -> list[tuple[int, tuple[int, ...]]]:
        """VP of every seat at the end of each round (the last step before the next one)."""
        out: dict[int, tuple[int, ...]] = {}
        for step in self.steps:
            out[step.state.round] = tuple(step.state.vp)
        return sorted(out.items())

    def who(self, seat: int) -> str:
        return f"{self.factions[seat]} ({self.names[seat]})"


def seat_view(step: Step, seat: int) -> dict[str, Any]:
    """The board as ``seat`` saw it right after this step."""
    return view(step.state, seat)


def open_view(step: Step, seat: int) -> dict[str, Any]:
    """The board with every card open (after the game, nothing is secret any more)."""
    s = step.state.clone()
    s.known = [s.all_mask] * len(s.known)
    return view(s, seat)


def load_replay(path: Path) -> Replay:
    """Verify ``path`` and rebuild its game; ReplayRefused when it does not verify
    (TranscriptUnreadable when it is no transcript at all)."""
    verdict = verify_transcript(path)
    if not verdict.ok:
        raise ReplayRefused(f"the transcript does not verify: {verdict.summary}")
    roster, messages, _ = load_transcript(path)
    session = GameSession(roster.game_id, [p.key for p in roster.players])
    for data in messages:
        session.accept(SignedMessage.decode(canonical_json(data)), direct=False)
    steps = _steps(session)
    factions = tuple(session.config.factions)  # type: ignore[union-attr]
    names = tuple(printable(roster.players[session.peer_of_seat[seat]].name)
                  for seat in range(session.n))
    return Replay(Path(path), roster.game_id, names, factions, steps, verdict.result)


def own_seat(replay: Replay) -> int | None:
    """The seat of the player whose transcript this is: one kept in a home
    (``HOME/games/GAME/transcript.json``) belongs to that home's identity (None: another
    player's copy, or a file kept elsewhere)."""
    path = replay.path.resolve()
    home = path.parent.parent.parent
    if path.parent.parent.name != "games" or not (home / IDENTITY_FILE).is_file():
        return None
    try:
        me = Identity.load_or_create(home).peer_id
        roster = load_transcript(path)[0]
    except (OSError, ValueError, P2PError, TranscriptUnreadable):
        return None
    for player in roster.players:
        if player.peer_id == me and printable(player.name) in replay.names:
            return replay.names.index(printable(player.name))
    return None


def _steps(session: GameSession) -> tuple[Step, ...]:
    """Replay the verified game with the audited cards, one Step per player move."""
    assert session.deck is not None and session.config is not None
    openings = {seat: session.openings[seat]["deck"] for seat in range(session.n)}
    slot_cards = audit_deck(session.game_id, session.n, len(session.card_ids),
                            session.deck.public_transcript, openings).slot_cards
    seat_keys = open_seats(session.game_id, session.deck, openings)
    ids = session.card_ids
    state = new_game(session.config, [ids[slot_cards[slot]] for slot in range(len(ids))])

    def opened(s: GameState, action: Action | Relabel) -> Action | Relabel:
        # A reshuffle's permutation and a re-mask's order stayed hidden in play.
        return true_action(s, action, slot_cards, ids, seat_keys)

    ghosts = {int(session.seat_of_peer[peer]): ghost.actions
              for peer, ghost in session.ghosts.items()}
    return build_steps(state, session.actions, opened, ghosts)


def build_steps(state: GameState, actions: Iterable[Action | Relabel],
                opened: Callable[[GameState, Action | Relabel], Action | Relabel]
                = lambda _s, a: a, ghosts: dict[int, int] | None = None,
                ) -> tuple[Step, ...]:
    """Apply ``actions`` to the full-information ``state`` (changed in place), one Step per
    player move; the log lines of chance actions go to the move before them. ``ghosts``: the
    seats handed over, with the number of actions applied before each takeover (their moves
    from there on are the ghost bot's, and say so)."""
    steps: list[Step] = []
    logged = 0
    taken = dict(ghosts or {})
    said: set[int] = set()  # the seats whose takeover the log told already

    def flush() -> None:
        nonlocal logged
        events = tuple(state.events[logged:])
        lines = tuple(map(describe, events))
        logged = len(state.events)
        if not steps:
            steps.append(Step(state.clone(), "The game begins", None, log=lines,
                              events=events))
        elif lines:
            last = steps[-1]
            steps[-1] = Step(last.state, last.move, last.seat, last.disclosed, last.truth,
                             last.log + lines, last.events + events)

    for index, action in enumerate(actions):
        if isinstance(action, Relabel):  # a re-mask: bookkeeping, not a move
            apply_any(state, opened(state, action))
            continue
        if action.seat is not None:
            flush()
        action = opened(state, action)
        before = state.clone()
        apply_any(state, action)
        if action.seat is not None:
            # ``opened`` gives back an action of the kind it is given: never a Relabel here
            move, disclosed, truth = describe_move(before, action)  # type: ignore[arg-type]
            log: tuple[str, ...] = ()
            if action.seat in taken and index >= taken[action.seat]:
                move += " (the ghost bot)"
                if action.seat not in said:
                    said.add(action.seat)
                    log = (f"{state.config.factions[action.seat]} has left: the ghost bot "
                           "plays the seat from here on, open-handed",)
            steps.append(Step(state.clone(), move, action.seat, disclosed, truth, log))
    flush()
    return tuple(steps)


def describe_move(s: GameState, action: Action) -> tuple[str, str, str]:
    """The move in words with the true cards, and (disclosed, truth) for a hidden dispatch."""
    who = s.config.factions[action.seat]  # type: ignore[index]

    def card(slot: int) -> str:
        label = s.label(slot)
        return card_name(label) if label else "a card"

    if isinstance(action, Pick):
        return f"{who} drafts " + ", ".join(card(x) for x in action.slots), "", ""
    if isinstance(action, Dispatch):
        planet = s.planet_name(action.planet)
        if action.claim == "up":
            return f"{who} plays {card(action.slot)} face up to {planet}", "", ""
        said = disclosed(action.claim)
        return (f"{who} plays {card(action.slot)} face down to {planet}, disclosing {said}",
                said, card(action.slot))
    if isinstance(action, Capture):
        return f"{who} captures {card(action.slot)} as a prisoner", "", ""
    if isinstance(action, Discard):
        return f"{who} cannot play and discards {card(action.slot)}", "", ""
    if isinstance(action, Choose):
        # The engine's prompt names cards by label ("black:Diplomat"): shown as names.
        prompt = readable(s.decision.prompt) if s.decision is not None else "a decision"
        option = option_words(card_name(action.option))
        if action.option.isdigit():
            option = card(int(action.option))
        return f"{who} answers “{prompt}”: {option}", "", ""
    return action.text(), "", ""


# The engine's events for a player's own move (said better by ``describe_move``).
RESTATES = (DispatchedFaceDown, DispatchedFaceUp, Captured, DiscardedForRoom)


def text_log(replay: Replay) -> list[str]:
    """The whole game as plain lines, for ``solstice replay --text``."""
    lines = [f"Game {replay.game_id}: " + ", ".join(
        replay.who(seat) for seat in range(len(replay.factions)))]
    current = 0
    for step in replay.steps:
        if step.state.round != current:
            current = step.state.round
            lines.append(f"== Round {current} ==")
        log = step.log
        if step.seat is not None:
            lines.append(f"* {step.move}")
            # The engine's own event for this move says less than the move line above.
            first = step.events[0] if step.events else None
            if isinstance(first, RESTATES) and first.faction == replay.factions[step.seat]:
                log = log[1:]
        lines.extend(f"    {line}" for line in log)
    scores = final_scores(replay.steps[-1].state)
    lines.append("Final scores: " + ", ".join(
        f"{replay.who(seat)} {score}" for seat, score in enumerate(scores)))
    lines.append(readable(replay.result.get("summary", "")))
    return lines
