"""The HTTP server's worker threads: reused from one connection to the next, never a
connection waiting behind another, none left once idle or stopped (``shoe.api.workers``)."""

from __future__ import annotations

import http.client
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from shoe.api import ApiServer
from shoe.api.limits import Limits
from shoe.api.workers import Workers
from tests.api.conftest import Client


class _Status:
    """A service of which only ``health`` is called: it says which thread answered."""

    def __init__(self) -> None:
        self.threads: list[str] = []

    def health(self) -> dict[str, Any]:
        self.threads.append(threading.current_thread().name)
        return {"ok": True}


@pytest.fixture
def status() -> _Status:
    return _Status()


@pytest.fixture
def server(status: _Status) -> Iterator[ApiServer]:
    limits = Limits(connections=4, reserved=1, streams=1, waiting=4, idle_s=30.0)
    with ApiServer(status, "127.0.0.1", 0, limits=limits) as api:  # type: ignore[arg-type]
        yield api


def _workers(prefix: str = "shoe-api-worker") -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == prefix]


def test_one_thread_serves_one_connection_after_another(server: ApiServer, status: _Status) -> None:
    client = Client(server.address)
    for _ in range(5):  # one connection per request, each closed before the next opens
        assert client.call("GET", "/v1/status").status == 200
    assert len(status.threads) == 5
    assert len(set(status.threads)) == 1, status.threads  # not a new thread per connection


def test_a_connection_never_waits_behind_an_open_keep_alive_one(server: ApiServer) -> None:
    """Every worker holds an idle keep-alive connection (the idle bound is 30 s): one more connection,
    within the connection cap, is still answered at once, by a new worker."""
    held = [http.client.HTTPConnection(*server.address, timeout=5) for _ in range(3)]
    try:
        for conn in held:
            conn.request("GET", "/v1/status")
            assert conn.getresponse().read()
        assert Client(server.address).call("GET", "/v1/status").status == 200  # times out if it queued
        for conn in held:  # and each held connection is still served, on its own worker
            conn.request("GET", "/v1/status")
            assert conn.getresponse().status == 200
    finally:
        for conn in held:
            conn.close()


def test_stop_leaves_no_worker(status: _Status) -> None:
    before = len(_workers())
    with ApiServer(status, "127.0.0.1", 0) as api:  # type: ignore[arg-type]
        for _ in range(3):
            assert Client(api.address).call("GET", "/v1/status").status == 200
        assert len(_workers()) > before
    deadline = time.monotonic() + 5
    while len(_workers()) > before and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(_workers()) == before


def test_an_idle_worker_ends_after_its_idle_time_and_the_next_job_starts_one() -> None:
    done: list[int] = []
    gate = threading.Event()

    def serve(job: int) -> None:
        done.append(job)
        gate.set()

    workers: Workers[int] = Workers(serve, idle_s=0.05, name="test-worker")
    try:
        workers.submit(1)
        assert gate.wait(5)
        deadline = time.monotonic() + 5
        while workers.threads and time.monotonic() < deadline:
            time.sleep(0.01)
        assert workers.threads == 0
        gate.clear()
        workers.submit(2)
        assert gate.wait(5)
        assert done == [1, 2]
    finally:
        workers.stop()


def test_jobs_submitted_at_once_each_get_a_worker() -> None:
    """Jobs that block until all have started: a pool that queued one behind another would never finish."""
    count = 6
    started = threading.Barrier(count, timeout=5)

    def serve(_: int) -> None:
        started.wait()

    workers: Workers[int] = Workers(serve, idle_s=5.0, name="test-worker")
    try:
        for i in range(count):
            workers.submit(i)
        deadline = time.monotonic() + 5
        while workers.idle < count and time.monotonic() < deadline:
            time.sleep(0.01)
        assert workers.idle == count  # every job ran (the barrier broke otherwise) and its worker waits
        assert not started.broken
        for i in range(count):  # again: the idle workers take them, none queued behind a busy one
            workers.submit(i)
        deadline = time.monotonic() + 5
        while workers.idle < count and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not started.broken
        assert workers.threads == count
    finally:
        workers.stop()
