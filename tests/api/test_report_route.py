"""``GET /v1/report``: the journal report for the table-system role, over the real service and HTTP."""

from __future__ import annotations

from shoe.api import ApiServer
from shoe.service import Role
from tests.api.conftest import TOKEN_OF, Client, play_ny_round


def test_the_table_system_reads_the_report_of_the_current_journal(api: ApiServer, client: Client) -> None:
    play_ny_round(client, folds=frozenset({3}))
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
