"""The service's metrics, on a private ``prometheus_client`` registry that ``GET /metrics`` exposes.

Families (docs/service.md, "Metrics"):

- counters the owner thread moves: ``shoe_rounds_total``, ``shoe_cards_total``, ``shoe_faults_total``,
  ``shoe_reconnects_total``, and the ``shoe_event_latency_seconds`` histogram (a card-read frame in, to
  its event available to clients);
- read at scrape time from the owner's snapshots (:class:`Live`): the gauges ``shoe_journal_seq``,
  ``shoe_link_up``, ``shoe_round_live``, ``shoe_uptime_seconds``, and the shoe link's statistics
  (:class:`drivers.link.LinkStats`) as ``shoe_link_*_total`` counters, summed over the service's life;
- ``process_*`` (CPU, memory, open and maximum file descriptors) from the process collector.

``snapshot()`` gives the same figures as a plain dict for in-process readers (tests, the soak)::

    {"counters": {"rounds_total": n, ..., "link_bad_frames_total": n, "process_cpu_seconds_total": s},
     "gauges": {"journal_seq": n, "link_up": 0|1, "round_live": 0|1, "uptime_seconds": s, ...},
     "histograms": {"event_latency_seconds": {"buckets": [[0.001, n], ..., ["+Inf", n]], "sum": s, "count": n}}}

Buckets are cumulative (Prometheus ``le``). Thread-safe: the owner thread counts, HTTP threads scrape.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import prometheus_client
from prometheus_client import CollectorRegistry, Counter, Histogram, ProcessCollector
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from drivers.link import LinkStats

__all__ = ["BUCKETS", "COUNTERS", "LINK_HELP", "Live", "Metrics"]

# A ``_created`` series per counter and histogram (format 0.0.4 has no place for it) would double the
# families for nothing: the process start time is already exported.
prometheus_client.disable_created_metrics()  # type: ignore[no-untyped-call]  # (untyped in 0.26)

PREFIX = "shoe_"
COUNTERS: dict[str, str] = {
    "rounds_total": "Rounds opened.",
    "cards_total": "Cards dealt from the shoe.",
    "faults_total": "Shoe faults raised.",
    "reconnects_total": "Shoe link reconnections the service saw (link-restored notices).",
}
BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
LINK_HELP: dict[str, str] = {
    "frames_in": "Frames received from the shoe with a good CRC.",
    "frames_out": "Frames sent to the shoe.",
    "bad_frames": "Frames from the shoe dropped for a bad CRC or framing.",
    "bad_messages": "Frames from the shoe that decoded to no valid message.",
    "late_responses": "Responses from the shoe that came after their request had given up.",
    "retries": "Requests re-sent after no answer in time.",
    "polls": "Re-sends while the shoe was allowed to be working (SCAN, stub release): not failures.",
    "timeouts": "Requests that got no answer after every retry.",
    "link_losses": "Times the shoe link was lost.",
    "reconnects": "Times the shoe link was re-established by the driver.",
    "refused": "Frames from the shoe refused by authentication (MAC, counter, plain on a paired link).",
    "sessions": "Authenticated sessions started with the shoe (HELLO).",
}
if set(LINK_HELP) != {f.name for f in dataclasses.fields(LinkStats)}:  # pragma: no cover - a new field needs help
    raise AssertionError("LINK_HELP must describe every LinkStats field")


@dataclass(frozen=True)
class Live:
    """The figures read at scrape time from the owner's snapshots (``TableService._live_figures``)."""

    journal_seq: int
    link_up: bool
    round_live: bool
    uptime_seconds: float
    link: LinkStats | None  # the current link's statistics, written by its reader thread; None before a link


