"""RELEASE_STUB and SCAN (the stub's cards read in order), DECK_CHECK, loading a new deck."""

from __future__ import annotations

import time

import pytest

from drivers.emulator.timing import ManualClock
from protocols import messages as m
from protocols.cards import ALL_CODES
from protocols.codes import FaultCode, NakCode, ReadStatus, ShoeState
from protocols.fields import CardRead
from tests.emulator import DECK, Factory, shoe_factory

new = pytest.fixture(shoe_factory)


def test_release_stub_presents_the_rest_and_scan_reads_them_in_order(new: Factory) -> None:
    _shoe, host = new(deck=DECK, unreadable_at=(6,))
    host.call(m.Dispense(1, 4), m.DispenseReport)
    assert host.call(m.ReleaseStub(), m.StubReleased) == m.StubReleased(len(DECK) - 4)
    status = host.status()
    assert (status.state, status.cards_remaining) == (ShoeState.STUB_RELEASED, 0)
    scanned = [host.call(m.Scan(100), m.ScanResult).read for _ in DECK[4:]]
    expected = [CardRead(code) for code in DECK[4:]]
    expected[1] = CardRead(None, ReadStatus.SMUDGED)  # card 6 is unreadable, on the reader too
    assert scanned == expected
    assert host.call(m.GetCounters(), m.Counters).misreads == 1
    assert host.nak(m.ReleaseStub()).code is NakCode.BAD_STATE
    assert host.nak(m.Dispense(2, 1)).code is NakCode.BAD_STATE


def test_scan_with_nothing_to_read_waits_the_timeout_then_naks_bad_state(new: Factory) -> None:
    _shoe, host = new(deck=DECK[:1])
    host.call(m.ReleaseStub(), m.StubReleased)
    host.call(m.Scan(100), m.ScanResult)
    start = time.monotonic()
    nak = host.nak(m.Scan(150))
    assert time.monotonic() - start >= 0.14
    assert nak.code is NakCode.BAD_STATE and "150 ms" in nak.detail
    assert host.nak(m.Scan(0)).code is NakCode.BAD_STATE  # no wait at all


def test_scan_before_the_stub_is_released_is_refused_at_once(new: Factory) -> None:
    _shoe, host = new(deck=DECK)
    start = time.monotonic()
    assert host.nak(m.Scan(5000)).code is NakCode.BAD_STATE
    assert time.monotonic() - start < 1


def test_door_opened_while_scan_waits_ends_it_with_fault_active(new: Factory) -> None:
    clock = ManualClock()
    shoe, host = new(clock, deck=DECK[:1])
    host.call(m.ReleaseStub(), m.StubReleased)
    host.call(m.Scan(100), m.ScanResult)
    seq = host.send(m.Scan(1000))
    assert host.pump() == []
    shoe.open_door()
    reply = host.wait_response(seq)
    assert isinstance(reply, m.Nak) and reply.code is NakCode.FAULT_ACTIVE
    clock.advance(2)
    shoe.tick()  # the scan's own timeout no longer answers anything
    assert [r for r in host.pump() if not isinstance(r, m.Event)] == []


def test_realistic_scan_takes_time(new: Factory) -> None:
    clock = ManualClock()
    shoe, host = new(clock, deck=DECK[:2], timing="realistic")
    host.call(m.ReleaseStub(), m.StubReleased)
    seq = host.send(m.Scan(1000))
    clock.advance(0.29)
    shoe.tick()
    assert host.pump() == []
    clock.advance(0.02)
    shoe.tick()
    assert host.wait_response(seq) == m.ScanResult(CardRead(DECK[0]))


def test_load_after_the_stub_makes_the_shoe_idle_with_the_new_deck(new: Factory) -> None:
    shoe, host = new(deck=DECK)
    with pytest.raises(ValueError, match="release the stub"):
        shoe.load(ALL_CODES)
    host.call(m.ReleaseStub(), m.StubReleased)
    shoe.load(("2c", "3c"))
    status = host.status()
    assert (status.state, status.cards_remaining) == (ShoeState.IDLE, 2)
    host.call(m.Dispense(1, 2), m.DispenseReport)
    assert [r.card for r in host.call(m.QueryDispense(1), m.DispenseReport).cards] == ["2c", "3c"]
    with pytest.raises(ValueError, match="card 1"):
        shoe.load(("Zz",))


def test_load_clears_shoe_empty(new: Factory) -> None:
    shoe, host = new(deck=DECK[:1], count_known=False)
    host.call(m.Dispense(1, 2), m.DispenseReport)
    assert host.status().faults == FaultCode.SHOE_EMPTY.flag
    shoe.load(DECK)
    host.pump()
    assert host.events[-1] == m.FaultCleared(host.events[-1].event_no, FaultCode.SHOE_EMPTY)
    assert host.status().faults == 0


def test_deck_check_lists_identities_in_card_order_never_load_order(new: Factory) -> None:
    deck = ("As", "2c", "Kd", "2c", "7h", "As", "9s")
    _shoe, host = new(deck=deck, unreadable_at=(7,))
    report = host.call(m.DeckCheck(), m.DeckReport)
    assert report == m.DeckReport(7, ("2c", "7h", "Kd", "As"), ("2c", "As"), 1, "red")
    assert host.status().cards_remaining == 7  # nothing moved


def test_deck_check_of_a_seeded_full_deck(new: Factory) -> None:
    _shoe, host = new(seed=7)
    report = host.call(m.DeckCheck(), m.DeckReport)
    assert report == m.DeckReport(52, ALL_CODES, (), 0, "red")


def test_deck_check_needs_an_idle_shoe(new: Factory) -> None:
    shoe, host = new(deck=DECK, auto_take=False)
    host.call(m.Dispense(1, 1), m.DispenseReport)
    assert host.nak(m.DeckCheck()).code is NakCode.BAD_STATE  # tray occupied
    shoe.take_stack()
    shoe.open_door()
    assert host.nak(m.DeckCheck()).code is NakCode.FAULT_ACTIVE
    shoe.close_door()
    host.call(m.ReleaseStub(), m.StubReleased)
    assert host.nak(m.DeckCheck()).code is NakCode.BAD_STATE  # stub released
