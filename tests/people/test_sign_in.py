"""Employees, sign-in sessions and the employee named on every entry, through a real service,
its journal and its employees store over HTTP. Each abuse case is refused, journaled, and changes nothing."""

from __future__ import annotations

import http.client
import json
import sqlite3
import time
from collections.abc import Callable

from tests.api.conftest import NY_SEATS
from tests.people.conftest import DEALER_CONFIG, TECH, Table


def _dealer_and_floor(table: Table) -> None:
    table.add("d-101", "Dana Dealer", ["dealer"], "1001", "4321")
    table.add("f-201", "Frank Floor", ["floorperson"], "2001", "8765")


def test_a_signed_in_dealers_round_names_the_dealer_on_every_entry_it_causes(table: Table) -> None:
    _dealer_and_floor(table)
    token = table.sign_in("1001", "4321")
    who = table.ok("GET", "/v1/session", token=token)
    assert who["employee"] == {"id": "d-101", "name": "Dana Dealer", "roles": ["dealer"]}
    assert who["via"] == "session" and who["roles"] == ["dealer"]
    opened = table.ok("POST", "/v1/rounds", {"game": "mississippi-stud", "jurisdiction": "NY", "seats": NY_SEATS},
                      token)  # fmt: skip
    table.ok("POST", "/v1/round/no-more-bets", {}, token)
    table.ok("POST", "/v1/round/deal", {}, token)  # the cards read while dealing name the dealer too
    entries = table.entries(opened["round_id"])
    assert len(entries) >= 5 and any(e.kind == "card" for e in entries)
    assert all(e.data.get("by") == {"id": "d-101", "name": "Dana Dealer"} for e in entries), entries
    signed = table.people("signed-in")
    assert signed[-1]["by"] == {"id": "d-101", "name": "Dana Dealer"}
    assert table.people("employee-added")[0].get("by") is None  # added with the configuration technician token


def test_configuration_tokens_keep_working_and_name_nobody(table: Table) -> None:
    opened = table.ok("POST", "/v1/rounds", {"game": "mississippi-stud", "jurisdiction": "NY", "seats": NY_SEATS},
                      DEALER_CONFIG)  # fmt: skip
    assert table.ok("GET", "/v1/session", token=DEALER_CONFIG) == {"employee": None, "via": "config",
                                                                    "roles": ["dealer"]}  # fmt: skip
    assert all("by" not in e.data for e in table.entries(opened["round_id"]))


def test_wrong_pins_back_the_client_off_and_a_pin_reset_forgets_the_guesses(
    make_table: Callable[..., Table],
) -> None:
    table = make_table(pin_tries=3)
    _dealer_and_floor(table)
    for _ in range(4):  # three free, then the client waits
        answer = table.call("POST", "/v1/sessions", {"badge": "1001", "pin": "0000"})
        assert (answer.status, answer.error["code"]) == (401, "wrong-credentials"), answer.body
        assert answer.error["message"] == "badge or PIN not recognised"
    backed_off = table.call("POST", "/v1/sessions", {"badge": "1001", "pin": "4321"})  # the right PIN, too soon
    assert backed_off.status == 401 and backed_off.body == answer.body
    summary = table.people("sign-in-failures")
    assert [(e["employee_id"], e["part"], e["count"], e["reasons"]) for e in summary] == [
        ("d-101", "first", 1, {"wrong-pin": 1})
    ]
    assert table.people("locked-out") == []
    floor_from_elsewhere = sign_in_from("127.0.0.2", table, "2001", "8765")  # another client is not held back
    table.ok("POST", "/v1/people/reset-pin", {"id": "d-101", "pin": "5555"}, floor_from_elsewhere)
    assert table.people("pin-reset")[-1]["by"] == {"id": "f-201", "name": "Frank Floor"}
    assert sign_in_from("127.0.0.3", table, "1001", "5555").startswith("shoe_s_")


