"""``/metrics``: the Prometheus text format 0.0.4, line by line, and counters that move with play.

Every scrape is checked twice: against the exposition grammar below, and by prometheus_client's own
parser (a reader nobody here wrote).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

from prometheus_client.parser import text_string_to_metric_families

from drivers.link import LinkStats
from shoe.api import ApiServer
from shoe.api.metrics import ApiCounters, render
from shoe.service import TableService
from shoe.service.metrics import LINK_HELP, Live, Metrics
from tests.api.conftest import Client, play_ny_round

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*"'
VALUE = r"(?:[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|[-+]?Inf|NaN)"
SAMPLE = re.compile(rf"^({NAME})(\{{{LABEL}(?:,{LABEL})*\}})? ({VALUE})(?: -?[0-9]+)?$")
HELP = re.compile(rf"^# HELP ({NAME}) (?:[^\\\n]|\\[\\n])*$")
TYPE = re.compile(rf"^# TYPE ({NAME}) (counter|gauge|histogram|summary|untyped)$")


def parse(text: str) -> dict[str, list[tuple[str, float]]]:
    """Check every line against the exposition grammar; the samples of each family, by family name."""
    assert text.endswith("\n")
    types: dict[str, str] = {}
    helped: set[str] = set()
    families: dict[str, list[tuple[str, float]]] = {}
    for line in text.splitlines():
        if m := HELP.match(line):
            assert m[1] not in helped, f"two HELP lines for {m[1]}"
            helped.add(m[1])
        elif m := TYPE.match(line):
            assert m[1] not in types, f"two TYPE lines for {m[1]}"
            types[m[1]] = m[2]
            families[m[1]] = []
        else:
            m = SAMPLE.match(line)
            assert m, f"not a sample line: {line!r}"
            name = m[1]
            family = re.sub(r"_(bucket|sum|count)$", "", name) if name not in types else name
            assert family in types, f"{name} has no TYPE line before it"
            families[family].append((name + (m[2] or ""), float(m[3])))
    assert helped == set(types)
    assert {f.name for f in text_string_to_metric_families(text)}  # prometheus_client reads it too
    for family, kind in types.items():
        if kind == "histogram":
            buckets = [(n, v) for n, v in families[family] if n.startswith(family + "_bucket")]
            counts = [v for _, v in buckets]
            assert counts == sorted(counts), f"{family} buckets are not cumulative"
            assert buckets[-1][0].endswith('{le="+Inf"}')
            assert counts[-1] == dict(families[family])[family + "_count"]
    return families


def scrape(client: Client) -> dict[str, dict[str, float]]:
    """``GET /metrics``, parsed: each family's samples by sample name (with labels)."""
    answer = client.call("GET", "/metrics")
    assert answer.status == 200
    assert answer.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8"
    return {family: dict(samples) for family, samples in parse(answer.text).items()}


def value(families: dict[str, dict[str, float]], name: str) -> float:
    return families[name][name]


def live(**figures: object) -> Callable[[], Live]:
    fields: dict[str, object] = {"journal_seq": 0, "link_up": False, "round_live": False, "uptime_seconds": 0.0}
    fields.update(link=None, **figures)
    return lambda: Live(**fields)  # type: ignore[arg-type]


def test_render_counters_gauges_and_a_histogram() -> None:
    metrics = Metrics(live(journal_seq=12, round_live=True, uptime_seconds=3.5))
    for _ in range(3):
        metrics.inc("rounds_total")
    for seconds in (0.0005, 0.0008, 0.002, 0.004, 0.009, 20.0):
        metrics.observe(seconds)
    text = render(metrics.registry)
    families = parse(text)
    assert "# TYPE shoe_rounds_total counter" in text
    assert "# TYPE shoe_round_live gauge" in text
    assert families["shoe_rounds_total"] == [("shoe_rounds_total", 3.0)]
    assert families["shoe_journal_seq"] == [("shoe_journal_seq", 12.0)]
    assert families["shoe_round_live"] == [("shoe_round_live", 1.0)]
    latency = dict(families["shoe_event_latency_seconds"])
    assert latency['shoe_event_latency_seconds_bucket{le="0.001"}'] == 2
    assert latency['shoe_event_latency_seconds_bucket{le="0.01"}'] == 5
    assert latency['shoe_event_latency_seconds_bucket{le="10.0"}'] == 5
    assert latency['shoe_event_latency_seconds_bucket{le="+Inf"}'] == 6
    assert latency["shoe_event_latency_seconds_count"] == 6
    assert abs(latency["shoe_event_latency_seconds_sum"] - 20.0163) < 1e-9
    snapshot = metrics.snapshot()
    assert snapshot["counters"]["rounds_total"] == 3
    assert snapshot["gauges"]["journal_seq"] == 12
    histogram = snapshot["histograms"]["event_latency_seconds"]
    assert histogram["buckets"][0] == [0.001, 2] and histogram["buckets"][-1] == ["+Inf", 6]
    assert histogram["count"] == 6


def test_the_process_collector_is_on_the_registry() -> None:
    families = parse(render(Metrics(live()).registry))
    for family in ("process_cpu_seconds_total", "process_resident_memory_bytes", "process_open_fds"):
        assert families[family][0][1] > 0, family


