"""Roles by bearer token, route by route (the list comes from the route table), and the bind rule."""

from __future__ import annotations

import dataclasses
import http.client
from pathlib import Path

import pytest

from shoe.api import ApiServer, InsecureBind, serve
from shoe.api.auth import check_bind, is_loopback
from shoe.api.routes import ROUTES, Route
from shoe.service import Role, TableService
from tests.api.conftest import TOKEN_OF, TOKENS, Client, make_config

GUARDED = [r for r in ROUTES if r.roles]


def _status(client: Client, route: Route, token: str | None) -> tuple[int, str | None]:
    """The status of one call to ``route``; an event stream is closed as soon as its headers arrive."""
    if route.path == "/v1/events":
        conn = client.connect()
        conn.request("GET", route.path, headers={"Authorization": f"Bearer {token}"} if token else {})
        response = conn.getresponse()
        status, challenge = response.status, response.headers.get("WWW-Authenticate")
        conn.close()
        return status, challenge
    answer = client.call(route.method, route.path, {} if route.method == "POST" else None, token=token)
    if answer.status >= 400:
        answer.error  # noqa: B018 - checks the envelope
    return answer.status, answer.headers.get("WWW-Authenticate")


@pytest.mark.parametrize("route", GUARDED, ids=lambda r: f"{r.method} {r.path}")
def test_a_guarded_route_wants_a_known_token_of_an_allowed_role(secured_client: Client, route: Route) -> None:
    status, challenge = _status(secured_client, route, None)
    assert status == 401
    assert challenge is not None and challenge.startswith("Bearer")
    status, challenge = _status(secured_client, route, "not-a-token-of-this-table")
    assert status == 401
    assert challenge is not None and 'error="invalid_token"' in challenge
    for role in Role:
        status, challenge = _status(secured_client, route, TOKEN_OF[role])
        if role in route.roles:
            assert status not in (401, 403), (role, status)
        else:
            assert status == 403, (role, status)
            assert challenge is None


def test_the_roles_of_the_table() -> None:
    by_path = {(r.method, r.path): set(r.roles) for r in ROUTES}
    assert by_path[("POST", "/v1/round/deal")] == {Role.DEALER}
    assert by_path[("POST", "/v1/maintenance/dispense")] == {Role.TECHNICIAN}
    assert by_path[("POST", "/v1/table-system/progressive-inputs")] == {Role.TABLE_SYSTEM}
    assert by_path[("GET", "/v1/round")] == set(Role)
    assert by_path[("GET", "/metrics")] == set(Role)
    assert by_path[("GET", "/v1/openapi.json")] == set()


def test_an_authorization_header_that_is_not_bearer_is_refused(secured_client: Client) -> None:
    answer = secured_client.call("GET", "/v1/status", token=None, headers={"Authorization": "Basic ZGVhbGVyOng="})
    assert answer.status == 401
    assert answer.error["code"] == "unauthorized"
    assert 'error="invalid_request"' in answer.headers["WWW-Authenticate"]


def test_without_tokens_on_loopback_every_request_holds_every_role(client: Client) -> None:
    for route in GUARDED:
        if route.path != "/v1/events":
            assert _status(client, route, None)[0] not in (401, 403), route.path


def test_a_non_loopback_bind_without_tokens_refuses_to_start(service: TableService, tmp_path: Path) -> None:
    with pytest.raises(InsecureBind, match="without bearer tokens"):
        ApiServer(service, "0.0.0.0", 0)
    with pytest.raises(InsecureBind):
        ApiServer(service, "", 0)
    with pytest.raises(InsecureBind):
        serve(service, dataclasses.replace(make_config(tmp_path, "emu://"), http_host="0.0.0.0"))
    check_bind("0.0.0.0", TOKENS)  # with tokens it may


def test_a_non_loopback_bind_with_tokens_serves(service: TableService) -> None:
    with ApiServer(service, "0.0.0.0", 0, tokens=TOKENS) as server:
        conn = http.client.HTTPConnection("127.0.0.1", server.address[1], timeout=5)
        conn.request("GET", "/v1/status")
        assert conn.getresponse().status == 401
        conn.close()


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("127.0.0.1", True), ("127.8.0.1", True), ("::1", True), ("[::1]", True), ("localhost", True),
     ("0.0.0.0", False), ("", False), ("::", False), ("10.1.2.3", False), ("192.168.0.1", False)],
)  # fmt: skip
def test_loopback_addresses(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback
