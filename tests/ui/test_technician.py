"""The technician page: identity, counters, fault flags with their hints, the journal check, and
maintenance that is offered only while no round is live."""

from __future__ import annotations

import re
from typing import Any

from tests.ui.conftest import Table, open_page, screenshot

MAINTENANCE = ("#dispense", "#clear-all", "#verify")
NY_ROUND = {"game": "mississippi-stud", "jurisdiction": "NY", "seats": [{"seat": 2, "ante": 500}]}


def maintenance_enabled(page: Any) -> list[bool]:
    return [page.locator(b).is_enabled() for b in MAINTENANCE]


def test_identity_counters_faults_journal_and_maintenance(make_table: Any, page: Any) -> None:
    table: Table = make_table(port="emu://?seed=7&jam_at=3")  # the third card jams
    open_page(page, table, "technician.html")
    identity = page.locator("#identity").inner_text()
    assert "EMU0001" in identity and "EMU-1" in identity and "emu-1.0" in identity
    assert page.locator("#link-pill").inner_text() == "Shoe link up"
    assert "idle" in page.locator("#status").inner_text()
    page.wait_for_function("() => document.querySelector('[data-counter=\"Rounds\"] dd').textContent === '0'")
    assert page.locator("#faults").inner_text() == "No fault flags set."

    page.locator("#verify").click()
    page.wait_for_function("() => document.getElementById('verify-result').textContent.startsWith('Journal OK')")
    assert re.search(r"Journal OK: \d+ entries checked", page.locator("#verify-result").inner_text())

    # A live round: maintenance waits, and says why.
    table.client.ok("POST", "/v1/rounds", NY_ROUND)
    page.wait_for_function("() => document.body.dataset.live === 'round'")
    assert maintenance_enabled(page) == [False, False, False]
    assert "round is live" in page.locator("#maint-note").inner_text()
    page.wait_for_function("() => document.querySelector('[data-counter=\"Rounds\"] dd').textContent === '1'")

    table.client.ok("POST", "/v1/round/void", {"cause": "other"})
    page.wait_for_function("() => document.body.dataset.live === 'idle'")
    assert maintenance_enabled(page) == [True, True, True]
    assert page.locator("#maint-note").inner_text() == ""

    # A test dispense of two stacks of two jams on the third card: the fault shows with what to do.
    page.locator("#stacks").fill("2")
    page.locator("#size").fill("2")
    page.locator("#dispense").click()
    page.wait_for_function("() => document.getElementById('dispense-result').textContent.includes('jam')", timeout=8000)
    fault = page.locator('#faults li[data-fault="jam"]')
    fault.wait_for()  # at once, from the fault event; its text once the service has re-read the shoe (every 5 s)
    page.wait_for_function(
        "() => document.querySelector('#faults li[data-fault=\"jam\"]').textContent.includes('card jam')", timeout=9000
    )
    assert "What to do: open the door" in fault.inner_text()
    assert page.locator("#events").get_by_text("shoe-fault").count() >= 1
    screenshot(page, "technician.png")

    fault.get_by_role("button", name="Clear the jam fault").click()
    page.wait_for_function("() => document.getElementById('dispense-result').textContent.includes('cleared')")
    page.locator("#faults .none").wait_for(timeout=9000)
    page.wait_for_function("() => document.querySelector('[data-counter=\"Faults\"] dd').textContent === '1'")


SERVICE_LABELS = ["Rounds opened", "Cards dealt in rounds", "Shoe faults", "Link reconnects", "API requests",
                  "Open event streams"]  # fmt: skip
SHOE_LABELS = ["Cards dispensed", "Stacks", "Jams", "Misreads", "Double feeds", "Misfeeds", "Power cycles"]


def figure(page: Any, attribute: str, name: str) -> str:
    return str(page.locator(f'[data-{attribute}="{name}"] dd').inner_text())


def test_the_shoes_lifetime_counters_show_beside_the_services_each_labelled(make_table: Any, page: Any) -> None:
    """The "Counters" were the service's since-start figures only; the shoe's own lifetime
    counters (COUNTERS) show beside them, each set and each figure labelled, read from the shoe."""
    table: Table = make_table()
    open_page(page, table, "technician.html")
    page.wait_for_function("() => document.querySelector('[data-shoe-counter=\"cards\"] dd').textContent === '0'")
    assert page.locator("#h-service-counters").inner_text().startswith("Service, since it started")
    assert page.locator("#h-shoe-counters").inner_text().startswith("Shoe, lifetime")
    assert "EMU0001" in page.locator("#shoe-counters-note").inner_text()
    assert page.locator("#counters dt").all_inner_texts() == SERVICE_LABELS
    assert page.locator("#shoe-counters dt").all_inner_texts() == SHOE_LABELS

    # A test dispense moves the shoe's counters, not the service's cards dealt in rounds.
    table.client.post("/v1/maintenance/dispense", {"stacks": 2, "size": 3})
    page.wait_for_function("() => document.querySelector('[data-shoe-counter=\"cards\"] dd').textContent === '6'")
    assert figure(page, "shoe-counter", "stacks") == "2"
    assert figure(page, "shoe-counter", "jams") == "0"
    assert figure(page, "counter", "Cards dealt") == "0"
    assert figure(page, "counter", "Rounds") == "0"
