"""Separation of duties (docs/people.md, "Separation of duties"): every cell of the matrix of who may do
what to whom, through the real HTTP API of a real service and its employees store.

A cell is an actor (an employee of each role signed in, a service account's token, the installer's
configuration technician token, another configuration token), a target (an employee holding one role)
and an operation. Allowed: the change is made, and journaled once naming who made it (``by``, ``via``).
Refused: ``403``, the target exactly as it was, and one ``change-refused`` entry naming who tried.

Before the change every cell of a floorperson's or technician's row was allowed (a technician added a
floorperson, reset a floorperson's PIN), and a dealer's refusals were not journaled.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from shoe.people.duties import DUTIES, Operation
from shoe.people.store import ROLES
from tests.e2e.conftest import Table as E2ETable
from tests.e2e.support import TOKENS as E2E_TOKENS
from tests.people.conftest import DEALER_CONFIG, TECH, Table, tables
from tests.people.test_people_e2e import call, ok

ALL = frozenset(Operation)
NO_CREDENTIAL = ALL - {Operation.RESET_PIN, Operation.ISSUE_TOKEN}
ALLOWED: dict[str, dict[str, frozenset[Operation]]] = {
    "floorperson": {"dealer": ALL, "floorperson": ALL, "observer": ALL},
    "technician": {"technician": ALL, "table-system": ALL, "observer": ALL},
    "surveillance": {"surveillance": ALL, "observer": ALL},
    "installer": {
        "dealer": ALL,
        "floorperson": NO_CREDENTIAL,
        "technician": ALL,
        "surveillance": NO_CREDENTIAL,
        "observer": ALL,
        "table-system": ALL,
    },
}
"""docs/people.md's matrix, written out again: every (actor, target, operation) not here is refused."""
ACTORS = ("dealer", "floorperson", "technician", "surveillance", "observer", "table-system", "installer",
          "config-dealer")  # fmt: skip
PIN = "2468"
ACTION = {
    Operation.ADD: "employee-added",
    Operation.DISABLE: "employee-disabled",
    Operation.ENABLE: "employee-enabled",
    Operation.REMOVE: "employee-removed",
    Operation.RESET_PIN: "pin-reset",
    Operation.ISSUE_TOKEN: "token-issued",
    Operation.REVOKE_TOKEN: "token-revoked",
}


