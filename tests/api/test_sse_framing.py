"""SSE framing and cursor parsing, without a server."""

from __future__ import annotations

import json

import pytest

from shoe.api.errors import ApiError
from shoe.api.sse import format_event, parse_cursor


def test_an_event_is_id_event_and_one_data_line() -> None:
    frame = format_event({"cursor": 42, "type": "reveal", "index": 1, "card": None, "note": "two\nlines"})
    lines = frame.decode().split("\n")
    assert lines[:2] == ["id: 42", "event: reveal"]
    assert lines[2].startswith("data: ")
    assert json.loads(lines[2].removeprefix("data: "))["note"] == "two\nlines"
    assert lines[3:] == ["", ""]


def test_an_event_type_cannot_break_the_framing() -> None:
    frame = format_event({"cursor": 1, "type": "a\r\nid: 99"})
    assert frame.count(b"\nid: ") == 0
    assert frame.startswith(b"id: 1\nevent: a  id: 99\n")


@pytest.mark.parametrize(
    ("query", "headers", "expected"),
    [
        ({}, {}, (0, False)),
        ({"cursor": "7"}, {}, (7, True)),
        ({"cursor": "7"}, {"last-event-id": "9"}, (9, True)),  # a reconnecting EventSource repeats the URL
        ({"cursor": "7"}, {"last-event-id": " "}, (7, True)),
        ({}, {"last-event-id": "0"}, (0, True)),
    ],
)
def test_the_cursor_comes_from_last_event_id_first(
    query: dict[str, str], headers: dict[str, str], expected: tuple[int, bool]
) -> None:
    assert parse_cursor(query, headers) == expected


@pytest.mark.parametrize(
    ("query", "headers"), [({"cursor": "x"}, {}), ({"cursor": "-1"}, {}), ({}, {"last-event-id": "1.5"})]
)
def test_a_bad_cursor_is_a_bad_request(query: dict[str, str], headers: dict[str, str]) -> None:
    with pytest.raises(ApiError) as caught:
        parse_cursor(query, headers)
    assert caught.value.code == "bad-request"
    assert caught.value.http_status == 400
