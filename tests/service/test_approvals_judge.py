"""The approval decision (``shoe.service.people.approval_judge``) and the journal's approval rules
(``shoe.journal.approvals``), pure: every combination of request state, inputs, approver and display is
judged against the rule written out once more here; the digest and the verify ledger by properties."""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from shoe.journal.approvals import ApprovalLedger, approval_digest
from shoe.service.people.approval_judge import Attempt, Request, judge, lapse

D, OTHER = "sha256:" + "a" * 64, "sha256:" + "b" * 64
ROLES = ("dealer", "floorperson", "technician", "surveillance")


def _expected(request: Request, current: str | None, attempt: Attempt) -> tuple[str, str | None]:
    """(state after, error code) as docs/people.md states the rule."""
    if request.state != "pending":
        return request.state, "approval-lapsed" if request.state == "lapsed" else "already-decided"
    if current != request.digest:
        return "lapsed", "approval-lapsed"
    if attempt.approver_id is None:
        return "pending", "forbidden"
    if attempt.seen_digest not in (None, request.digest):
        return "pending", "digest-differs"
    if attempt.approver_id == request.requester_id:
        return "pending", "own-request"
    if request.requester_role in attempt.approver_roles:
        return "pending", "requester-role"
    if not attempt.approver_roles & request.needs:
        return "pending", "may-not-approve"
    return ("approved" if attempt.approve else "rejected"), None


def test_every_combination_is_judged_by_the_rule() -> None:
    subsets = [frozenset(c) for n in range(len(ROLES) + 1) for c in itertools.combinations(ROLES, n)]
    cases = itertools.product(
        ("pending", "approved", "rejected", "lapsed"),
        (D, OTHER, None),
        (True, False),
        (None, "d-1", "f-1"),
        subsets,
        (None, D, OTHER),
        ("dealer", "technician"),
        (frozenset({"floorperson"}), frozenset({"technician", "floorperson"})),
    )
    judged = 0
    for state, current, approve, approver, roles, seen, asked_as, needs in cases:
        request = Request("a-00000001", state, D, needs, "d-1", asked_as)
        attempt = Attempt(approve, approver, roles, seen)
        verdict = judge(request, current, attempt)
        state_after, code = _expected(request, current, attempt)
        assert (verdict.state, verdict.error[0] if verdict.error else None) == (state_after, code), (request, attempt)
        assert verdict.grant == (state == "pending" and state_after == "approved")  # only with this approval
        actions = [e["action"] for e in verdict.entries]
        if state == "pending" and state_after in ("approved", "rejected"):
            assert actions == [state_after] and verdict.entries[0]["requested_by"] == "d-1"
            assert verdict.entries[0].get("digest") == (D if approve else None)  # the approval names its digest
        elif state_after == "lapsed" and state == "pending":
            assert actions == ["lapsed"] and verdict.entries[0]["digest"] == current  # journaled, then refused
        else:
            assert actions == ["refused"]  # a refusal changes nothing, and is journaled
        judged += 1
    assert judged == 4 * 3 * 2 * 3 * 16 * 3 * 2 * 2


def test_a_lapse_is_found_only_for_a_pending_request_whose_digest_moved() -> None:
    for state, current in itertools.product(("pending", "approved", "rejected", "lapsed"), (D, OTHER, None)):
        verdict = lapse(Request("a-00000001", state, D, frozenset({"floorperson"}), "d-1", "dealer"), current)
        assert (verdict is not None) == (state == "pending" and current != D)


_json = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**12), 10**12) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=10,
)


@given(st.dictionaries(st.text(max_size=5), _json, max_size=4), st.dictionaries(st.text(max_size=5), _json, max_size=4),
       st.text(min_size=1, max_size=6), _json)  # fmt: skip
def test_the_digest_moves_with_any_input_and_only_with_one(
    params: dict[str, Any], inputs: dict[str, Any], name: str, value: Any
) -> None:
    digest = approval_digest("payout", "settle", params, inputs)
    assert digest == approval_digest("payout", "settle", dict(reversed(list(params.items()))), inputs)  # key order
    changed = {**inputs, name: value}
    assert (approval_digest("payout", "settle", params, changed) == digest) == (changed == inputs)
    assert approval_digest("void", "settle", params, inputs) != digest
    assert approval_digest("payout", "void", params, inputs) != digest


def _requested(request_id: str, inputs: dict[str, Any]) -> dict[str, Any]:
    digest = approval_digest("void", "void", {"cause": "other"}, inputs)
    return {"action": "requested", "request_id": request_id, "kind": "void", "step": "void",
            "params": {"cause": "other"}, "inputs": inputs, "digest": digest}  # fmt: skip


_actions = st.lists(st.tuples(st.sampled_from(["requested", "approved", "rejected", "lapsed", "refused"]),
                              st.sampled_from(["a-1", "a-2"]), st.booleans()), max_size=8)  # fmt: skip


@given(_actions)
def test_the_ledger_accepts_a_request_decided_at_most_once_and_nothing_else(
    steps: list[tuple[str, str, bool]],
) -> None:
    ledger = ApprovalLedger(complete=True)
    digests: dict[str, str] = {}
    decided: set[str] = set()
    for seq, (action, request_id, right_digest) in enumerate(steps, 1):
        if action == "requested":
            data = _requested(request_id, {"round": {"records": seq}})
            expect = None if request_id not in digests else "requested again"
            digests.setdefault(request_id, data["digest"])
        else:
            data = {"action": action, "request_id": request_id, "kind": "void"}
            if action == "approved":
                data["digest"] = digests.get(request_id, "") if right_digest else OTHER
            if action == "refused":
                expect = None
            elif request_id not in digests:
                expect = "never requested"
            elif request_id in decided:
                expect = "after its decision"
            else:
                decided.add(request_id)
                expect = "names digest" if action == "approved" and not right_digest else None
        problem = ledger.check(seq, data)
        if expect is None:
            assert problem is None, (steps, seq, problem)
        else:
            assert problem is not None and expect in problem, (steps, seq, problem)
            return  # verify stops at the first bad entry


def test_the_ledger_finds_an_edited_request_and_an_approval_of_another_digest() -> None:
    request = _requested("a-1", {"meters": {"meter": 1_000_000}})
    edited = {**request, "inputs": {"meters": {"meter": 9_000_000_000}}}
    assert "does not match" in (ApprovalLedger(complete=True).check(1, edited) or "")
    ledger = ApprovalLedger(complete=True)
    assert ledger.check(1, request) is None
    approved = {"action": "approved", "request_id": "a-1", "kind": "void", "digest": OTHER}
    assert "names digest" in (ledger.check(2, approved) or "")
    ledger = ApprovalLedger(complete=True)
    assert ledger.check(1, request) is None
    assert ledger.check(2, {**approved, "digest": request["digest"]}) is None
    assert "after its decision" in (ledger.check(3, {**approved, "digest": request["digest"]}) or "")


def test_a_slice_of_the_journal_leaves_decisions_of_earlier_requests_alone() -> None:
    decided = {"action": "lapsed", "request_id": "a-9", "kind": "void", "cause": "inputs-changed"}
    assert ApprovalLedger(complete=False).check(500, decided) is None
    assert "never requested" in (ApprovalLedger(complete=True).check(1, decided) or "")
