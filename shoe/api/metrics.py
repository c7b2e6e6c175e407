"""``GET /metrics``: the service's counters in the Prometheus text exposition format, version 0.0.4.

``render`` turns ``TableService.metrics_snapshot()`` (``{"counters": {...}, "gauges": {...},
"histograms": {...}}``) into text: a histogram is written as cumulative ``_bucket{le="..."}`` samples
ending at ``+Inf``, then ``_sum`` and ``_count``.  Every family gets ``# HELP`` and ``# TYPE`` lines
and the ``shoe_`` prefix.  ``ApiCounters`` adds the HTTP
layer's own series (requests by status, open event streams, stream resumes).
"""

from __future__ import annotations

import math
import re
import threading
from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

__all__ = ["CONTENT_TYPE", "ApiCounters", "render"]

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
PREFIX = "shoe_"
HELP: Mapping[str, str] = {
    "rounds_total": "Rounds opened.",
    "cards_total": "Cards dealt from the shoe.",
    "faults_total": "Shoe faults raised.",
    "reconnects_total": "Shoe link reconnections.",
    "event_latency_seconds": "Time from a card-read frame arriving to its event being available to clients.",
    "journal_seq": "The journal's last sequence number.",
    "link_up": "1 while the shoe link is up.",
    "round_live": "1 while a round is live.",
    "uptime_seconds": "Seconds since the service started.",
    "api_requests_total": "HTTP requests answered, by method and status code.",
    "api_event_streams": "Event-stream (SSE) connections open now.",
    "api_event_stream_resumes_total": "Event-stream connections that resumed from a cursor.",
    "api_connections": "HTTP connections open now, event streams apart.",
    "api_refused_total": "Connections or requests refused by the HTTP server's bounds, by reason.",
}
_NAME = re.compile(r"[^a-zA-Z0-9_:]")


def _name(raw: str) -> str:
    name = _NAME.sub("_", raw)
    return name if name.startswith(PREFIX) else PREFIX + name


def _number(value: float) -> str:
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, int):
        return str(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return repr(float(value))


def _escape_help(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def _escape_label(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _labels(labels: Mapping[str, str]) -> str:
    if not labels:
        return ""
    return "{" + ",".join(f'{k}="{_escape_label(str(v))}"' for k, v in labels.items()) + "}"


def _header(name: str, key: str, kind: str) -> list[str]:
    return [f"# HELP {name} {_escape_help(HELP.get(key, key.replace('_', ' ') + '.'))}", f"# TYPE {name} {kind}"]


def _histogram(name: str, key: str, value: Mapping[str, Any]) -> list[str]:
    lines = _header(name, key, "histogram")
    buckets = value["buckets"]
    pairs = sorted((float(le), int(n)) for le, n in (buckets.items() if isinstance(buckets, Mapping) else buckets))
    count = int(value.get("count", pairs[-1][1] if pairs else 0))
    for le, n in pairs:
        if not math.isinf(le):
            lines.append(f'{name}_bucket{{le="{_number(le)}"}} {n}')
    lines.append(f'{name}_bucket{{le="+Inf"}} {count}')
    lines.append(f"{name}_sum {_number(float(value.get('sum', 0.0)))}")
    lines.append(f"{name}_count {count}")
    return lines


def _scalar(key: str, value: float, kind: str) -> list[str]:
    name = _name(key)
    return [*_header(name, key, kind), f"{name} {_number(value)}"]


def render(snapshot: Mapping[str, Any]) -> str:
    """The exposition text of ``TableService.metrics_snapshot()``: its ``counters``, ``gauges`` and
    ``histograms`` (buckets as cumulative ``[le, count]`` pairs, ``"+Inf"`` last), families in name order.
    """
    lines: list[str] = []
    for key, value in sorted(snapshot.get("counters", {}).items()):
        lines += _scalar(key, value, "counter")
    for key, value in sorted(snapshot.get("gauges", {}).items()):
        lines += _scalar(key, value, "gauge")
    for key, value in sorted(snapshot.get("histograms", {}).items()):
        lines += _histogram(_name(key), key, value)
    return "".join(line + "\n" for line in lines)


class ApiCounters:
    """The HTTP layer's own series; thread-safe (one handler thread per connection)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._requests: Counter[tuple[str, int]] = Counter()
        self._streams = 0
        self._resumes = 0
        self._connections = 0  # shoe.api.limits: open now, and refusals by reason
        self._refused: Counter[str] = Counter()

    def request(self, method: str, status: int) -> None:
        with self._lock:
            self._requests[(method, status)] += 1

    def resumed(self) -> None:
        with self._lock:
            self._resumes += 1

    def connections(self, open_now: int) -> None:
        with self._lock:
            self._connections = open_now

    def refused(self, reason: str) -> None:
        with self._lock:
            self._refused[reason] += 1

    @contextmanager
    def stream_open(self) -> Iterator[None]:
        with self._lock:
            self._streams += 1
        try:
            yield
        finally:
            with self._lock:
                self._streams -= 1

    def render(self) -> str:
        with self._lock:
            requests, streams, resumes = sorted(self._requests.items()), self._streams, self._resumes
            connections, refused = self._connections, sorted(self._refused.items())
        name = _name("api_requests_total")
        lines = _header(name, "api_requests_total", "counter")
        lines += [f"{name}{_labels({'method': m, 'code': str(s)})} {n}" for (m, s), n in requests]
        lines += _header(_name("api_event_streams"), "api_event_streams", "gauge")
        lines.append(f"{_name('api_event_streams')} {streams}")
        lines += _header(_name("api_event_stream_resumes_total"), "api_event_stream_resumes_total", "counter")
        lines.append(f"{_name('api_event_stream_resumes_total')} {resumes}")
        lines += _header(_name("api_connections"), "api_connections", "gauge")
        lines.append(f"{_name('api_connections')} {connections}")
        lines += _header(_name("api_refused_total"), "api_refused_total", "counter")
        lines += [f"{_name('api_refused_total')}{_labels({'reason': r})} {n}" for r, n in refused]
        return "".join(line + "\n" for line in lines)
