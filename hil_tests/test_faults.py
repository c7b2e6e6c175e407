"""Fault recovery on the target: a jam, the door opened, an unreadable card, the cable pulled (between two
stacks and in the middle of one) and corrupted bytes. On the emulator the bench injects each fault itself;
on hardware the operator is asked to (``--operator``), or the test is skipped with the reason.

Each test ends with zero double dispenses and zero lost card events, counted as in
tests/drivers/test_reliability.py, from what a real shoe shows as well as the emulator:

- double dispenses = cards the shoe counted into the tray (COUNTERS) - cards delivered to the host in stacks;
- lost card events = cards delivered in stacks - distinct card-read events delivered to subscribers.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import pytest

from drivers.errors import ShoeFault, ShoeTimeout
from drivers.notices import LinkLost, LinkRestored
from drivers.stacks import DispenseFailed, Stack
from hil_tests.bench import Connection, Target
from hil_tests.report import FaultRecord, Report
from protocols import messages as m
from protocols.codes import FaultCode, ReadStatus

COUNTER_READS = 5
"""How often the tally asks for the shoe's counters before it gives up: each ask is a whole request with the
link's re-sends, and at 1% corrupted bytes all four tries of one ask are lost about once in twenty asks."""


def read_counters(conn: Connection) -> m.Counters:
    """The shoe's counters, asked again while the answers are lost: GET_COUNTERS changes nothing on the shoe, and
    a lost answer is the fault under test, not a reason to fail the tally that measures it."""
    for _ in range(COUNTER_READS - 1):
        try:
            return conn.client.counters()
        except ShoeTimeout:
            continue
    return conn.client.counters()


@dataclass
class Tally:
    """What the host was given, to be balanced against the shoe's counters at the end."""

    conn: Connection
    before: m.Counters
    delivered: list[tuple[int, int]] = field(default_factory=list)

    @classmethod
    def start(cls, conn: Connection) -> Tally:
        return cls(conn, read_counters(conn))

    def stack(self, stack: Stack) -> Stack:
        self.delivered += [(stack.dispense_id, p) for p in range(1, len(stack.cards) + 1)]
        return stack

    def failed(self, error: DispenseFailed) -> None:
        self.delivered += [(error.dispense_id, p) for p in range(1, len(error.cards) + 1)]

    def reads(self) -> set[tuple[int, int]]:
        return {(e.dispense_id, e.position) for e in self.conn.events(m.CardReadEvent)}

    def balance(self, record: FaultRecord) -> m.Counters:
        """Fill ``record`` and assert that nothing was dispensed twice and no card event was lost."""
        self.conn.wait_for(lambda: set(self.delivered) <= self.reads(), 5.0)  # re-sent events may trail
        after = read_counters(self.conn)
        record.double_dispenses = (after.cards - self.before.cards) - len(self.delivered)
        record.lost_card_events = len(set(self.delivered) - self.reads())
        numbers = [e.event_no for e in self.conn.received if isinstance(e, m.Event)]
        assert len(numbers) == len(set(numbers)), "an event was delivered twice"
        assert (record.double_dispenses, record.lost_card_events) == (0, 0)
        return after


def deal(target: Target, conn: Connection, tally: Tally, size: int = 2) -> Stack:
    stack = tally.stack(conn.client.dispense(size))
    target.await_taken(conn, stack.dispense_id)
    return stack


@pytest.mark.destructive
@pytest.mark.needs("fault_injection")
def test_a_jam_fails_the_stack_until_cleared(target: Target, hil_report: Report) -> None:
    by = target.arrange({"jam_at": "4"}, "put the jam test card 4th from the top of a full shuffled deck")
    with hil_report.fault("jam", by) as record, target.connect() as conn:
        tally = Tally.start(conn)
        deal(target, conn, tally)
        with pytest.raises(DispenseFailed) as err:
            conn.client.dispense(2)
        assert err.value.code is FaultCode.JAM and err.value.hint
        assert len(err.value.cards) == 1, "the card before the jam reached the tray"
        tally.failed(err.value)
        target.await_taken(conn, err.value.dispense_id)
        assert conn.client.status().faults & FaultCode.JAM.flag
        with pytest.raises(ShoeFault):
            conn.client.dispense(2)
        target.attend("clear the jam: take the jammed card out of the feeder, close the door")
        conn.client.clear_fault()
        assert conn.client.status().faults == 0
        deal(target, conn, tally)
        after = tally.balance(record)
        assert after.jams - tally.before.jams == 1


