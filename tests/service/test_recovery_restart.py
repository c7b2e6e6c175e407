"""Power cuts and restarts: the round is rebuilt from the journal, reconciled with the shoe, and resumed or
voided; no card is dealt twice and no acknowledged record is lost."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from drivers.client import ShoeClient
from drivers.emu_transport import EmulatorTransport
from drivers.errors import ShoeProtocolError
from protocols.codes import NakCode
from shoe.journal import Journal
from shoe.service import TableService
from shoe.service.api import actions
from tests.service.conftest import FAST, OBS, D, Table, finish_streets, smudge
from tests.service.powercut import card_of_stack, cut_power_during, decision, stack_ordered
from tests.service.recovery_support import OPEN, irregularities, pty_table_at, state_of


@pytest.fixture
def pty_table(tmp_path: Path) -> Iterator[Table]:
    """The emulated shoe on a pseudo-terminal, opened by the service through real pyserial."""
    yield from pty_table_at(tmp_path)


def test_restart_between_actions_resumes_the_round(pty_table: Table) -> None:
    first = pty_table.start()
    round_id = first.submit("open-round", OPEN, D)["round_id"]
    for action in ("no-more-bets", "deal", "release-stub"):
        first.submit(action, {}, D)
    first.submit("decide", {"seat": 1, "multiple": 2}, D)
    acknowledged = len(pty_table.entries())
    first.kill()  # a power cut: no stop entry

    second = pty_table.start()
    view = second.round_view(OBS)
    assert view is not None and view["round_id"] == round_id and view["state"] == "third-street"
    assert view["next_to_decide"] == 2 and view["seats"]["1"]["bets"] == [1000]
    assert irregularities(pty_table) == [("paused", "table-pc-restart"), ("resumed", None)]
    assert len(pty_table.entries()) > acknowledged
    finish_streets(second, {})
    assert state_of(second) == "complete"
    assert pty_table.shoe.stats.cards_moved == 6
    with Journal.open(pty_table.journal) as journal:
        assert journal.verify().ok


def _start_round(table: Table, *then: str) -> TableService:
    """Start a service on ``table``, open the round of ``OPEN``, then submit each action of ``then``."""
    service = table.start()
    service.submit("open-round", OPEN, D)
    for action in then:
        service.submit(action, {}, D)
    return service


@pytest.mark.parametrize("before_dispense", [False, True])
def test_power_cut_mid_deal_deals_no_card_twice(table_factory: Callable[..., Table], before_dispense: bool) -> None:
    table = table_factory()
    first = _start_round(table, "no-more-bets")
    cut = cut_power_during(first, "deal", stack_ordered(2) if before_dispense else card_of_stack(2))
    assert cut.code == "journal-error"
    moved = table.shoe.stats.cards_moved
    assert moved == (2 if before_dispense else 4)

    second = table.start()
    assert state_of(second) == "dealing-stacks"
    stacks = [e.data for e in table.entries(kinds=("decision",)) if e.data["action"] == "stack-dealt"]
    assert [s["seat"] for s in stacks] == ([1] if before_dispense else [1, 2])  # stack 2 read back from the shoe
    if not before_dispense:
        assert [e.data["event"] for e in table.entries(kinds=("link",))].count("stack-recovered") == 1
    second.submit("deal", {}, D)
    second.submit("release-stub", {}, D)
    assert table.shoe.stats.cards_moved == 6  # every stack once
    cards = [(e.data["seat"], e.data["dispense_id"]) for e in table.entries(kinds=("card",))]
    assert sorted(set(cards)) == [(1, 1), (2, 2), (4, 3)]


def test_power_cut_between_a_stacks_cards_recovers_the_rest_of_it_once(
    table_factory: Callable[..., Table], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The power goes after the first card entry of stack 2 was committed: the restart journals only its second
    card. A deal commits a stack's cards together (group commit), so the deal runs unbatched here: a journal
    can hold part of a stack (written by a release before group commit, or by a reconciliation)."""
    monkeypatch.setattr(actions, "batched", lambda owner, action: False)
    table = table_factory("As", "Ad", "Kh", "Kd")
    first = _start_round(table, "no-more-bets")
    cut_power_during(
        first, "deal", lambda kind, data: kind == "card" and (data.get("dispense_id"), data.get("position")) == (2, 2)
    )
    second = table.start()
    assert state_of(second) == "dealing-stacks"
    cards = [(e.data["dispense_id"], e.data["position"], e.data["index"], e.data["card"])
             for e in table.entries(kinds=("card",))]  # fmt: skip
    assert cards == [(1, 1, 1, "As"), (1, 2, 2, "Ad"), (2, 1, 3, "Kh"), (2, 2, 4, "Kd")]
    recovered = [e.data for e in table.entries(kinds=("link",)) if e.data["event"] == "stack-recovered"]
    assert [(r["dispense_id"], r["cards"], r["journaled"]) for r in recovered] == [(2, 2, 1)]
    second.submit("deal", {}, D)
    second.submit("release-stub", {}, D)
    assert state_of(second) == "third-street" and table.shoe.stats.cards_moved == 6


def test_restart_after_the_shoe_rebooted_recovers_the_stack_from_its_stored_result(
    table_factory: Callable[..., Table],
) -> None:
    table = table_factory()
    cut_power_during(_start_round(table, "no-more-bets"), "deal", card_of_stack(2))
    table.shoe.power_cycle()  # the event log is gone; QUERY_DISPENSE still answers from non-volatile memory
    second = table.start()
    assert state_of(second) == "dealing-stacks"
    assert [e.data["event"] for e in table.entries(kinds=("link",))].count("stack-recovered") == 1
    second.submit("deal", {}, D)
    second.submit("release-stub", {}, D)
    cards = [(e.data["seat"], e.data["dispense_id"]) for e in table.entries(kinds=("card",))]
    assert cards == [(1, 1), (1, 1), (2, 2), (2, 2), (4, 3), (4, 3)] and table.shoe.stats.cards_moved == 6


