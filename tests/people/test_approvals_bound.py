"""An approval covers exactly what the approver saw, once, and never breaks the journal (docs/people.md,
"What an approval covers", "Approvals and the journal", "Who may approve what").

Each test is an attack through a real service over HTTP (the in-process emulator, the real journal and
employees store): a payout approved at one amount and paid at another; a grant that outlives its step;
a replayed or late approval the journal's own verify rejects; an approver holding the requester's role;
a deck still "checked" after a maintenance dispense took a card from it. Every test ends with the
journal's verify, as ``shoectl journal verify`` and the technician's ``verify-journal`` run it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from shoe.service import Role
from tests.api.conftest import TOKEN_OF
from tests.people.conftest import TECH, Table
from tests.people.test_approvals import DANA, PA_TABLE, SYSTEM, _streets

DEALER_CONFIG = TOKEN_OF[Role.DEALER]
ROYAL = ("Ah", "Kh", "2c", "3d", "Qh", "Jh", "Th")  # seat 1 Ah Kh, seat 3 2c 3d; community Qh Jh Th: a royal


def _legacy_dual(table: Table, eid: str, name: str, roles: tuple[str, ...], *, badge: str, pin: str) -> None:
    """An employee holding two duties, written straight into the store as one made before duties were
    separated (the API refuses to add one now, docs/people.md): the approval rule must hold for them too."""
    from shoe.people.credentials import hash_pin
    from shoe.people.store import Employee

    people = table.server.auth.people
    assert people is not None
    people.store.add(Employee(eid, name, roles, badge, hash_pin(pin), True, False, 0, False))


def _staff(table: Table) -> dict[str, str]:
    table.add("d-101", "Dana Dealer", ["dealer"], "1001", "4321")
    table.add("f-201", "Frank Floor", ["floorperson"], "2001", "8765")
    table.add("t-301", "Tess Tech", ["technician"], "3001", "1357")
    _legacy_dual(table, "x-401", "Dual Dealer", ("dealer", "floorperson"), badge="4001", pin="2468")
    _legacy_dual(table, "x-402", "Dual Tech", ("technician", "floorperson"), badge="4002", pin="2468")
    return {"dealer": table.sign_in("1001", "4321"), "frank": table.sign_in("2001", "8765"),
            "tess": table.sign_in("3001", "1357"), "dual": table.sign_in("4001", "2468"),
            "dualtech": table.sign_in("4002", "2468")}  # fmt: skip


def _verified(table: Table) -> None:
    """The journal passes its own verify, in process and as the technician's action over HTTP."""
    journal = table.service._owner.sink.journal
    assert journal is not None
    result = journal.verify()
    assert result.ok, result
    answer = table.call("POST", "/v1/maintenance/verify-journal", {}, TECH)
    if answer.status == 409 and answer.error["code"] == "round-live":
        return  # maintenance waits for the round; the journal's own verify above has run
    assert answer.status == 200 and answer.json["ok"] is True, answer.body


def _approval_entries(table: Table) -> list[tuple[str | None, dict[str, Any]]]:
    return [(e.round_id, dict(e.data)) for e in table.entries() if e.kind == "approval"]


def _open(table: Table, token: str, jurisdiction: str = "NY") -> str:
    body = {"game": "mississippi-stud", "jurisdiction": jurisdiction, "seats": [{"seat": 1, "ante": 1000}]}
    return str(table.ok("POST", "/v1/rounds", body, token)["round_id"])


def _pa_round_at(table: Table, dealer: str, meter: int) -> str:
    seats = [{"seat": 1, "ante": 500, "side": {"progressive": 100}}, {"seat": 3, "ante": 500}]
    opened = table.ok("POST", "/v1/rounds", {"game": "mississippi-stud", "jurisdiction": "PA", "table": PA_TABLE,
                                             "seats": seats}, dealer)  # fmt: skip
    for path, body in (("no-more-bets", {}), ("progressive/lock", {}), ("progressive/chip-count", {"count": 1}),
                       ("deal", {}), ("release-stub", {})):  # fmt: skip
        table.ok("POST", f"/v1/round/{path}", body, dealer)
    table.ok("POST", "/v1/table-system/progressive-inputs", {"meters": {"meter": meter}}, SYSTEM)
    _streets(table, dealer)
    return str(opened["round_id"])


