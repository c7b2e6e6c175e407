"""Points where the OpenAPI document and the service disagreed (found by schemathesis), each checked
against a real shoed: what the document allows the service takes, what it forbids the service refuses."""

from __future__ import annotations

from typing import Any

from shoe.service.api import requests as rq
from tests.api.conftest import RealShoed, SseReader
from tests.e2e.support import TOKENS


def _document(shoed: RealShoed) -> dict[str, Any]:
    doc: dict[str, Any] = shoed.api.get("/v1/openapi.json")
    return doc


def test_every_post_with_a_body_type_says_its_json_body_is_required(real_shoed: RealShoed) -> None:
    """A body-less POST has no Content-Type and is answered 415: the document must not allow it."""
    doc = _document(real_shoed)
    posts = [
        (path, ops["post"]) for path, ops in doc["paths"].items() if "post" in ops and "requestBody" in ops["post"]
    ]
    assert len(posts) > 10
    for path, op in posts:
        assert op["requestBody"]["required"] is True, path


def test_a_stud_table_of_zero_limits_is_outside_the_schema(real_shoed: RealShoed) -> None:
    schema = _document(real_shoed)["components"]["schemas"]["StudTable"]
    for name in ("bring_in", "small_bet", "big_bet"):
        assert schema["properties"][name]["minimum"] == 1, name
    reply = real_shoed.api.call(
        "POST",
        "/v1/rounds",
        {"game": "seven-card-stud", "seats": [1, 2], "table": {"bring_in": 0, "small_bet": 0, "big_bet": 0}},
    )
    assert reply.status == 400 and reply.body["error"]["code"] == "bad-request", reply.body


def test_a_negative_cursor_is_refused(real_shoed: RealShoed) -> None:
    host, port = real_shoed.url.removeprefix("http://").split(":")
    auth = {"Authorization": f"Bearer {TOKENS['observer']}"}
    with SseReader((host, int(port)), "/v1/events?cursor=-1", auth) as stream:
        assert stream.status == 400


def test_an_unknown_name_is_answered_with_the_names_there_are(real_shoed: RealShoed) -> None:
    reply = real_shoed.api.call(
        "POST", "/v1/rounds", {"game": "mississippi-stud", "jurisdiction": "ny", "seats": [{"seat": 1, "ante": 500}]}
    )
    assert reply.status == 400
    assert reply.body["error"]["message"] == "$.jurisdiction: invalid enum value 'ny': use one of: NY, PA, NJ"


def test_a_pattern_is_said_in_words() -> None:
    try:
        rq.convert_value({"index": 1, "card": "Zz"}, rq.Reveal)
    except rq.RequestError as exc:
        assert "regex" not in str(exc) and 'a card code such as "7h"' in str(exc)
    else:
        raise AssertionError("Zz was taken for a card")