def test_restart_after_the_shoe_lost_its_log_and_cannot_report_the_stack_voids_the_round(
    table_factory: Callable[..., Table], monkeypatch: pytest.MonkeyPatch
) -> None:
    table = table_factory()
    cut_power_during(_start_round(table, "no-more-bets"), "deal", card_of_stack(2))

    def no_stored_result(client: ShoeClient, dispense_id: int) -> Any:
        raise ShoeProtocolError("QUERY_DISPENSE refused: NOT_SUPPORTED", nak=NakCode.NOT_SUPPORTED)

    monkeypatch.setattr(ShoeClient, "query_dispense", no_stored_result)  # then only the event log can tell
    table.shoe.power_cycle()  # ... and it is gone
    second = table.start()
    assert state_of(second) == "misdeal"
    closed = table.entries(kinds=("round-closed",))[-1].data
    assert closed["outcome"] == "void" and closed["cause"] == "shoe-link-unreconciled" and closed["returned"] == 2000


def test_restart_after_stacks_the_journal_never_recorded_voids_the_round(table_factory: Callable[..., Table]) -> None:
    table = table_factory()
    cut_power_during(_start_round(table, "no-more-bets"), "deal", card_of_stack(2))
    with ShoeClient.open_transport(EmulatorTransport(table.shoe), timeouts=FAST, key=table.key()) as other:
        other.dispense(2)  # someone else's stack: the shoe is now two ahead of the journal
    second = table.start()
    assert state_of(second) == "misdeal"
    void = [e.data for e in table.entries(kinds=("irregularity",)) if e.data["action"] == "void"][-1]
    assert void["cause"] == "shoe-link-unreconciled" and "2 stacks" in void["detail"]
    assert table.entries(kinds=("round-closed",))[-1].data["returned"] == 2000


def test_restart_between_the_stub_count_and_the_community_cards_deals_them(table_factory: Callable[..., Table]) -> None:
    table = table_factory()
    cut_power_during(_start_round(table, "no-more-bets", "deal"), "release-stub", decision("community-dealt"))
    second = table.start()
    assert state_of(second) == "third-street"
    steps = [e.data["action"] for e in table.entries(kinds=("decision",))]
    assert steps.count("release-stub") == 1 and steps.count("community-dealt") == 1
    finish_streets(second, {})
    assert state_of(second) == "complete" and table.shoe.stats.cards_moved == 6


def test_restart_after_the_shoe_released_the_stub_unjournaled_records_its_count(
    table_factory: Callable[..., Table],
) -> None:
    """The shoe presented the stub, the power went before the journal had the count: the shoe counted 52
    when the round opened and every card it dispensed since is journaled, so the count is 52 - 6."""
    table = table_factory()
    cut_power_during(_start_round(table, "no-more-bets", "deal"), "release-stub", decision("release-stub"))
    second = table.start()
    assert state_of(second) == "third-street"
    stub = [e.data for e in table.entries(kinds=("decision",)) if e.data["action"] == "release-stub"]
    assert [(s["count"], s["source"], s["record"]["type"]) for s in stub] == [(46, "reconciled", "StubRecord")]
    links = [e.data for e in table.entries(kinds=("link",)) if e.data["event"] == "stub-recovered"]
    assert [(x["count"], x["cards_at_open"], x["dispensed"]) for x in links] == [(46, 52, 6)]
    finish_streets(second, {})
    assert state_of(second) == "complete"


def test_a_stub_released_unjournaled_by_a_shoe_that_cannot_count_voids_the_round(
    table_factory: Callable[..., Table],
) -> None:
    table = table_factory(count_known=False)
    cut_power_during(_start_round(table, "no-more-bets", "deal"), "release-stub", decision("release-stub"))
    second = table.start()
    assert state_of(second) == "misdeal"
    void = [e.data for e in table.entries(kinds=("irregularity",)) if e.data["action"] == "void"][-1]
    assert void["cause"] == "shoe-link-unreconciled" and "stub count cannot be checked" in void["detail"]
    assert table.entries(kinds=("round-closed",))[-1].data["returned"] == 2000


def test_stud_power_cut_between_an_unreadable_card_and_the_void_journals_the_card_once(
    table_factory: Callable[..., Table],
) -> None:
    table = table_factory()
    first = table.start()
    smudge(table.shoe, 3)  # read at the deck check, not at the dispense
    first.submit("open-round", {"game": "seven-card-stud", "seats": [1, 2],
                                "table": {"bring_in": 50, "small_bet": 100, "big_bet": 200}}, D)  # fmt: skip
    cut_power_during(first, "deal", lambda kind, data: kind == "irregularity" and data.get("action") == "void")
    second = table.start()
    assert state_of(second) == "void"
    cards = [(e.data["dispense_id"], e.data["status"]) for e in table.entries(kinds=("card",))]
    assert cards == [(1, "ok"), (2, "ok"), (3, "smudged")]
    void = [e.data for e in table.entries(kinds=("irregularity",)) if e.data["action"] == "void"]
    assert [v["cause"] for v in void] == ["unreadable-card"]
    assert table.entries(kinds=("round-closed",))[-1].data["outcome"] == "void"