def _progressive_paid(entries: list[Any], seat: int) -> list[int]:
    return [
        side["paid"]
        for e in entries
        if e.kind == "settlement" and e.data["seat"] == seat
        for side in e.data["record"]["side"]
        if side["bet"] == "progressive"
    ]


# -- 1. an approval covers what the approver saw ------------------------------------------------------


def test_a_payout_approved_at_one_meter_is_never_paid_at_another(make_table: Callable[..., Table]) -> None:
    from shoe.journal.approvals import approval_digest

    table = make_table(*ROYAL)
    who = _staff(table)
    round_id = _pa_round_at(table, who["dealer"], 1_000_000)
    waiting = table.call("POST", "/v1/round/settle", {}, who["dealer"])
    assert waiting.status == 202, waiting.body
    request = waiting.json["awaiting_approval"]
    assert request["detail"]["bets"][0]["paid"] == 1_000_000
    shown = table.ok("GET", "/v1/approvals", token=who["frank"])["approvals"][0]
    table.ok("POST", "/v1/table-system/progressive-inputs", {"meters": {"meter": 1_000_000}}, SYSTEM)  # the same
    assert table.ok("GET", "/v1/approvals", token=who["frank"])["approvals"][0]["state"] == "pending"

    # while it waits, the table system posts the meter at 9,000,000,000
    table.ok("POST", "/v1/table-system/progressive-inputs", {"meters": {"meter": 9_000_000_000}}, SYSTEM)
    approved = table.call("POST", "/v1/approvals/approve", {"id": request["id"]}, who["frank"])
    assert _progressive_paid(table.entries(round_id), 1) == []  # nothing paid at either amount
    assert (approved.status, approved.error["code"]) == (409, "approval-lapsed"), approved.body
    # what the approver was shown: the step, its parameters, every input and their digest
    assert request["inputs"]["meters"] == {"meter": 1_000_000} and request["inputs"]["round"]["id"] == round_id
    assert request["digest"] == approval_digest("payout", "settle", request["params"], request["inputs"])
    assert shown["digest"] == request["digest"] and shown["inputs"] == request["inputs"]
    fates = [d for rid, d in _approval_entries(table) if d["request_id"] == request["id"]]
    assert [d["action"] for d in fates] == ["requested", "lapsed", "refused"]
    assert fates[1]["cause"] == "inputs-changed" and fates[2]["reason"] == "lapsed"

    # asked again, the new request shows the new amount; approved, that amount is paid
    again = table.call("POST", "/v1/round/settle", {}, who["dealer"])
    assert again.status == 202
    renewed = again.json["awaiting_approval"]
    assert renewed["id"] != request["id"] and renewed["digest"] != request["digest"]
    assert renewed["detail"]["bets"][0]["paid"] == 9_000_000_000
    done = table.ok("POST", "/v1/approvals/approve", {"id": renewed["id"], "digest": renewed["digest"]}, who["frank"])
    assert done["result"]["state"] == "complete"
    assert _progressive_paid(table.entries(round_id), 1) == [9_000_000_000]
    _verified(table)


def test_an_approver_who_saw_another_digest_is_refused(make_table: Callable[..., Table]) -> None:
    table = make_table("Ah", "Kh")
    who = _staff(table)
    _open(table, who["dealer"])
    waiting = table.call("POST", "/v1/round/void", {"cause": "other"}, who["dealer"])
    request = waiting.json["awaiting_approval"]
    other = "sha256:" + "0" * 64
    refused = table.call("POST", "/v1/approvals/approve", {"id": request["id"], "digest": other}, who["frank"])
    assert (refused.status, refused.error["code"]) == (409, "digest-differs")
    malformed = table.call("POST", "/v1/approvals/approve", {"id": request["id"], "digest": "sha256:xyz"}, who["frank"])
    assert malformed.status == 400
    assert table.ok("GET", "/v1/round", token=who["dealer"])["round"]["state"] == "open-for-wagers"
    table.ok("POST", "/v1/approvals/approve", {"id": request["id"], "digest": request["digest"]}, who["frank"])
    assert table.ok("GET", "/v1/round", token=who["dealer"])["round"]["state"] == "misdeal"
    _verified(table)


