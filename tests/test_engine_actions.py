"""Actions: text and dict forms round-trip; malformed input raises MalformedActionError only."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import (
    Capture,
    Choose,
    Discard,
    Dispatch,
    MalformedActionError,
    Pick,
    Shuffle,
    action_from_dict,
    action_to_dict,
    parse_action,
)
from engine.actions import CLAIMS

PROFILE = settings(derandomize=True, max_examples=400, deadline=None,
                   suppress_health_check=[HealthCheck.too_slow])

EXAMPLES = [
    (Pick(1, (4, 9)), "1 pick 4 9"),
    (Pick(0, (3,)), "0 pick 3"),
    (Dispatch(0, 12, 2, "Duchess"), "0 dispatch 12 2 Duchess"),
    (Dispatch(3, 1, 0, "blue"), "3 dispatch 1 0 blue"),
    (Dispatch(2, 5, 1, "up"), "2 dispatch 5 1 up"),
    (Dispatch(2, 5, 1, "none"), "2 dispatch 5 1 none"),
    (Capture(2, 7), "2 capture 7"),
    (Discard(2, 7), "2 discard 7"),
    (Choose(3, "yes"), "3 choose yes"),
    (Choose(0, "face_up"), "0 choose face_up"),
    (Shuffle((2, 0, 1)), "- shuffle 2,0,1"),
    (Shuffle(None), "- shuffle hidden"),
]


@pytest.mark.parametrize(("action", "text"), EXAMPLES)
def test_text_form(action, text) -> None:
    assert action.text() == text
    assert parse_action(text) == action


@pytest.mark.parametrize(("action", "text"), EXAMPLES)
def test_dict_form_round_trips_through_json(action, text) -> None:
    data = action_to_dict(action)
    assert action_from_dict(json.loads(json.dumps(data))) == action


@pytest.mark.parametrize("text", [
    "", "0", "pick", "x pick 1", "0 pick", "0 pick -1", "0 pick a", "-1 pick 1",
    "0 dispatch 1 2", "0 dispatch 1 2 Wizard", "0 dispatch a 2 Duchess", "0 dispatch 1 2 3 4",
    "1 shuffle 1,2", "- shuffle 1,,2", "- shuffle a", "0 fly 1", "0 capture", "0 capture 1 2",
    "0 discard", "0 choose", "- pick 1",
])
def test_malformed_text_raises_malformed_action_error(text: str) -> None:
    with pytest.raises(MalformedActionError):
        parse_action(text)


@pytest.mark.parametrize("data", [
    None, [], "0 pick 1", {}, {"type": "fly"}, {"type": "pick", "seat": 0, "slots": []},
    {"type": "pick", "seat": 0, "slots": [True]}, {"type": "pick", "seat": -1, "slots": [1]},
    {"type": "pick", "seat": "0", "slots": [1]}, {"type": "pick", "seat": True, "slots": [1]},
    {"type": "dispatch", "seat": 0, "slot": 1, "planet": 0, "claim": "Wizard"},
    {"type": "dispatch", "seat": 0, "slot": 1, "planet": 0},
    {"type": "capture", "seat": 0, "slot": 1.5}, {"type": "discard", "seat": 0},
    {"type": "choose", "seat": 0, "option": 3}, {"type": "shuffle", "perm": "0,1"},
    {"type": "shuffle", "perm": [0, False]},
])
def test_malformed_dicts_raise_malformed_action_error(data) -> None:
    with pytest.raises(MalformedActionError):
        action_from_dict(data)


actions = st.one_of(
    st.builds(Pick, st.integers(0, 3), st.lists(st.integers(0, 500), min_size=1, max_size=2)
              .map(tuple)),
    st.builds(Dispatch, st.integers(0, 3), st.integers(0, 500), st.integers(0, 4),
              st.sampled_from(CLAIMS)),
    st.builds(Capture, st.integers(0, 3), st.integers(0, 500)),
    st.builds(Discard, st.integers(0, 3), st.integers(0, 500)),
    st.builds(Choose, st.integers(0, 3), st.text(
        st.characters(min_codepoint=33, max_codepoint=126), min_size=1, max_size=20)),
    st.builds(Shuffle, st.none() | st.permutations(list(range(6))).map(tuple)),
)


@PROFILE
@given(actions)
def test_every_action_round_trips_through_text_and_dict(action) -> None:
    assert parse_action(action.text()) == action
    assert action_from_dict(json.loads(json.dumps(action_to_dict(action)))) == action


TOKENS = ["0", "1", "-", "-1", "pick", "dispatch", "capture", "discard", "choose", "shuffle",
          "hidden", "Duchess", "blue", "up", "none", "x", "", " ", "1,2", "٣", "9" * 30]


@PROFILE
@given(st.one_of(st.text(max_size=40),
                 st.lists(st.sampled_from(TOKENS), max_size=6).map(" ".join)))
def test_arbitrary_text_parses_or_raises_malformed_action_error_only(text: str) -> None:
    try:
        action = parse_action(text)
    except MalformedActionError:
        return
    assert isinstance(action, Pick | Dispatch | Capture | Discard | Choose | Shuffle)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.sampled_from(["type", "seat", "slot", "slots", "planet", "claim",
                                       "option", "perm", "x"]), children, max_size=5),
    max_leaves=12)


@PROFILE
@given(st.one_of(json_values, st.fixed_dictionaries(
    {"type": st.sampled_from(["pick", "dispatch", "capture", "discard", "choose", "shuffle"])},
    optional={"seat": json_values, "slot": json_values, "slots": json_values,
              "planet": json_values, "claim": json_values, "option": json_values,
              "perm": json_values})))
def test_arbitrary_data_decodes_or_raises_malformed_action_error_only(data) -> None:
    try:
        action = action_from_dict(data)
    except MalformedActionError:
        return
    assert action_from_dict(action_to_dict(action)) == action