def test_an_open_door_refuses_to_deal_until_closed(target: Target, hil_report: Report) -> None:
    with target.connect() as conn:
        tally = Tally.start(conn)
        by = target.set_door(True)
        with hil_report.fault("door open", by) as record:
            assert conn.wait_for(lambda: FaultCode.DOOR_OPEN in [e.code for e in conn.events(m.FaultRaised)], 5.0)
            with pytest.raises(ShoeFault) as err:
                conn.client.dispense(2)
            assert err.value.code is FaultCode.DOOR_OPEN and "door" in err.value.hint
            target.set_door(False)
            assert conn.wait_for(lambda: FaultCode.DOOR_OPEN in [e.code for e in conn.events(m.FaultCleared)], 5.0)
            deal(target, conn, tally)
            after = tally.balance(record)
            assert after.cards - tally.before.cards == 2, "no card moved while the door was open"


@pytest.mark.needs("fault_injection")
def test_an_unreadable_card_is_delivered_with_its_reason(target: Target, hil_report: Report) -> None:
    by = target.arrange({"unreadable_at": "2"}, "put the smudged test card 2nd from the top of a full shuffled deck")
    with hil_report.fault("unreadable card", by) as record, target.connect() as conn:
        tally = Tally.start(conn)
        stack = deal(target, conn, tally)
        assert stack.codes[0] is not None and stack.codes[1] is None and stack.unreadable == (2,)
        assert stack.cards[1].status is not ReadStatus.OK
        more = [deal(target, conn, tally) for _ in range(2)]
        assert all(None not in s.codes for s in more), "the cards after it read normally"
        after = tally.balance(record)
        stacks = [stack, *more]
        unreadable = sum(len(s.unreadable) for s in stacks)
        hil_report.reads(sum(len(s.cards) for s in stacks), unreadable, injected=1)  # the smudged card: not a misread
        record.detail = f"{unreadable} of {sum(len(s.cards) for s in stacks)} reads unreadable, 1 of them injected"
        assert after.misreads - tally.before.misreads == 1


@pytest.mark.destructive
@pytest.mark.needs("unplug")
def test_unplug_and_replug_between_two_stacks(target: Target, hil_report: Report) -> None:
    with target.connect() as conn:
        tally = Tally.start(conn)
        first = deal(target, conn, tally)
        by = target.unplug_replug()
        with hil_report.fault("unplug between stacks", by) as record:
            second = deal(target, conn, tally)  # waits for the link, resynchronises, then deals
            assert second.dispense_id == first.dispense_id + 1
            assert conn.events(LinkLost) and conn.events(LinkRestored)
            tally.balance(record)


@pytest.mark.destructive
@pytest.mark.needs("unplug")
def test_unplug_in_the_middle_of_a_stack(target: Target, hil_report: Report) -> None:
    target.arrange({"timing": "realistic"}, "")  # 0.25 s a card: a 4-card stack takes a second
    with target.connect() as conn:
        tally = Tally.start(conn)
        results: list[Stack | BaseException] = []

        def dispense() -> None:
            try:
                results.append(conn.client.dispense(4))
            except BaseException as exc:  # reported by the main thread
                results.append(exc)

        dealer = threading.Thread(target=dispense, name="hil-dispense")
        dealer.start()
        assert conn.wait_for(lambda: bool(conn.events(m.CardReadEvent)), 10.0), "the first card never came"
        by = target.unplug_replug()
        with hil_report.fault("unplug mid-stack", by) as record:
            dealer.join(timeout=60)
            assert results and isinstance(results[0], Stack), results
            stack = tally.stack(results[0])
            target.await_taken(conn, stack.dispense_id)
            assert len(stack.cards) == 4
            deal(target, conn, tally)
            tally.balance(record)
            assert conn.client.link.stats.link_losses >= 1


@pytest.mark.destructive
@pytest.mark.needs("line_impairment")
def test_corrupted_bytes_on_the_line(target: Target, hil_report: Report) -> None:
    by = target.arrange({"corrupt_rate": "0.01"}, "")
    with hil_report.fault("corrupted bytes (1%)", by) as record, target.connect() as conn:
        tally = Tally.start(conn)
        stacks = []
        for _ in range(12):
            started = time.monotonic()
            stacks.append(deal(target, conn, tally))
            hil_report.latency("ShoeClient dispense, 1% corrupt", time.monotonic() - started)
            hil_report.explain("ShoeClient dispense, 1% corrupt", "one per 2-card stack dealt with 1% of the bytes "
                               "corrupted: lost frames cost re-sends")  # fmt: skip
        tally.balance(record)
        dealt = [c for s in stacks for c in s.codes]
        assert len(set(dealt)) == len(dealt), "a card came out twice"
        assert conn.client.link.stats.bad_frames > 0, "the impairment must actually have hit frames"
        record.detail = f"{conn.client.link.stats.bad_frames} bad frames, {conn.client.link.stats.retries} re-sends"
