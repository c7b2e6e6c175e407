"""The journal under attack, through the real ``shoed`` process.

- A lone surrogate in a request (sent as a raw JSON escape, so it arrives whatever the HTTP edge
  checks): the action is refused, the round stays as the journal has it, and the view is served.
- Two shoeds on one journal: the second exits 2 naming the first one's pid, and writes nothing.
- The write-ahead log deleted under a running shoed: the next write stops the service (exit 3) with
  the cause logged, every acknowledged entry is saved into the main file, and the restart has them.
- A journal deleted while the lock file remains: shoed refuses to begin a new one unless told.
"""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

from tests.e2e.conftest import Table
from tests.e2e.rounds_support import current
from tests.e2e.support import TOKENS, Proc, Reply, deck, free_port

NY_OPEN = {"game": "mississippi-stud", "jurisdiction": "NY", "table": {"min_ante": 100, "max_ante": 10_000},
           "seats": [{"seat": 1, "ante": 500}, {"seat": 3, "ante": 500}]}  # fmt: skip
# PA: seat 1 As Ks, seat 2 Jh Jd; the community Qs Js Ts gives seat 1 a royal flush (Progressive table A:
# the whole meter).
PA_DECK = deck("As", "Ks", "Jh", "Jd", "Qs", "Js", "Ts")
PA_SIDE = {"offered": ["progressive"], "progressive_table": "A"}
PA_TABLE = {"min_ante": 500, "max_ante": 50_000, "side": PA_SIDE}
PA_OPEN = {"game": "mississippi-stud", "jurisdiction": "PA", "table": PA_TABLE,
           "seats": [{"seat": 1, "ante": 500, "side": {"progressive": 100}}, {"seat": 2, "ante": 500}]}  # fmt: skip


def raw_post(table: Table, path: str, body: str, role: str = "dealer") -> Reply:
    """POST ``body`` exactly as written (``\\ud800`` stays a JSON escape on the wire)."""
    conn = http.client.HTTPConnection("127.0.0.1", table.api.port, timeout=30)
    try:
        headers = {"Authorization": f"Bearer {TOKENS[role]}", "Content-Type": "application/json"}
        conn.request("POST", path, body=body.encode("ascii"), headers=headers)
        response = conn.getresponse()
        raw = response.read()
    finally:
        conn.close()
    return Reply(response.status, json.loads(raw) if raw else None)


def test_a_void_with_a_lone_surrogate_cause_changes_nothing(e2e: Callable[..., Table]) -> None:
    table = e2e()
    api = table.api
    round_id = api.post("/v1/rounds", NY_OPEN)["round_id"]
    api.post("/v1/round/no-more-bets")
    api.post("/v1/round/deal")
    before = current(api)
    reply = raw_post(table, "/v1/round/void", '{"cause": "\\ud800"}')
    assert 400 <= reply.status < 500, reply  # refused as bad input, not a 500
    for role in TOKENS:  # the view is served to every role
        view = api.call("GET", "/v1/round", role=role)
        assert view.status == 200, (role, view)
    after = current(api)
    assert (after["state"], after["closed"]) == (before["state"], False), after
    assert not table.entries(round_id=round_id, kinds=("round-closed",))  # not voided behind the journal's back
    assert api.post("/v1/round/void", {"cause": "other"})["voided"] is True  # a plain void still works
    irregular = table.entries(round_id=round_id, kinds=("irregularity",))
    assert [e.data["action"] for e in irregular if e.data["action"] == "void"] == ["void"]
    assert [e.data["outcome"] for e in table.entries(round_id=round_id, kinds=("round-closed",))] == ["void"]
    table.verify_journal()


def test_a_meter_reading_the_journal_cannot_hold_is_never_paid(e2e: Callable[..., Table]) -> None:
    table = e2e(deck=PA_DECK)
    api = table.api
    round_id = api.post("/v1/rounds", PA_OPEN)["round_id"]
    for path, body in (("/v1/round/no-more-bets", None), ("/v1/round/progressive/lock", None),
                       ("/v1/round/progressive/chip-count", {"count": 1}), ("/v1/round/deal", None),
                       ("/v1/round/release-stub", None)):  # fmt: skip
        api.post(path, body)
    api.post("/v1/table-system/progressive-inputs", {"meters": {"meter": 1_000}}, role="table-system")
    reply = raw_post(table, "/v1/table-system/progressive-inputs",
                     '{"meters": {"meter": 99999999, "\\ud800": 1}}', role="table-system")  # fmt: skip
    assert 400 <= reply.status < 500, reply
    for street in range(3):
        while (seat := current(api)["next_to_decide"]) is not None:
            api.post("/v1/round/decisions", {"seat": seat, "multiple": 1})
        api.post("/v1/round/reveal", {"index": street + 1})
    lines = {line["seat"]: line for line in api.post("/v1/round/settle")["lines"]}
    progressive = next(s for s in lines[1]["side"] if s["bet"] == "progressive")
    assert progressive["paid"] == 1_000, progressive  # the reading the journal holds, not 99,999,999
    readings = [e.data for e in table.entries(round_id=round_id) if e.data.get("action") == "progressive-inputs"]
    assert len(readings) == 1 and "99999999" not in json.dumps(readings)
    table.verify_journal()


