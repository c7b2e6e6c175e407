"""Cross-origin defence in a real Chromium: a page of another origin, or a rebound name, cannot drive the table.

The attack that found it: with no tokens (loopback), a page served from another local origin ran
``fetch(url, {method: "POST", mode: "no-cors"})`` and shoed answered ``no-more-bets 200`` and
``deal 200``.  Here the other origin is a second tiny HTTP server on another loopback port; the
DNS-rebinding case maps ``rebind.example`` to 127.0.0.1 in the browser's resolver and swaps the
attacker's server for shoed on the same port under a page already loaded, as a rebinding does.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.ui.conftest import CHROMIUM, CHROMIUM_ARGS, Table

NY_ROUND = {"game": "mississippi-stud", "jurisdiction": "NY", "seats": [{"seat": 1, "ante": 1000}]}


@contextmanager
def elsewhere(page_html: str, port: int = 0) -> Iterator[int]:
    """Another origin: a server on 127.0.0.1:``port`` that answers every GET with ``page_html``; its port."""
    body = page_html.encode()

    class Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Page)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield int(server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def refused_posts(table: Table) -> int:
    text = table.client.call("GET", "/metrics").text
    found = [line for line in text.splitlines() if line.startswith('shoe_api_requests_total{code="403",method="POST"}')]
    return int(float(found[0].split()[-1])) if found else 0


def before_and_after(table: Table) -> tuple[str, int]:
    return table.view()["state"], table.service.health()["service"]["journal_seq"]


def test_a_no_cors_post_from_another_origin_is_refused_and_the_round_does_not_move(
    make_table: Callable[..., Table], page: Any
) -> None:
    table = make_table()
    table.client.ok("POST", "/v1/rounds", NY_ROUND)
    start = before_and_after(table)
    shoed = f"http://127.0.0.1:{table.port}"
    attack = f"""<!doctype html><title>elsewhere</title><script>
      window.results = [];
      (async () => {{
        for (const path of ["/v1/round/no-more-bets", "/v1/round/deal"]) {{
          try {{
            const r = await fetch("{shoed}" + path, {{method: "POST", mode: "no-cors"}});
            window.results.push(r.type);
          }} catch (e) {{ window.results.push("error: " + e); }}
        }}
      }})();
    </script>"""
    with elsewhere(attack) as port:
        assert port != table.port
        page.goto(f"http://127.0.0.1:{port}/")
        page.wait_for_function("() => window.results.length === 2")
    assert page.evaluate("window.results") == ["opaque", "opaque"]  # the browser sent both
    assert refused_posts(table) == 2  # shoed refused both (403 foreign-origin)
    assert before_and_after(table) == start  # and the round did not move


def test_a_rebound_name_cannot_post_even_same_origin(make_table: Callable[..., Table], browser: Any) -> None:
    table = make_table()
    table.client.ok("POST", "/v1/rounds", NY_ROUND)
    start = before_and_after(table)
    port = table.port
    rebinding = browser.browser_type.launch(
        executable_path=str(CHROMIUM), args=[*CHROMIUM_ARGS, "--host-resolver-rules=MAP rebind.example 127.0.0.1"]
    )
    try:
        tab = rebinding.new_page()
        attack = """<!doctype html><title>rebind</title><script>
          window.attack = async () => {
            const r = await fetch("/v1/round/no-more-bets",
              {method: "POST", headers: {"Content-Type": "application/json"}, body: "{}"});
            return [r.status, await r.text()];
          };
        </script>"""
        table.stop_api()
        with elsewhere(attack, port):  # the attacker's server answers rebind.example first...
            tab.goto(f"http://rebind.example:{port}/")
        table.start_api()  # ...then the name points at shoed: a same-origin request for the page
        status, body = tab.evaluate("window.attack()")
        assert status == 403 and '"foreign-host"' in body, (status, body)
    finally:
        rebinding.close()
    assert before_and_after(table) == start
