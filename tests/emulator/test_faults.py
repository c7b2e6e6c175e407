"""Every fault injection: jam, double feed, misfeed, door, tamper, internal error; CLEAR_FAULT; SELF_TEST."""

from __future__ import annotations

import pytest

from drivers.emulator.timing import ManualClock
from protocols import messages as m
from protocols.codes import DispensePhase, FaultCode, NakCode, SelfTestComponent, ShoeState
from protocols.fields import CardRead
from tests.emulator import DECK, Factory, shoe_factory

new = pytest.fixture(shoe_factory)


def test_jam_at_interrupts_the_stack_and_blocks_until_cleared(new: Factory) -> None:
    shoe, host = new(deck=DECK, jam_at=3)
    host.call(m.Dispense(1, 4), m.DispenseReport)
    host.pump()
    assert [e.read.card for e in host.of(m.CardReadEvent)] == ["As", "Kd"]
    assert host.of(m.FaultRaised) == [m.FaultRaised(3, FaultCode.JAM, 1)]
    assert not host.of(m.StackReady)
    assert host.of(m.StackTaken) == [m.StackTaken(4, 1)]  # the dealer clears the partial stack
    report = host.call(m.QueryDispense(1), m.DispenseReport)
    assert (report.phase, report.fault, len(report.cards)) == (DispensePhase.FAILED, FaultCode.JAM, 2)
    status = host.status()
    assert status.state is ShoeState.FAULT and status.faults == FaultCode.JAM.flag
    assert status.cards_remaining == len(DECK) - 3  # the technician removes the jammed card
    for request in (m.Dispense(2, 1), m.ReleaseStub(), m.Scan(0)):
        assert host.nak(request).code is NakCode.FAULT_ACTIVE
    assert host.call(m.ClearFault(FaultCode.JAM), m.Ok)
    host.pump()
    assert host.events[-1] == m.FaultCleared(5, FaultCode.JAM)
    counters = host.call(m.GetCounters(), m.Counters)
    assert (counters.jams, counters.cards, counters.stacks) == (1, 2, 0)
    host.call(m.Dispense(2, 1), m.DispenseReport)
    host.pump()
    assert host.of(m.StackReady)[-1].cards == (CardRead("2h"),)  # the others kept their order
    assert shoe.stats.cards_moved == 4


def test_jam_at_fires_once(new: Factory) -> None:
    _shoe, host = new(deck=DECK, jam_at=1)
    host.call(m.Dispense(1, 1), m.DispenseReport)
    host.call(m.ClearFault(0), m.Ok)
    host.call(m.Dispense(2, 1), m.DispenseReport)
    host.pump()
    assert host.of(m.StackReady) == [m.StackReady(4, 2, (CardRead("Kd"),))]


def test_inject_jam_next_feed_and_at_a_card_number(new: Factory) -> None:
    shoe, host = new(deck=DECK)
    shoe.inject_jam()
    host.call(m.Dispense(1, 2), m.DispenseReport)
    assert host.call(m.QueryDispense(1), m.DispenseReport).cards == ()
    host.call(m.ClearFault(0), m.Ok)
    shoe.inject_jam(at_card=4)  # "Kd" and "7c" are next; card 4 is "2h"
    host.call(m.Dispense(2, 3), m.DispenseReport)
    report = host.call(m.QueryDispense(2), m.DispenseReport)
    assert (report.phase, [r.card for r in report.cards]) == (DispensePhase.FAILED, ["Kd", "7c"])
    assert host.call(m.GetCounters(), m.Counters).jams == 2


def test_double_feed_puts_two_unread_cards_in_the_tray(new: Factory) -> None:
    shoe, host = new(deck=DECK, double_feed_at=2, auto_take=False)
    host.call(m.Dispense(1, 3), m.DispenseReport)
    host.pump()
    assert host.of(m.FaultRaised) == [m.FaultRaised(2, FaultCode.DOUBLE_FEED, 1)]
    report = host.call(m.QueryDispense(1), m.DispenseReport)
    assert (report.phase, report.fault, report.cards) == (
        DispensePhase.FAILED,
        FaultCode.DOUBLE_FEED,
        (CardRead("As"),),
    )
    status = host.status()
    assert status.tray_occupied and status.cards_remaining == len(DECK) - 3
    counters = host.call(m.GetCounters(), m.Counters)
    assert (counters.double_feeds, counters.cards) == (1, 3)
    shoe.take_stack()  # the technician takes the cards from the tray, then clears
    host.call(m.ClearFault(FaultCode.DOUBLE_FEED), m.Ok)
    assert host.status().state is ShoeState.IDLE
    assert shoe.stats.cards_moved == 3


