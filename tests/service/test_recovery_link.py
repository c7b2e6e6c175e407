"""Pulled cables and failed journal writes: the round pauses, resumes or stops; no card is dealt twice and no
acknowledged record is lost."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from shoe.journal import Journal, JournalError
from shoe.service import ServiceConfig, ServiceError
from shoe.service.errors import ErrorKind
from tests.service.conftest import FAST, OBS, D, Table, finish_streets
from tests.service.recovery_support import OPEN, irregularities, pty_table_at, state_of, wait_until


@pytest.fixture
def pty_table(tmp_path: Path) -> Iterator[Table]:
    """The emulated shoe on a pseudo-terminal, opened by the service through real pyserial."""
    yield from pty_table_at(tmp_path)


@pytest.mark.parametrize("backend", ["emu", "pty"])
def test_unplug_pauses_then_reconnect_resumes(
    backend: str, table_factory: Callable[..., Table], pty_table: Table
) -> None:
    table = pty_table if backend == "pty" else table_factory()
    service = table.start()
    service.submit("open-round", OPEN, D)
    service.submit("no-more-bets", {}, D)
    service.submit("deal", {}, D)
    table.shoe.unplug()
    wait_until(lambda: state_of(service) == "paused")
    assert service.health()["shoe"]["link"] in ("reconnecting", "down")
    with pytest.raises(ServiceError) as refused:
        service.submit("release-stub", {}, D)
    assert refused.value.code == "paused"
    table.shoe.replug()
    wait_until(lambda: state_of(service) == "dealing-stacks")
    assert irregularities(table) == [("paused", "shoe-link-lost"), ("resumed", None)]
    links = [e.data["event"] for e in table.entries(kinds=("link",))]
    assert links[-3:] == ["lost", "restored", "resynced"]
    service.submit("release-stub", {}, D)
    finish_streets(service, {})
    assert state_of(service) == "complete" and table.shoe.stats.cards_moved == 6
    assert service.metrics_snapshot()["counters"]["reconnects_total"] >= 1
    assert service.health()["shoe"]["link"] == "up"


def test_unplug_during_a_deal_deals_every_stack_once(table_factory: Callable[..., Table]) -> None:
    table = table_factory(take_delay_s=0.05, timing="realistic")
    service = table.start()
    service.submit("open-round", {**OPEN, "seats": [{"seat": s, "ante": 500} for s in range(1, 7)]}, D)
    service.submit("no-more-bets", {}, D)

    def cable() -> None:
        wait_until(lambda: any(e.get("number") == 2 for e in service.events_since(0, 0)[1]))
        table.shoe.unplug()
        time.sleep(0.3)
        table.shoe.replug()

    puller = threading.Thread(target=cable)
    puller.start()
    try:
        reply = service.submit("deal", {}, D)
    except ServiceError as exc:  # the link was down for a whole dispense attempt: the round waits
        reply = {"paused": True, "code": exc.code}
    puller.join()
    wait_until(lambda: state_of(service) in ("dealing-stacks", "stub-counted"))
    if reply.get("paused") and service.round_view(OBS)["next_stack_seat"] is not None:  # type: ignore[index]
        service.submit("deal", {}, D)
    service.submit("release-stub", {}, D)
    assert state_of(service) == "third-street"
    assert table.shoe.stats.cards_moved == 12


def test_service_starts_with_the_shoe_unplugged_and_waits(table_factory: Callable[..., Table]) -> None:
    table = table_factory()
    first = table.start()
    first.submit("open-round", OPEN, D)
    first.submit("no-more-bets", {}, D)
    first.submit("deal", {}, D)
    first.kill()
    table.shoe.unplug()
    second = table.start()
    assert second.health()["shoe"]["link"] == "down" and state_of(second) == "paused"
    with pytest.raises(ServiceError) as refused:
        second.submit("release-stub", {}, D)
    assert refused.value.code == "paused"
    table.shoe.replug()
    wait_until(lambda: state_of(second) == "dealing-stacks")
    second.submit("release-stub", {}, D)
    assert table.shoe.stats.cards_moved == 6


def test_stud_hand_survives_a_restart(table_factory: Callable[..., Table]) -> None:
    table = table_factory()
    first = table.start()
    first.submit("open-round", {"game": "seven-card-stud", "seats": [1, 2],
                                "table": {"bring_in": 50, "small_bet": 100, "big_bet": 200}}, D)  # fmt: skip
    first.submit("deal", {}, D)
    seat = first.round_view(OBS)["bring_in_seat"]  # type: ignore[index]
    first.submit("stud-action", {"seat": seat, "action": "bring-in"}, D)
    first.kill()
    second = table.start()
    view = second.round_view(OBS)
    assert view is not None and view["state"] == "bet-3rd" and view["to_act"] == 3 - seat
    assert irregularities(table) == [("paused", "table-pc-restart"), ("resumed", None)]
    assert ServiceConfig is not None and FAST.scan == 2.0


def test_a_failed_journal_write_stops_the_service_and_loses_nothing_acknowledged(
    table_factory: Callable[..., Table], monkeypatch: pytest.MonkeyPatch
) -> None:
    table = table_factory()
    first = table.start()
    first.submit("open-round", OPEN, D)
    for action in ("no-more-bets", "deal", "release-stub"):
        first.submit(action, {}, D)
    original = Journal.write

    def full_disk(journal: Journal, batch: Any) -> Any:
        if any(p.data.get("action") == "decide" for p in batch):
            raise JournalError("disk full")
        return original(journal, batch)

    monkeypatch.setattr(Journal, "write", full_disk)
    with pytest.raises(ServiceError) as failed:
        first.submit("decide", {"seat": 1, "multiple": 3}, D)
    assert (failed.value.code, failed.value.kind) == ("journal-error", ErrorKind.UNAVAILABLE)
    wait_until(lambda: not first.responsive(float("inf")))
    with pytest.raises(ServiceError) as stopped:
        first.submit("decide", {"seat": 1, "multiple": 3}, D)
    assert stopped.value.code == "not-running"
    monkeypatch.setattr(Journal, "write", original)
    second = table.start()
    view = second.round_view(OBS)
    assert view is not None and view["next_to_decide"] == 1 and view["seats"]["1"]["bets"] == []


def test_a_paired_shoe_switched_off_at_start_is_waited_for_without_an_alarm(
    table_factory: Callable[..., Table],
) -> None:
    """A shoe that says nothing to HELLO is off, not a forger: the service retries, and deals once it is on.
    It used to raise a blocking "the shoe does not authenticate" alarm that refused rounds until a technician
    cleared it, for a shoe that was merely switched on after the table PC."""
    table = table_factory(drop_rate=1.0)  # every byte lost either way: the shoe is as good as off
    service = table.start()
    wait_until(lambda: service.health()["shoe"]["link"] == "down")
    time.sleep(5 * FAST.reconnect_max)  # several more attempts
    table.shoe.set_impairment(drop_rate=0.0)
    wait_until(lambda: service.health()["shoe"]["link"] == "up")
    alarms = [e.data["cause"] for e in table.entries(kinds=("fault",)) if e.data.get("event") == "alarm"]
    assert alarms == []
    service.submit("open-round", OPEN, D)  # not refused: no alarm waits for a technician
    assert state_of(service) != "void"
