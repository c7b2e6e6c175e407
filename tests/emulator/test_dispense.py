"""SPEC §6, dispensing exactly once: every rule of the shoe's side, each test naming its rule."""

from __future__ import annotations

import pytest

from drivers.emulator.timing import ManualClock
from protocols import messages as m
from protocols.cards import ALL_CODES
from protocols.codes import DispensePhase, FaultCode, NakCode, ReadStatus, ShoeState
from protocols.fields import CardRead
from tests.emulator import DECK, Factory, shoe_factory

new = pytest.fixture(shoe_factory)


def reads(*codes: str) -> tuple[CardRead, ...]:
    return tuple(CardRead(code) for code in codes)


def test_rule1_status_gives_the_highest_completed_or_failed_id_to_continue_above(new: Factory) -> None:
    _shoe, host = new(deck=DECK, jam_at=3)
    assert host.status().last_dispense_id == 0
    host.call(m.Dispense(4, 2), m.DispenseReport)
    assert host.status().last_dispense_id == 4
    host.call(m.Dispense(9, 2), m.DispenseReport)  # jams at card 3: FAILED still counts
    assert host.call(m.QueryDispense(9), m.DispenseReport).phase is DispensePhase.FAILED
    assert host.status().last_dispense_id == 9


def test_rule2_started_reply_comes_first_then_card_reads_then_stack_ready(new: Factory) -> None:
    shoe, host = new(deck=DECK)
    seq = host.send(m.Dispense(1, 3))
    received = host.pump(0.5)
    assert received[0] == m.DispenseReport(1, DispensePhase.STARTED, False, 0, ())
    assert host.responses == [(seq, received[0])]
    assert received[1:] == [
        m.CardReadEvent(1, 1, 1, CardRead("As")),
        m.CardReadEvent(2, 1, 2, CardRead("Kd")),
        m.CardReadEvent(3, 1, 3, CardRead("7c")),
        m.StackReady(4, 1, reads("As", "Kd", "7c")),
        m.StackTaken(5, 1),  # auto_take: the dealer takes the stack
    ]
    status = host.status()
    assert (status.last_dispense_id, status.active_dispense_id, status.cards_remaining) == (1, 0, 9)
    assert status.event_counter == 5
    counters = host.call(m.GetCounters(), m.Counters)
    assert (counters.cards, counters.stacks) == (3, 1)
    assert shoe.stats.cards_moved == 3 and shoe.stats.dispenses_started == 1


def test_rule2_stack_waits_in_the_tray_without_auto_take(new: Factory) -> None:
    shoe, host = new(deck=DECK, auto_take=False)
    host.call(m.Dispense(1, 2), m.DispenseReport)
    status = host.status()
    assert status.state is ShoeState.STACK_IN_TRAY and status.tray_occupied
    nak = host.nak(m.Dispense(2, 2))
    assert nak.code is NakCode.BAD_STATE and "tray" in nak.detail
    shoe.take_stack()
    host.pump()
    assert host.of(m.StackTaken) == [m.StackTaken(4, 1)]
    assert host.status().state is ShoeState.IDLE
    assert host.call(m.Dispense(2, 2), m.DispenseReport).phase is DispensePhase.STARTED


def test_rule2_take_delay_keeps_the_tray_occupied_for_a_while(new: Factory) -> None:
    clock = ManualClock()
    shoe, host = new(clock, deck=DECK, take_delay_s=1.0)
    host.call(m.Dispense(1, 1), m.DispenseReport)
    assert host.status().tray_occupied
    clock.advance(1.0)
    shoe.tick()
    host.pump()
    assert host.of(m.StackTaken) == [m.StackTaken(3, 1)]
    assert not host.status().tray_occupied


@pytest.mark.parametrize(("dispense_id", "cards"), [(1, 0), (1, 5), (0, 2)])
def test_rule2_bad_argument_for_cards_outside_1_to_4_or_id_0(new: Factory, dispense_id: int, cards: int) -> None:
    shoe, host = new(deck=DECK)
    assert host.nak(m.Dispense(dispense_id, cards)).code is NakCode.BAD_ARGUMENT
    assert shoe.stats.cards_moved == 0


