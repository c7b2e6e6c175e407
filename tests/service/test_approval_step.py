"""The approvals as a pure step (``shoe.service.people.approval_step``), with no owner, journal or thread:
a state and one input give the new state and the intents (docs/people.md, "Approvals", "What an approval
covers"). Each test reads the intents the step returns, as the owner-thread adapter would carry them out;
the property test runs random sequences of asks, changes, reviews and decisions against a model of the
rule written out once more here, and checks the entries with the journal's own verify ledger."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from shoe.journal.approvals import ApprovalLedger, approval_digest
from shoe.service.errors import ErrorKind, Role
from shoe.service.people.approval_judge import Attempt
from shoe.service.people.approval_step import (
    GATES,
    Ask,
    Checkpoint,
    Decide,
    End,
    Failed,
    Gate,
    Grant,
    Intent,
    Proceed,
    Publish,
    Refuse,
    Reply,
    Review,
    Run,
    State,
    step,
)
from shoe.service.rounds.intents import Append

ROUND = "T1-20261202T193500Z-0a1b"
DANA = {"id": "d-1", "name": "Dana"}  # a dealer
FRANK = {"id": "f-1", "name": "Frank"}  # a floorperson
DUAL = {"id": "x-1", "name": "Dale"}  # a dealer and a floorperson
TESS = {"id": "t-1", "name": "Tess"}  # a technician
ROLES = {"d-1": {"dealer"}, "f-1": {"floorperson"}, "x-1": {"dealer", "floorperson"}, "t-1": {"technician"}}
PEOPLE = (DANA, FRANK, DUAL, TESS)


def _round(records: int) -> dict[str, Any]:
    return {"round": {"id": ROUND, "state": "dealing", "records": records}}


def _ask(  # noqa: PLR0917 - a test's ask: every part has a default but the state
    state: State,
    cause: str = "other",
    records: int = 3,
    new_id: str = "a-00000001",
    by: Mapping[str, str] = DANA,
    key: tuple[Any, ...] = (ROUND, "void"),
    open_round: str | None = ROUND,
) -> tuple[State, list[Intent]]:
    params = {"cause": cause}
    now = (_round(records), {"cause": cause})
    return step(state, Ask(GATES["void"], "void", key, None, params, Role.DEALER, by, now, new_id, open_round))


def _decide(  # noqa: PLR0917 - a test's decision
    state: State,
    by: Mapping[str, str] | None,
    current: str | None,
    approve: bool = True,
    request_id: str = "a-00000001",
    seen: str | None = None,
    open_round: str | None = ROUND,
) -> tuple[State, list[Intent]]:
    roles = frozenset(ROLES[by["id"]]) if by is not None else frozenset()
    attempt = Attempt(approve, None if by is None else by["id"], roles, seen)
    return step(state, Decide(request_id, attempt, current, by, open_round))


def _entries(intents: Sequence[Intent]) -> list[dict[str, Any]]:
    return [i.data for i in intents if isinstance(i, Append)]


def _one(intents: Sequence[Intent], kind: type[Any]) -> Any:
    found = [i for i in intents if isinstance(i, kind)]
    assert len(found) == 1, intents
    return found[0]


DIGEST = approval_digest("void", "void", {"cause": "other"}, _round(3))


# -- one input at a time ------------------------------------------------------------------------------


def test_a_request_approved_by_a_second_person_runs_exactly_the_requested_step() -> None:
    state, asked = _ask(State())
    assert _entries(asked) == [{
        "request_id": "a-00000001", "kind": "void", "round": ROUND, "action": "requested", "step": "void",
        "needs": ["floorperson"], "seat": None, "detail": {"cause": "other"}, "rule": GATES["void"].rule,
        "params": {"cause": "other"}, "inputs": _round(3), "digest": DIGEST,
    }]  # fmt: skip
    assert [type(i) for i in asked] == [Append, Publish, Reply]  # journaled before it is shown or answered
    assert _one(asked, Reply).body["awaiting_approval"]["digest"] == DIGEST
    assert [r["id"] for r in _one(asked, Publish).view] == ["a-00000001"]
    state, decided = _decide(state, FRANK, DIGEST)
    assert _entries(decided) == [{"request_id": "a-00000001", "kind": "void", "round": ROUND, "action": "approved",
                                  "requested_by": "d-1", "digest": DIGEST}]  # fmt: skip
    assert _one(decided, Run) == Run("void", {"cause": "other"}, Role.DEALER, DANA)  # as the requester asked it
    assert [type(i) for i in decided] == [Append, Publish, Run, Reply]
    assert _one(decided, Reply).body["decided"]["decided_by"] == FRANK
    assert state.grant == Grant((ROUND, "void"), DIGEST)
    # the run's own ask: another cause is another step, not the one approved
    other, waits = _ask(state, cause="foreign-card", new_id="a-00000002")
    assert not [i for i in waits if isinstance(i, Proceed)] and other.grant == state.grant
    # nor the same step on inputs that moved since the approval
    _, waits = _ask(state, records=4, new_id="a-00000003")
    assert not [i for i in waits if isinstance(i, Proceed)]
    state, ran = _ask(state)
    assert ran == [Proceed()] and state.grant is None  # used once: the same step asked again waits again
    state, again = _ask(state, new_id="a-00000004")
    assert _one(again, Reply).body["awaiting_approval"]["id"] == "a-00000004"


def test_the_requester_may_not_approve_their_own_request() -> None:
    state, _ = _ask(State(), by=DUAL)  # a dealer who is also a floorperson
    after, intents = _decide(state, DUAL, DIGEST)
    refuse = _one(intents, Refuse)
    assert (refuse.code, refuse.kind) == ("own-request", ErrorKind.FORBIDDEN)
    assert [e["action"] for e in _entries(intents)] == ["refused"] and _entries(intents)[0]["reason"] == "own-request"
    assert not [i for i in intents if isinstance(i, Run)] and after.grant is None
    assert after.get("a-00000001") == state.get("a-00000001")  # still pending, unchanged
    _, intents = _decide(state, DUAL, DIGEST, approve=False)  # nor reject it
    assert _one(intents, Refuse).code == "own-request"


def test_a_request_lapses_when_its_digest_changes() -> None:
    state, _ = _ask(State())
    moved = approval_digest("void", "void", {"cause": "other"}, _round(4))  # a meter posted: one record more
    same, nothing = step(state, Review("a-00000001", DIGEST, ROUND))
    assert (same, nothing) == (state, [])
    state, lapsed = step(state, Review("a-00000001", moved, ROUND))
    assert _entries(lapsed) == [{"request_id": "a-00000001", "kind": "void", "round": ROUND, "action": "lapsed",
                                 "cause": "inputs-changed", "digest": moved}]  # fmt: skip
    assert state.get("a-00000001").state == "lapsed"  # type: ignore[union-attr]
    state, intents = _decide(state, FRANK, None)
    refuse = _one(intents, Refuse)
    assert (refuse.code, refuse.kind) == ("approval-lapsed", ErrorKind.CONFLICT)
    assert not [i for i in intents if isinstance(i, Run)]


def test_an_approval_on_changed_inputs_lapses_the_request_instead_of_running_it() -> None:
    state, _ = _ask(State())
    moved = approval_digest("void", "void", {"cause": "other"}, _round(4))
    state, intents = _decide(state, FRANK, moved)  # the change came with no review between
    assert _one(intents, Refuse).code == "approval-lapsed"
    assert [e["action"] for e in _entries(intents)] == ["lapsed"]
    assert not [i for i in intents if isinstance(i, Run)] and state.grant is None
    assert state.get("a-00000001").state == "lapsed"  # type: ignore[union-attr]
    _, shown = _decide(_ask(State())[0], FRANK, DIGEST, seen=moved)  # a display that showed another digest
    assert (_one(shown, Refuse).code, _one(shown, Refuse).kind) == ("digest-differs", ErrorKind.CONFLICT)


def test_a_decided_request_is_not_decided_again() -> None:
    state, _ = _ask(State())
    state, _ = _decide(state, FRANK, DIGEST)
    state, _ = step(state, End())
    assert state.grant is None  # the grant ended with its decision
    for approve in (True, False):
        after, intents = _decide(state, FRANK, None, approve=approve)
        refuse = _one(intents, Refuse)
        assert (refuse.code, refuse.kind) == ("already-decided", ErrorKind.CONFLICT)
        assert _entries(intents) == [{"request_id": "a-00000001", "kind": "void", "round": ROUND,
                                      "action": "refused", "reason": "already-decided"}]  # fmt: skip
        assert not [i for i in intents if isinstance(i, Run)] and after.grant is None
    _, unknown = _decide(state, FRANK, None, request_id="a-ffffffff")
    assert _one(unknown, Refuse).kind is ErrorKind.NOT_FOUND and not _entries(unknown)


def test_a_rejected_payout_keeps_the_seat_waiting() -> None:
    gate, key = GATES["payout"], (ROUND, "payout", 3)
    bets = [{"bet": "progressive", "hand": "royal-flush", "paid": 100000, "paid_from": "meter", "note": None}]
    inputs = {"round": {"id": ROUND, "state": "settlement"}, "seat": 3, "bets": bets, "meters": {"progressive": 1}}

    def ask(state: State, new_id: str) -> tuple[State, list[Intent]]:
        now = (inputs, {"seat": 3, "bets": bets})
        return step(state, Ask(gate, "settle", key, 3, {}, Role.DEALER, DANA, now, new_id, ROUND))

    state, asked = ask(State(), "a-00000001")
    digest = _one(asked, Reply).body["awaiting_approval"]["digest"]
    state, rejected = _decide(state, FRANK, digest, approve=False)
    assert [e["action"] for e in _entries(rejected)] == ["rejected"]
    assert not [i for i in rejected if isinstance(i, Run)] and state.grant is None
    state, _ = step(state, End())
    state, again = ask(state, "a-00000002")  # the dealer settles on: the seat is asked for again
    assert _one(again, Reply).body["awaiting_approval"]["id"] == "a-00000002"
    assert [e["action"] for e in _entries(again)] == ["requested"]


def test_a_rejected_hand_entered_card_voids_the_round_as_the_one_who_rejected() -> None:
    gate, key = GATES["hand-entered-card"], (ROUND, "card", 2, "Ah")
    now = (_round(5), {"index": 2, "card": "Ah"})
    state = State(unreadable=frozenset({(ROUND, 2)}))
    state, asked = step(state, Ask(gate, "reveal", key, None, {"index": 2, "card": "Ah"}, Role.DEALER, DANA, now,
                                   "a-00000001", ROUND))  # fmt: skip
    digest = _one(asked, Reply).body["awaiting_approval"]["digest"]
    state, intents = _decide(state, TESS, digest, approve=False)
    assert _one(intents, Run) == Run("void", {"cause": "unreadable-card"}, Role.DEALER, TESS)
    assert state.grant == Grant((ROUND, "void"), None)  # the misdeal no one asked for, whatever its digest
    state, ran = _ask(state)
    assert ran == [Proceed()]


def test_an_unreadable_reveal_is_noted_and_nothing_else() -> None:
    state, intents = step(State(), Failed("reveal", "unreadable-card", ROUND, 2))
    assert state.unreadable == {(ROUND, 2)} and intents == []
    others = (
        Failed("reveal", "out-of-turn", ROUND, 3),
        Failed("settle", "unreadable-card", ROUND, 3),
        Failed("reveal", "unreadable-card", None, 3),
        Failed("reveal", "unreadable-card", ROUND, "3"),
    )
    for other in others:
        assert step(state, other) == (state, [])


def test_entries_after_the_rounds_closing_go_outside_any_round() -> None:
    state, _ = _ask(State())
    _, intents = _decide(state, FRANK, None, open_round=None)  # the round closed: the request lapses
    entry = _one(intents, Append)
    assert (entry.round_id, entry.data["round"], entry.data["action"]) == (None, ROUND, "lapsed")
    _, intents = _decide(state, FRANK, DIGEST, open_round=ROUND)
    assert _one(intents, Append).round_id == ROUND


def test_the_same_step_asked_twice_is_one_request_and_a_changed_one_replaces_it() -> None:
    state, _ = _ask(State())
    same, intents = _ask(state, new_id="a-00000002")
    assert same == state and intents == [Reply({"awaiting_approval": state.get("a-00000001").public()})]  # type: ignore[union-attr]
    state, intents = _ask(state, cause="foreign-card", new_id="a-00000002")
    lapsed, requested = _entries(intents)
    assert (lapsed["request_id"], lapsed["action"], requested["request_id"]) == ("a-00000001", "lapsed", "a-00000002")
    assert lapsed["digest"] == requested["digest"]  # lapsed at the digest of the step asked now
    checkpoint = _one(intents, Checkpoint)  # the lapse is the approvals' once its entry is in
    assert [p.state for p in checkpoint.state.requests] == ["lapsed"]
    assert intents.index(checkpoint) < [i for i, x in enumerate(intents) if isinstance(x, Append)][-1]
    assert [p.state for p in state.requests] == ["lapsed", "pending"]


def test_the_view_keeps_every_pending_request_and_the_last_decided() -> None:
    state = State()
    for n in range(100):
        state, _ = _ask(state, new_id=f"a-{n:08x}", key=(ROUND, "void", n))
        if n >= 10:
            state, _ = _decide(state, FRANK, DIGEST, request_id=f"a-{n:08x}")
            state, _ = step(state, End())
    view = state.view()
    assert [r["id"] for r in view[:10]] == [f"a-{n:08x}" for n in range(10)]
    assert [r["id"] for r in view[10:]] == [f"a-{n:08x}" for n in range(80, 100)]
    assert len(state.requests) <= 80


# -- random sequences against a model ----------------------------------------------------------------


@dataclass
class _Asked:
    key: int
    cause: str
    by: Mapping[str, str]
    records: int
    state: str = "pending"


@dataclass
class _Model:
    """The rule, once more: what each input must do, and a desk that carries out intents in order."""

    records: int = 0
    asked: dict[str, _Asked] = field(default_factory=dict)
    entries: list[dict[str, Any]] = field(default_factory=list)
    runs: list[Run] = field(default_factory=list)

    def digest(self, asked: _Asked, records: int | None = None) -> str:
        return approval_digest("void", "void", {"cause": asked.cause}, _round(asked.records if records is None
                                                                              else records))  # fmt: skip


Op = tuple[str, int, int, bool]
OPS = st.tuples(st.sampled_from(["ask", "change", "review", "decide"]), st.integers(0, 3), st.integers(0, 1),
                st.booleans())  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(st.lists(OPS, max_size=40))
def test_random_sequences_follow_the_model(ops: list[Op]) -> None:
    model, state, n = _Model(), State(), 0
    for op, who, pick, approve in ops:
        if op == "change":  # a record in the round: every waiting request's inputs move
            model.records += 1
            continue
        if op == "ask":
            n += 1
            by, cause = (DANA, DUAL)[who % 2], ("other", "foreign-card")[pick]
            before = {i: a.state for i, a in model.asked.items()}
            state, intents = _ask(state, cause, model.records, f"a-{n:08x}", by, (ROUND, "void", who % 2))
            new = _Asked(who % 2, cause, by, model.records)
            same = [i for i, a in model.asked.items() if a.state == "pending" and a.key == new.key
                    and model.digest(a) == model.digest(new)]  # fmt: skip
            reply = _one(intents, Reply).body["awaiting_approval"]
            if same:
                assert reply["id"] == same[0] and not _entries(intents)
            else:
                for a in model.asked.values():
                    if a.state == "pending" and a.key == new.key:
                        a.state = "lapsed"
                model.asked[reply["id"]] = new
                assert reply["id"] == f"a-{n:08x}"
            changed = {i for i, a in model.asked.items() if before.get(i, "new") != a.state}
            assert {e["request_id"] for e in _entries(intents)} == changed
        elif op == "review":
            for pending in state.waiting():
                asked = model.asked[pending.id]
                current = model.digest(asked, model.records)
                state, intents = step(state, Review(pending.id, current, ROUND))
                if asked.records != model.records:
                    asked.state = "lapsed"
                assert [e["action"] for e in _entries(intents)] == (["lapsed"] if asked.state == "lapsed" else [])
                model.entries += _entries(intents)
            continue
        elif model.asked:  # decide
            request_id = sorted(model.asked)[pick * 7 % len(model.asked)]
            asked, person = model.asked[request_id], PEOPLE[who]
            current = model.digest(asked, model.records) if asked.state == "pending" else None
            state, intents = _decide(state, person, current, approve, request_id)
            refused = _one(intents, Refuse).code if [i for i in intents if isinstance(i, Refuse)] else None
            if asked.state != "pending":
                expected = "approval-lapsed" if asked.state == "lapsed" else "already-decided"
            elif asked.records != model.records:
                expected, asked.state = "approval-lapsed", "lapsed"
            elif person["id"] == asked.by["id"]:
                expected = "own-request"
            elif "dealer" in ROLES[person["id"]]:
                expected = "requester-role"
            elif "floorperson" not in ROLES[person["id"]]:
                expected = "may-not-approve"
            else:
                expected, asked.state = None, "approved" if approve else "rejected"
            assert refused == expected, (asked, person)
            runs = [i for i in intents if isinstance(i, Run)]
            assert runs == ([Run("void", {"cause": asked.cause}, Role.DEALER, asked.by)] if expected is None and
                            approve else [])  # fmt: skip
            if runs:  # the run's own ask, on the inputs approved: the grant lets exactly it through
                state, ran = _ask(state, asked.cause, model.records, "a-unused", asked.by, (ROUND, "void", asked.key))
                assert ran == [Proceed()]
            state, _ = step(state, End())
            assert state.grant is None
        else:
            continue
        model.entries += _entries(intents)
        pending = {i for i, a in model.asked.items() if a.state == "pending"}
        assert {p.id for p in state.waiting()} == pending
        assert {p.id: p.state for p in state.requests} == {i: a.state for i, a in model.asked.items()}
    ledger = ApprovalLedger(complete=True)  # the journal's own verify rule accepts every entry the steps made
    assert [problem for seq, data in enumerate(model.entries, 1) if (problem := ledger.check(seq, data))] == []


def test_a_gate_is_what_the_step_shows() -> None:
    assert {name: (g.kind, g.needs) for name, g in GATES.items()} == {
        "void": ("void", ("floorperson",)),
        "payout": ("payout", ("floorperson",)),
        "tamper": ("tamper", ("floorperson", "surveillance")),
        "maintenance-dispense": ("maintenance-dispense", ("floorperson",)),
        "hand-entered-card": ("hand-entered-card", ("technician", "floorperson")),
    }
    assert all(isinstance(g, Gate) for g in GATES.values())
