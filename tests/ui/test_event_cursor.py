"""The pages' event stream starts from a position the service gave: a service still starting has none
(``GET /v1/status`` answers ``journal_seq: null``), and the feed asks again instead of streaming the
service's whole held history from its oldest event."""

from __future__ import annotations

from typing import Any

from tests.ui.conftest import Table, open_page

FEED_RUN = """async () => {
  const { EventFeed } = await import("/ui/events.js");
  const answers = [null, 5];  // a starting service's (no position), then a ready one's
  const asked = [];
  const feed = new EventFeed({
    path: "/v1/events?probe=1",
    resumeFrom: async () => { const a = answers.length ? answers.shift() : 5; asked.push(a); return a; },
  });
  feed.start();
  const deadline = Date.now() + 5000;
  while (!window.__probeHeaders && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  feed.stop();
  return { asked };
}"""


def test_no_position_from_a_starting_service_is_asked_again_before_the_stream(make_table: Any, page: Any) -> None:
    table: Table = make_table()
    open_page(page, table, "technician.html")
    seen: list[dict[str, str]] = []

    def probe(route: Any) -> None:
        seen.append(dict(route.request.headers))
        page.evaluate("() => { window.__probeHeaders = true; }")
        route.fulfill(status=503, body="")

    page.route("**/v1/events?probe=1", probe)
    result = page.evaluate(FEED_RUN)
    assert result["asked"][:2] == [None, 5], result
    assert seen, "the feed never connected"
    assert seen[0].get("last-event-id") == "5", seen[0]  # never a stream from before the position it was given
