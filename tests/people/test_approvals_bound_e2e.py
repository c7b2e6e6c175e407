"""The approval attacks through the real processes, as they were found: ``shoed`` over HTTP on an
emulated shoe on a pseudo-terminal, then ``shoectl journal verify`` on its journal.

A void asked by a signed-in dealer, the round closed by another void, then approved (late); a payout
asked at a meter of 1,000,000, the meter posted at 9,000,000,000, then approved; every decision
replayed. Nothing is paid at an amount no one approved, and the journal passes its own verify.
"""

from __future__ import annotations

from collections.abc import Callable

from tests.e2e.conftest import Table
from tests.e2e.support import TOKENS, deck
from tests.people.test_approvals import PA_TABLE
from tests.people.test_people_e2e import call, ok, staff, streets

SYSTEM, DEALER_CONFIG = TOKENS["table-system"], TOKENS["dealer"]


def test_late_replayed_and_stale_approvals_through_shoed_and_shoectl(e2e: Callable[..., Table]) -> None:
    table = e2e(deck=deck("Ah", "Kh", "2c", "3d", "Qh", "Jh", "Th"))
    who = staff(table)
    dealer, floor = who["dealer"], who["floor"]
    ny = {"game": "mississippi-stud", "jurisdiction": "NY", "seats": [{"seat": 1, "ante": 1000}]}

    # a void asked, the round closed by another void (before any stack: the deck stays checked), then approved
    ok(table, "POST", "/v1/rounds", ny, dealer)
    status, waiting = call(table, "POST", "/v1/round/void", {"cause": "other"}, dealer)
    assert status == 202
    ok(table, "POST", "/v1/round/void", {"cause": "other"}, DEALER_CONFIG)
    status, late = call(table, "POST", "/v1/approvals/approve", {"id": waiting["awaiting_approval"]["id"]}, floor)
    assert status == 409
    result = table.shoectl("journal", "verify", "--journal", str(table.journal))
    assert result.returncode == 0, result.stdout + result.stderr  # exited 10: "approval entry after its closing"
    assert late["error"]["code"] == "approval-lapsed"

    # a payout asked at one meter, the meter moved, then approved
    seats = [{"seat": 1, "ante": 500, "side": {"progressive": 100}}, {"seat": 3, "ante": 500}]
    opened = ok(table, "POST", "/v1/rounds", {"game": "mississippi-stud", "jurisdiction": "PA", "table": PA_TABLE,
                                              "seats": seats}, dealer)  # fmt: skip
    for path, body in (("no-more-bets", {}), ("progressive/lock", {}), ("progressive/chip-count", {"count": 1}),
                       ("deal", {}), ("release-stub", {})):  # fmt: skip
        ok(table, "POST", f"/v1/round/{path}", body, dealer)
    ok(table, "POST", "/v1/table-system/progressive-inputs", {"meters": {"meter": 1_000_000}}, SYSTEM)
    streets(table, dealer)
    status, settle = call(table, "POST", "/v1/round/settle", {}, dealer)
    assert status == 202 and settle["awaiting_approval"]["detail"]["bets"][0]["paid"] == 1_000_000
    first = settle["awaiting_approval"]["id"]
    ok(table, "POST", "/v1/table-system/progressive-inputs", {"meters": {"meter": 9_000_000_000}}, SYSTEM)
    status, stale = call(table, "POST", "/v1/approvals/approve", {"id": first}, floor)
    paid = [e for e in table.entries(opened["round_id"]) if e.kind == "settlement" and e.data["seat"] == 1]
    assert paid == [] and (status, stale["error"]["code"]) == (409, "approval-lapsed")
    status, settle = call(table, "POST", "/v1/round/settle", {}, dealer)
    assert status == 202 and settle["awaiting_approval"]["detail"]["bets"][0]["paid"] == 9_000_000_000
    second = settle["awaiting_approval"]
    done = ok(table, "POST", "/v1/approvals/approve", {"id": second["id"], "digest": second["digest"]}, floor)
    assert done["result"]["state"] == "complete"
    for request_id in (waiting["awaiting_approval"]["id"], first, second["id"]):  # every decision replayed
        assert call(table, "POST", "/v1/approvals/approve", {"id": request_id}, floor)[0] == 409

    verified = ok(table, "POST", "/v1/maintenance/verify-journal", {}, who["tech"])
    assert verified["ok"] is True, verified
    result = table.shoectl("journal", "verify", "--journal", str(table.journal))
    assert result.returncode == 0, result.stdout + result.stderr
