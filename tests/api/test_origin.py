"""Cross-origin defence: a page of another origin, or a rebound DNS name, cannot act.

Every request goes over a raw socket, so that nothing (``http.client``'s own ``Host``, a default
content type) is added behind the test's back.  Each refusal must leave the round and the journal
exactly as they were.
"""

from __future__ import annotations

import json
import socket
from typing import Any

import pytest

from shoe.api import ApiServer
from shoe.service import TableService
from tests.api.conftest import Client, open_ny_round


def raw(
    address: tuple[str, int], method: str, path: str, headers: dict[str, str], body: bytes = b""
) -> tuple[int, Any]:
    """One request exactly as given (plus ``Content-Length`` and ``Connection: close``): status, JSON body."""
    lines = [f"{method} {path} HTTP/1.1", *(f"{k}: {v}" for k, v in headers.items())]
    lines += [f"Content-Length: {len(body)}", "Connection: close", "", ""]
    with socket.create_connection(address, timeout=10) as sock:
        sock.sendall("\r\n".join(lines).encode() + body)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, payload = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(payload) if payload else None


def state(service: TableService, client: Client) -> tuple[Any, int]:
    return client.ok("GET", "/v1/round")["round"]["state"], service.health()["service"]["journal_seq"]


@pytest.fixture
def live(service: TableService, api: ApiServer, client: Client) -> tuple[Any, int]:
    open_ny_round(client)
    return state(service, client)


def own_host(api: ApiServer) -> str:
    return f"127.0.0.1:{api.address[1]}"


def test_a_body_less_post_without_the_json_content_type_is_refused(
    service: TableService, api: ApiServer, client: Client, live: tuple[Any, int]
) -> None:
    # What fetch(url, {method: "POST", mode: "no-cors"}) sends: no body, no content type (or text/plain).
    for headers in (
        {},
        {"Content-Type": "text/plain;charset=UTF-8"},
        {"Content-Type": "application/x-www-form-urlencoded"},
    ):
        status, body = raw(api.address, "POST", "/v1/round/no-more-bets", {"Host": own_host(api), **headers})
        assert status == 415, (headers, status, body)
        assert body["error"]["code"] == "unsupported-media-type"
        assert "application/json" in body["error"]["message"]
    assert state(service, client) == live


def test_a_post_with_the_json_content_type_and_no_body_is_still_accepted(
    service: TableService, api: ApiServer, client: Client, live: tuple[Any, int]
) -> None:
    headers = {"Host": own_host(api), "Content-Type": "application/json"}
    status, body = raw(api.address, "POST", "/v1/round/no-more-bets", headers)
    assert status == 200, body
    assert state(service, client) != live


@pytest.mark.parametrize(
    "host", ["rebind.example", "rebind.example:{port}", "127.0.0.1:1", "localhost", "10.0.0.7:{port}"]
)
def test_a_foreign_host_is_refused_dns_rebinding(
    service: TableService, api: ApiServer, client: Client, live: tuple[Any, int], host: str
) -> None:
    headers = {"Host": host.format(port=api.address[1]), "Content-Type": "application/json"}
    status, body = raw(api.address, "POST", "/v1/round/no-more-bets", headers, b"{}")
    assert status == 403, body
    assert body["error"]["code"] == "foreign-host"
    assert "Host" in body["error"]["message"]
    status, body = raw(api.address, "GET", "/v1/round", {"Host": host.format(port=api.address[1])})
    assert status == 403  # nor can a rebound page read the table
    assert state(service, client) == live


def test_a_missing_host_is_a_bad_request(api: ApiServer, client: Client, live: tuple[Any, int]) -> None:
    status, body = raw(api.address, "POST", "/v1/round/no-more-bets", {"Content-Type": "application/json"}, b"{}")
    assert status == 400 and "Host" in body["error"]["message"]


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "LocalHost:{port}", "[::1]:{port}"])
def test_loopback_names_with_the_port_are_this_server(api: ApiServer, host: str) -> None:
    status, _ = raw(api.address, "GET", "/v1/status", {"Host": host.format(port=api.address[1])})
    assert status == 200


@pytest.mark.parametrize("origin", ["http://127.0.0.1:1", "http://evil.example", "null", "https://127.0.0.1:{port}"])
def test_a_foreign_origin_is_refused_on_every_request(
    service: TableService, api: ApiServer, client: Client, live: tuple[Any, int], origin: str
) -> None:
    port = api.address[1]
    base = {"Host": own_host(api), "Origin": origin.format(port=port)}
    status, body = raw(
        api.address, "POST", "/v1/round/no-more-bets", {**base, "Content-Type": "application/json"}, b"{}"
    )
    assert status == 403, body
    assert body["error"]["code"] == "foreign-origin"
    assert set(body["error"]) >= {"code", "message", "rule"}
    for path in ("/v1/round", "/v1/events", "/ui/dealer.html", "/metrics"):
        assert raw(api.address, "GET", path, base)[0] == 403, path
    assert state(service, client) == live


def test_this_servers_own_origin_is_accepted(api: ApiServer, client: Client, live: tuple[Any, int]) -> None:
    port = api.address[1]
    for host in (f"127.0.0.1:{port}", f"localhost:{port}"):
        headers = {"Host": host, "Origin": f"http://{host}", "Content-Type": "application/json"}
        status, body = raw(api.address, "POST", "/v1/round/no-more-bets", headers, b"{}")
        assert status in (200, 409), body  # the second is refused by the rules, not by the origin check


def test_a_non_loopback_bind_accepts_its_own_address_only() -> None:
    from shoe.api.origin import HostCheck

    check = HostCheck("192.0.2.10", 8470)  # no traffic: the rule alone (tests use loopback only)
    assert check.allows("192.0.2.10:8470", ("192.0.2.10", 8470))
    assert not check.allows("localhost:8470", ("192.0.2.10", 8470))
    assert not check.allows("rebind.example:8470", ("192.0.2.10", 8470))
    wildcard = HostCheck("0.0.0.0", 8470)  # every interface: the address the connection came in on
    assert wildcard.allows("192.0.2.10:8470", ("192.0.2.10", 8470))
    assert not wildcard.allows("rebind.example:8470", ("192.0.2.10", 8470))
    assert not wildcard.allows("192.0.2.11:8470", ("192.0.2.10", 8470))