class _LinkTotals:
    """``LinkStats`` summed over every link of the service's life: a new client starts at zero, a counter never.

    A link's statistics object is kept when the next one replaces it, and its final figures are added
    then. A link opened and closed between two scrapes is not seen (the owner keeps one client from its
    first connection to shutdown; the driver reconnects inside it).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._retired = dict.fromkeys(LINK_HELP, 0)
        self._current: LinkStats | None = None

    def read(self, current: LinkStats | None) -> dict[str, int]:
        with self._lock:
            if current is not self._current:
                if self._current is not None:
                    for name in LINK_HELP:
                        self._retired[name] += getattr(self._current, name)
                self._current = current
            now = {name: getattr(current, name) if current is not None else 0 for name in LINK_HELP}
            return {name: self._retired[name] + now[name] for name in LINK_HELP}


class _LiveCollector(Collector):
    """Gauges and link counters computed when scraped, from ``live()``; nothing is cached between scrapes."""

    def __init__(self, live: Callable[[], Live]) -> None:
        self._live = live
        self._link = _LinkTotals()

    def collect(self) -> Iterator[Metric]:
        live = self._live()
        yield GaugeMetricFamily(PREFIX + "journal_seq", "The journal's last sequence number.", live.journal_seq)
        yield GaugeMetricFamily(PREFIX + "link_up", "1 while the shoe link is up.", int(live.link_up))
        yield GaugeMetricFamily(PREFIX + "round_live", "1 while a round is live.", int(live.round_live))
        yield GaugeMetricFamily(PREFIX + "uptime_seconds", "Seconds since the service started.", live.uptime_seconds)
        for name, value in self._link.read(live.link).items():
            family = PREFIX + "link_" + name.removeprefix("link_")  # link_losses -> shoe_link_losses_total
            yield CounterMetricFamily(family, LINK_HELP[name], value)


class Metrics:
    """The registry and the series the owner thread moves; ``live`` supplies the figures read when scraped."""

    def __init__(self, live: Callable[[], Live]) -> None:
        self.registry = CollectorRegistry()
        self._counters = {
            name: Counter(PREFIX + name.removesuffix("_total"), text, registry=self.registry)
            for name, text in COUNTERS.items()
        }
        self._latency = Histogram(
            PREFIX + "event_latency_seconds",
            "Time from a card-read frame arriving to its event being available to clients.",
            buckets=BUCKETS,
            registry=self.registry,
        )
        self.registry.register(_LiveCollector(live))
        ProcessCollector(registry=self.registry)

    def inc(self, name: str, amount: int = 1) -> None:
        """Add to one of :data:`COUNTERS` (``KeyError`` for a name that is not one)."""
        self._counters[name].inc(amount)

    def observe(self, seconds: float) -> None:
        """One ``event_latency_seconds`` observation: card-read frame in, to its event available."""
        self._latency.observe(seconds)

    def snapshot(self) -> dict[str, Any]:
        """Every family of the registry as a plain dict (module docstring); names lose the ``shoe_`` prefix."""
        counters: dict[str, float] = {}
        gauges: dict[str, float] = {}
        histograms: dict[str, dict[str, Any]] = {}
        for family in self.registry.collect():
            short = family.name.removeprefix(PREFIX)
            if family.type == "histogram":
                by_suffix = {s.name.removeprefix(family.name): s for s in family.samples if not s.labels}
                buckets: list[list[Any]] = [
                    [s.labels["le"] if s.labels["le"] == "+Inf" else float(s.labels["le"]), _number(s.value)]
                    for s in family.samples
                    if s.name.endswith("_bucket")
                ]
                histograms[short] = {
                    "buckets": buckets,
                    "sum": by_suffix["_sum"].value,
                    "count": _number(by_suffix["_count"].value),
                }
                continue
            target = counters if family.type == "counter" else gauges
            for sample in family.samples:
                target[sample.name.removeprefix(PREFIX)] = _number(sample.value)
        return {"counters": counters, "gauges": gauges, "histograms": histograms}


def _number(value: float) -> float:
    """A whole count as an ``int`` (the soak's JSON report shows ``3``, not ``3.0``)."""
    return int(value) if float(value).is_integer() else value