def test_a_void_asked_before_the_round_moved_on_lapses(make_table: Callable[..., Table]) -> None:
    table = make_table("Ah", "Kh")
    who = _staff(table)
    round_id = _open(table, who["dealer"])
    request = table.call("POST", "/v1/round/void", {"cause": "other"}, who["dealer"]).json["awaiting_approval"]
    table.ok("POST", "/v1/round/no-more-bets", {}, who["dealer"])  # the round the approver would void changed
    late = table.call("POST", "/v1/approvals/approve", {"id": request["id"]}, who["frank"])
    assert (late.status, late.error["code"]) == (409, "approval-lapsed")
    assert table.ok("GET", "/v1/round", token=who["dealer"])["round"]["state"] == "no-more-bets"
    lapsed = [d for rid, d in _approval_entries(table) if d["action"] == "lapsed"]
    assert lapsed and lapsed[0]["round"] == round_id
    _verified(table)


def test_a_stud_void_is_bound_to_the_hand_as_the_approver_saw_it(make_table: Callable[..., Table]) -> None:
    table = make_table("Ah", "Kh", "2c", "3d", "Qh", "Jh")
    who = _staff(table)
    opened = table.ok("POST", "/v1/rounds", {"game": "seven-card-stud", "seats": [1, 2],
                                             "table": {"bring_in": 100, "small_bet": 200, "big_bet": 400}},
                      who["dealer"])  # fmt: skip
    first = table.call("POST", "/v1/round/void", {"cause": "other"}, who["dealer"]).json["awaiting_approval"]
    assert first["inputs"]["round"]["id"] == opened["round_id"]
    table.ok("POST", "/v1/round/deal", {}, who["dealer"])  # the hand moves on: the void asked before lapses
    stale = table.call("POST", "/v1/approvals/approve", {"id": first["id"]}, who["frank"])
    assert (stale.status, stale.error["code"]) == (409, "approval-lapsed")
    again = table.call("POST", "/v1/round/void", {"cause": "other"}, who["dealer"]).json["awaiting_approval"]
    assert again["inputs"]["round"]["records"] > first["inputs"]["round"]["records"]
    done = table.ok("POST", "/v1/approvals/approve", {"id": again["id"]}, who["frank"])
    assert done["result"]["voided"] is True
    _verified(table)


@pytest.mark.parametrize("refused", ["approved", "lapsed"])
def test_an_approval_or_lapse_the_journal_refuses_changes_nothing(
    make_table: Callable[..., Table], monkeypatch: pytest.MonkeyPatch, refused: str
) -> None:
    """Journal before state: the entry that decides a request fails, so the request is as it was and its
    step did not run; the payout is never paid at an amount no one approved."""
    from shoe.journal import JournalDataError

    table = make_table(*ROYAL)
    who = _staff(table)
    round_id = _pa_round_at(table, who["dealer"], 1_000_000)
    request = table.call("POST", "/v1/round/settle", {}, who["dealer"]).json["awaiting_approval"]
    sink = table.service._owner.sink
    real = sink.append

    def failing(kind: str, data: dict[str, Any], rid: str | None) -> int:
        if kind == "approval" and data.get("action") == refused:
            raise JournalDataError("injected: the journal refuses this entry")
        return real(kind, data, rid)

    monkeypatch.setattr(sink, "append", failing)
    if refused == "lapsed":  # the meter moves; its lapse cannot be journaled, so the request cannot lapse
        table.call("POST", "/v1/table-system/progressive-inputs", {"meters": {"meter": 9_000_000_000}}, SYSTEM)
    answer = table.call("POST", "/v1/approvals/approve", {"id": request["id"]}, who["frank"])
    assert answer.status == 503 and answer.error["code"] == "journal-error", answer.body
    assert _progressive_paid(table.entries(round_id), 1) == []
    assert table.ok("GET", "/v1/approvals", token=who["frank"])["approvals"][0]["state"] == "pending"
    monkeypatch.undo()
    after = table.call("POST", "/v1/approvals/approve", {"id": request["id"]}, who["frank"])
    if refused == "approved":
        assert after.status == 200 and _progressive_paid(table.entries(round_id), 1) == [1_000_000]
    else:
        assert after.error["code"] == "approval-lapsed" and _progressive_paid(table.entries(round_id), 1) == []
    _verified(table)