def sign_in_from(source: str, table: Table, badge: str, pin: str) -> str:
    """A sign-in from the loopback address ``source`` (the back-off is counted per client address)."""
    conn = http.client.HTTPConnection(*table.server.address, timeout=30, source_address=(source, 0))
    try:
        conn.request(
            "POST", "/v1/sessions", json.dumps({"badge": badge, "pin": pin}), {"Content-Type": "application/json"}
        )
        response = conn.getresponse()
        body = json.loads(response.read())
        assert response.status == 201, body
        return str(body["token"])
    finally:
        conn.close()


def test_an_unknown_badge_is_refused_like_a_wrong_pin_and_journaled(table: Table) -> None:
    answer = table.call("POST", "/v1/sessions", {"badge": "9999", "pin": "1234"})
    assert answer.status == 401 and answer.error["message"] == "badge or PIN not recognised"
    last = table.people("sign-in-failures")[-1]
    assert (last["employee_id"], last["reasons"]) == (None, {"unknown-badge": 1})


def test_a_disabled_employee_cannot_sign_in_and_their_live_session_ends(table: Table) -> None:
    _dealer_and_floor(table)
    session = table.sign_in("1001", "4321")
    floor = table.sign_in("2001", "8765")
    table.ok("POST", "/v1/people/disable", {"id": "d-101"}, floor)
    answer = table.call("GET", "/v1/round", token=session)
    assert answer.status == 401
    assert table.people("signed-out")[-1]["reason"] == "disabled"
    refused = table.call("POST", "/v1/sessions", {"badge": "1001", "pin": "4321"})  # the right PIN
    wrong = table.call("POST", "/v1/sessions", {"badge": "1001", "pin": "0000"})
    assert refused.status == wrong.status == 401 and refused.body == wrong.body  # the answer tells no PIN right
    last = table.people("sign-in-failures")[-1]
    assert (last["employee_id"], last["part"], last["reasons"]) == ("d-101", "first", {"disabled": 1})


def test_a_token_of_a_removed_or_disabled_account_or_a_revoked_one_is_refused_and_journaled(table: Table) -> None:
    table.add("sys-1", "Table system", ["table-system"], None, None)
    issued = table.ok("POST", "/v1/people/tokens", {"id": "sys-1", "label": "tgs"}, TECH)
    token = issued["token"]
    assert token.startswith("shoe_t_")
    assert table.ok("GET", "/v1/session", token=token)["employee"]["id"] == "sys-1"
    table.ok("POST", "/v1/people/disable", {"id": "sys-1"}, TECH)
    disabled = table.call("GET", "/v1/session", token=token)
    assert disabled.status == 401 and "disabled" in disabled.error["message"]
    table.ok("POST", "/v1/people/enable", {"id": "sys-1"}, TECH)
    table.ok("POST", "/v1/people/remove", {"id": "sys-1"}, TECH)
    removed = table.call("GET", "/v1/round", token=token)
    assert removed.status == 401 and "removed" in removed.error["message"]
    again = table.call("GET", "/v1/round", token=token)  # a retrying client: refused, journaled once a minute
    assert again.status == 401
    assert [r["reason"] for r in table.people("token-refused")] == ["disabled", "removed"]
    table.add("sys-2", "Second system", ["table-system"], None, None)
    second = table.ok("POST", "/v1/people/tokens", {"id": "sys-2", "label": "tgs"}, TECH)
    table.ok("POST", "/v1/people/tokens/revoke", {"token_id": second["token_id"]}, TECH)
    revoked = table.call("GET", "/v1/session", token=second["token"])
    assert revoked.status == 401 and "revoked" in revoked.error["message"]
    assert table.people("token-refused")[-1]["reason"] == "revoked"
    forged = table.call("GET", "/v1/session", token="shoe_t_" + "A" * 43)
    assert forged.status == 401 and forged.error["message"] == "unknown bearer token"


def test_a_session_ends_after_the_idle_time_and_the_journal_says_so(make_table: Callable[..., Table]) -> None:
    table = make_table(session_idle=0.4)
    _dealer_and_floor(table)
    token = table.sign_in("1001", "4321")
    table.ok("GET", "/v1/round", token=token)
    time.sleep(0.6)
    answer = table.call("GET", "/v1/round", token=token)
    assert answer.status == 401 and "idle" in answer.error["message"]
    assert table.people("signed-out")[-1]["reason"] == "idle"
    assert table.call("GET", "/v1/round", token=token).status == 401


