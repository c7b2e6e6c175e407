"""Failed sign-ins (docs/people.md, "Failed sign-ins"): one answer for every cause, back-off per client
and per badge instead of a lockout, and the journal's summary instead of one entry per attempt.

The attack as it was run: an anonymous client sent wrong PINs for every staff badge (five each locked
all four), and each refusal was a journal entry (117 in 7 s); the answers told an unknown badge from a
known one ("(4 tries left)") and a locked one (403). Here the flood comes from 127.0.0.2, the staff's
display from 127.0.0.1 (Linux routes all of 127/8 to loopback).
"""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from shoe.api.people_routes import FAILED_SIGN_IN_S
from tests.e2e.conftest import Table as E2ETable
from tests.e2e.support import TOKENS
from tests.people.conftest import TECH, Table
from tests.people.test_people_e2e import ok

ATTACKER, DISPLAY = "127.0.0.2", "127.0.0.1"
STAFF = (("d-1", "dealer", "1001"), ("f-1", "floorperson", "2001"), ("t-1", "technician", "3001"),
         ("s-1", "surveillance", "4001"))  # fmt: skip
PIN = "4321"


def sign_in(port: int, source: str, badge: str, pin: str) -> tuple[int, bytes, float]:
    """``POST /v1/sessions`` from the loopback address ``source``: status, body, seconds taken."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60, source_address=(source, 0))
    started = time.monotonic()
    try:
        body = json.dumps({"badge": badge, "pin": pin})
        conn.request("POST", "/v1/sessions", body, {"Content-Type": "application/json"})
        response = conn.getresponse()
        return response.status, response.read(), time.monotonic() - started
    finally:
        conn.close()


def test_an_anonymous_flood_locks_no_one_out_tells_no_one_exists_and_is_journaled_in_summary(
    e2e: Callable[..., E2ETable],
) -> None:
    table = e2e()
    port = table.api.port
    for eid, role, badge in STAFF:
        ok(table, "POST", "/v1/people", {"id": eid, "name": eid, "roles": [role], "badge": badge, "pin": PIN},
           TOKENS["technician"])  # fmt: skip
    before = len(table.entries(kinds=("people",)))
    tries = [(badge, f"{n:04d}") for _, _, badge in STAFF for n in range(8)]  # eight wrong PINs on each badge
    tries += [(f"9{n:03d}", "1234") for n in range(20)]  # and twenty badges nobody holds
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda t: sign_in(port, ATTACKER, *t), tries))
    assert {(status, body) for status, body, _ in answers} == {(401, answers[0][1])}, "answers tell causes apart"
    assert json.loads(answers[0][1])["error"]["message"] == "badge or PIN not recognised"
    assert min(seconds for _, _, seconds in answers) >= FAILED_SIGN_IN_S

    assert sign_in(port, ATTACKER, "1001", PIN)[:2] == (401, answers[0][1])  # the flooding client waits
    for _, _, badge in STAFF:  # the staff's display is not held back by it
        status, body, _ = sign_in(port, DISPLAY, badge, PIN)
        assert status == 201, body
    flood = [e.data for e in table.entries(kinds=("people",))[before:] if e.data["action"] != "signed-in"]
    # within the window: one entry per employee and one for every unknown badge, not one per try
    assert sorted((str(e["employee_id"]), e["part"], e["count"]) for e in flood) == sorted(
        [(eid, "first", 1) for eid, _, _ in STAFF] + [("None", "first", 1)]
    ), flood

    metrics = ok_text(port, "/metrics")
    assert 'shoe_api_sign_in_failures_total{cause="wrong-pin"}' in metrics
    assert 'shoe_api_sign_in_failures_total{cause="backed-off"}' in metrics
    assert table.shoed.stop() == 0  # a stopping shoed journals the counts of the windows still open
    summary = [e.data for e in table.entries(kinds=("people",))[before:] if e.data["action"] == "sign-in-failures"]
    assert sum(e["count"] for e in summary) == len(tries) + 1
    assert len(summary) <= 2 * (len(STAFF) + 1)
    assert all(e["client"] == ATTACKER for e in summary)
    assert not [e for e in table.entries(kinds=("people",)) if e.data["action"] in ("locked-out", "sign-in-refused")]
    table.verify_journal()


def ok_text(port: int, path: str) -> str:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path, headers={"Authorization": f"Bearer {TOKENS['technician']}"})
        response = conn.getresponse()
        assert response.status == 200
        return response.read().decode()
    finally:
        conn.close()


def test_every_cause_of_a_failed_sign_in_gets_the_same_bytes_no_sooner_than_the_others(
    make_table: Callable[..., Table],
) -> None:
    table = make_table(pin_tries=2)
    table.add("d-1", "Dana", ["dealer"], "1001", PIN)
    table.add("d-2", "Dora", ["dealer"], "1002", PIN)
    table.ok("POST", "/v1/people/disable", {"id": "d-2"}, TECH)
    port = table.server.address[1]
    causes = {
        "unknown badge": ("127.0.0.5", "9999", PIN),
        "wrong PIN": ("127.0.0.6", "1001", "0000"),
        "disabled, right PIN": ("127.0.0.7", "1002", PIN),
    }
    answers = {cause: sign_in(port, *args) for cause, args in causes.items()}
    for _ in range(3):
        sign_in(port, "127.0.0.8", "1001", "0000")
    answers["backed off, right PIN"] = sign_in(port, "127.0.0.8", "1001", PIN)
    assert len({(status, body) for status, body, _ in answers.values()}) == 1, answers
    assert all(seconds >= FAILED_SIGN_IN_S for _, _, seconds in answers.values()), answers
    reasons: dict[str, int] = {}
    for entry in table.people("sign-in-failures"):
        for reason, n in entry["reasons"].items():
            reasons[reason] = reasons.get(reason, 0) + n
    assert {"unknown-badge", "wrong-pin", "disabled"} <= set(reasons)
    assert table.people("sign-in-refused") == []
