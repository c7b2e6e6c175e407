"""``/metrics``: the Prometheus text format 0.0.4, line by line, and counters that move with play."""

from __future__ import annotations

import math
import re

from shoe.api.metrics import ApiCounters, render
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
    for family, kind in types.items():
        if kind == "histogram":
            buckets = [(n, v) for n, v in families[family] if n.startswith(family + "_bucket")]
            counts = [v for _, v in buckets]
            assert counts == sorted(counts), f"{family} buckets are not cumulative"
            assert buckets[-1][0].endswith('{le="+Inf"}')
            assert counts[-1] == dict(families[family])[family + "_count"]
    return families


def test_render_counters_gauges_and_a_histogram() -> None:
    text = render(
        {
            "counters": {"rounds_total": 3},
            "gauges": {"round_live": 1},
            "histograms": {
                "event_latency_seconds": {"buckets": [[0.001, 2], [0.01, 5], ["+Inf", 6]], "sum": 0.0125, "count": 6}
            },
        }
    )
    families = parse(text)
    assert "# TYPE shoe_rounds_total counter" in text
    assert "# TYPE shoe_round_live gauge" in text
    assert families["shoe_event_latency_seconds"] == [
        ('shoe_event_latency_seconds_bucket{le="0.001"}', 2.0),
        ('shoe_event_latency_seconds_bucket{le="0.01"}', 5.0),
        ('shoe_event_latency_seconds_bucket{le="+Inf"}', 6.0),
        ("shoe_event_latency_seconds_sum", 0.0125),
        ("shoe_event_latency_seconds_count", 6.0),
    ]


def test_render_escapes_help_text_and_writes_special_values() -> None:
    families = parse(render({"gauges": {"odd_value": math.inf, "not_a_number": math.nan}}))
    assert families["shoe_odd_value"] == [("shoe_odd_value", math.inf)]
    assert math.isnan(families["shoe_not_a_number"][0][1])


def test_api_counters_escape_label_values_and_parse() -> None:
    counters = ApiCounters()
    counters.request("GET", 200)
    counters.request("GET", 200)
    counters.request("POST", 409)
    with counters.stream_open():
        families = parse(counters.render())
    assert families["shoe_api_requests_total"] == [
        ('shoe_api_requests_total{method="GET",code="200"}', 2),
        ('shoe_api_requests_total{method="POST",code="409"}', 1),
    ]
    assert families["shoe_api_event_streams"] == [("shoe_api_event_streams", 1)]


def test_served_metrics_parse_and_count_a_round(client: Client) -> None:
    before = client.call("GET", "/metrics")
    assert before.status == 200
    assert before.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8"
    first = {k: dict(v) for k, v in parse(before.text).items()}
    for family in ("shoe_rounds_total", "shoe_cards_total", "shoe_faults_total", "shoe_reconnects_total"):
        assert family in first, family
    assert "shoe_event_latency_seconds" in first
    play_ny_round(client)
    after = {k: dict(v) for k, v in parse(client.call("GET", "/metrics").text).items()}
    assert after["shoe_rounds_total"]["shoe_rounds_total"] == first["shoe_rounds_total"]["shoe_rounds_total"] + 1
    assert after["shoe_cards_total"]["shoe_cards_total"] > first["shoe_cards_total"]["shoe_cards_total"]
    latency = after["shoe_event_latency_seconds"]
    assert latency["shoe_event_latency_seconds_count"] > 0
    requests = after["shoe_api_requests_total"]
    assert requests['shoe_api_requests_total{method="POST",code="200"}'] >= 5
