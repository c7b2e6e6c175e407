"""A boot id has one form wherever a person or a client reads it: 8 lower-case hex
digits, as the API's shoe status and ``shoectl status`` show it. The journal keeps the shoe's integer
(a stable data format, docs/journal.md "Stored forms and shown forms"); log lines and events convert.
Through the real service, journal and emulated shoe."""

from __future__ import annotations

import io
import json
import re
import time
from typing import Any

from shoe import logsetup
from shoe.service.journal.secrecy import project

HEX = re.compile(r"[0-9a-f]{8}")


def test_log_lines_and_events_show_the_boot_id_in_hex_and_the_journal_keeps_the_integer(table_factory: Any) -> None:
    log = io.StringIO()
    logsetup.configure("info", json_lines=True, stream=log)
    table = table_factory()
    service = table.start()
    boot = table.shoe.boot_id
    shown = f"{boot:08x}"

    deadline = time.monotonic() + 10.0  # the shoe connects after start: wait for its resync entry
    while not (stored := [e.data["boot_id"] for e in table.entries() if "boot_id" in e.data]):
        assert time.monotonic() < deadline, "the service never journaled the shoe's boot"
        time.sleep(0.02)
    assert stored and all(value == boot for value in stored)  # the journal: the integer, as always
    while shown not in log.getvalue():  # the resync's log line may follow its journal entry (a loaded machine)
        assert time.monotonic() < deadline, "no log line named the shoe's boot"
        time.sleep(0.02)

    _, events = service.events_since(0, 0.0)
    with_boot = [e for e in events if "boot_id" in e]
    assert with_boot and all(e["boot_id"] == shown for e in with_boot), with_boot

    lines = [json.loads(line) for line in log.getvalue().splitlines() if "boot_id" in line]
    assert lines and all(HEX.fullmatch(line["boot_id"]) for line in lines), lines
    assert any(line["boot_id"] == shown for line in lines)
    assert str(boot) not in log.getvalue()


def test_a_reboot_event_names_both_boots_in_hex() -> None:
    data = {"event": "rebooted", "old_boot_id": 3154970348, "new_boot_id": 7}
    (event,) = project(5, "2026-12-01T09:13:03Z", "link", None, data)
    assert (event["type"], event["old_boot_id"], event["new_boot_id"]) == ("shoe-rebooted", "bc0d06ec", "00000007")


def test_a_reveal_record_in_an_event_counts_community_cards_from_one() -> None:
    record = {"type": "RevealRecord", "kind": "reveal", "index": 0, "card": "3c", "rule": "NY 5324.38(e)(2)"}
    (event,) = project(9, "2026-12-01T09:13:03Z", "decision", "R-1", {"action": "void-check", "record": record})
    assert event["record"]["index"] == 1
