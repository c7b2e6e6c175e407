"""The journal's canonical text written in C (msgspec) is byte for byte the json module's, or not used.

The entry hash covers the stored text, and anyone may recompute it from an export with the standard
library (``shoe.journal.chain``): ``prepare`` must give exactly the text and data the json module gives,
and refuse exactly what it refuses, whatever the data holds.
"""

from __future__ import annotations

import enum
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shoe.journal import JournalDataError, entry_hash, prepare
from shoe.journal.chain import _fast_canonical, canonical, entry_hash_of_text


class Colour(enum.Enum):
    RED = "red"


class Face(enum.StrEnum):
    UP = "up"


class Level(enum.IntEnum):
    ONE = 1


def by_json(data: dict[str, Any]) -> tuple[str, Any]:
    """What prepare gave before the C path: the json module's canonical text and its parse, refused where
    that text is not the canonical form of its own parse (number keys: verify would call it edited)."""
    text = canonical(dict(data))
    back = json.loads(text)
    if canonical(back) != text:
        raise JournalDataError("number keys")
    return text, back


any_text = st.text()  # lone surrogates included: the journal must refuse them
leaves = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=10**18, max_value=10**40)
    | st.floats()  # NaN and the infinities included
    | any_text
    | st.sampled_from([Colour.RED, Face.UP, Level.ONE, b"ab", frozenset({1})])
    | st.builds(lambda: 10**4400)  # past the digit limit (a strategy of the value itself could not be shown)
)
values = st.recursive(
    leaves,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(any_text, inner, max_size=4)
        | st.dictionaries(st.integers(), inner, min_size=1, max_size=2)
    ),
    max_leaves=20,
)


small_data = st.dictionaries(any_text, values, max_size=3)


def outcome(make: Any, data: dict[str, Any]) -> tuple[str, Any] | type[Exception]:
    try:
        return make(data)
    except JournalDataError:
        return JournalDataError


@settings(max_examples=2000, deadline=None)
@given(st.dictionaries(any_text, values, max_size=5))
def test_prepare_gives_the_json_modules_text_and_data_or_its_refusal(data: dict[str, Any]) -> None:
    def now(d: dict[str, Any]) -> tuple[str, Any]:
        pending = prepare("card", d, "r-1")
        return pending.text, pending.data

    got = outcome(now, data)
    assert got == outcome(by_json, data)
    if got is not JournalDataError:  # what is written verifies: the stored text is its parse's canonical form
        assert isinstance(got, tuple) and canonical(got[1]) == got[0]


def test_number_keys_that_sort_otherwise_as_text_are_refused_and_verify_would_have_said_edited() -> None:
    data = {"seats": {2: "a", 10: "b"}}
    text = canonical(data)  # the json module takes them, sorted as numbers
    assert canonical(json.loads(text)) != text  # so the stored entry would not verify
    with pytest.raises(JournalDataError, match="keys must be text"):
        prepare("card", data)
    assert prepare("card", {"seats": {1: "a", 2: "b"}}).text == '{"seats":{"1":"a","2":"b"}}'  # as before


@pytest.mark.parametrize(
    "value",
    [1e16, 1e-5, 0.5, float("nan"), float("inf"), (1, 2), {1, 2}, b"x", Colour.RED, 10**4400, "\ud800", {3: "x"}],
    ids=["1e16", "1e-5", "0.5", "nan", "inf", "tuple", "set", "bytes", "enum", "huge-int", "surrogate", "int-key"],
)
def test_what_msgspec_would_write_otherwise_takes_the_json_modules_way(value: Any) -> None:
    assert _fast_canonical({"v": value}) is None


def test_plain_entry_data_takes_the_c_path() -> None:
    data = {"action": "stack-dealt", "seat": 1, "cards": ["As", "Kd"], "by": {"id": "7", "name": "Zoë"}, "x": None}
    assert _fast_canonical(data) == by_json(data)


@settings(max_examples=2000, deadline=None)
@given(
    st.integers(min_value=1), any_text, any_text, st.none() | any_text, st.dictionaries(any_text, values, max_size=3)
)
def test_the_hash_of_a_text_is_the_hash_of_its_entry(seq: int, ts: str, kind: str, round_id: str | None,
                                                     data: dict[str, Any]) -> None:  # fmt: skip
    try:
        text = prepare("card", data).text
    except JournalDataError:
        return  # refused before any hash

    def hashed(make: Any) -> str | type[Exception]:
        try:
            return str(make())
        except JournalDataError:
            return JournalDataError

    whole = hashed(lambda: entry_hash("0" * 64, seq=seq, ts=ts, kind=kind, round_id=round_id, data=json.loads(text)))
    spliced = hashed(lambda: entry_hash_of_text("0" * 64, seq=seq, ts=ts, kind=kind, round_id=round_id, data_text=text))
    assert spliced == whole
