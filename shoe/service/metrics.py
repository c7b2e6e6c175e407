"""Counters and the card-event latency histogram, as a plain dict the HTTP layer renders.

``snapshot()`` shape (documented in docs/service.md)::

    {"counters": {"rounds_total": n, "cards_total": n, "faults_total": n, "reconnects_total": n},
     "gauges": {"journal_seq": n, "link_up": 0|1, "round_live": 0|1, "uptime_seconds": s},
     "histograms": {"event_latency_seconds": {"buckets": [[0.005, n], ..., ["+Inf", n]],
                                              "sum": s, "count": n}}}

Buckets are cumulative (Prometheus ``le``). Thread-safe.
"""

from __future__ import annotations

import threading
from typing import Any

__all__ = ["BUCKETS", "COUNTERS", "Metrics"]

COUNTERS = ("rounds_total", "cards_total", "faults_total", "reconnects_total")
BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class Metrics:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counters = dict.fromkeys(COUNTERS, 0)
        self._buckets = [0] * len(BUCKETS)
        self._sum = 0.0
        self._count = 0

    def inc(self, name: str, amount: int = 1) -> None:
        with self._lock:
            self._counters[name] += amount

    def observe(self, seconds: float) -> None:
        """One ``event_latency_seconds`` observation: card-read frame in, to its event available."""
        with self._lock:
            self._sum += seconds
            self._count += 1
            for i, bound in enumerate(BUCKETS):
                if seconds <= bound:
                    self._buckets[i] += 1

    def snapshot(self, gauges: dict[str, float] | None = None) -> dict[str, Any]:
        with self._lock:
            buckets: list[list[Any]] = [[b, n] for b, n in zip(BUCKETS, self._buckets, strict=True)]
            buckets.append(["+Inf", self._count])
            return {
                "counters": dict(self._counters),
                "gauges": dict(gauges or {}),
                "histograms": {"event_latency_seconds": {"buckets": buckets, "sum": self._sum, "count": self._count}},
            }
