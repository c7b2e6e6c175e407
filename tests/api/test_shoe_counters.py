"""``GET /v1/shoe/counters``: the shoe's own lifetime counters (COUNTERS, protocols/SPEC.md §3), asked of
the shoe by the owner thread when a technician reads them.

The technician page showed only the service's since-start figures (``/metrics``) under "Counters"; the
shoe's non-volatile counters (cards, stacks, jams, misreads...) were journaled at connect and nowhere
else. These run a real ``TableService`` on the in-process emulator and read the route over loopback.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Any

import pytest

from shoe.api import ApiServer
from shoe.api.openapi import build_document
from shoe.service import Role, TableService
from shoe.service.journal.visibility import VIEWS
from tests.api.conftest import TOKEN_OF, Client

PATH = "/v1/shoe/counters"
FIELDS = {"cards", "stacks", "jams", "misreads", "double_feeds", "misfeeds", "power_cycles"}


@pytest.fixture
def unused_port() -> int:
    with socket.socket() as probe:  # bound and closed: nothing listens on it afterwards
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def _schema() -> dict[str, Any]:
    content = build_document()["paths"][PATH]["get"]["responses"]["200"]["content"]
    schema: dict[str, Any] = content["application/json"]["schema"]
    return schema


def test_the_shoe_counters_are_the_shoes_own_lifetime_figures_read_now(client: Client) -> None:
    before = client.ok("GET", PATH)
    schema = _schema()  # the answer has exactly the fields its allow-list and the OpenAPI document declare
    assert set(before) == set(VIEWS["shoe-counters"].fields) == set(schema["required"]) == set(schema["properties"])
    figures = schema["properties"]["counters"]["required"]
    assert set(before["counters"]) == set(VIEWS["shoe-counters-figures"].fields) == set(figures) == FIELDS
    assert before["shoe"] == "EMU0001"
    assert before["counters"]["cards"] == 0 and before["counters"]["stacks"] == 0
    done = client.post("/v1/maintenance/dispense", {"stacks": 2, "size": 3})
    assert len(done["stacks"]) == 2
    after = client.ok("GET", PATH)["counters"]
    assert (after["cards"], after["stacks"]) == (6, 2)  # read from the shoe now, not the figures at connect


def test_the_route_is_a_technicians_and_names_nothing_but_counts(secured_client: Client) -> None:
    for role in (Role.DEALER, Role.OBSERVER, Role.TABLE_SYSTEM):
        answer = secured_client.call("GET", PATH, token=TOKEN_OF[role])
        assert answer.status == 403, (role, answer.status)
    answer = secured_client.call("GET", PATH, token=TOKEN_OF[Role.TECHNICIAN])
    assert answer.status == 200
    doc = answer.json
    assert set(doc) == {"shoe", "read_at", "counters"}
    assert all(isinstance(v, int) for v in doc["counters"].values())


def test_with_the_shoe_unreachable_the_answer_is_503_with_what_to_do(
    start_service: Callable[..., TableService], unused_port: int
) -> None:
    service = start_service(port=f"socket://127.0.0.1:{unused_port}")  # nothing listens there: the link is down
    with ApiServer(service, "127.0.0.1", 0) as server:
        answer = Client(server.address).call("GET", PATH)
    assert answer.status == 503
    error = answer.error
    assert error["code"] == "shoe-unavailable" and error.get("hint")
    assert str(503) in build_document()["paths"][PATH]["get"]["responses"]
