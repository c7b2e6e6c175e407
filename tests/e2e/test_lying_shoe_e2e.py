"""The real ``shoed`` and a shoe ahead of its journal: an alarm, never a fresh start.

Cards leave the shoe while ``shoed`` is stopped (``shoectl dispense`` on the same pseudo-terminal): at its
next start the shoe's last dispense id and card counter are ahead of the journal. ``shoed`` journals an
alarm and refuses to open rounds (409 ``shoe-alarm``) until a technician acknowledges it with
``clear-fault``.
"""

from __future__ import annotations

from collections.abc import Callable

from tests.e2e.conftest import Table
from tests.e2e.support import FULL_DECK

OPEN = {"game": "mississippi-stud", "jurisdiction": "NY", "table": {"min_ante": 100, "max_ante": 10_000},
        "seats": [{"seat": 1, "ante": 500}]}  # fmt: skip


def test_a_shoe_ahead_of_its_journal_refuses_rounds_until_acknowledged(e2e: Callable[..., Table]) -> None:
    table = e2e(host=True)
    table.api.post("/v1/maintenance/dispense", {"stacks": 1, "size": 2}, role="technician")
    assert table.shoed.stop() == 0
    done = table.shoectl("--port", str(table.link), "dispense", "--size", "2")
    assert done.returncode == 0, done.stderr
    table.shoed.start()

    alarms = [e.data for e in table.entries(kinds=("fault",)) if e.data.get("event") == "alarm"]
    assert [(a["cause"], a["blocking"]) for a in alarms] == [("shoe-ahead-of-journal", True)]
    refused = table.api.call("POST", "/v1/rounds", OPEN)
    assert (refused.status, refused.code) == (409, "shoe-alarm"), refused.body
    cleared = table.api.post("/v1/maintenance/clear-fault", {}, role="technician")
    assert cleared["acknowledged"] == "shoe-ahead-of-journal"
    table.api.post("/v1/round/release-stub", {})  # empty the shoe, then a fresh deck
    table.shoe.load(FULL_DECK)  # type: ignore[attr-defined]
    assert table.api.post("/v1/rounds", OPEN)["round_id"]
    table.verify_journal()