def test_link_statistics_are_counters_that_survive_a_new_link() -> None:
    """A new client's LinkStats start at zero: the counters add the old link's final figures to it."""
    first, second = LinkStats(bad_frames=4, retries=2, polls=7), LinkStats(bad_frames=1)
    current: list[LinkStats | None] = [first]
    metrics = Metrics(lambda: Live(0, True, False, 0.0, current[0]))
    assert metrics.snapshot()["counters"]["link_bad_frames_total"] == 4
    first.bad_frames += 1  # the old link counts on until it is replaced
    current[0] = None
    assert metrics.snapshot()["counters"]["link_bad_frames_total"] == 5
    current[0] = second
    counters = metrics.snapshot()["counters"]
    assert counters["link_bad_frames_total"] == 6
    assert counters["link_retries_total"] == 2 and counters["link_polls_total"] == 7
    families = parse(render(metrics.registry))
    for name in LINK_HELP:
        family = "shoe_link_" + name.removeprefix("link_") + "_total"
        assert family in families, family


def test_api_counters_label_values_and_parse() -> None:
    counters = ApiCounters()
    counters.request("GET", 200)
    counters.request("GET", 200)
    counters.request("POST", 409)
    with counters.stream_open():
        families = parse(counters.render())
    assert families["shoe_api_requests_total"] == [
        ('shoe_api_requests_total{code="200",method="GET"}', 2),
        ('shoe_api_requests_total{code="409",method="POST"}', 1),
    ]
    assert families["shoe_api_event_streams"] == [("shoe_api_event_streams", 1)]
    assert parse(counters.render())["shoe_api_event_streams"] == [("shoe_api_event_streams", 0)]


def test_served_metrics_parse_and_count_a_round(client: Client, service: TableService) -> None:
    deadline = time.monotonic() + 10  # the deck found at the connect is journaled and checked first
    while client.ok("GET", "/v1/deck")["state"] != "checked" and time.monotonic() < deadline:
        time.sleep(0.02)
    first = scrape(client)
    for family in ("shoe_rounds_total", "shoe_cards_total", "shoe_faults_total", "shoe_reconnects_total"):
        assert family in first, family
    assert "shoe_event_latency_seconds" in first
    assert value(first, "shoe_link_up") == 1 and value(first, "shoe_round_live") == 0
    assert value(first, "shoe_journal_seq") == client.ok("GET", "/v1/status")["service"]["journal_seq"]
    play_ny_round(client)
    after = scrape(client)
    assert value(after, "shoe_rounds_total") == value(first, "shoe_rounds_total") + 1
    assert value(after, "shoe_cards_total") > value(first, "shoe_cards_total")
    assert value(after, "shoe_journal_seq") > value(first, "shoe_journal_seq")
    assert after["shoe_event_latency_seconds"]["shoe_event_latency_seconds_count"] > 0
    requests = after["shoe_api_requests_total"]
    assert requests['shoe_api_requests_total{code="200",method="POST"}'] >= 5
    assert value(after, "shoe_link_frames_out_total") > value(first, "shoe_link_frames_out_total") > 0
    assert value(after, "shoe_link_frames_in_total") > value(first, "shoe_link_frames_in_total") > 0
    assert value(after, "process_open_fds") > 0
    assert service.metrics_snapshot()["counters"]["rounds_total"] == value(after, "shoe_rounds_total")


def test_bad_frames_and_resends_on_the_shoe_link_reach_the_metrics(
    start_service: Callable[..., TableService],
) -> None:
    """The link's statistics (drivers.link.LinkStats) on a line that corrupts 1 % of the bytes: with this
    seed the shoe's answers to the connection's first requests arrive broken and are asked again (seed 1 since
    the deck check at connect changed which frames the corruption hits)."""
    service = start_service("emu://?seed=1&corrupt_rate=0.01")
    with ApiServer(service, "127.0.0.1", 0) as api:
        families = scrape(Client(api.address))
    assert value(families, "shoe_link_bad_frames_total") > 0
    assert value(families, "shoe_link_retries_total") > 0
    assert value(families, "shoe_link_frames_in_total") > value(families, "shoe_link_bad_frames_total")


def test_invented_methods_do_not_grow_the_request_series(start_service: Callable[..., TableService]) -> None:
    """A client inventing a method name per request must not add a series per name (unbounded memory):
    every method outside HTTP's own is counted as ``OTHER``."""
    import socket

    service = start_service()
    with ApiServer(service, "127.0.0.1", 0) as api:
        host, port = api.address[:2]
        for n in range(40):
            with socket.create_connection((host, port), timeout=5) as sock:
                sock.sendall(f"INVENTED{n} /v1/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
                assert sock.recv(64).startswith(b"HTTP/1.")
                while sock.recv(4096):
                    pass
        families = scrape(Client(api.address))
    requests = families["shoe_api_requests_total"]
    assert not [name for name in requests if "INVENTED" in name]
    others = [count for name, count in requests.items() if 'method="OTHER"' in name]
    assert sum(others) == 40