# -- 2. a grant is single-use and dies with its step ----------------------------------------------------


def test_a_refused_grant_does_not_outlive_its_step(make_table: Callable[..., Table]) -> None:
    table = make_table("Ah", "Kh")
    who = _staff(table)
    body = {"stacks": 1, "size": 1}
    waiting = table.call("POST", "/v1/maintenance/dispense", body, who["tess"])
    assert waiting.status == 202
    round_id = _open(table, who["dealer"])  # a round opens while the dispense waits
    approved = table.call("POST", "/v1/approvals/approve", {"id": waiting.json["awaiting_approval"]["id"]},
                          who["frank"])  # fmt: skip
    assert approved.status == 409 and approved.error["code"] == "approval-lapsed", approved.body
    table.ok("POST", "/v1/round/void", {"cause": "other"}, DEALER_CONFIG)  # voided before a stack: the deck is whole
    assert table.ok("GET", "/v1/deck", token=who["tess"])["state"] == "checked"
    alone = table.call("POST", "/v1/maintenance/dispense", body, who["tess"])
    assert alone.status == 202, alone.body  # a new approval is needed: nothing was granted
    assert alone.json["awaiting_approval"]["id"] != waiting.json["awaiting_approval"]["id"]
    assert not [e for e in table.entries() if e.kind == "technician" and e.data["action"] == "maintenance-dispense"]
    lapsed = [(rid, d) for rid, d in _approval_entries(table) if d["action"] == "lapsed"]
    assert lapsed == [(None, lapsed[0][1])] and lapsed[0][1]["kind"] == "maintenance-dispense"
    assert round_id
    _verified(table)


def test_an_approval_grants_its_step_once(make_table: Callable[..., Table]) -> None:
    table = make_table("Ah", "Kh")
    who = _staff(table)
    _open(table, who["dealer"])
    table.ok("POST", "/v1/round/void", {"cause": "other"}, DEALER_CONFIG)
    waiting = table.call("POST", "/v1/maintenance/dispense", {"stacks": 1, "size": 1}, who["tess"])
    assert waiting.status == 202
    done = table.ok("POST", "/v1/approvals/approve", {"id": waiting.json["awaiting_approval"]["id"]}, who["frank"])
    assert len(done["result"]["stacks"]) == 1
    # the deck is no longer the checked one: the same dispense is not gated, but no grant is left either
    assert table.service._owner.approvals.grant is None
    _verified(table)


# -- 3. every approval path leaves a journal its verify accepts ----------------------------------------


def test_a_replayed_approval_of_a_void_keeps_the_journal_verifiable(make_table: Callable[..., Table]) -> None:
    table = make_table("Ah", "Kh")
    who = _staff(table)
    round_id = _open(table, who["dealer"])
    request = table.call("POST", "/v1/round/void", {"cause": "other"}, who["dealer"]).json["awaiting_approval"]
    table.ok("POST", "/v1/approvals/approve", {"id": request["id"]}, who["frank"])
    replay = table.call("POST", "/v1/approvals/approve", {"id": request["id"]}, who["frank"])
    assert (replay.status, replay.error["code"]) == (409, "already-decided")
    reject = table.call("POST", "/v1/approvals/reject", {"id": request["id"]}, who["dual"])
    assert reject.status == 409
    _verified(table)
    after = [(rid, d["action"]) for rid, d in _approval_entries(table)]
    assert after == [(round_id, "requested"), (round_id, "approved"), (None, "refused"), (None, "refused")]
    assert all(d["round"] == round_id for rid, d in _approval_entries(table))


