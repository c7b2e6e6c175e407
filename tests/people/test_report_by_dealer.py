"""``shoectl report --by dealer``: a row per employee who dealt, from the journal's ``by``."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable

from tests.api.conftest import NY_SEATS
from tests.people.conftest import DEALER_CONFIG, Table
from tests.people.test_approvals import _streets


def _round(table: Table, token: str) -> None:
    table.ok("POST", "/v1/rounds", {"game": "mississippi-stud", "jurisdiction": "NY", "seats": NY_SEATS}, token)
    for step in ("no-more-bets", "deal", "release-stub"):
        table.ok("POST", f"/v1/round/{step}", {}, token)
    _streets(table, token)
    table.ok("POST", "/v1/round/settle", {}, token)
    for _ in range(50):  # the next deck (the emulator loads one after each stub), checked
        if table.ok("GET", "/v1/deck", token=token)["state"] == "checked":
            return
        time.sleep(0.1)


def test_report_groups_rounds_by_the_dealer_who_dealt_them(make_table: Callable[..., Table]) -> None:
    table = make_table(shoe_port="emu://?seed=7&autoload=1")
    table.add("d-101", "Dana Dealer", ["dealer"], "1001", "4321")
    _round(table, table.sign_in("1001", "4321"))
    _round(table, DEALER_CONFIG)
    journal = str(table.service.config.journal)
    done = subprocess.run([sys.executable, "-m", "shoe.cli.main", "--json", "report", "--journal", journal,
                           "--by", "dealer"], capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    keys = sorted(str(g["key"]) for g in doc["groups"])
    assert keys == ["Dana Dealer (d-101)", "no one signed in"], doc["groups"]