def test_sign_out_ends_the_session_and_a_replay_of_its_token_is_refused(table: Table) -> None:
    _dealer_and_floor(table)
    token = table.sign_in("1001", "4321")
    assert table.ok("POST", "/v1/session/sign-out", {}, token)["signed_out"]["id"] == "d-101"
    assert table.people("signed-out")[-1]["reason"] == "sign-out"
    assert table.call("POST", "/v1/round/no-more-bets", {}, token).status == 401


def test_only_a_floorperson_or_technician_manages_employees_and_a_refusal_changes_nothing(table: Table) -> None:
    _dealer_and_floor(table)
    dealer = table.sign_in("1001", "4321")
    before = table.people()
    answer = table.call("POST", "/v1/people", {"id": "x", "name": "X", "roles": ["dealer"], "badge": "7",
                                               "pin": "1234"}, dealer)  # fmt: skip
    assert answer.status == 403
    assert table.call("POST", "/v1/people", {"id": "x", "name": "X", "roles": ["croupier"]}, TECH).status == 400
    assert table.call("POST", "/v1/people", {"id": "y", "name": "Y", "roles": ["dealer"], "badge": "8",
                                             "pin": "12"}, TECH).status == 400  # fmt: skip
    dup = table.call("POST", "/v1/people", {"id": "z", "name": "Z", "roles": ["dealer"], "badge": "1001",
                                            "pin": "1234"}, TECH)  # fmt: skip
    assert dup.status == 409 and dup.error["code"] == "badge-taken"
    assert table.call("POST", "/v1/people", {"id": "d-101", "name": "Again", "roles": ["dealer"]}, TECH).status == 409
    refused = table.people()[len(before) :]  # the dealer's attempt, journaled as refused; the rest changed nothing
    dana = {"id": "d-101", "name": "Dana Dealer"}
    assert refused == [{"action": "change-refused", "operation": "add", "employee_id": "x", "roles": [],
                        "reason": "no-authority", "via": "session", "by": dana}]  # fmt: skip
    assert table.call("GET", "/v1/people", token=DEALER_CONFIG).status == 403
    listed = table.ok("GET", "/v1/people", token=TECH)["employees"]
    assert [e["id"] for e in listed] == ["d-101", "f-201"]
    assert all("pin" not in str(e) for e in listed)
    floor = table.sign_in("2001", "8765")
    own = table.call("POST", "/v1/people/reset-pin", {"id": "f-201", "pin": "1111"}, floor)
    assert own.status == 403


def test_no_pin_or_token_is_in_the_store_or_the_journal_in_clear(table: Table) -> None:
    table.add("d-101", "Dana Dealer", ["dealer"], "1001", "4321")
    issued = table.ok("POST", "/v1/people/tokens", {"id": "d-101", "label": "tablet"}, TECH)
    session = table.sign_in("1001", "4321")
    store = table.server.auth.people
    assert store is not None
    with sqlite3.connect(store.store.path) as db:
        rows = db.execute("SELECT pin_hash FROM employees").fetchall()
        dump = "\n".join(db.iterdump())
    assert rows[0][0].startswith("scrypt$16384$8$1$")
    for secret in ("4321", issued["token"], session):
        assert secret not in dump
    journal_text = str([e.data for e in table.entries()])
    for secret in ("4321", issued["token"], session, "1001"):
        assert secret not in journal_text


def test_an_abandoned_session_is_journaled_as_idle_by_the_next_sign_in(make_table: Callable[..., Table]) -> None:
    table = make_table(session_idle=0.3)
    _dealer_and_floor(table)
    table.sign_in("1001", "4321")  # never used again: the tablet was put down
    time.sleep(0.5)
    table.sign_in("2001", "8765")
    assert [(e["employee_id"], e["reason"]) for e in table.people("signed-out")] == [("d-101", "idle")]
