"""``shoectl users`` as a real process against a real service's HTTP API."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from tests.people.conftest import TECH, Table


def shoectl(table: Table, *argv: str, token: str | None = TECH, stdin: str = "") -> subprocess.CompletedProcess[str]:
    host, port = table.server.address
    env = {**os.environ, "SHOED_TOKEN": token or ""}
    return subprocess.run(
        [sys.executable, "-m", "shoe.cli.main", "--json", "users", "--http", f"{host}:{port}", *argv],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )


def doc(done: subprocess.CompletedProcess[str]) -> Any:
    assert done.returncode == 0, (done.returncode, done.stdout, done.stderr)
    return json.loads(done.stdout)


def test_users_add_list_disable_reset_pin_and_tokens(table: Table) -> None:
    added = doc(
        shoectl(table, "add", "d-101", "--name", "Dana Dealer", "--roles", "dealer", "--badge", "1001", stdin="4321\n")
    )
    assert added["employee"]["id"] == "d-101"
    assert table.sign_in("1001", "4321").startswith("shoe_s_")
    doc(shoectl(table, "add", "sys-1", "--name", "Table system", "--roles", "table-system"))
    listed = doc(shoectl(table, "list"))
    assert [e["id"] for e in listed["employees"]] == ["d-101", "sys-1"]
    issued = doc(shoectl(table, "tokens", "sys-1", "--issue", "tgs"))
    assert issued["token"].startswith("shoe_t_")
    assert [t["label"] for t in doc(shoectl(table, "tokens", "sys-1"))["tokens"]] == ["tgs"]
    doc(shoectl(table, "tokens", "--revoke", issued["token_id"]))
    doc(shoectl(table, "disable", "d-101"))
    assert table.call("POST", "/v1/sessions", {"badge": "1001", "pin": "4321"}).status == 401  # disabled
    doc(shoectl(table, "enable", "d-101"))
    doc(shoectl(table, "reset-pin", "d-101", stdin="2468\n"))
    assert table.sign_in("1001", "2468").startswith("shoe_s_")
    actions = [e["action"] for e in table.people()]
    assert actions[:3] == ["employee-added", "signed-in", "employee-added"]
    assert {"token-issued", "token-revoked", "employee-disabled", "employee-enabled", "pin-reset"} <= set(actions)


def test_users_refusals_exit_with_the_servers_message_and_change_nothing(table: Table) -> None:
    denied = shoectl(table, "list", token=None)
    assert denied.returncode == 2 and "unauthorized" in denied.stderr and "SHOED_TOKEN" in denied.stderr
    bad = shoectl(table, "add", "x", "--name", "X", "--roles", "croupier")
    assert bad.returncode == 2 and "bad-request" in json.loads(bad.stdout)["error"]["message"]
    gone = shoectl(table, "disable", "nobody")
    assert gone.returncode == 2 and "unknown-employee" in gone.stderr
    assert table.people() == []
    host = table.server.address[0]
    down = subprocess.run(
        [sys.executable, "-m", "shoe.cli.main", "users", "--http", f"{host}:1", "list"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert down.returncode == 3 and "cannot be reached" in down.stderr
