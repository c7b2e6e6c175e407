"""The floor's refusal of this table's journal is journaled on the table too, once per refusal, by the owner
thread (the shipper never writes the journal), and the table keeps dealing ("raised as an alarm on
both sides")."""

from __future__ import annotations

import time
from collections.abc import Callable

from shoe.service.floor.watch import CAUSE
from tests.service.conftest import Table, play_ny


def floor_alarms(table: Table) -> list[str]:
    return [e.data["detail"] for e in table.entries() if e.kind == "fault" and e.data.get("cause") == CAUSE]


def until(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "not in time"
        time.sleep(0.05)


def test_each_new_refusal_is_one_fault_entry_and_rounds_go_on(table_factory: Callable[..., Table]) -> None:
    table = table_factory()
    service = table.start()
    alarm: list[str | None] = [None]
    service.attach_floor(lambda: {"state": "refused"}, lambda: alarm[0])
    time.sleep(0.6)  # ticks with no alarm journal nothing
    assert floor_alarms(table) == []
    alarm[0] = "fork at entry 5"
    until(lambda: len(floor_alarms(table)) == 1)
    time.sleep(0.6)  # the same refusal, tick after tick: still one entry
    assert floor_alarms(table) == ["the floor refuses this table's journal: fork at entry 5"]
    assert service.health()["floor"] == {"state": "refused"}
    play_ny(service, {1: 100})  # not blocking: the table's own journal is still the record of its play
    alarm[0] = "the journal was replaced"
    until(lambda: len(floor_alarms(table)) == 2)
    assert floor_alarms(table)[1].endswith("the journal was replaced")
