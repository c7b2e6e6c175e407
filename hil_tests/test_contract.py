"""The driver contract against the target: the checks of tests/drivers/test_contract.py that hold on any
shoe, whatever its deck. Where the in-process suite knows the deck order, these check what a real shoe
can show: the cards that left the shoe (DECK_CHECK before and after) are the ones in the stacks, and
every card read arrives once, in order.
"""

from __future__ import annotations

import time

import pytest

from drivers.stacks import Stack
from hil_tests.bench import FEATURES, Connection, Target
from hil_tests.report import Report
from protocols import messages as m
from protocols.codes import Capability, ReadStatus, ShoeState


def deal(target: Target, conn: Connection, report: Report, size: int = 2) -> Stack:
    started = time.monotonic()
    stack = conn.client.dispense(size)
    report.latency("ShoeClient dispense", time.monotonic() - started)
    report.explain("ShoeClient dispense", "one per stack the contract tests dealt: DISPENSE sent to the stack back")
    target.await_taken(conn, stack.dispense_id)
    return stack


def card_reads(conn: Connection) -> list[tuple[int, int, str | None]]:
    return [(e.dispense_id, e.position, e.read.card) for e in conn.events(m.CardReadEvent)]


def test_identify_and_status(target: Target) -> None:
    with target.connect() as conn:
        identity = conn.client.identify()
        status = conn.client.status()
        authenticated = conn.client.authenticated
    assert identity.protocol_version == 1 and identity.serial and identity.firmware and identity.model
    # With a key (always on the emulator bench) every frame both ways is authenticated (SPEC §13).
    assert authenticated == (target.key is not None)
    claimed = [f for f in target.bench.features if FEATURES[f].capability is not None]
    lacking = [f for f in claimed if not identity.capabilities & (FEATURES[f].capability or Capability(0))]
    assert not lacking, f"the bench claims {lacking} but the shoe does not report them in IDENTIFY"
    assert status.state is ShoeState.IDLE and status.faults == 0 and not status.tray_occupied
    assert status.cards_remaining in (52, m.Status.UNKNOWN_REMAINING)


def test_stacks_arrive_with_their_card_reads_once_and_in_order(target: Target, hil_report: Report) -> None:
    with target.connect() as conn:
        stacks = [deal(target, conn, hil_report) for _ in range(3)]
        first = stacks[0].dispense_id
        assert [s.dispense_id for s in stacks] == [first, first + 1, first + 2]
        assert all(len(s.cards) == 2 for s in stacks)
        expected = [(s.dispense_id, p, c.card) for s in stacks for p, c in enumerate(s.cards, 1)]
        assert conn.wait_for(lambda: len(card_reads(conn)) >= len(expected), 3.0)
        assert card_reads(conn) == expected
        numbers = [e.event_no for e in conn.received if isinstance(e, m.Event)]
        assert numbers == sorted(set(numbers)), "events delivered in order, each once"
        dealt = [c for s in stacks for c in s.codes if c is not None]
        assert len(set(dealt)) == len(dealt), "a card identity came out twice"
        hil_report.reads(len(expected), sum(len(s.unreadable) for s in stacks))


def test_single_card_stacks_for_stud(target: Target, hil_report: Report) -> None:
    with target.connect() as conn:
        stacks = [deal(target, conn, hil_report, size=1) for _ in range(3)]
    assert [len(s.cards) for s in stacks] == [1, 1, 1]


def test_counters_follow_a_dispense(target: Target, hil_report: Report) -> None:
    with target.connect() as conn:
        before = conn.client.counters()
        deal(target, conn, hil_report)
        after = conn.client.counters()
    assert (after.cards - before.cards, after.stacks - before.stacks, after.jams - before.jams) == (2, 1, 0)


@pytest.mark.needs("deck_check")
def test_the_cards_that_left_the_shoe_are_the_ones_dealt(target: Target, hil_report: Report) -> None:
    with target.connect() as conn:
        before = conn.client.deck_check()
        assert before.count == 52 and before.duplicates == () and before.unreadable == 0, "load one whole deck"
        stacks = [deal(target, conn, hil_report) for _ in range(2)]
        after = conn.client.deck_check()
    dealt = {c for s in stacks for c in s.codes if c is not None}
    assert after.count == 48
    assert set(before.present) - set(after.present) == dealt


@pytest.mark.needs("scan")
def test_stub_release_then_scan_reads_the_stub(target: Target, hil_report: Report) -> None:
    with target.connect() as conn:
        stack = deal(target, conn, hil_report)
        assert conn.client.release_stub() == 50
        scanned = []
        for _ in range(3):
            started = time.monotonic()
            read = conn.client.scan(target.timeouts.scan)
            hil_report.latency("ShoeClient scan", time.monotonic() - started)
            hil_report.explain("ShoeClient scan", "one per stub card passed across the reader: SCAN to its read")
            scanned.append(read.card)
    assert None not in scanned and len(set(scanned)) == 3
    assert not set(scanned) & set(stack.codes), "a scanned stub card was also dealt"


@pytest.mark.needs("self_test")
def test_self_test_passes(target: Target) -> None:
    with target.connect() as conn:
        report = conn.client.self_test()
    assert report.passed and all(ok for _, ok in report.results)


@pytest.mark.needs("event_log")
def test_event_log_reads_back_what_was_delivered(target: Target, hil_report: Report) -> None:
    with target.connect() as conn:
        deal(target, conn, hil_report)
        delivered = [e for e in conn.received if isinstance(e, m.Event)]
        _boot, logged, _more = conn.client.event_log(delivered[0].event_no, 64)
    assert logged[: len(delivered)] == delivered


def test_query_dispense_never_moves_a_card(target: Target, hil_report: Report) -> None:
    with target.connect() as conn:
        stack = deal(target, conn, hil_report)
        before = conn.client.counters()
        report = conn.client.query_dispense(stack.dispense_id)
        assert report.phase.name == "COMPLETE" and tuple(r.card for r in report.cards) == stack.codes
        assert all(r.status is ReadStatus.OK or r.card is None for r in report.cards)
        assert conn.client.query_dispense(stack.dispense_id + 1000).phase.name == "UNKNOWN"
        after = conn.client.counters()
    assert (after.cards, after.stacks) == (before.cards, before.stacks)
