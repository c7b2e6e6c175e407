"""``GET /metrics``: the service's registry, then the HTTP layer's own series, in the Prometheus text
format 0.0.4, written by ``prometheus_client``.

``render`` writes a registry (``TableService.metrics_registry``: shoe.service.metrics lists its
families). ``ApiCounters`` holds the HTTP layer's series on a registry of its own (requests by method
and status, open event streams, stream resumes); a new series is one metric in ``__init__`` and one
method that moves it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from prometheus_client import CollectorRegistry, Counter, Gauge, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4

__all__ = ["CONTENT_TYPE", "ApiCounters", "render"]

CONTENT_TYPE = CONTENT_TYPE_PLAIN_0_0_4  # "text/plain; version=0.0.4; charset=utf-8"


def render(registry: CollectorRegistry) -> str:
    """The exposition text of every family in ``registry``: ``# HELP``, ``# TYPE``, then the samples."""
    return generate_latest(registry).decode("utf-8")


KNOWN_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT"})
"""Methods counted under their own name; any other a client sends is counted as ``OTHER``, so invented
method names cannot grow the series (and this process's memory) without bound."""


class ApiCounters:
    """The HTTP layer's own series; thread-safe (one handler thread per connection)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self._requests = Counter(
            "shoe_api_requests",
            "HTTP requests answered, by method and status code.",
            ("method", "code"),
            registry=self.registry,
        )
        self._request_children: dict[tuple[str, int], Counter] = {}
        self._streams = Gauge(
            "shoe_api_event_streams", "Event-stream (SSE) connections open now.", registry=self.registry
        )
        self._resumes = Counter(
            "shoe_api_event_stream_resumes",
            "Event-stream connections that resumed from a cursor.",
            registry=self.registry,
        )
        self._connections = Gauge(
            "shoe_api_connections", "HTTP connections open now, event streams apart.", registry=self.registry
        )
        self._refused = Counter(
            "shoe_api_refused",
            "Connections or requests refused by the HTTP server's bounds, by reason.",
            ("reason",),
            registry=self.registry,
        )
        self._sign_in_failures = Counter(
            "shoe_api_sign_in_failures",
            "Failed sign-ins (POST /v1/sessions), by cause; every one is answered alike.",
            ("cause",),
            registry=self.registry,
        )

    def sign_in_failed(self, cause: str) -> None:
        """One failed sign-in, by cause (unknown-badge, wrong-pin, backed-off, disabled, locked): the answer
        is the same for every cause, the count is not."""
        self._sign_in_failures.labels(cause=cause).inc()

    def request(self, method: str, status: int) -> None:
        if method not in KNOWN_METHODS:
            method = "OTHER"
        key = (method, status)
        child = self._request_children.get(key)
        if child is None:  # labels() once per method and status, not once per request
            child = self._request_children.setdefault(key, self._requests.labels(method=method, code=str(status)))
        child.inc()

    def resumed(self) -> None:
        self._resumes.inc()

    def connections(self, open_now: int) -> None:
        """How many connections are open now (``shoe.api.limits``), event streams apart."""
        self._connections.set(open_now)

    def refused(self, reason: str) -> None:
        """One connection or request refused by the server's bounds, by ``reason``."""
        self._refused.labels(reason=reason).inc()

    @contextmanager
    def stream_open(self) -> Iterator[None]:
        with self._streams.track_inprogress():
            yield

    def render(self) -> str:
        return render(self.registry)
