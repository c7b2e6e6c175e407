"""The dealer display with people, in a real headless Chromium against a real service:
the sign-in keypad, "signed in: NAME", who did what in the history, a PA progressive payout waiting on
the display until a floorperson signs its approval there, and sign-out."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.people.conftest import Table, tables
from tests.people.test_approvals import DANA, FRANK, PA_TABLE, _streets
from tests.service.conftest import smudge


@pytest.fixture
def make_people_table(tmp_path: Path) -> Iterator[Callable[..., Table]]:
    """tests/people's tables (a service with its employees store), beside this folder's own ``make_table``."""
    yield from tables(tmp_path)


def _keypad(page: Any, badge: str, pin: str) -> None:
    dialog = page.locator("#keypad-dialog")
    dialog.wait_for()
    for digit in badge:
        dialog.locator(f"[data-key='{digit}']").click()
    dialog.locator("[data-key='↵']").click()  # to the PIN
    for digit in pin:
        dialog.locator(f"[data-key='{digit}']").click()
    dialog.get_by_role("button", name="Sign in").click()


def test_a_pa_progressive_win_waits_on_the_display_until_a_floorperson_signs_the_approval(
    make_people_table: Callable[..., Table], page: Any
) -> None:
    table = make_people_table("Ah", "Kh", "2c", "3d", "Qh", "Jh", "Th", open_api=True)
    table.add("d-101", "Dana Dealer", ["dealer"], "1001", "4321")
    table.add("f-201", "Frank Floor", ["floorperson"], "2001", "8765")
    host, port = table.server.address
    page.goto(f"http://{host}:{port}/ui/dealer.html")
    page.wait_for_function("() => document.body.dataset.feed === 'live'")
    page.locator("#sign-in").click()
    _keypad(page, "1001", "0000")  # a wrong PIN: the keypad says so and asks again
    page.locator("#keypad-dialog").get_by_text("not recognised").wait_for()
    _keypad(page, "1001", "4321")
    page.locator("#signed-in").get_by_text("signed in: Dana Dealer").wait_for()
    session = page.evaluate("() => sessionStorage.getItem('shoe.token.dealer')")
    assert session.startswith("shoe_s_")

    seats = [{"seat": 1, "ante": 500, "side": {"progressive": 100}}, {"seat": 3, "ante": 500}]
    opened = table.ok("POST", "/v1/rounds", {"game": "mississippi-stud", "jurisdiction": "PA", "table": PA_TABLE,
                                             "seats": seats}, session)  # fmt: skip
    for path, body in (("no-more-bets", {}), ("progressive/lock", {}), ("progressive/chip-count", {"count": 1}),
                       ("deal", {}), ("release-stub", {})):  # fmt: skip
        table.ok("POST", f"/v1/round/{path}", body, session)
    table.ok("POST", "/v1/table-system/progressive-inputs", {"meters": {"meter": 2_500_000}}, None)
    _streets(table, session)
    assert table.call("POST", "/v1/round/settle", {}, session).status == 202
    request = page.locator(".approval")
    request.get_by_text("Seat 1: progressive royal-flush").wait_for()
    request.get_by_text("asked by Dana Dealer; a floorperson approves").wait_for()
    page.locator("#history").get_by_text("Dana Dealer").first.wait_for()  # who did what
    assert "Ah" not in page.locator("#approvals").inner_text()

    request.get_by_role("button", name="Approve").click()
    _keypad(page, "2001", "8765")  # the floorperson signs the approval on the same display
    page.wait_for_function("() => !document.querySelector('.approval')")
    # The approval leaves the display when it is journaled; the held payout is then settled on the owner
    # thread, so the round completes a moment later (on a loaded machine the test read it in between).
    deadline = time.monotonic() + 10
    while (state := table.ok("GET", "/v1/round", token=session)["round"]["state"]) != "complete":
        assert time.monotonic() < deadline, f"the round is still {state!r} after the approval"
        time.sleep(0.05)
    entries = table.entries(opened["round_id"])
    assert [(e.data["seat"], e.data["by"]) for e in entries if e.kind == "settlement"] == [(3, DANA), (1, DANA)]
    assert [e.data["by"] for e in entries if e.kind == "approval" and e.data["action"] == "approved"] == [FRANK]
    assert page.locator("#signed-in").inner_text() == "signed in: Dana Dealer"  # the approver's session ended

    page.locator("#sign-out").click()
    page.locator("#sign-in").wait_for()
    assert page.evaluate("() => sessionStorage.getItem('shoe.token.dealer')") is None
    assert table.people("signed-out")[-1]["reason"] == "sign-out"


def test_the_technician_page_confirms_a_hand_entered_card(make_people_table: Callable[..., Table], page: Any) -> None:
    table = make_people_table("Ah", "Kh", "Qh", "Jh", "Th", open_api=True)
    table.add("d-101", "Dana Dealer", ["dealer"], "1001", "4321")
    table.add("t-301", "Tess Tech", ["technician"], "3001", "1357")
    assert table.shoe is not None
    smudge(table.shoe, 3)
    dealer = table.sign_in("1001", "4321")
    opened = table.ok("POST", "/v1/rounds", {"game": "mississippi-stud", "jurisdiction": "NY",
                                             "seats": [{"seat": 1, "ante": 1000}]}, dealer)  # fmt: skip
    for step in ("no-more-bets", "deal", "release-stub"):
        table.ok("POST", f"/v1/round/{step}", {}, dealer)
    table.ok("POST", "/v1/round/decisions", {"seat": 1, "multiple": 1}, dealer)
    assert table.call("POST", "/v1/round/reveal", {"index": 1}, dealer).status == 409
    assert table.call("POST", "/v1/round/reveal", {"index": 1, "card": "Qh"}, dealer).status == 202
    host, port = table.server.address
    page.goto(f"http://{host}:{port}/ui/technician.html")
    request = page.locator(".approval")
    request.get_by_text("Community card 1 entered by hand: Qh").wait_for()
    request.get_by_role("button", name="Approve").click()
    _keypad(page, "3001", "1357")
    page.wait_for_function("() => !document.querySelector('.approval')")
    reveal = next(e for e in table.entries(opened["round_id"]) if e.kind == "reveal")
    assert (reveal.data["card"], reveal.data["by"]) == ("Qh", DANA)
