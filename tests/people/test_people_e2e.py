"""People and approvals end to end, through the real shoed over HTTP on an emulated shoe on a pseudo-terminal:

- a PA round with a progressive win pays only after a floorperson approves, and the journal names the
  dealer and the floorperson on the entries they caused;
- a round with an unreadable community card completes with the dealer's entry and a technician's
  confirmation, and the same round without it is voided.

The employees live in shoed's own store (``people.sqlite`` beside the journal), added with the
configuration technician token; everyone signs in with badge and PIN.
"""

from __future__ import annotations

import http.client
import json
from collections.abc import Callable
from typing import Any

from tests.e2e.conftest import Table
from tests.e2e.support import TOKENS, deck
from tests.people.test_approvals import DANA, FRANK, PA_TABLE, TESS


def call(table: Table, method: str, path: str, body: object = None, token: str | None = None) -> tuple[int, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    payload = None
    if method == "POST":
        payload, headers["Content-Type"] = json.dumps(body or {}).encode(), "application/json"
    conn = http.client.HTTPConnection("127.0.0.1", table.api.port, timeout=30)
    try:
        conn.request(method, path, body=payload, headers=headers)
        response = conn.getresponse()
        return response.status, json.loads(response.read() or b"null")
    finally:
        conn.close()


def ok(table: Table, method: str, path: str, body: object = None, token: str | None = None) -> Any:
    status, doc = call(table, method, path, body, token)
    assert status in (200, 201), (method, path, status, doc)
    return doc


def staff(table: Table) -> dict[str, str]:
    tech = TOKENS["technician"]
    for eid, name, role, badge, pin in (("d-101", "Dana Dealer", "dealer", "1001", "4321"),
                                        ("f-201", "Frank Floor", "floorperson", "2001", "8765"),
                                        ("t-301", "Tess Tech", "technician", "3001", "1357")):  # fmt: skip
        ok(table, "POST", "/v1/people", {"id": eid, "name": name, "roles": [role], "badge": badge, "pin": pin}, tech)
    sign = lambda badge, pin: ok(table, "POST", "/v1/sessions", {"badge": badge, "pin": pin})["token"]  # noqa: E731
    return {"dealer": sign("1001", "4321"), "floor": sign("2001", "8765"), "tech": sign("3001", "1357")}


def streets(table: Table, dealer: str, until_reveal: int | None = None) -> dict[str, Any]:
    for _ in range(30):
        view = ok(table, "GET", "/v1/round", token=dealer)["round"]
        if (seat := view["next_to_decide"]) is not None:
            ok(table, "POST", "/v1/round/decisions", {"seat": seat, "multiple": 1}, dealer)
        elif (index := view["next_reveal"]) is not None and index != until_reveal:
            ok(table, "POST", "/v1/round/reveal", {"index": index}, dealer)
        else:
            return dict(view)
    raise AssertionError("the round did not get there")


def test_a_pa_progressive_win_is_paid_after_a_floorperson_approves_through_shoed(e2e: Callable[..., Table]) -> None:
    table = e2e(deck=deck("Ah", "Kh", "2c", "3d", "Qh", "Jh", "Th"))
    who = staff(table)
    dealer = who["dealer"]
    seats = [{"seat": 1, "ante": 500, "side": {"progressive": 100}}, {"seat": 3, "ante": 500}]
    opened = ok(table, "POST", "/v1/rounds", {"game": "mississippi-stud", "jurisdiction": "PA", "table": PA_TABLE,
                                              "seats": seats}, dealer)  # fmt: skip
    for path, body in (("no-more-bets", {}), ("progressive/lock", {}), ("progressive/chip-count", {"count": 1}),
                       ("deal", {}), ("release-stub", {})):  # fmt: skip
        ok(table, "POST", f"/v1/round/{path}", body, dealer)
    ok(table, "POST", "/v1/table-system/progressive-inputs", {"meters": {"meter": 2_500_000}}, TOKENS["table-system"])
    streets(table, dealer)
    status, waiting = call(table, "POST", "/v1/round/settle", {}, dealer)
    assert status == 202 and [line["seat"] for line in waiting["lines"]] == [3]
    request_id = waiting["awaiting_approval"]["id"]
    assert not [e for e in table.entries(opened["round_id"]) if e.kind == "settlement" and e.data["seat"] == 1]
    assert call(table, "POST", "/v1/approvals/approve", {"id": request_id}, dealer)[0] == 403
    approved = ok(table, "POST", "/v1/approvals/approve", {"id": request_id}, who["floor"])
    assert approved["result"]["state"] == "complete"
    entries = table.entries(opened["round_id"])
    paid = next(e for e in entries if e.kind == "settlement" and e.data["seat"] == 1)
    assert paid.data["by"] == DANA
    assert next(s for s in paid.data["record"]["side"] if s["bet"] == "progressive")["paid"] == 2_500_000
    approval = next(e for e in entries if e.kind == "approval" and e.data["action"] == "approved")
    assert approval.data["by"] == FRANK and approval.seq < paid.seq
    dealt = [e for e in entries if e.kind in ("round-opened", "decision", "card")]
    by_system = [e for e in dealt if e.data.get("action") == "progressive-inputs"]  # the configuration's token
    assert len(by_system) == 1 and "by" not in by_system[0].data
    assert all(e.data.get("by") == DANA for e in dealt if e not in by_system)
    table.verify_journal()
    shown = table.shoectl("--json", "journal", "show", "--journal", str(table.journal), "--round", opened["round_id"])
    assert shown.returncode == 0, shown.stderr
    people = [(p["id"], p["name"]) for p in json.loads(shown.stdout)["people"]]
    assert people == [("d-101", "Dana Dealer"), ("f-201", "Frank Floor")]
    text = table.shoectl("journal", "show", "--journal", str(table.journal), "--round", opened["round_id"]).stdout
    assert "people: Dana Dealer (d-101)" in text and "Frank Floor (f-201), 1 entry" in text


def _unreadable_round(table: Table, who: dict[str, str]) -> tuple[str, str]:
    dealer = who["dealer"]
    table.shoe.command(smudge=[3])  # the first community card, after the deck check read it whole
    opened = ok(table, "POST", "/v1/rounds", {"game": "mississippi-stud", "jurisdiction": "NY",
                                              "seats": [{"seat": 1, "ante": 1000}]}, dealer)  # fmt: skip
    for step in ("no-more-bets", "deal", "release-stub"):
        ok(table, "POST", f"/v1/round/{step}", {}, dealer)
    streets(table, dealer, until_reveal=1)
    status, refused = call(table, "POST", "/v1/round/reveal", {"index": 1}, dealer)
    assert (status, refused["error"]["code"]) == (409, "unreadable-card")
    status, waiting = call(table, "POST", "/v1/round/reveal", {"index": 1, "card": "Qh"}, dealer)
    assert status == 202 and waiting["awaiting_approval"]["needs"] == ["technician", "floorperson"]
    return str(opened["round_id"]), str(waiting["awaiting_approval"]["id"])


def test_an_unreadable_card_round_completes_with_the_dealers_entry_and_a_technicians_confirmation(
    e2e: Callable[..., Table],
) -> None:
    table = e2e(deck=deck("Ah", "Kh", "Qh", "Jh", "Th"), host=True)
    who = staff(table)
    round_id, request_id = _unreadable_round(table, who)
    confirmed = ok(table, "POST", "/v1/approvals/approve", {"id": request_id}, who["tech"])
    assert confirmed["result"]["card"] == "Qh"
    view = streets(table, who["dealer"])
    assert view["next_to_settle"] == 1
    assert ok(table, "POST", "/v1/round/settle", {}, who["dealer"])["state"] == "complete"
    entries = table.entries(round_id)
    reveal = next(e for e in entries if e.kind == "reveal" and e.data["index"] == 1)
    assert (reveal.data["card"], reveal.data["source"], reveal.data["by"]) == ("Qh", "dealer", DANA)
    assert next(e for e in entries if e.kind == "approval" and e.data["action"] == "approved").data["by"] == TESS
    assert entries[-1].kind == "round-closed" and entries[-1].data["outcome"] == "complete"


def test_the_same_round_without_the_confirmation_is_voided(e2e: Callable[..., Table]) -> None:
    table = e2e(deck=deck("Ah", "Kh", "Qh", "Jh", "Th"), host=True)
    who = staff(table)
    round_id, request_id = _unreadable_round(table, who)
    rejected = ok(table, "POST", "/v1/approvals/reject", {"id": request_id}, who["tech"])
    assert rejected["result"]["state"] == "misdeal"
    entries = table.entries(round_id)
    void = next(e for e in entries if e.kind == "irregularity" and e.data["action"] == "void")
    assert (void.data["cause"], void.data["by"]) == ("unreadable-card", TESS)
    assert entries[-1].kind == "round-closed" and entries[-1].data["outcome"] == "void"
