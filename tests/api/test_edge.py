"""The typed edge (shoe/service/api/requests.py): hostile request values are a 400 that names the field, and
change nothing (the attacks found by review, and their examples).

The attack found these through the real ``shoed`` process, so they are replayed against one
(``real_shoed``): each refused body leaves the process up, the journal where it was and the round
readable by every role. ``TableService.submit`` applies the same checks in process.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from shoe.api import ApiServer
from shoe.api.errors import service_status
from shoe.service import Role, ServiceError, TableService
from tests.api.conftest import Client, RealShoed
from tests.e2e.support import TOKENS
from tests.service.conftest import Table, restack, table_factory  # noqa: F401  (the fixture)

NY = '{"game": "mississippi-stud", "jurisdiction": "NY", %s}'
SEAT1 = '"seats": [{"seat": 1, "ante": 500}]'
DEEP = 30_000

# (role, path, raw body, the field path the message names): the openings are sent with no round live,
# where the old edge let them through to the journal (NaN: shoed stopped) or to a traceback (500).
OPENINGS: list[tuple[str, str, bytes, str]] = [
    ("dealer", "/v1/rounds", (NY % f'"table": {{"name": NaN}}, {SEAT1}').encode(), "not valid JSON"),
    ("dealer", "/v1/rounds", (NY % f'"table": {{"min_ante": Infinity}}, {SEAT1}').encode(), "not valid JSON"),
    ("dealer", "/v1/rounds", (NY % f'"table": "t1\\n\\u001b[31mred", {SEAT1}').encode(), "$.table"),
    ("dealer", "/v1/rounds", (NY % f'"table": {{"name": "t1\\r\\nX"}}, {SEAT1}').encode(), "$.table"),
    ("dealer", "/v1/rounds", (NY % '"seats": [{"seat": "\\u00b2", "ante": 500}]').encode(), "$.seats[0].seat"),
    ("dealer", "/v1/rounds", (NY % f'"seats": [{{"seat": 1, "ante": {"9" * 5000}}}]').encode(), "$.seats[0].ante"),
    ("dealer", "/v1/rounds", (NY % f'"seats": {"[" * DEEP}{"]" * DEEP}').encode(), "nested deeper"),
    ("dealer", "/v1/rounds", (NY % '"seats": {"1": {"ante": 500}}').encode(), "$.seats"),
]  # fmt: skip
HOSTILE: list[tuple[str, str, bytes, str]] = [
    ("dealer", "/v1/round/void", b'{"cause": "\\ud800"}', "surrogate"),
    ("dealer", "/v1/round/void", b'{"cause": "\\udc00 low"}', "surrogate"),
    ("dealer", "/v1/round/decisions", b'{"seat": "5", "multiple": 1}', "$.seat"),
    ("dealer", "/v1/round/decisions", b'{"seat": 1, "multiple": 1.5}', "$.multiple"),
    ("table-system", "/v1/table-system/progressive-inputs", b'{"magic_card": NaN}', "not valid JSON"),
    ("table-system", "/v1/table-system/progressive-inputs", b'{"magic_card": ["As"]}', "$.magic_card"),
    ("table-system", "/v1/table-system/progressive-inputs", b'{"magic_card": "Zz"}', "$.magic_card"),
    ("table-system", "/v1/table-system/progressive-inputs",
     b'{"meters": {"meter": 99999999, "\\ud800": 1}}', "surrogate"),
    ("table-system", "/v1/table-system/progressive-inputs", b'{"meters": {"meter": 12.5}}', "$.meters"),
    ("technician", "/v1/maintenance/dispense", b'{"stacks": 0, "size": 2}', "$.stacks"),
]  # fmt: skip


def _post(shoed: RealShoed, role: str, path: str, raw: bytes) -> tuple[int, Any]:
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", shoed.api.port, timeout=30)
    try:
        headers = {"Authorization": f"Bearer {TOKENS[role]}", "Content-Type": "application/json"}
        conn.request("POST", path, body=raw, headers=headers)
        response = conn.getresponse()
        body = response.read()
    finally:
        conn.close()
    return response.status, json.loads(body)


@pytest.fixture(scope="module")
def live_round(real_shoed: RealShoed) -> Iterator[RealShoed]:
    """A NY round open on the real shoed, its stacks dealt: the state every hostile body must leave alone."""
    real_shoed.api.post("/v1/rounds", json.loads(NY % '"seats": [{"seat": 1, "ante": 500}, {"seat": 3, "ante": 500}]'))
    real_shoed.api.post("/v1/round/no-more-bets")
    real_shoed.api.post("/v1/round/deal")
    yield real_shoed


def _refused(shoed: RealShoed, role: str, path: str, raw: bytes, names: str) -> None:
    before = shoed.api.get("/v1/status")["service"]["journal_seq"]
    view = shoed.api.round()
    status, body = _post(shoed, role, path, raw)
    assert (status, body["error"]["code"]) == (400, "bad-request"), body
    assert names in body["error"]["message"], body
    assert shoed.alive(), "shoed stopped on a request"
    assert shoed.api.get("/v1/status")["service"]["journal_seq"] == before, "the journal moved"
    for who in TOKENS:  # the round is still readable by every role, and unchanged
        reply = shoed.api.call("GET", "/v1/round", role=who)
        assert reply.status == 200, (who, reply.body)
    assert shoed.api.round() == view


@pytest.mark.parametrize(("role", "path", "raw", "names"), OPENINGS, ids=[repr(h[2][50:110]) for h in OPENINGS])
def test_a_hostile_opening_is_a_400_naming_the_field_and_opens_nothing(
    real_shoed: RealShoed, role: str, path: str, raw: bytes, names: str
) -> None:
    assert real_shoed.api.round() is None, "runs before the live round of the tests below"
    _refused(real_shoed, role, path, raw, names)
    assert real_shoed.api.round() is None


@pytest.mark.parametrize(("role", "path", "raw", "names"), HOSTILE, ids=[f"{h[1]}:{h[2][:60]!r}" for h in HOSTILE])
def test_a_hostile_body_is_a_400_naming_the_field_and_changes_nothing(
    live_round: RealShoed, role: str, path: str, raw: bytes, names: str
) -> None:
    _refused(live_round, role, path, raw, names)


def test_submit_in_process_applies_the_same_checks(service: TableService) -> None:
    """The review's examples: ``int_param`` took "5", ``parse_seats`` took an object; now neither passes."""
    d = Role.DEALER
    for action, params, role, where in (
        ("maintenance-dispense", {"stacks": "1", "size": 2}, Role.TECHNICIAN, "$.stacks"),
        ("open-round", {"game": "mississippi-stud", "jurisdiction": "NY", "seats": {"1": {"ante": 500}}}, d, "$.seats"),
        ("open-round", {"game": "mississippi-stud", "jurisdiction": "NY",
                        "seats": [{"seat": 1, "ante": float("nan")}]}, d, "$.seats[0].ante"),
        ("open-round", {"game": "mississippi-stud", "jurisdiction": "NY", "table": {"name": "\ud800"},
                        "seats": [{"seat": 1, "ante": 500}]}, d, "$.table.name"),
        ("open-round", {"game": "mississippi-stud", "jurisdiction": "NY", "seats": [{"seat": True, "ante": 500}]}, d,
         "$.seats[0].seat"),
        ("clear-fault", {"fault": "jam", "extra": 1}, Role.TECHNICIAN, "extra"),
    ):  # fmt: skip
        with pytest.raises(ServiceError) as err:
            service.submit(action, params, role)
        assert (err.value.code, service_status(err.value)) == ("bad-request", 400), (action, params)
        assert where in err.value.message, err.value.message
    assert service.round_view(Role.OBSERVER) is None