class Staff:
    """One table for the whole module: an actor of each kind, and a fresh target for every cell."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.serial = itertools.count(1)
        self.tokens: dict[str, str] = {"installer": TECH, "config-dealer": DEALER_CONFIG}
        self.by: dict[str, dict[str, str] | None] = {"installer": None, "config-dealer": None}
        self.via = {"installer": "config", "config-dealer": "config"}
        self.seq = 0
        for n, key in enumerate((*ROLES, "b-floorperson", "b-surveillance"), start=1):
            # b-: a second approver of each approver duty, who issues the first one's tokens
            role = key.removeprefix("b-")
            eid = key if key.startswith("b-") else f"a-{key}"
            self.by[key], self.via[key] = {"id": eid, "name": f"Actor {key}"}, "session"
            if role == "table-system":
                table.add(eid, f"Actor {key}", [role], None, None)
                self.tokens[key] = table.ok("POST", "/v1/people/tokens", {"id": eid}, TECH)["token"]
                self.via[key] = "token"
            else:
                table.add(eid, f"Actor {key}", [role], f"90{n}", PIN)
                self.tokens[key] = table.sign_in(f"90{n}", PIN)

    def new_entries(self) -> list[dict[str, Any]]:
        """The ``people`` entries since the last call (read from the journal after the last seq seen)."""
        journal = self.table.service._owner.sink.journal
        assert journal is not None
        found = list(journal.entries(after_seq=self.seq, kinds=["people"]))
        self.seq = found[-1].seq if found else self.seq
        return [dict(e.data) for e in found]

    def target(self, role: str, *, pin: bool = False) -> str:
        """A new employee holding ``role``; with a badge and PIN only when the cell needs one (scrypt is slow)."""
        n = next(self.serial)
        eid = f"x-{n}"
        badge = f"7{n:04d}" if pin and role != "table-system" else None
        self.table.add(eid, f"Target {n}", [role], badge, None if badge is None else PIN)
        return eid

    def token_for(self, eid: str, role: str) -> str:
        """A token of ``eid``, issued by someone who may (an approver's by another of their duty)."""
        issuer = self.tokens["b-" + role] if role in ("floorperson", "surveillance") else TECH
        return str(self.table.ok("POST", "/v1/people/tokens", {"id": eid, "label": "cell"}, issuer)["token_id"])

    def state(self, eid: str) -> Any:
        desk = self.table.server.auth.people
        assert desk is not None
        row = desk.store.get(eid)
        tokens = [(t.id, t.revoked) for t in desk.store.tokens_of(eid)]
        return None if row is None else (row, tokens)


@pytest.fixture(scope="module")
def staff(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Staff]:
    made: Iterator[Callable[..., Table]] = tables(Path(tmp_path_factory.mktemp("duties")))
    make = next(made)
    yield Staff(make())
    next(made, None)


def _cells() -> list[tuple[str, str, Operation]]:
    return [(a, t, op) for a in ACTORS for t in ROLES for op in Operation]


@pytest.mark.parametrize(("actor", "target", "operation"), _cells())
def test_every_cell_of_the_separation_of_duties_matrix(
    staff: Staff, actor: str, target: str, operation: Operation
) -> None:
    table = staff.table
    allowed = operation in ALLOWED.get(actor, {}).get(target, frozenset())
    if operation is Operation.ADD:
        eid = f"x-{next(staff.serial)}"
        request: tuple[str, str, dict[str, Any]] = ("POST", "/v1/people", {"id": eid, "name": "New", "roles": [target]})
    else:
        eid = staff.target(target, pin=operation is Operation.RESET_PIN)
        if operation is Operation.ENABLE:
            table.ok("POST", "/v1/people/disable", {"id": eid}, TECH)
        token_id = staff.token_for(eid, target) if operation is Operation.REVOKE_TOKEN else None
        request = {
            Operation.DISABLE: ("POST", "/v1/people/disable", {"id": eid}),
            Operation.ENABLE: ("POST", "/v1/people/enable", {"id": eid}),
            Operation.REMOVE: ("POST", "/v1/people/remove", {"id": eid}),
            Operation.RESET_PIN: ("POST", "/v1/people/reset-pin", {"id": eid, "pin": "1357"}),
            Operation.ISSUE_TOKEN: ("POST", "/v1/people/tokens", {"id": eid, "label": "cell"}),
            Operation.REVOKE_TOKEN: ("POST", "/v1/people/tokens/revoke", {"token_id": token_id}),
        }[operation]
    staff.new_entries()
    before = staff.state(eid)
    answer = table.call(*request, token=staff.tokens[actor])
    new = staff.new_entries()
    by = {"by": staff.by[actor]} if staff.by[actor] else {}

    if allowed and operation is Operation.RESET_PIN and target == "table-system":
        assert answer.status == 409 and answer.error["code"] == "no-badge", answer.body  # a service has no PIN
        assert staff.state(eid) == before and new == []
        return
    if allowed:
        assert answer.status in (200, 201), answer.body
        assert [e["action"] for e in new] == [ACTION[operation]], new
        assert {k: v for k, v in new[0].items() if k in ("by", "via")} == {**by, "via": staff.via[actor]}
        assert staff.state(eid) != before
        return
    assert answer.status == 403, answer.body
    assert answer.error["code"] in ("forbidden", "separation-of-duties"), answer.body
    assert staff.state(eid) == before
    no_authority = actor not in ALLOWED
    refused = {"action": "change-refused", "operation": operation.value,
               "employee_id": token_id if no_authority and operation is Operation.REVOKE_TOKEN else eid,
               "roles": [] if no_authority else [target],
               "reason": "no-authority" if no_authority else "separation-of-duties",
               "via": staff.via[actor], **by}  # fmt: skip
    assert new == [refused]


OWN = [(a, op) for a in ALLOWED if a != "installer" for op in Operation if op is not Operation.ENABLE]
"""(a disabled employee has no credential to enable themselves with)"""


@pytest.mark.parametrize(("actor", "operation"), OWN)
def test_no_one_changes_their_own_record(staff: Staff, actor: str, operation: Operation) -> None:
    table, eid = staff.table, f"a-{actor}"
    token_id = staff.token_for(eid, actor) if operation is Operation.REVOKE_TOKEN else None
    request = {
        Operation.ADD: ("POST", "/v1/people", {"id": eid, "name": "Again", "roles": [actor]}),
        Operation.DISABLE: ("POST", "/v1/people/disable", {"id": eid}),
        Operation.REMOVE: ("POST", "/v1/people/remove", {"id": eid}),
        Operation.RESET_PIN: ("POST", "/v1/people/reset-pin", {"id": eid, "pin": "1357"}),
        Operation.ISSUE_TOKEN: ("POST", "/v1/people/tokens", {"id": eid, "label": "mine"}),
        Operation.REVOKE_TOKEN: ("POST", "/v1/people/tokens/revoke", {"token_id": token_id}),
    }[operation]
    staff.new_entries()
    before = staff.state(eid)
    answer = table.call(*request, token=staff.tokens[actor])
    assert answer.status == 403 and answer.error["code"] == "separation-of-duties", answer.body
    assert "own record" in answer.error["message"]
    assert staff.state(eid) == before
    assert [e["action"] for e in staff.new_entries()] == ["change-refused"]


INCOMPATIBLE = [[a, b] for a, b in itertools.combinations(DUTIES, 2)]


@pytest.mark.parametrize("roles", [*INCOMPATIBLE, ["floorperson", "technician", "surveillance"]])
def test_two_duties_in_one_employee_are_refused_even_to_the_installer(staff: Staff, roles: list[str]) -> None:
    table = staff.table
    eid = f"x-{next(staff.serial)}"
    staff.new_entries()
    answer = table.call("POST", "/v1/people", {"id": eid, "name": "Sock", "roles": roles}, token=TECH)
    assert answer.status == 403 and answer.error["code"] == "incompatible-roles", answer.body
    assert staff.state(eid) is None
    assert [(e["action"], e["reason"]) for e in staff.new_entries()] == [("change-refused",
                                                                                 "incompatible-roles")]  # fmt: skip


@pytest.mark.parametrize("duty", DUTIES)
def test_observer_goes_with_any_duty(staff: Staff, duty: str) -> None:
    eid = f"x-{next(staff.serial)}"
    added = staff.table.ok("POST", "/v1/people", {"id": eid, "name": "Reader", "roles": [duty, "observer"]}, TECH)
    assert added["employee"]["roles"] == [duty, "observer"]


def test_a_service_account_has_no_badge(staff: Staff) -> None:
    body = {"id": "x-sys", "name": "Controller", "roles": ["table-system"], "badge": "5555", "pin": PIN}
    answer = staff.table.call("POST", "/v1/people", body, token=TECH)
    assert answer.status == 400 and "no badge" in answer.error["message"]
    assert staff.state("x-sys") is None


def test_roles_are_never_changed_in_place(staff: Staff) -> None:
    """No route changes an employee's roles: adding an id again is ``409``, so no one raises their own."""
    table = staff.table
    again = {"id": "a-dealer", "name": "Actor dealer", "roles": ["floorperson"]}
    assert table.call("POST", "/v1/people", again, token=staff.tokens["floorperson"]).status == 409
    assert staff.state("a-dealer")[0].roles == ("dealer",)
    paths = {route.path for route in _people_routes()}
    assert not [p for p in paths if "role" in p]


def test_a_technician_cannot_seat_a_floorperson_or_take_one_over_through_shoed(e2e: Callable[..., E2ETable]) -> None:
    """The attack as it was run: technician t-1 adds ``f-sock`` (floorperson, technician, surveillance) and
    resets floorperson f-1's PIN to sign in as her. Both are refused, journaled naming t-1, and change nothing."""
    table = e2e()
    tech = E2E_TOKENS["technician"]
    for eid, name, role, badge in (("t-1", "Tom Tech", "technician", "31"), ("f-1", "Fay Floor", "floorperson", "21"),
                                   ("d-1", "Dan Dealer", "dealer", "11")):  # fmt: skip
        ok(table, "POST", "/v1/people", {"id": eid, "name": name, "roles": [role], "badge": badge, "pin": "4321"}, tech)
    t1 = ok(table, "POST", "/v1/sessions", {"badge": "31", "pin": "4321"})["token"]
    sock = {"id": "f-sock", "name": "Sock", "roles": ["floorperson", "technician", "surveillance"], "badge": "99",
            "pin": "1111"}  # fmt: skip
    status, refused = call(table, "POST", "/v1/people", sock, t1)
    assert (status, refused["error"]["code"]) == (403, "separation-of-duties")
    status, refused = call(table, "POST", "/v1/people", {**sock, "roles": ["floorperson"]}, t1)
    assert (status, refused["error"]["code"]) == (403, "separation-of-duties")
    status, refused = call(table, "POST", "/v1/people/reset-pin", {"id": "f-1", "pin": "1111"}, t1)
    assert (status, refused["error"]["code"]) == (403, "separation-of-duties")
    status, _ = call(table, "POST", "/v1/people/tokens", {"id": "f-1", "label": "mine"}, t1)
    assert status == 403
    assert call(table, "POST", "/v1/sessions", {"badge": "21", "pin": "1111"})[0] == 401  # her PIN is hers still
    assert call(table, "POST", "/v1/sessions", {"badge": "99", "pin": "1111"})[0] == 401  # no f-sock
    listed = ok(table, "GET", "/v1/people", token=t1)["employees"]
    assert [e["id"] for e in listed] == ["d-1", "f-1", "t-1"]
    people = [e.data for e in table.entries(kinds=("people",))]
    refusals = [(e["operation"], e["employee_id"], e["by"]["id"]) for e in people if e["action"] == "change-refused"]
    assert refusals == [("add", "f-sock", "t-1"), ("reset-pin", "f-1", "t-1"), ("issue-token", "f-1", "t-1")]
    assert not [e for e in people if e["action"] in ("pin-reset", "token-issued")]
    table.verify_journal()


def _people_routes() -> Any:
    from shoe.api.people_routes import PEOPLE_ROUTES

    return PEOPLE_ROUTES
