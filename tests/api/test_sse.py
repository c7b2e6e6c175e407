"""The event stream over HTTP: read a round, disconnect, resume with Last-Event-ID, miss nothing."""

from __future__ import annotations

import time

import pytest

from shoe.api import ApiServer, sse
from shoe.service import TableService
from tests.api.conftest import Client, SseReader, open_ny_round


def test_resume_after_a_disconnect_gets_exactly_the_missed_events(
    api: ApiServer, client: Client, service: TableService
) -> None:
    with SseReader(api.address) as stream:
        assert stream.status == 200
        assert stream.headers["content-type"] == "text/event-stream; charset=utf-8"
        open_ny_round(client)
        seen = stream.events()
    assert "round-opened" in [e["type"] for e in seen]
    last = seen[-1]["cursor"]

    client.post("/v1/round/no-more-bets")  # while nobody listens
    client.post("/v1/round/deal")
    _, missed = service.events_since(last, 0.0)
    assert missed, "the actions made no event"

    with SseReader(api.address, "/v1/events?cursor=0", {"Last-Event-ID": str(last)}) as stream:
        resumed = stream.events()
        client.post("/v1/round/release-stub")
        live = stream.events()
    assert resumed == missed
    cursors = [e["cursor"] for e in resumed + live]
    assert cursors == sorted(cursors) and cursors[0] > last
    # one event per entry: a deck entry's or a stub's deck view rides on its event as ``deck_view``
    assert len(set(cursors)) == len(cursors)
    assert [e for e in resumed + live if "deck_view" in e]
    assert live and all(e["cursor"] > resumed[-1]["cursor"] for e in live)

    with SseReader(api.address, f"/v1/events?cursor={last}") as stream:  # the query works the same
        assert stream.events()[: len(missed)] == missed
    metrics = client.call("GET", "/metrics").text
    assert "shoe_api_event_stream_resumes_total 2" in metrics


def test_no_cursor_replays_what_the_service_holds(api: ApiServer, client: Client, service: TableService) -> None:
    open_ny_round(client)
    _, held = service.events_since(0, 0.0)
    with SseReader(api.address) as stream:
        assert stream.events() == held


def test_a_quiet_stream_gets_keep_alive_comments(api: ApiServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sse, "HEARTBEAT_S", 0.2)
    with SseReader(api.address) as stream:
        stream.events(quiet=0.7)
        assert ": keep-alive" in stream.comments
        assert not stream.closed


def test_a_bad_cursor_is_refused_with_the_envelope(api: ApiServer) -> None:
    with SseReader(api.address, "/v1/events?cursor=soon") as stream:
        assert stream.status == 400
        assert stream.headers["content-type"] == "application/json"


def test_a_cursor_ahead_of_the_journal_is_refused_not_left_hanging(api: ApiServer) -> None:
    with SseReader(api.address, "/v1/events", {"Last-Event-ID": "999999"}) as stream:
        assert stream.status == 409
        raw = stream._until(b"}}", 5.0)
        assert raw is not None and b'"code":"cursor-ahead"' in raw


def test_a_stream_ends_soon_after_its_client_leaves(api: ApiServer, client: Client) -> None:
    with SseReader(api.address) as stream:
        stream.events(quiet=0.2)
        assert "shoe_api_event_streams 1" in client.call("GET", "/metrics").text
    deadline = time.monotonic() + 3
    while "shoe_api_event_streams 0" not in client.call("GET", "/metrics").text:
        assert time.monotonic() < deadline, "the stream outlived its client"
        time.sleep(0.05)


def test_stopping_the_server_ends_open_streams(service: TableService) -> None:
    server = ApiServer(service, "127.0.0.1", 0).start()
    stream = SseReader(server.address)
    stream.events(quiet=0.2)
    started = time.monotonic()
    server.stop()
    assert time.monotonic() - started < 3
    assert stream.frame(timeout=3) is None
    assert stream.closed
    stream.close()
