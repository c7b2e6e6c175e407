"""``GET /v1/report``: the journal report for the table-system role, over the real service and HTTP."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path

from shoe.api import ApiServer
from shoe.api.report import RETRY_AFTER_S, WAITING, read_report
from shoe.journal import Journal
from shoe.report.groupings import GROUPINGS
from shoe.service import Role, TableService
from tests.api.conftest import TOKEN_OF, Client, open_ny_round, play_ny_round
from tests.math.soak_journal import fill_journal


def test_the_table_system_reads_the_report_of_the_current_journal(api: ApiServer, client: Client) -> None:
    play_ny_round(client, folds=frozenset({3}))
    _summary_caught_up(api)
    data = client.ok("GET", "/v1/report?by=seat")
    assert data["total"]["rounds"] == 1 and data["by"] == "seat"
    assert sorted(s["seat"] for s in data["seats"]) == sorted(int(g["key"].split()[1]) for g in data["groups"])
    assert data["total"]["handle"] > 0 and "series" not in data
    answer = client.call("GET", "/v1/report?by=hour")
    assert answer.status == 400 and "by='hour'" in answer.error["message"]


def test_only_the_table_system_may_read_it(secured_client: Client) -> None:
    for role in Role:
        answer = secured_client.call("GET", "/v1/report", token=TOKEN_OF[role])
        assert answer.status == (200 if role is Role.TABLE_SYSTEM else 403), (role, answer.body)
    assert secured_client.call("GET", "/v1/report", token=None).status == 401


def _summary_caught_up(api: ApiServer, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    assert api.report is not None
    while not api.report.status()["rebuilt"]:
        assert time.monotonic() < deadline, "the report's summary was not rebuilt in time"
        time.sleep(0.05)


def test_the_report_over_http_equals_the_report_read_from_the_journal(api: ApiServer, client: Client,
                                                                      service: TableService) -> None:  # fmt: skip
    """Answered from the summary the sink keeps; the numbers are those the file read gives, for every grouping."""
    play_ny_round(client, folds=frozenset({3}))
    client.post("/v1/deck/load")  # each round is dealt from a deck of its own
    open_ny_round(client)
    client.post("/v1/round/no-more-bets")
    client.post("/v1/round/deal")
    client.post("/v1/round/void", {"cause": "other"})
    client.post("/v1/round/release-stub")
    client.post("/v1/deck/load")
    play_ny_round(client)
    _summary_caught_up(api)
    for by in GROUPINGS:
        over_http = client.ok("GET", f"/v1/report?by={by}")
        assert over_http == json.loads(json.dumps(read_report(service.config.journal, by, 0.001))), by
    answer = client.call("GET", "/v1/report")
    assert answer.json["apart"]["void_rounds"] == 1
    assert int(answer.headers["Report-Journal-Seq"]) == service.health()["service"]["journal_seq"]


def test_a_service_started_on_a_long_journal_reports_it_whole(
    tmp_path: Path, start_service: Callable[..., TableService]
) -> None:
    """The summary is rebuilt at start by one streaming pass over the journal the service opened."""
    with Journal.open(tmp_path / "journal.sqlite") as journal:
        fill_journal(journal, 3_000, seed=5, void_every=4, fixture_every=10)
    service = start_service()
    with ApiServer(service, "127.0.0.1", 0) as api:
        client = Client(api.address)
        _summary_caught_up(api)
        data = client.ok("GET", "/v1/report?by=table")
        assert data == json.loads(json.dumps(read_report(service.config.journal, "table", 0.001)))
        assert data["apart"]["other_games"] and data["total"]["rounds"] > 50


def test_report_requests_beyond_the_cap_are_refused_with_retry_after(api: ApiServer, client: Client) -> None:
    """One report is computed at a time and a few wait for it; the next caller gets 503, not a computation."""
    play_ny_round(client)
    _summary_caught_up(api)
    summary = api.report
    assert summary is not None
    answers: list[int] = []
    with summary._computing:  # a report in hand
        waiting = [threading.Thread(target=lambda: answers.append(Client(api.address).call("GET", "/v1/report").status))
                   for _ in range(WAITING)]  # fmt: skip
        for thread in waiting:
            thread.start()
        deadline = time.monotonic() + 10
        while summary._waiting < WAITING:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        refused = client.call("GET", "/v1/report")
    for thread in waiting:
        thread.join(timeout=30)
    assert refused.status == 503 and refused.headers.get("Retry-After") == str(RETRY_AFTER_S), refused.body
    assert answers == [200] * WAITING
