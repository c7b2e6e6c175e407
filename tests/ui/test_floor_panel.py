"""The technician page shows how far the casino floor has acknowledged this journal, and the floor's alarm
(the technician page and shoectl doctor show it), in a real Chromium. The shipper's status is
set on a real TableService the way shoed attaches it (``attach_floor``), without a database."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.ui.conftest import Table, open_page


def floor_status(**values: Any) -> dict[str, Any]:
    base = {"url": "postgresql://shipper@db1/floor", "table": "MS-01", "state": "caught-up", "journal_id": "ab",
            "acked_seq": 40, "journal_seq": 40, "lag_entries": 0, "lag_seconds": 0.0, "last_ack_age_s": 0.1,
            "alarm": None, "last_error": None}  # fmt: skip
    return {**base, **values}


def test_the_technician_sees_the_floor_lag_and_its_alarm(make_table: Callable[..., Table], page: Any) -> None:
    table = make_table()
    status = [floor_status(state="backing-off", lag_entries=12, lag_seconds=47.2, last_error="connection refused")]
    table.service.attach_floor(lambda: status[0], lambda: status[0]["alarm"])
    open_page(page, table, "technician.html")
    page.wait_for_function("() => document.querySelector('#journal').innerText.includes('12 entries')")
    text = page.locator("#journal").inner_text()
    assert "backing-off · MS-01 · 12 entries, 47 s behind · connection refused" in text
    assert "Floor alarm" not in text
    status[0] = floor_status(state="refused", alarm="fork at entry 41")
    shown = "() => document.querySelector('#journal').innerText.includes('fork at entry 41')"
    page.wait_for_function(shown, timeout=15_000)
    assert "refused · MS-01 · caught up" in page.locator("#journal").inner_text()


def test_without_a_floor_the_page_shows_no_floor_row(make_table: Callable[..., Table], page: Any) -> None:
    open_page(page, make_table(), "technician.html")
    page.wait_for_function("() => document.querySelector('#journal').innerText.includes('Last entry')")
    assert "Floor" not in page.locator("#journal").inner_text()
