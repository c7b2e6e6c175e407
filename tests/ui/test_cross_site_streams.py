"""In a real Chromium: another site's page cannot hold the event-stream slots (open mode, no tokens).

The attack: a page of another origin ran 16 ``fetch("/v1/events", {mode: "no-cors"})``; a browser
sends no ``Origin`` on a no-cors GET, so the origin check let each through and they took all 16
stream slots, the dealer display's with them. Chromium sends ``Sec-Fetch-Site`` (here ``same-site``:
another port of 127.0.0.1 is the same site), which shoed now refuses with ``403 cross-site``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from shoe.api.limits import STREAMS
from tests.api.conftest import SseReader
from tests.ui.conftest import Table
from tests.ui.test_cross_origin import elsewhere


def _metric(table: Table, prefix: str) -> float:
    text = table.client.call("GET", "/metrics").text
    found = [line for line in text.splitlines() if line.startswith(prefix)]
    return float(found[0].split()[-1]) if found else 0.0


def test_no_cors_streams_from_another_site_are_refused_and_the_display_still_gets_one(
    make_table: Callable[..., Table], page: Any
) -> None:
    table = make_table()
    shoed = f"http://127.0.0.1:{table.port}"
    refused_before = _metric(table, 'shoe_api_requests_total{code="403",method="GET"}')
    attack = f"""<!doctype html><title>elsewhere</title><script>
      window.results = [];
      for (let i = 0; i < {STREAMS}; i++) {{
        fetch("{shoed}/v1/events", {{mode: "no-cors"}})
          .then((r) => window.results.push(r.type), (e) => window.results.push("error: " + e));
      }}
    </script>"""
    with elsewhere(attack) as port:
        page.goto(f"http://127.0.0.1:{port}/")
        page.wait_for_function(f"() => window.results.length === {STREAMS}")
        assert page.evaluate("window.results") == ["opaque"] * STREAMS  # the browser sent every one
        refused = _metric(table, 'shoe_api_requests_total{code="403",method="GET"}') - refused_before
        assert refused == STREAMS, refused  # shoed refused every one (403 cross-site)
        assert _metric(table, "shoe_api_event_streams ") == 0  # and holds no stream for them
        with SseReader(("127.0.0.1", table.port)) as display:  # the display's own stream still opens
            assert display.status == 200