def second_shoed(table: Table, *extra: str) -> Proc:
    argv = [sys.executable, "-m", "shoe.shoed", "--config", str(table.config), "--port", str(table.link),
            "--journal", str(table.journal), "--http", f"127.0.0.1:{free_port()}", *extra]  # fmt: skip
    return Proc("shoed", argv, table.root / f"shoed-extra-{time.monotonic_ns()}.log")


def wait_exit(proc: Proc, timeout: float = 30.0) -> int:
    try:
        return proc.popen.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"the second shoed is still running after {timeout}s:\n{proc.tail()}") from None


def test_a_second_shoed_on_the_same_journal_exits_2_naming_the_holder(e2e: Callable[..., Table]) -> None:
    table = e2e()
    first = table.shoed.proc
    table.api.post("/v1/rounds", NY_OPEN)
    entries = len(table.entries())
    second = second_shoed(table)
    table.procs.append(second)
    assert wait_exit(second) == 2, second.tail()
    assert f"pid {first.pid}" in second.tail(), second.tail()
    assert len(table.entries()) == entries  # it wrote nothing: no start entry, no void
    assert first.alive()
    table.api.post("/v1/round/void", {"cause": "other"})
    table.verify_journal()


def test_a_deleted_wal_stops_shoed_and_loses_no_acknowledged_entry(e2e: Callable[..., Table]) -> None:
    table = e2e()
    api = table.api
    for _ in range(3):  # closed rounds: checkpointed into the main file at each close
        api.post("/v1/rounds", NY_OPEN)
        api.post("/v1/round/void", {"cause": "other"})
    live = api.post("/v1/rounds", NY_OPEN)["round_id"]  # acknowledged since the last checkpoint: only in the WAL
    acknowledged = api.post("/v1/round/no-more-bets")["cursor"]
    os.unlink(table.journal.with_name(table.journal.name + "-wal"))
    reply = api.call("POST", "/v1/round/void", {"cause": "other"})  # the next write
    assert reply.status == 503 and reply.code == "journal-error", reply
    assert "write-ahead log" in reply.body["error"]["message"]
    rc = table.shoed.proc.popen.wait(timeout=30)
    assert rc == 3, table.shoed.proc.tail()
    log = table.shoed.proc.log.read_text()
    assert "journal write failed" in log and "write-ahead log" in log and "deleted" in log
    entries = table.entries()
    assert entries[-1].seq >= acknowledged and [e.seq for e in entries] == list(range(1, len(entries) + 1))
    assert [e.kind for e in entries if e.round_id == live][:2] == ["round-opened", "decision"]  # saved
    table.verify_journal()
    table.shoed.start()  # the restart finds every entry (the lock file's marker agrees)
    assert len(table.entries()) > len(entries)


def test_a_missing_journal_is_never_silently_begun_again(e2e: Callable[..., Table]) -> None:
    table = e2e()
    table.api.post("/v1/rounds", NY_OPEN)
    table.api.post("/v1/round/void", {"cause": "other"})
    assert table.shoed.stop() == 0
    for suffix in ("", "-wal", "-shm"):
        table.journal.with_name(table.journal.name + suffix).unlink(missing_ok=True)
    refused = second_shoed(table)
    table.procs.append(refused)
    assert wait_exit(refused) == 1, refused.tail()
    assert "--new-journal" in refused.tail() and not table.journal.exists(), refused.tail()
    adopted = second_shoed(table, "--new-journal")  # told so: a new journal, the override journaled
    table.procs.append(adopted)
    deadline = time.monotonic() + 30
    while not table.journal.exists() or not table.entries():
        assert adopted.alive() and time.monotonic() < deadline, adopted.tail()
        time.sleep(0.1)
    start: dict[str, Any] = table.entries()[0].data
    assert start["event"] == "start" and start["new_journal"]["marker_last_seq"] > 0, start
