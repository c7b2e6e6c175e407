"""The dealer display rides out a service restart: it says it is reconnecting, keeps every action
disabled meanwhile, then reconnects by itself, re-reads the round and follows the event stream again."""

from __future__ import annotations

from typing import Any

from shoe.service import Role
from tests.ui.conftest import Console, Table, enabled_actions, open_page, sync

NY_ROUND = {
    "game": "mississippi-stud",
    "jurisdiction": "NY",
    "seats": [{"seat": 2, "ante": 500}, {"seat": 4, "ante": 1500}],
}


def test_the_page_shows_reconnecting_then_recovers_after_a_restart(
    make_table: Any, page: Any, console: Console
) -> None:
    console.allow.append("ERR_CONNECTION_REFUSED")  # Chromium logs each refused attempt while the service is down
    table: Table = make_table()
    open_page(page, table)
    sync(page, {"new-round"})
    conn = page.locator("#conn")
    assert conn.inner_text() == "Live"

    table.stop_api()
    page.wait_for_function("() => document.body.dataset.feed === 'reconnecting'", timeout=5000)
    assert conn.inner_text() == "Reconnecting…"
    banner = page.locator('[data-banner="reconnecting"]')
    assert banner.is_visible()
    assert "Reconnecting to the table service" in banner.inner_text()
    assert enabled_actions(page) == []  # nothing is done from a stale screen

    table.service.submit("open-round", NY_ROUND, Role.DEALER)  # the round moves on while the page is cut off
    table.start_api()

    page.wait_for_function("() => document.body.dataset.feed === 'live'", timeout=10_000)
    assert conn.inner_text() == "Live"
    assert not banner.is_visible()
    sync(page, {"no-more-bets", "void"})  # the round opened during the outage, re-read on reconnection
    assert page.locator('[data-seat="4"] .wagers').inner_text().startswith("Ante $15")

    # Live again: a step taken elsewhere (another screen, the API) shows up through the event stream.
    table.client.post("/v1/round/no-more-bets")
    sync(page, {"deal", "void"})
    assert page.locator("#dealer-spot").inner_text() == "Next stack: seat 2"
