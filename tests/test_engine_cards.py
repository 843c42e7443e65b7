"""The card table holds the rulings' numbers; effects are stated with them."""

from __future__ import annotations

from engine.cards import CARD_BY_LABEL, CARDS, FACTIONS, action_card


def test_every_faction_has_exactly_one_signature_card_worth_3_vp() -> None:
    signature = {"black": "Assassin", "white": "Duchess", "blue": "Marshal", "green": "Diplomat"}
    for faction in FACTIONS:
        threes = [c.type for c in CARDS if c.faction == faction and c.vp == 3]
        assert threes == [signature[faction]]


def test_there_are_24_action_cards_and_24_events() -> None:
    assert sum(1 for c in CARDS if not c.is_event) == 24
    assert sum(1 for c in CARDS if c.is_event) == 24
    assert all(CARD_BY_LABEL[c.label] is c for c in CARDS)


def test_effects_state_the_printed_numbers() -> None:
    assert action_card("green", "Diplomat").effect == "VP 3 if favored"
    assert action_card("white", "Duchess").effect == "planet VP, +3 if favored"
    assert action_card("black", "Elder").effect == "VP 1 if strongest, 1 if favored"
    assert CARD_BY_LABEL["event:Famine"].effect == ""
    assert action_card("blue", "Marshal").describe() == \
        "blue Marshal (S1 F0, initiative 12, VP 3 if strongest)"


def test_disclosures_read_as_english_with_a_or_an() -> None:
    from engine.disclosure import describe_claim

    assert describe_claim("Elder") == "an Elder"
    assert describe_claim("Assassin") == "an Assassin"
    assert describe_claim("Duchess") == "a Duchess"
    assert describe_claim("white") == "a white card"
    assert describe_claim("event") == "an event"
