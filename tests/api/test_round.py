"""A whole NY round over HTTP, and technician maintenance refused while a round is live."""

from __future__ import annotations

from shoe.api import ApiServer
from tests.api.conftest import Client, SseReader, open_ny_round, play_ny_round


def test_a_full_ny_round_over_http_ends_with_settlement_lines(api: ApiServer, client: Client) -> None:
    with SseReader(api.address) as stream:
        lines = play_ny_round(client, folds=frozenset({3}))
        events = stream.events()
    assert [line["seat"] for line in lines] == [5, 1]  # descending seat order; seat 3 folded
    view = client.ok("GET", "/v1/round")["round"]
    assert view["state"] == "complete"
    assert view["closed"] is True
    community = view["community"]
    assert len(community) == 3 and None not in community
    for line in lines:
        assert line["rule"] == "NY 5324.38(e)(7)"
        assert line["outcome"] in ("win", "push", "lose")
        assert len(line["cards"]) == 2
        assert line["community"] == community
        assert [w["name"] for w in line["wagers"]] == ["ante", "3rd", "4th", "5th"]
        assert view["seats"][str(line["seat"])]["cards"] == line["cards"]
    assert view["seats"]["3"]["status"] == "folded"
    assert view["seats"]["3"]["cards"] is None
    events = [e for e in events if e["round_id"] == view["round_id"]]
    types = [e["type"] for e in events]
    assert types[0] == "round-opened" and types[-1] == "round-closed"
    assert types.count("reveal") == 3 and types.count("settlement") == 2
    closed = events[-1]
    assert closed["seats"]["3"]["outcome"] == "fold"
    status = client.ok("GET", "/v1/status")
    assert status["shoe"]["link"] == "up"


def test_maintenance_is_refused_with_409_while_a_round_is_live(client: Client) -> None:
    assert client.ok("POST", "/v1/maintenance/verify-journal", {})["ok"] is True  # no round: allowed
    open_ny_round(client)
    for path, body in [
        ("/v1/maintenance/dispense", {"stacks": 1, "size": 2}),
        ("/v1/maintenance/clear-fault", {}),
        ("/v1/maintenance/verify-journal", {}),
    ]:
        answer = client.call("POST", path, body)
        assert answer.status == 409, (path, answer.body)
        error = answer.error
        assert error["code"] == "round-live"
        assert "live" in error["message"]
    client.post("/v1/round/void", {"cause": "other"})
    assert client.ok("GET", "/v1/round")["round"]["closed"] is True
    stacks = client.post("/v1/maintenance/dispense", {"stacks": 2, "size": 2})["stacks"]
    assert [s["cards"] for s in stacks] == [2, 2]  # counts only: a test dispense shows no card either


def test_a_second_round_cannot_open_while_one_is_live(client: Client) -> None:
    open_ny_round(client)
    answer = client.call(
        "POST", "/v1/rounds", {"game": "mississippi-stud", "jurisdiction": "NY", "seats": [{"seat": 2, "ante": 500}]}
    )
    assert answer.status == 409
    assert answer.error["code"] == "round-live"


def test_opening_a_round_answers_201_with_its_location(client: Client) -> None:
    answer = client.call(
        "POST", "/v1/rounds", {"game": "mississippi-stud", "jurisdiction": "NY", "seats": [{"seat": 2, "ante": 500}]}
    )
    assert answer.status == 201
    assert answer.headers["Location"] == "/v1/round"
    assert answer.json["round_id"] == client.ok("GET", "/v1/round")["round"]["round_id"]