def test_rule2_fault_active_while_a_blocking_fault_is_active(new: Factory) -> None:
    shoe, host = new(deck=DECK, door_open=True)
    nak = host.nak(m.Dispense(1, 2))
    assert nak.code is NakCode.FAULT_ACTIVE and "DOOR_OPEN" in nak.detail
    assert shoe.stats.cards_moved == 0


def test_rule2_bad_state_when_too_few_cards_remain(new: Factory) -> None:
    _shoe, host = new(deck=DECK[:3])
    nak = host.nak(m.Dispense(1, 4))
    assert nak.code is NakCode.BAD_STATE and "3 card(s) remain" in nak.detail
    assert host.call(m.Dispense(1, 3), m.DispenseReport).phase is DispensePhase.STARTED
    assert host.nak(m.Dispense(2, 1)).code is NakCode.BAD_STATE  # empty


def test_rule2_shoe_empty_mid_stack_when_the_shoe_cannot_count(new: Factory) -> None:
    _shoe, host = new(deck=DECK[:3], count_known=False)
    assert host.status().cards_remaining == 0xFFFF
    host.call(m.Dispense(1, 4), m.DispenseReport)
    host.pump()
    assert len(host.of(m.CardReadEvent)) == 3
    assert host.of(m.FaultRaised) == [m.FaultRaised(4, FaultCode.SHOE_EMPTY, 1)]
    report = host.call(m.QueryDispense(1), m.DispenseReport)
    assert report == m.DispenseReport(1, DispensePhase.FAILED, True, FaultCode.SHOE_EMPTY, reads(*DECK[:3]))
    assert host.status().faults == FaultCode.SHOE_EMPTY.flag


def test_rule2_refused_id_can_be_sent_again_later(new: Factory) -> None:
    shoe, host = new(deck=DECK, door_open=True)
    assert host.nak(m.Dispense(7, 2)).code is NakCode.FAULT_ACTIVE
    shoe.close_door()
    assert host.call(m.Dispense(7, 2), m.DispenseReport).phase is DispensePhase.STARTED


def test_rule3_active_id_answers_in_progress_with_the_cards_so_far(new: Factory) -> None:
    clock = ManualClock()
    shoe, host = new(clock, deck=DECK, timing="realistic")
    host.call(m.Dispense(1, 3), m.DispenseReport)
    clock.advance(0.25)
    shoe.tick()
    report = host.call(m.Dispense(1, 3), m.DispenseReport)
    assert report == m.DispenseReport(1, DispensePhase.IN_PROGRESS, False, 0, reads("As"))
    assert host.status().state is ShoeState.DISPENSING
    assert host.call(m.QueryDispense(1), m.DispenseReport).phase is DispensePhase.IN_PROGRESS
    nak = host.nak(m.Dispense(2, 1))  # a new id while one is active
    assert nak.code is NakCode.BAD_STATE
    assert shoe.stats.dispenses_started == 1 and shoe.stats.cards_moved == 1


def test_rule4_stored_id_replays_the_result_and_moves_no_card(new: Factory) -> None:
    shoe, host = new(deck=DECK)
    host.call(m.Dispense(1, 2), m.DispenseReport)
    moved = shoe.stats.cards_moved
    for _ in range(3):
        report = host.call(m.Dispense(1, 2), m.DispenseReport)
        assert report == m.DispenseReport(1, DispensePhase.COMPLETE, True, 0, reads("As", "Kd"))
    assert shoe.stats.cards_moved == moved
    assert shoe.stats.dispense_replays == 3
    assert host.call(m.GetCounters(), m.Counters).stacks == 1


def test_rule4_failed_dispense_replays_failed(new: Factory) -> None:
    shoe, host = new(deck=DECK, jam_at=2)
    host.call(m.Dispense(1, 3), m.DispenseReport)
    report = host.call(m.Dispense(1, 3), m.DispenseReport)
    assert report == m.DispenseReport(1, DispensePhase.FAILED, True, FaultCode.JAM, reads("As"))
    assert shoe.stats.cards_moved == 2  # As to the tray, Kd jammed; nothing more on the replay


def test_rule5_lower_unstored_id_is_stale(new: Factory) -> None:
    shoe, host = new(deck=DECK)
    host.call(m.Dispense(5, 1), m.DispenseReport)
    for stale in (3, 4):
        assert host.nak(m.Dispense(stale, 1)).code is NakCode.STALE_DISPENSE_ID
        assert host.nak(m.QueryDispense(stale)).code is NakCode.STALE_DISPENSE_ID
    assert shoe.stats.cards_moved == 1
    assert host.call(m.Dispense(6, 1), m.DispenseReport).phase is DispensePhase.STARTED


