"""The one JSON encoder of answers, events and stream lines (``shoe.service.journal.feed.json_bytes``).

Whatever it is given that JSON can carry, a standard parser reads back as the same value; its output is
always JSON a browser's ``JSON.parse`` takes (no ``NaN`` token), on one line, with keys in their order."""

from __future__ import annotations

import enum
import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shoe.service.journal.feed import json_bytes

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()  # past 64 bits too: an answer that echoes a huge number must not become a 500
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
_VALUES = st.recursive(
    _SCALARS, lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5), max_leaves=30
)


def _no_surrogates(value: object) -> bool:
    text = json.dumps(value, ensure_ascii=False)
    return not any(0xD800 <= ord(ch) <= 0xDFFF for ch in text)


@given(_VALUES)
def test_what_it_writes_reads_back_as_the_same_value_on_one_line(value: object) -> None:
    if not _no_surrogates(value):
        with pytest.raises(UnicodeEncodeError):
            json_bytes(value)
        return
    out = json_bytes(value)
    assert b"\n" not in out  # an SSE data: line is one line
    assert json.loads(out) == value


def test_keys_keep_their_order_and_the_form_is_compact() -> None:
    assert json_bytes({"cursor": 3, "type": "card", "a": [1, 2]}) == b'{"cursor":3,"type":"card","a":[1,2]}'


def test_an_enum_is_its_value_and_text_stays_utf8() -> None:
    class Phase(enum.Enum):
        DEALING = "dealing"

    class Seat(enum.IntEnum):
        ONE = 1

    assert json.loads(json_bytes({"phase": Phase.DEALING, "seat": Seat.ONE, "who": "Zoë"})) == {
        "phase": "dealing",
        "seat": 1,
        "who": "Zoë",
    }
    assert "Zoë".encode() in json_bytes("Zoë")  # not \\u escapes


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_a_non_finite_float_is_null_not_a_token_no_parser_takes(value: float) -> None:
    out = json_bytes({"z": value})
    assert out == b'{"z":null}'
    assert json.loads(out, parse_constant=lambda token: pytest.fail(f"non-JSON token {token}")) == {"z": None}


def test_a_type_json_cannot_carry_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        json_bytes({"x": object()})