UNTAKEN = [("TRACE", "/v1/round", "GET"), ("TRACE", "/v1/round/deal", "POST"), ("FROB", "/v1/status", "GET"),
           ("TRACE", "/ui/dealer.html", "GET, HEAD")]  # fmt: skip


@pytest.mark.parametrize(("method", "path", "allow"), UNTAKEN)
def test_a_method_no_route_takes_is_405_with_allow(client: Client, method: str, path: str, allow: str) -> None:
    answer = client.call(method, path)
    assert (answer.status, answer.error["code"]) == (405, "method-not-allowed")
    assert answer.headers["Allow"] == allow


@pytest.fixture
def short_deck(table_factory: Callable[..., Table]) -> Iterator[Client]:  # noqa: F811
    script = json.loads(
        (Path(__file__).resolve().parents[2] / "examples" / "nj-seven-card-stud-short-deck.json").read_text()
    )
    # The 53-card list: 51 dealt before 7th street, then the reshuffled burn and the common card (h): the
    # emulator holds, after the reshuffle, what the dealer loaded. It cannot count (a 53-card "deck").
    table = table_factory(count_known=False)
    service = table.start()
    restack(table.shoe, script["shoe"])  # after the deck check of the 52 loaded
    with ApiServer(service, "127.0.0.1", 0) as server:
        yield Client(server.address)


def test_an_eight_player_short_deck_stud_hand_is_finished_over_http(short_deck: Client) -> None:
    """N.J.A.C. 13:47-20.35(h): with 8 players the burns are reshuffled for 7th street (``reshuffle-burns``)."""
    client = short_deck
    table = {"ante": 0, "bring_in": 100, "small_bet": 200, "big_bet": 400}
    client.post("/v1/rounds", {"game": "seven-card-stud", "jurisdiction": "NJ", "table": table,
                               "seats": [1, 2, 3, 4, 5, 6, 7, 8]})  # fmt: skip
    reshuffled = 0
    view: dict[str, Any] = {}
    for _ in range(200):  # bounded: a hand is 7 streets of at most 8 players' actions
        view = client.ok("GET", "/v1/round")["round"]
        if view["closed"]:
            break
        step = view["next_card"]
        if step is not None and step["target"] == "reshuffle":
            refused = client.call("POST", "/v1/round/deal", {})
            assert (refused.status, refused.error["code"]) == (409, "out-of-order")
            answer = client.call("POST", "/v1/round/reshuffle-burns", {})
            assert answer.status == 200, answer.body
            reshuffled += 1
        elif step is not None:
            client.post("/v1/round/deal")
        else:
            choice = next(a for a in view["legal_actions"] if a["action"] in ("check", "call", "bring-in"))
            body = {"seat": choice["seat"], "action": choice["action"]}
            if choice["action"] == "bring-in":
                body["amount"] = choice["amount"]
            client.post("/v1/round/stud-actions", body)
    assert reshuffled == 1
    assert view["closed"] and not view["void"], view
    awards = client.post("/v1/round/settle")["awards"]
    assert list(awards) == ["3"]  # seat 3's four aces, with the common card As
