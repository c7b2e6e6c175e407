"""Reading the journal's text in C (``shoe.journal.chain.parse_json``) gives the json module's value, or is not used.

Every entry read back (the service's rebuild, the report, ``journal verify``, the floor's export) and every
check of a stored entry's canonical form goes through it, so it must give what ``json.loads`` gives (value and
types: ``1`` is no ``1.0``) and fail where it fails, for any text: the canonical texts the journal writes,
texts written any other way (spaces, escapes, unsorted and duplicate keys, a byte-order mark) and damaged ones.
Verification with the C path must name the same first bad entry and problem as the json module's alone.
"""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from shoe.journal import chain
from shoe.journal.chain import GENESIS, check_record, entry_hash, parse_json

leaves = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=10**18, max_value=10**40)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text()  # lone surrogates included: written as escapes
)
values = st.recursive(
    leaves, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4), max_leaves=20
)


@st.composite
def json_texts(draw: st.DrawFn) -> str:
    value = draw(values)
    text = json.dumps(
        value,
        ensure_ascii=draw(st.booleans()),
        sort_keys=draw(st.booleans()),
        indent=draw(st.none() | st.integers(0, 2)),
        separators=draw(st.sampled_from([None, (",", ":"), (", ", ": ")])),
    )
    how = draw(st.integers(0, 3))
    if how == 1:  # damaged: a character cut out or put in
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(["", '"', "\ufeff", "\\", "x"])) + text[at + 1 :]
    elif how == 2:
        text = f' {text}\n'
    return text


def _outcome(read: Any, text: str) -> tuple[str, Any]:
    try:
        value = read(text)
    except RecursionError:
        return "RecursionError", None
    except ValueError as exc:  # json.JSONDecodeError is a ValueError, as msgspec's fallback raises it
        return type(exc).__name__, None
    return "ok", _typed(value)


def _typed(value: Any) -> Any:
    """``value`` with each leaf's type beside it: equal only if every type is the same (``1 == 1.0 == True``)."""
    if isinstance(value, dict):
        return {k: _typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_typed(v) for v in value]
    if isinstance(value, float) and math.isnan(value):
        return ("nan", float)
    return (value, type(value))


@settings(max_examples=600, deadline=None)
@given(text=json_texts())
@example(text='{"a":1,"a":2}')  # duplicate keys: the last one's value
@example(text='"\\ud800"')  # a lone surrogate's escape: msgspec refuses it, the json module reads it
@example(text="NaN")
@example(text="\ufeff{}")
@example(text="[1e5, -0, 0.0]")
@example(text=str(2**70))
def test_parse_json_gives_the_json_modules_value_and_refusals(text: str) -> None:
    assert _outcome(parse_json, text) == _outcome(json.loads, text)


@st.composite
def stored_records(draw: st.DrawFn) -> tuple[tuple[object, ...], ...]:
    """A short chain as stored, each entry's data text written canonically or some other way (edited)."""
    records: list[tuple[object, ...]] = []
    prev = GENESIS
    for seq in range(1, draw(st.integers(1, 3)) + 1):
        data = draw(st.dictionaries(st.text(max_size=4), leaves, max_size=3))
        try:
            digest = entry_hash(prev, seq=seq, ts="2026-12-04T00:00:00.000000Z", kind="card", round_id=None, data=data)
        except Exception:
            continue  # data the journal refuses (a lone surrogate, NaN): never stored
        text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=True)
        if draw(st.booleans()):
            text = draw(st.sampled_from([json.dumps(data), text.replace(":", ": ", 1), text + " ", text]))
        records.append((seq, "2026-12-04T00:00:00.000000Z", "card", None, text, prev, digest))
        prev = digest
    return tuple(records)


@settings(max_examples=300, deadline=None)
@given(records=stored_records())
def test_a_stored_entry_is_judged_the_same_with_the_c_path_and_without(records: tuple[tuple[object, ...], ...]) -> None:
    def verdicts() -> list[tuple[int | None, str | None]]:
        prev, out = GENESIS, []
        for seq, record in enumerate(records, 1):
            out.append(check_record(record, seq, prev))
            prev = str(record[6])
        return out

    with_c = verdicts()
    original = chain._canonical_parse
    chain._canonical_parse = lambda _text: None  # the json module's way alone
    try:
        assert verdicts() == with_c
    finally:
        chain._canonical_parse = original