def test_a_void_lapsed_by_another_void_keeps_the_journal_verifiable(make_table: Callable[..., Table]) -> None:
    table = make_table("Ah", "Kh")
    who = _staff(table)
    round_id = _open(table, who["dealer"])
    request = table.call("POST", "/v1/round/void", {"cause": "other"}, who["dealer"]).json["awaiting_approval"]
    table.ok("POST", "/v1/round/void", {"cause": "other"}, DEALER_CONFIG)  # the round closes by another void
    late = table.call("POST", "/v1/approvals/approve", {"id": request["id"]}, who["frank"])
    assert (late.status, late.error["code"]) == (409, "approval-lapsed")
    _verified(table)
    entries = table.entries()
    closing = next(e.seq for e in entries if e.kind == "round-closed" and e.round_id == round_id)
    lapsed = next(e for e in entries if e.kind == "approval" and e.data["action"] == "lapsed")
    assert lapsed.round_id == round_id and lapsed.seq < closing  # the lapse is the round's, before its closing
    refused = next(e for e in entries if e.kind == "approval" and e.data["action"] == "refused")
    assert refused.round_id is None and refused.data["round"] == round_id and refused.seq > closing


@pytest.mark.parametrize("decision", ["approve", "reject"])
def test_every_refusal_of_a_payout_and_its_decision_keep_the_journal_verifiable(
    make_table: Callable[..., Table], decision: str
) -> None:
    table = make_table(*ROYAL)
    who = _staff(table)
    _pa_round_at(table, who["dealer"], 1_000_000)
    request = table.call("POST", "/v1/round/settle", {}, who["dealer"]).json["awaiting_approval"]
    for token in (who["dealer"], who["tess"], who["dual"], TECH):  # own, may-not-approve, requester-role, no-person
        assert table.call("POST", f"/v1/approvals/{decision}", {"id": request["id"]}, token).status == 403
    table.ok("POST", f"/v1/approvals/{decision}", {"id": request["id"]}, who["frank"])
    assert table.call("POST", f"/v1/approvals/{decision}", {"id": request["id"]}, who["frank"]).status == 409
    if decision == "reject":  # the seat still waits: asked again, and approved
        again = table.call("POST", "/v1/round/settle", {}, who["dealer"])
        assert again.status == 202
        table.ok("POST", "/v1/approvals/approve", {"id": again.json["awaiting_approval"]["id"]}, who["frank"])
    assert table.call("POST", f"/v1/approvals/{decision}", {"id": request["id"]}, who["frank"]).status == 409
    reasons = [d["reason"] for rid, d in _approval_entries(table) if d["action"] == "refused"]
    assert reasons[:4] == ["own-request", "may-not-approve", "requester-role", "no-person"]
    _verified(table)


def test_a_hand_entered_card_rejected_after_a_replay_keeps_the_journal_verifiable(
    make_table: Callable[..., Table],
) -> None:
    from tests.service.conftest import smudge

    table = make_table("Ah", "Kh", "Qh", "Jh", "Th")
    who = _staff(table)
    assert table.shoe is not None
    smudge(table.shoe, 3)
    dealer = who["dealer"]
    _open(table, dealer)
    for step in ("no-more-bets", "deal", "release-stub"):
        table.ok("POST", f"/v1/round/{step}", {}, dealer)
    table.ok("POST", "/v1/round/decisions", {"seat": 1, "multiple": 1}, dealer)
    assert table.call("POST", "/v1/round/reveal", {"index": 1}, dealer).status == 409
    entered = table.call("POST", "/v1/round/reveal", {"index": 1, "card": "Qh"}, dealer).json["awaiting_approval"]
    refused = table.call("POST", "/v1/approvals/approve", {"id": entered["id"]}, who["dual"])  # holds dealer
    assert (refused.status, refused.error["code"]) == (403, "requester-role")
    table.ok("POST", "/v1/approvals/reject", {"id": entered["id"]}, who["tess"])  # the misdeal
    assert table.call("POST", "/v1/approvals/approve", {"id": entered["id"]}, who["tess"]).status == 409
    _verified(table)


def test_a_tamper_clear_lapses_when_a_round_opens_and_keeps_the_journal_verifiable(
    make_table: Callable[..., Table],
) -> None:
    import time

    from protocols.codes import FaultCode

    table = make_table("Ah", "Kh")
    who = _staff(table)
    assert table.shoe is not None
    table.shoe.inject_fault(FaultCode.TAMPER)
    for _ in range(100):
        faults = table.ok("GET", "/v1/status", token=who["tess"])["shoe"].get("faults") or []
        if any(f["code"] == "tamper" for f in faults):
            break
        time.sleep(0.05)
    waiting = table.call("POST", "/v1/maintenance/clear-fault", {"fault": "tamper"}, who["tess"])
    assert waiting.status == 202
    request_id = waiting.json["awaiting_approval"]["id"]
    dual = table.call("POST", "/v1/approvals/approve", {"id": request_id}, who["dualtech"])  # holds technician
    assert (dual.status, dual.error["code"]) == (403, "requester-role")
    table.ok("POST", "/v1/approvals/approve", {"id": request_id}, who["frank"])
    assert table.call("POST", "/v1/approvals/approve", {"id": request_id}, who["frank"]).status == 409
    _verified(table)


