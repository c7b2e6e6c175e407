"""One driver contract, run against every backend: in-process, pty + pyserial, TCP, fake pyusb."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from drivers.errors import ShoeFault
from drivers.stacks import DispenseFailed
from protocols import messages as m
from protocols.codes import FaultCode, ReadStatus, ShoeState
from tests.drivers.conftest import Rig

DECK = ["As", "Kd", "7c", "2h", "Td", "9s", "3c", "4d", "5h", "6s", "Jc", "Qh"]
Factory = Callable[..., Rig]


def wait_for(predicate: Callable[[], bool], timeout: float = 3.0) -> bool:
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return predicate()


def test_identify_and_status(rig_factory: Factory, backend: str) -> None:
    rig = rig_factory(backend, seed=7)
    identity = rig.client.identify()
    assert identity.protocol_version == 1 and identity.serial == rig.shoe.config.serial
    status = rig.client.status()
    assert status.state is ShoeState.IDLE and status.cards_remaining == 52 and status.faults == 0


def test_stacks_come_in_deck_order_with_events(rig_factory: Factory, backend: str) -> None:
    rig = rig_factory(backend, deck=tuple(DECK))
    stacks = [rig.client.dispense(2) for _ in range(3)]
    assert [s.codes for s in stacks] == [("As", "Kd"), ("7c", "2h"), ("Td", "9s")]
    assert [s.dispense_id for s in stacks] == [1, 2, 3]
    assert wait_for(lambda: len(rig.events(m.StackTaken)) == 3)
    reads = rig.events(m.CardReadEvent)
    assert [(e.dispense_id, e.position, e.read.card) for e in reads] == [
        (1, 1, "As"), (1, 2, "Kd"), (2, 1, "7c"), (2, 2, "2h"), (3, 1, "Td"), (3, 2, "9s"),
    ]  # fmt: skip
    numbers = [e.event_no for e in rig.received if isinstance(e, m.Event)]
    assert numbers == sorted(set(numbers)), "events delivered in order, each once"


def test_single_card_stacks_for_stud(rig_factory: Factory, backend: str) -> None:
    rig = rig_factory(backend, deck=tuple(DECK))
    assert [rig.client.dispense(1).codes for _ in range(3)] == [("As",), ("Kd",), ("7c",)]


def test_counters_and_deck_check(rig_factory: Factory, backend: str) -> None:
    rig = rig_factory(backend, seed=3)
    deck = rig.client.deck_check()
    assert deck.count == 52 and len(deck.present) == 52 and deck.duplicates == ()
    before = rig.client.counters()
    rig.client.dispense(2)
    after = rig.client.counters()
    assert (after.cards - before.cards, after.stacks - before.stacks) == (2, 1)


def test_stub_release_then_scan_in_order(rig_factory: Factory, backend: str) -> None:
    rig = rig_factory(backend, deck=tuple(DECK))
    rig.client.dispense(2)
    assert wait_for(lambda: len(rig.events(m.StackTaken)) == 1)
    assert rig.client.release_stub() == len(DECK) - 2
    assert [rig.client.scan(2.0).card for _ in range(3)] == ["7c", "2h", "Td"]


def test_self_test_passes(rig_factory: Factory, backend: str) -> None:
    rig = rig_factory(backend, seed=1)
    report = rig.client.self_test()
    assert report.passed and all(ok for _, ok in report.results)


def test_jam_fails_the_stack_and_clears(rig_factory: Factory, backend: str) -> None:
    rig = rig_factory(backend, deck=tuple(DECK), jam_at=4)
    rig.client.dispense(2)
    with pytest.raises(DispenseFailed) as err:
        rig.client.dispense(2)
    assert err.value.code is FaultCode.JAM and err.value.hint
    assert [r.card for r in err.value.cards] == ["7c"]
    assert rig.client.status().faults & FaultCode.JAM.flag
    with pytest.raises(ShoeFault):
        rig.client.dispense(2)
    rig.client.clear_fault()
    assert rig.client.status().faults == 0
    assert rig.client.dispense(2).dispense_id > 2


def test_unreadable_card_is_delivered_with_its_reason(rig_factory: Factory, backend: str) -> None:
    rig = rig_factory(backend, deck=tuple(DECK), unreadable_at=(2,))
    stack = rig.client.dispense(2)
    assert stack.codes == ("As", None) and stack.unreadable == (2,)
    assert stack.cards[1].status is not ReadStatus.OK


def test_door_open_refuses_dispense_with_a_hint(rig_factory: Factory, backend: str) -> None:
    rig = rig_factory(backend, seed=1, door_open=True)
    with pytest.raises(ShoeFault) as err:
        rig.client.dispense(2)
    assert err.value.code is FaultCode.DOOR_OPEN and "door" in err.value.hint
    assert rig.shoe.stats.cards_moved == 0


def test_event_log_reads_back_what_was_delivered(rig_factory: Factory, backend: str) -> None:
    rig = rig_factory(backend, deck=tuple(DECK))
    rig.client.dispense(2)
    assert wait_for(lambda: len(rig.events(m.StackTaken)) == 1)
    _boot, logged, _more = rig.client.event_log(1, 64)
    delivered = [e for e in rig.received if isinstance(e, m.Event)]
    assert logged[: len(delivered)] == delivered


def test_query_dispense_never_moves_a_card(rig_factory: Factory, backend: str) -> None:
    rig = rig_factory(backend, deck=tuple(DECK))
    stack = rig.client.dispense(2)
    moved = rig.shoe.stats.cards_moved
    report = rig.client.query_dispense(stack.dispense_id)
    assert report.phase.name == "COMPLETE" and tuple(r.card for r in report.cards) == stack.codes
    assert rig.client.query_dispense(stack.dispense_id + 5).phase.name == "UNKNOWN"
    assert rig.shoe.stats.cards_moved == moved
