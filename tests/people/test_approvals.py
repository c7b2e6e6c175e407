"""Approvals as a step of the round, through a real service over HTTP, with employees signed in.

A PA progressive payout waits for a floorperson (PA 655a.11(i)(4)(i)(C)); a void waits for a
floorperson; a community card the reader could not identify is entered by the dealer and confirmed by
a technician (rules digest, "Irregularities"), or the round is void. Every abuse is refused, journaled,
and changes nothing.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from shoe.service import Role
from tests.api.conftest import TOKEN_OF
from tests.people.conftest import Table
from tests.service.conftest import smudge

DANA = {"id": "d-101", "name": "Dana Dealer"}
FRANK = {"id": "f-201", "name": "Frank Floor"}
FAY = {"id": "f-202", "name": "Fay Floor"}
TESS = {"id": "t-301", "name": "Tess Tech"}
SYSTEM = TOKEN_OF[Role.TABLE_SYSTEM]
PA_TABLE = {"min_ante": 500, "max_ante": 50000, "side": {"offered": ["progressive"], "progressive_table": "A"}}


def _staff(table: Table) -> dict[str, str]:
    table.add("d-101", "Dana Dealer", ["dealer"], "1001", "4321")
    table.add("f-201", "Frank Floor", ["floorperson"], "2001", "8765")
    table.add("f-202", "Fay Floor", ["floorperson"], "2002", "8765")
    table.add("t-301", "Tess Tech", ["technician"], "3001", "1357")
    return {"dealer": table.sign_in("1001", "4321"), "frank": table.sign_in("2001", "8765"),
            "fay": table.sign_in("2002", "8765"), "tess": table.sign_in("3001", "1357")}  # fmt: skip


def _streets(table: Table, dealer: str, cards: dict[int, str] | None = None) -> dict[str, Any]:
    """Decisions (1x) and reveals by the round view until settlement is due; the last view."""
    for _ in range(20):
        view = table.ok("GET", "/v1/round", token=dealer)["round"]
        if (seat := view["next_to_decide"]) is not None:
            table.ok("POST", "/v1/round/decisions", {"seat": seat, "multiple": 1}, dealer)
        elif (index := view["next_reveal"]) is not None:
            body: dict[str, Any] = {"index": index}
            if cards and index in cards:
                body["card"] = cards[index]
            table.ok("POST", "/v1/round/reveal", body, dealer)
        else:
            return dict(view)
    raise AssertionError("the round did not reach settlement")


def _pa_round(table: Table, dealer: str) -> str:
    seats = [{"seat": 1, "ante": 500, "side": {"progressive": 100}}, {"seat": 3, "ante": 500}]
    opened = table.ok("POST", "/v1/rounds", {"game": "mississippi-stud", "jurisdiction": "PA", "table": PA_TABLE,
                                             "seats": seats}, dealer)  # fmt: skip
    table.ok("POST", "/v1/round/no-more-bets", {}, dealer)
    table.ok("POST", "/v1/round/progressive/lock", {}, dealer)
    table.ok("POST", "/v1/round/progressive/chip-count", {"count": 1}, dealer)
    table.ok("POST", "/v1/round/deal", {}, dealer)
    table.ok("POST", "/v1/round/release-stub", {}, dealer)
    table.ok("POST", "/v1/table-system/progressive-inputs", {"meters": {"meter": 2_500_000}}, SYSTEM)
    _streets(table, dealer)
    return str(opened["round_id"])


def _verified(table: Table) -> None:
    """The journal passes its own verify (``shoectl journal verify`` runs the same)."""
    journal = table.service._owner.sink.journal
    assert journal is not None
    result = journal.verify()
    assert result.ok, result


def _approvals(table: Table, round_id: str) -> list[dict[str, Any]]:
    return [dict(e.data) for e in table.entries(round_id) if e.kind == "approval"]


def test_a_pa_progressive_win_is_paid_only_once_a_floorperson_approves(make_table: Callable[..., Table]) -> None:
    # seat 1 Ah Kh, seat 3 2c 3d; the community Qh Jh Th: seat 1 holds a royal flush, the whole meter
    table = make_table("Ah", "Kh", "2c", "3d", "Qh", "Jh", "Th")
    who = _staff(table)
    round_id = _pa_round(table, who["dealer"])
    waiting = table.call("POST", "/v1/round/settle", {}, who["dealer"])
    assert waiting.status == 202, waiting.body
    body = waiting.json
    assert [line["seat"] for line in body["lines"]] == [3]  # seat 3 is settled; seat 1 waits, in seat order
    request = body["awaiting_approval"]
    assert (request["kind"], request["seat"], request["needs"]) == ("payout", 1, ["floorperson"])
    assert request["requested_by"] == DANA and "655a.11(i)(4)(i)(C)" in request["rule"]
    assert "Ah" not in waiting.text and "Kh" not in waiting.text  # the hand's name, never its cards before settling
    assert [a["id"] for a in table.ok("GET", "/v1/approvals", token=who["tess"])["approvals"]] == [request["id"]]
    before = [e.seq for e in table.entries(round_id) if e.kind == "settlement"]

    own = table.call("POST", "/v1/approvals/approve", {"id": request["id"]}, who["dealer"])
    assert (own.status, own.error["code"]) == (403, "own-request")
    tech = table.call("POST", "/v1/approvals/approve", {"id": request["id"]}, who["tess"])
    assert (tech.status, tech.error["code"]) == (403, "may-not-approve")
    config = table.call("POST", "/v1/approvals/approve", {"id": request["id"]}, TOKEN_OF[Role.TECHNICIAN])
    assert config.status == 403  # a configuration token names no person
    assert [e.seq for e in table.entries(round_id) if e.kind == "settlement"] == before  # nothing paid yet

    approved = table.ok("POST", "/v1/approvals/approve", {"id": request["id"]}, who["frank"])
    assert approved["decided"]["decided_by"] == FRANK
    line = approved["result"]["lines"][0]
    assert line["seat"] == 1 and approved["result"]["state"] == "complete"
    assert next(s for s in line["side"] if s["bet"] == "progressive")["paid"] == 2_500_000
    replay = table.call("POST", "/v1/approvals/approve", {"id": request["id"]}, who["fay"])
    assert (replay.status, replay.error["code"]) == (409, "already-decided")

    entries = table.entries(round_id)
    settled = [e for e in entries if e.kind == "settlement"]
    assert [(e.data["seat"], e.data["by"]) for e in settled] == [(3, DANA), (1, DANA)]
    decided = [a for a in _approvals(table, round_id) if a["action"] == "approved"]
    assert decided == [{"action": "approved", "request_id": request["id"], "kind": "payout", "requested_by": "d-101",
                        "by": FRANK, "digest": request["digest"], "round": round_id}]  # fmt: skip
    refused = [a["reason"] for a in _approvals(table, round_id) if a["action"] == "refused"]
    assert refused == ["own-request", "may-not-approve", "no-person"]  # the replay came after the round's closing:
    late = [e.data for e in table.entries() if e.kind == "approval" and e.round_id is None]
    assert [(a["reason"], a["round"]) for a in late] == [("already-decided", round_id)]  # journaled outside it
    _verified(table)


def test_a_void_waits_for_a_floorperson_and_of_two_approving_at_once_one_wins(make_table: Callable[..., Table]) -> None:
    table = make_table("Ah", "Kh")
    who = _staff(table)
    opened = table.ok("POST", "/v1/rounds", {"game": "mississippi-stud", "jurisdiction": "NY",
                                             "seats": [{"seat": 1, "ante": 1000}]}, who["dealer"])  # fmt: skip
    waiting = table.call("POST", "/v1/round/void", {"cause": "other"}, who["dealer"])
    assert waiting.status == 202 and waiting.json["state"] == "open-for-wagers"
    again = table.call("POST", "/v1/round/void", {"cause": "other"}, who["dealer"])  # the same request, not two
    assert again.json["awaiting_approval"]["id"] == waiting.json["awaiting_approval"]["id"]
    request_id = waiting.json["awaiting_approval"]["id"]
    answers: list[Any] = []
    go = threading.Barrier(2)

    def approve(token: str) -> None:
        go.wait(5)
        answers.append(table.call("POST", "/v1/approvals/approve", {"id": request_id}, token))

    threads = [threading.Thread(target=approve, args=(who[n],)) for n in ("frank", "fay")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert sorted(a.status for a in answers) == [200, 409]
    assert next(a for a in answers if a.status == 409).error["code"] == "already-decided"
    assert table.ok("GET", "/v1/round", token=who["dealer"])["round"]["state"] == "misdeal"
    entries = table.entries(opened["round_id"])
    void = next(e for e in entries if e.kind == "irregularity" and e.data["action"] == "void")
    assert void.data["by"] == DANA
    kinds = [a["action"] for a in _approvals(table, opened["round_id"])]
    assert kinds == ["requested", "approved"]  # the second display's refusal came after the round's closing
    _verified(table)


def test_an_unreadable_community_card_entered_by_the_dealer_and_confirmed_by_a_technician(
    make_table: Callable[..., Table],
) -> None:
    table = make_table("Ah", "Kh", "Qh", "Jh", "Th")
    who = _staff(table)
    assert table.shoe is not None
    smudge(table.shoe, 3)  # the first community card, after the deck check read it whole
    dealer = who["dealer"]
    opened = table.ok("POST", "/v1/rounds", {"game": "mississippi-stud", "jurisdiction": "NY",
                                             "seats": [{"seat": 1, "ante": 1000}]}, dealer)  # fmt: skip
    for step in ("no-more-bets", "deal", "release-stub"):
        table.ok("POST", f"/v1/round/{step}", {}, dealer)
    table.ok("POST", "/v1/round/decisions", {"seat": 1, "multiple": 1}, dealer)
    unread = table.call("POST", "/v1/round/reveal", {"index": 1}, dealer)
    assert (unread.status, unread.error["code"]) == (409, "unreadable-card")
    dealt = table.call("POST", "/v1/round/reveal", {"index": 1, "card": "Ah"}, dealer)  # seat 1's: accounted for
    assert (dealt.status, dealt.error["code"]) == (409, "card-accounted-for")
    entered = table.call("POST", "/v1/round/reveal", {"index": 1, "card": "Qh"}, dealer)
    assert entered.status == 202 and entered.json["awaiting_approval"]["kind"] == "hand-entered-card"
    request_id = entered.json["awaiting_approval"]["id"]
    floor_only = table.call("POST", "/v1/approvals/approve", {"id": request_id}, dealer)
    assert floor_only.status == 403
    confirmed = table.ok("POST", "/v1/approvals/approve", {"id": request_id}, who["tess"])
    assert confirmed["result"]["card"] == "Qh" and confirmed["result"]["source"] == "dealer"
    view = _streets(table, dealer)
    assert view["next_to_settle"] == 1
    assert table.ok("POST", "/v1/round/settle", {}, dealer)["state"] == "complete"
    reveal = next(e for e in table.entries(opened["round_id"]) if e.kind == "reveal" and e.data["index"] == 1)
    assert reveal.data["by"] == DANA and reveal.data["source"] == "dealer"
    approval = [a for a in _approvals(table, opened["round_id"]) if a["action"] == "approved"]
    assert approval[0]["by"] == TESS
    _verified(table)


def test_an_unreadable_card_without_confirmation_voids_the_round(make_table: Callable[..., Table]) -> None:
    table = make_table("Ah", "Kh", "Qh", "Jh", "Th")
    who = _staff(table)
    assert table.shoe is not None
    smudge(table.shoe, 3)
    dealer = who["dealer"]
    opened = table.ok("POST", "/v1/rounds", {"game": "mississippi-stud", "jurisdiction": "NY",
                                             "seats": [{"seat": 1, "ante": 1000}]}, dealer)  # fmt: skip
    for step in ("no-more-bets", "deal", "release-stub"):
        table.ok("POST", f"/v1/round/{step}", {}, dealer)
    table.ok("POST", "/v1/round/decisions", {"seat": 1, "multiple": 1}, dealer)
    assert table.call("POST", "/v1/round/reveal", {"index": 1}, dealer).status == 409
    entered = table.call("POST", "/v1/round/reveal", {"index": 1, "card": "Qh"}, dealer)
    rejected = table.ok("POST", "/v1/approvals/reject", {"id": entered.json["awaiting_approval"]["id"]}, who["tess"])
    assert rejected["decided"]["state"] == "rejected" and rejected["result"]["state"] == "misdeal"
    void = next(e for e in table.entries(opened["round_id"]) if e.kind == "irregularity" and e.data["action"] == "void")
    assert void.data["cause"] == "unreadable-card" and void.data["by"] == TESS
    _verified(table)


def test_clearing_a_tamper_fault_waits_for_a_floorperson_and_an_ordinary_one_does_not(
    make_table: Callable[..., Table],
) -> None:
    from protocols.codes import FaultCode

    table = make_table("Ah", "Kh")
    who = _staff(table)
    assert table.shoe is not None
    table.shoe.inject_fault(FaultCode.TAMPER)
    for _ in range(100):  # the service's status poll sees it
        faults = table.ok("GET", "/v1/status", token=who["tess"])["shoe"].get("faults") or []
        if any(f["code"] == "tamper" for f in faults):
            break
        time.sleep(0.05)
    waiting = table.call("POST", "/v1/maintenance/clear-fault", {}, who["tess"])  # "all" while tamper is up
    assert waiting.status == 202 and waiting.json["awaiting_approval"]["kind"] == "tamper"
    assert table.call("POST", "/v1/maintenance/clear-fault", {}, who["tess"]).json[
        "awaiting_approval"]["id"] == waiting.json["awaiting_approval"]["id"]  # the same request, not two
    request_id = waiting.json["awaiting_approval"]["id"]
    assert table.call("POST", "/v1/approvals/approve", {"id": request_id}, who["tess"]).status == 403
    cleared = table.ok("POST", "/v1/approvals/approve", {"id": request_id}, who["frank"])
    assert cleared["result"]["fault"] == "all"
    entries = [e for e in table.entries() if e.kind == "technician" and e.data["action"] == "clear-fault"]
    assert entries[-1].data["by"] == TESS
    assert table.call("POST", "/v1/maintenance/clear-fault", {"fault": "jam"}, who["tess"]).status == 200
    _verified(table)


def test_a_maintenance_dispense_from_the_shifts_checked_deck_waits_for_a_floorperson(
    make_table: Callable[..., Table],
) -> None:
    table = make_table("Ah", "Kh")
    who = _staff(table)
    assert table.ok("GET", "/v1/deck", token=who["tess"])["state"] == "checked"
    body = {"stacks": 1, "size": 2}
    waiting = table.call("POST", "/v1/maintenance/dispense", body, who["tess"])
    assert waiting.status == 202 and waiting.json["awaiting_approval"]["detail"] == body
    assert not [e for e in table.entries() if e.kind == "technician"]  # nothing dispensed yet
    rejected = table.ok("POST", "/v1/approvals/reject", {"id": waiting.json["awaiting_approval"]["id"]}, who["frank"])
    assert "result" not in rejected and not [e for e in table.entries() if e.kind == "technician"]
    again = table.call("POST", "/v1/maintenance/dispense", body, who["tess"])
    done = table.ok("POST", "/v1/approvals/approve", {"id": again.json["awaiting_approval"]["id"]}, who["frank"])
    assert len(done["result"]["stacks"]) == 1
    dispensed = [e for e in table.entries() if e.kind == "technician"]
    assert dispensed and dispensed[0].data["by"] == TESS
    _verified(table)