# -- 4. duties: no one approves what a role they hold asked ---------------------------------------------


def test_a_dealer_who_is_also_a_floorperson_approves_no_dealers_void(make_table: Callable[..., Table]) -> None:
    table = make_table("Ah", "Kh")
    who = _staff(table)
    _open(table, who["dealer"])
    request = table.call("POST", "/v1/round/void", {"cause": "other"}, who["dealer"]).json["awaiting_approval"]
    dual = table.call("POST", "/v1/approvals/approve", {"id": request["id"]}, who["dual"])
    assert (dual.status, dual.error["code"]) == (403, "requester-role")
    assert table.ok("GET", "/v1/round", token=who["dealer"])["round"]["state"] == "open-for-wagers"
    approved = table.ok("POST", "/v1/approvals/approve", {"id": request["id"]}, who["frank"])
    assert approved["decided"]["requested_by"] == DANA
    _verified(table)


def test_a_technician_who_is_also_a_floorperson_approves_no_technicians_dispense(
    make_table: Callable[..., Table],
) -> None:
    table = make_table("Ah", "Kh")
    who = _staff(table)
    waiting = table.call("POST", "/v1/maintenance/dispense", {"stacks": 1, "size": 1}, who["tess"])
    dual = table.call("POST", "/v1/approvals/approve", {"id": waiting.json["awaiting_approval"]["id"]},
                      who["dualtech"])  # fmt: skip
    assert (dual.status, dual.error["code"]) == (403, "requester-role")
    assert not [e for e in table.entries() if e.kind == "technician"]
    _verified(table)


# -- 13. a deck that lost a card outside a round is no longer checked ---------------------------------


def test_a_maintenance_dispense_unchecks_the_deck(make_table: Callable[..., Table]) -> None:
    table = make_table("Ah", "Kh")
    who = _staff(table)
    assert table.ok("GET", "/v1/deck", token=who["tess"])["state"] == "checked"
    waiting = table.call("POST", "/v1/maintenance/dispense", {"stacks": 1, "size": 1}, who["tess"])
    table.ok("POST", "/v1/approvals/approve", {"id": waiting.json["awaiting_approval"]["id"]}, who["frank"])
    deck = table.ok("GET", "/v1/deck", token=who["tess"])
    assert deck["state"] != "checked" and deck["count"] == 51, deck
    refused = table.call("POST", "/v1/rounds", {"game": "mississippi-stud", "jurisdiction": "NY",
                                                "seats": [{"seat": 1, "ante": 1000}]}, who["dealer"])  # fmt: skip
    assert (refused.status, refused.error["code"]) == (409, "deck-not-ready"), refused.body
    unchecked = [e for e in table.entries() if e.kind == "deck" and e.data["event"] == "unchecked"]
    assert len(unchecked) == 1 and unchecked[0].data["cause"] == "maintenance-dispense"
    dispensed = next(e for e in table.entries() if e.kind == "technician")
    assert unchecked[0].seq < dispensed.seq  # journaled before the shoe moved
    _verified(table)


def test_a_configuration_technicians_dispense_unchecks_the_deck_too(make_table: Callable[..., Table]) -> None:
    table = make_table("Ah", "Kh")
    table.ok("POST", "/v1/maintenance/dispense", {"stacks": 1, "size": 2}, TECH)  # no person: not gated
    deck = table.ok("GET", "/v1/deck", token=TECH)
    assert deck["state"] != "checked" and deck["count"] == 50, deck
    opened = table.call("POST", "/v1/rounds", {"game": "mississippi-stud", "jurisdiction": "NY",
                                               "seats": [{"seat": 1, "ante": 1000}]}, DEALER_CONFIG)  # fmt: skip
    assert opened.status == 409
    _verified(table)