def test_rule6_query_never_starts_a_dispense(new: Factory) -> None:
    shoe, host = new(deck=DECK)
    assert host.call(m.QueryDispense(1), m.DispenseReport) == m.DispenseReport(1, DispensePhase.UNKNOWN, False, 0, ())
    assert host.call(m.QueryDispense(0), m.DispenseReport).phase is DispensePhase.UNKNOWN
    assert shoe.stats.cards_moved == 0 and host.events == []
    host.call(m.Dispense(1, 2), m.DispenseReport)
    assert host.call(m.QueryDispense(1), m.DispenseReport) == m.DispenseReport(
        1, DispensePhase.COMPLETE, True, 0, reads("As", "Kd")
    )
    assert host.call(m.QueryDispense(9), m.DispenseReport).phase is DispensePhase.UNKNOWN
    assert shoe.stats.cards_moved == 2


def test_rule2_results_are_non_volatile_and_at_least_64_are_kept(new: Factory) -> None:
    shoe, host = new(deck=ALL_CODES)
    for dispense_id in range(1, 71):
        if dispense_id % 52 == 1 and dispense_id > 1:
            host.call(m.ReleaseStub(), m.StubReleased)
            shoe.load(ALL_CODES)
        host.call(m.Dispense(dispense_id, 1), m.DispenseReport)
    shoe.power_cycle()
    host.events.clear()
    assert host.status().last_dispense_id == 70
    oldest = host.call(m.QueryDispense(1), m.DispenseReport)
    assert oldest == m.DispenseReport(1, DispensePhase.COMPLETE, True, 0, reads("2c"))
    assert host.call(m.Dispense(70, 1), m.DispenseReport).replayed


def test_rule2_dispense_cut_by_power_loss_is_stored_failed(new: Factory) -> None:
    clock = ManualClock()
    shoe, host = new(clock, deck=DECK, timing="realistic")
    host.call(m.Dispense(1, 3), m.DispenseReport)
    clock.advance(0.25)
    shoe.tick()
    shoe.power_cycle()
    report = host.call(m.QueryDispense(1), m.DispenseReport)
    assert report == m.DispenseReport(1, DispensePhase.FAILED, True, 0, reads("As"))
    status = host.status()
    assert (status.last_dispense_id, status.active_dispense_id) == (1, 0)
    clock.advance(5)
    shoe.tick()
    assert shoe.stats.cards_moved == 1  # the cut stack does not resume after the reboot


def test_unreadable_card_is_delivered_and_raises_unreadable_after_stack_ready(new: Factory) -> None:
    _shoe, host = new(deck=DECK, unreadable_at=(2,))
    host.call(m.Dispense(1, 3), m.DispenseReport)
    host.pump()
    smudged = CardRead(None, ReadStatus.SMUDGED)
    assert [e.read for e in host.of(m.CardReadEvent)] == [CardRead("As"), smudged, CardRead("7c")]
    kinds = [type(e).__name__ for e in host.events]
    assert kinds == ["CardReadEvent"] * 3 + ["StackReady", "FaultRaised", "StackTaken"]
    assert host.of(m.FaultRaised) == [m.FaultRaised(5, FaultCode.UNREADABLE_CARD, 1)]
    status = host.status()
    assert status.faults == FaultCode.UNREADABLE_CARD.flag and status.state is ShoeState.IDLE
    assert host.call(m.GetCounters(), m.Counters).misreads == 1
    # UNREADABLE_CARD does not block: what to do is the controller's rule
    assert host.call(m.Dispense(2, 1), m.DispenseReport).phase is DispensePhase.STARTED


def test_unreadable_rate_is_seeded_and_reproducible(new: Factory) -> None:
    _a, first = new(seed=3, unreadable_rate=0.3)
    _b, second = new(seed=3, unreadable_rate=0.3)
    one = first.call(m.DeckCheck(), m.DeckReport)
    two = second.call(m.DeckCheck(), m.DeckReport)
    assert one == two and 5 < one.unreadable < 30
