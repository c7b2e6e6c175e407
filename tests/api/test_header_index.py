"""``shoe.api.origin.header_index``: one pass over a request's headers gives what ``Message.get_all`` and
``Message.get`` give for every name, in any letter case, whatever the block held."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from shoe.api.head import parse_lines
from shoe.api.origin import first, header_index

NAMES = st.sampled_from(["Host", "host", "HOST", "Origin", "origin", "Authorization", "authorization",
                         "Content-Length", "content-type", "Sec-Fetch-Site", "X-Other", "x-other"])  # fmt: skip
VALUES = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=30).map(str.strip)


@given(st.lists(st.tuples(NAMES, VALUES), max_size=12))
def test_every_lookup_equals_the_messages(pairs: list[tuple[str, str]]) -> None:
    message = parse_lines([f"{name}: {value}\r\n".encode() for name, value in pairs] + [b"\r\n"])
    index = header_index(message)
    for name in {name for name, _ in pairs} | {"Missing"}:
        assert list(index.get(name.lower(), [])) == (message.get_all(name) or []), name
        assert first(index, name.lower()) == message.get(name), name
    assert sum(map(len, index.values())) == len(pairs)  # none dropped, none invented


def test_names_in_another_case_are_one_header() -> None:
    message = parse_lines([b"Origin: http://a\r\n", b"ORIGIN: http://b\r\n", b"\r\n"])
    assert header_index(message) == {"origin": ["http://a", "http://b"]}