def test_misfeed_moves_no_card(new: Factory) -> None:
    shoe, host = new(deck=DECK, misfeed_at=1)
    host.call(m.Dispense(1, 2), m.DispenseReport)
    report = host.call(m.QueryDispense(1), m.DispenseReport)
    assert (report.phase, report.fault, report.cards) == (DispensePhase.FAILED, FaultCode.MISFEED, ())
    assert shoe.stats.cards_moved == 0 and host.status().cards_remaining == len(DECK)
    assert host.call(m.GetCounters(), m.Counters).misfeeds == 1
    host.call(m.ClearFault(0), m.Ok)
    host.call(m.Dispense(2, 1), m.DispenseReport)
    assert host.call(m.QueryDispense(2), m.DispenseReport).cards == (CardRead("As"),)


def test_door_open_and_close_raise_and_clear_by_themselves(new: Factory) -> None:
    shoe, host = new(deck=DECK)
    shoe.open_door()
    status = host.status()
    assert status.door_open and status.state is ShoeState.FAULT
    nak = host.nak(m.ClearFault(FaultCode.DOOR_OPEN))
    assert nak.code is NakCode.BAD_STATE and "door" in nak.detail
    host.call(m.ClearFault(0), m.Ok)  # clears every clearable fault: not the door
    assert host.status().door_open
    shoe.close_door()
    host.pump()
    assert host.events == [m.FaultRaised(1, FaultCode.DOOR_OPEN, 0), m.FaultCleared(2, FaultCode.DOOR_OPEN)]
    assert host.status().state is ShoeState.IDLE


def test_door_open_at_start_is_announced_as_the_first_event(new: Factory) -> None:
    _shoe, host = new(deck=DECK, door_open=True)
    host.pump()
    assert host.events == [m.FaultRaised(1, FaultCode.DOOR_OPEN, 0)]


def test_door_opened_mid_stack_fails_the_dispense(new: Factory) -> None:
    clock = ManualClock()
    shoe, host = new(clock, deck=DECK, timing="realistic")
    host.call(m.Dispense(1, 3), m.DispenseReport)
    clock.advance(0.25)
    shoe.tick()
    shoe.open_door()
    clock.advance(1.0)
    shoe.tick()
    host.pump()
    assert host.unique(m.FaultRaised) == [m.FaultRaised(2, FaultCode.DOOR_OPEN, 1)]
    assert len(host.unique(m.CardReadEvent)) == 1
    report = host.call(m.QueryDispense(1), m.DispenseReport)
    assert (report.phase, report.fault, report.cards) == (DispensePhase.FAILED, FaultCode.DOOR_OPEN, (CardRead("As"),))
    assert shoe.stats.cards_moved == 1


def test_tamper_blocks_until_cleared(new: Factory) -> None:
    shoe, host = new(deck=DECK)
    shoe.inject_fault(FaultCode.TAMPER)
    assert host.nak(m.Dispense(1, 1)).code is NakCode.FAULT_ACTIVE
    report = host.call(m.SelfTest(), m.SelfTestReport)
    assert not report.passed and (SelfTestComponent.TRAY_SENSOR, False) in report.results
    host.call(m.ClearFault(FaultCode.TAMPER), m.Ok)
    assert host.call(m.SelfTest(), m.SelfTestReport).passed


def test_internal_error_clears_only_by_reset(new: Factory) -> None:
    shoe, host = new(deck=DECK)
    shoe.inject_fault(FaultCode.INTERNAL_ERROR)
    assert host.nak(m.ClearFault(FaultCode.INTERNAL_ERROR)).code is NakCode.BAD_STATE
    assert host.status().faults == FaultCode.INTERNAL_ERROR.flag
    host.call(m.Reset(), m.Ok)
    assert host.status().faults == 0


def test_faults_other_than_internal_error_survive_a_reboot_and_are_announced_again(new: Factory) -> None:
    shoe, host = new(deck=DECK, jam_at=1)
    host.call(m.Dispense(1, 1), m.DispenseReport)
    shoe.power_cycle()
    host.events.clear()
    host.pump()
    assert host.events == [m.FaultRaised(1, FaultCode.JAM, 0)]
    assert host.status().state is ShoeState.FAULT


def test_clear_fault_of_an_inactive_fault_is_ok_and_an_unknown_code_is_malformed(new: Factory) -> None:
    _shoe, host = new(deck=DECK)
    assert host.call(m.ClearFault(FaultCode.JAM), m.Ok)
    assert host.events == []
    assert host.nak(m.ClearFault(9)).code is NakCode.MALFORMED


def test_self_test_passes_on_a_healthy_shoe(new: Factory) -> None:
    _shoe, host = new(deck=DECK)
    report = host.call(m.SelfTest(), m.SelfTestReport)
    assert report.passed
    assert [c for c, _ in report.results] == list(SelfTestComponent)
