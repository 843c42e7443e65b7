"""What the bot docs say about the view holds for the engine (issue 46): which seat `left` is,
what `known` holds beyond a seat's own cards, when the view's `legal` is empty, where a bot
finds the cards' numbers (Quagmire's strength included), and the example bot's numbers per
faction."""

from __future__ import annotations

import importlib.util
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from typer.testing import CliRunner

from bots.conformance import decisions_of_game
from engine import CARDS, GameState, legal_actions
from engine.view import redact, view
from ui.cli import app

ROOT = Path(__file__).resolve().parent.parent
PROTOCOL = (ROOT / "protocol.md").read_text()
BOT_PROTOCOL = PROTOCOL[PROTOCOL.index("## Bot protocol"):]
README = (ROOT / "README.md").read_text()
WRITING_A_BOT = README[README.index("## Writing a bot"):README.index("### Tournaments")]


def _states(players: int, seed: str) -> Iterator[tuple[GameState, int]]:
    """Every decision of a game played with random choices: the state and the seat to move
    (the state moves on when the loop does)."""
    for state, seat, _ in decisions_of_game(players, seed):
        yield state, seat


def _cards(state: GameState, slots: list[int]) -> Counter[int]:
    return Counter(state.card_of[x] for x in slots)


@pytest.mark.parametrize("players", [3, 4])
def test_left_passes_the_hand_to_the_next_seat_number_and_right_to_the_one_before(
        players: int) -> None:
    assert "`left`, seat `s` passes its hand to seat `(s + 1) % players`" in BOT_PROTOCOL
    assert "`right`, to seat `(s - 1) % players`" in BOT_PROTOCOL
    passes: Counter[str] = Counter()
    for seed in range(3):
        before: list[Counter[int]] = []  # each seat's hand and drafted cards a step ago
        before_drafted: list[Counter[int]] = []
        for state, _seat in _states(players, f"left/{players}/{seed}"):
            hands = [_cards(state, state.hands[s]) for s in range(players)]
            drafted = [_cards(state, state.drafted[s]) for s in range(players)]
            if before and state.phase.value == "draft" and \
                    sum(map(len, drafted)) > sum(map(len, before_drafted)):
                kept = [before[s] - (drafted[s] - before_drafted[s]) for s in range(players)]
                if any(hands[s] != kept[s] for s in range(players)):  # the hands moved on
                    direction = view(state, 0)["direction"]
                    step = 1 if direction == "left" else -1
                    for s in range(players):
                        assert hands[(s + step) % players] == kept[s]
                    passes[direction] += 1
            before, before_drafted = hands, drafted
    assert passes["left"] and passes["right"], passes


def test_known_names_only_what_the_docs_list_and_legal_is_empty_only_with_nothing_to_do(
        ) -> None:
    assert "the hand this seat passed on, under the fresh slots its own pick gave" in \
        BOT_PROTOCOL
    assert "claimed events (set aside face up on no planet" in BOT_PROTOCOL
    assert "empty exactly when the seat has nothing to do" in BOT_PROTOCOL
    seen: Counter[str] = Counter()
    for players in (2, 3, 4):
        for seed in range(2):
            for state, _ in _states(players, f"known/{players}/{seed}"):
                for seat in range(players):
                    shown = view(redact(state, seat), seat)
                    assert shown["legal"] == [a.text() for a in legal_actions(state, seat)]
                    idle = seat not in shown["to_move"] and shown["decision"] is None
                    assert (shown["legal"] == []) == idle
                    for slot in map(int, shown["known"]):
                        seen[_where(state, seat, slot)] += 1
    # nothing else, and each documented place does occur
    assert set(seen) <= {"own", "planet", "passed hand", "leftovers", "claim", "discard"}
    assert {"passed hand", "claim", "discard", "leftovers"} <= set(seen), seen


def _where(state: GameState, seat: int, slot: int) -> str:
    if slot in state.hands[seat] or slot in state.drafted[seat] or \
            slot == state.prisoner[seat]:
        return "own"
    if any(slot in cards for cards in state.planets):
        return "planet"
    if state.phase.value == "draft" and any(slot in hand for hand in state.hands):
        return "passed hand"
    if slot in state.leftovers:
        return "leftovers"
    if slot in [claim[0] for claim in state.claims]:
        return "claim"
    if slot in state.discard:
        return "discard"
    return f"elsewhere ({state.phase.value})"


def test_the_bot_docs_point_to_the_card_numbers_and_quagmire_has_its_strength() -> None:
    assert "`solstice rules cards`" in BOT_PROTOCOL
    assert "`solstice rules cards`" in WRITING_A_BOT
    assert "Quagmire (2, two players only)" in BOT_PROTOCOL
    out = CliRunner().invoke(app, ["rules", "cards"]).output
    assert "Quagmire (event, two-player, initiative 6, 2 neutral strength)" in out
    assert "Atmospheric Storm (event, Destruction, initiative 0, 3 neutral strength)" in out
    assert "green Diplomat (S0 F3, initiative 5, VP 3 if favored)" in out


def _example_bot() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "example_bot", ROOT / "bots" / "examples" / "example_bot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_example_bots_carry_every_factions_numbers() -> None:
    """Issue 46: the example used one table for every faction (wrong for green's Diplomat,
    S0 F3, and every signature card)."""
    example = _example_bot()
    for card in CARDS:
        if card.faction is None:
            assert example.NEUTRAL_STRENGTH.get(card.name, 0) == card.neutral_strength
        else:
            assert example.CARDS[card.faction][card.type] == \
                (card.strength, card.favor, card.vp), card.label
    script = (ROOT / "bots" / "examples" / "example_bot.js").read_text()
    numbers = {name: _ints(values)
               for name, values in re.findall(r"(\w+): \[(\d, \d, \d)\]", script)}
    signature = {faction: (name, _ints(values)) for faction, name, values in
                 re.findall(r'(\w+): \["(\w+)", \[(\d, \d, \d)\]\]', script)}
    assert numbers == example.NUMBERS and signature == example.SIGNATURE


def _ints(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split(","))
